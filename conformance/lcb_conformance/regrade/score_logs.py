"""`lcb-conformance score` on any format's log: lcb_runner's files to reports/score.py; another
harness's verdicts as eval_all rows through `report_on`, its problems named by position through
the regrade's guard; a log without verdicts per sample: the checks and no figure.

`lcb-conformance score RUN` on a finished run of any format run_formats reads: lcb_runner's
eval_all files go to reports/score.py as they are; any other harness's log (evalscope,
OpenCompass, lm-eval, lighteval) is read through its format's reader and scored the same way.

    lcb-conformance score RUN [--format auto|lcb_runner|evalscope|opencompass|lm-eval|
        lighteval] [--dataset PATH] [the options of reports/score.py]

A log whose samples carry the harness's own verdict (evalscope's score value, OpenCompass's
``correct`` in its results' details) becomes eval_all rows (graded_list: the verdicts in
sample order) and gets every figure and check of reports/score.py's ``report_on``: the
harness's verdicts aggregated as compute_scores and as the leaderboard do, the problem set
against the releases, the problems of the window missing or extra, the flags, a claim at its
precision. A log recording only a per-problem metric (lm-eval, lighteval) or no verdict at all
(OpenCompass without its results file) gets the problem-set checks and its metric averaged,
said to be no figure of either computation: never exit 0, a claim never held (exit 4, or 1
when a check fails).

A problem's date, difficulty and platform come from the log's own row (lm-eval's doc), else
from ``--dataset`` (the dataset the run read), else from the release manifests. A log naming
problems by their position in the dataset it read (evalscope, lighteval) needs ``--dataset``,
and the regrade's guard holds each position's statement to the prompt sent
(regrade.problems_of); a dataset whose file names are a release is checked against that
release's manifest first, as regrade does.

Exit codes: those of reports/score.py, and 4 the log records no verdict per sample (the
figures are not computed, a claim is not held).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from datetime import datetime
from pathlib import Path

from lcb_conformance import releases
from lcb_conformance.common import exit_codes, report_files, showdiff
from lcb_conformance.regrade import dataset as datasets
from lcb_conformance.regrade import regrade
from lcb_conformance.reports import run_lint, score, score_render
from lcb_conformance.reports.run_lint import Lint
from lcb_conformance.run_formats import registry
from lcb_conformance.run_formats.lcb_runner_files import CODE_GENERATION
from lcb_conformance.run_formats.samples import LogError
from lcb_prompts import score as scoring

NOT_COMPUTED = (
    "compute_scores' and the leaderboard's pass@1 are NOT COMPUTED: {reason}; both average "
    "verdicts per sample (a per-problem metric is not known to be passed/n), so no figure, "
    "per-difficulty column, pass@k or standard error is given and no claim is held"
)
COMPUTABLE = (
    "what is checked: the problem set against the releases, the problems of the scope the run "
    "lacks or holds beyond it; `lcb-conformance regrade RUN --dataset PATH` gives lcb_runner's "
    "number on the same outputs"
)
OWN_VERDICTS = (
    "the figures aggregate {name}'s own verdicts (its extraction, its judge), not lcb_runner's: "
    "`lcb-conformance regrade` re-grades them"
)


def parser():
    found = score.parser(
        "lcb_runner's eval_all JSON file, or another harness's log (" + registry.known() + ")"
    )
    found.add_argument(
        "--format",
        choices=("auto", *registry.formats()),
        default="auto",
        help="the run's log format (default: detected)",
    )
    found.add_argument(
        "--dataset",
        type=Path,
        metavar="PATH",
        help="the dataset the run read (code_generation_lite's JSONL files: a folder, a "
        "Hugging Face cache, or one JSON lines file of rows): names the problems of a log "
        "that numbers them (evalscope, lighteval) and dates the problems the log does not",
    )
    return found


def _format(args):
    """The run's format module; None for lcb_runner's files of every scenario (reports/score.py
    reads them)."""
    if args.format != "auto":
        chosen = registry.formats()[args.format]
    else:
        try:
            chosen = registry.detect(args.run)
        except LogError as error:
            if args.dataset is not None:  # a harness's log, unreadable: why, not --dataset's
                raise score.RunError(str(error)) from None
            return None  # score's own reader names what is wrong with the file
    lcb_runners = chosen.NAME == "lcb_runner" or registry.scenario(chosen) != CODE_GENERATION
    return None if lcb_runners else chosen


def _dataset(path: Path | None) -> datasets.Dataset | None:
    if path is None:
        return None
    try:
        found = datasets.read(path)
        mismatches = datasets.check(found, datasets.release_of(found))
    except datasets.DatasetError as error:
        raise score.RunError(str(error)) from None
    if mismatches:
        raise score.RunError(f"{path} is not the release its files name: " + "; ".join(mismatches))
    return found


def _metadata(qid: str, sample, dataset, where: str) -> dict:
    """The problem's fields: the log's own row, else the dataset's, else the manifests'."""
    fields = ("contest_date", "difficulty")
    if sample.problem and all(name in sample.problem for name in fields):
        found = {name: sample.problem[name] for name in releases.FIELDS if name != "question_id"}
    elif dataset is not None and qid in dataset.entries:
        entry = dataset.entries[qid]
        found = {name: getattr(entry, name) for name in ("contest_date", "difficulty", "platform")}
    elif qid in releases.problems():
        found = {
            name: releases.problems()[qid].get(name)
            for name in ("contest_date", "difficulty", "platform")
        }
    else:
        raise score.RunError(
            f"{where}: problem {qid}: its contest date and difficulty are in neither the log "
            "nor a release manifest: pass --dataset PATH (the dataset the run read)"
        )
    if found["difficulty"] not in scoring.DIFFICULTIES:
        raise score.RunError(
            f"{where}: {qid}: difficulty {found['difficulty']!r} is not easy/medium/hard"
        )
    try:
        datetime.fromisoformat(str(found["contest_date"]))
    except ValueError:
        raise score.RunError(
            f"{where}: {qid}: contest_date {found['contest_date']!r} is not ISO"
        ) from None
    return {"question_id": qid, **found, "contest_date": str(found["contest_date"])}


def read_log(fmt, path: Path, dataset) -> tuple[list[dict], str | None, Lint]:
    """(eval_all rows, why the log has no verdicts: None when every sample has one, the
    samples' lint: mixed n, no code, cut answers).
    Rows without verdicts carry ``samples`` and ``metric`` instead of a graded_list."""
    order: list[str] = []
    if dataset is not None:
        try:
            regrade.problems_of(fmt, path, dataset)  # the position guard, the missing problems
        except regrade.RegradeError as error:
            raise score.RunError(str(error)) from None
        order = list(dataset.entries)
    problems: dict[str, dict] = {}
    verdicts: dict[str, dict[int, bool | None]] = defaultdict(dict)
    unjudged = None
    lint = Lint()
    for sample in fmt.samples(path):
        if sample.question_id is None and dataset is None:
            name, position = sample.position or ("position", "?")
            raise score.RunError(
                f"{sample.where}: {fmt.NAME} names problems by their position in the dataset it "
                f"read ({name} {position}): pass --dataset PATH, that dataset"
            )
        try:
            qid = regrade.problem_id(sample, order)
        except regrade.RegradeError as error:
            raise score.RunError(str(error)) from None
        if qid not in problems:
            problems[qid] = _metadata(qid, sample, dataset, sample.where)
            problems[qid]["metric"] = sample.problem_score
        if sample.index in verdicts[qid]:
            raise score.RunError(f"{sample.where}: {qid} sample {sample.index} appears twice")
        verdicts[qid][sample.index] = sample.passed
        if sample.passed is None and unjudged is None:
            unjudged = sample.unjudged or f"{fmt.NAME} records no verdict per sample"
        lint.add(qid, sample.index, sample.output, sample.scored)
    if not problems:
        raise score.RunError(f"{path}: no samples")
    rows = []
    for qid, row in problems.items():
        found = [verdicts[qid][index] for index in sorted(verdicts[qid])]
        if unjudged is None:
            row["graded_list"] = found
            row["pass@1"] = found.count(True) / len(found)
            del row["metric"]
        else:
            row["samples"] = len(found)
        rows.append(row)
    return rows, unjudged, lint


def _coverage(kept: list[dict], expected: list[str]) -> dict:
    ids, wanted = {r["question_id"] for r in kept}, set(expected)
    return {
        "expected": len(wanted),
        "missing": sorted(wanted - ids),
        "without_generations": [],
        "extra": sorted(ids - wanted),
    }


def unjudged_report(run: score.Run, fmt, reason: str, args) -> dict:
    """A log without verdicts per sample: the problem set, the scope's problems the run lacks
    or holds beyond it (compute_scores' window rule), the harness's metric averaged; no figure."""
    problems = score.problem_set(run, args.release)
    scope = score.scope_of(problems, args.release, args.window)
    rows = run.rows
    if args.release:
        members = {r["question_id"] for r in scope.rows}
        rows = [r for r in rows if r["question_id"] in members]
    kept = scoring.lcb_runner_rows(rows, scope.start, scope.end)
    expected = [
        r["question_id"] for r in scoring.lcb_runner_rows(scope.rows, scope.start, scope.end)
    ]
    if scope.named and not (kept or expected):
        raise score.RunError(
            f"no problem of the run or of {scope.release} is dated {scope.start}..{scope.end}: "
            "nothing to score"
        )
    coverage = {"name": "coverage", "label": "the run's problems", "count": len(kept),
                **_coverage(kept, expected)}  # fmt: skip
    metrics = [r["metric"] for r in kept]
    metric = None
    if kept and all(metrics):
        metric = {
            "name": ", ".join(sorted({m[0] for m in metrics})),
            "mean": 100 * sum(m[1] for m in metrics) / len(metrics),
            "problems": len(metrics),
        }
    report = {
        "schema": score.SCHEMA,
        "run": str(run.path),
        "format": fmt.NAME,
        "window": {"start": scope.start, "end": scope.end, "builder_tz": args.builder_tz},
        "problems": problems,
        "scope": {"release": scope.release, "named": scope.named, "problems": scope.describe()},
        "figures": [],
        "not_computed": reason,
        "coverage": coverage,
        "harness_metric": metric,
        "flags": run.flags,
        "lint": run_lint.sample_findings(run.lint)
        + [run_lint.errata_finding([r["question_id"] for r in kept], None, None)],
        "allow_missing": args.allow_missing,
    }
    found = []
    match = problems["matches"][0]
    if args.release and not match["equal"]:
        found.append(f"the run is not {match['tag']}: {len(match['missing'])} missing, "
                     f"{len(match['extra'])} extra")  # fmt: skip
    if scope.named and score.lacks_problems(coverage, args.allow_missing):
        found.append(f"the run's problems: {score.coverage_words(coverage)}")
    if args.claim is not None:
        report["claim"] = {"claimed": args.claim.text, "consistent": False, "held": False}
    report["failures"] = found
    report["exit_code"] = exit_codes.DIFFERS if found else exit_codes.INCOMPLETE
    return report


def _claim_line(report: dict) -> str:
    return (
        f"claim {report['claim']['claimed']}: NOT HELD: {report['format']}'s log records no "
        "verdict per sample, so neither figure a claim is held to can be computed"
    )


def render_unjudged(report: dict, lint: bool = True) -> str:
    problems, window = report["problems"], report["window"]
    dates = f"{window['start']}..{window['end']}" if window["start"] else "every contest date"
    lines = [
        f"score: {report['run']} ({report['format']}): {problems['count']} problems, problem "
        f"set sha256 {problems['sha256'][:16]}",
        "problem set:",
        *score_render.problem_lines(problems),
        f"scope: {report['scope']['problems']}"
        + ("" if report["scope"]["named"] else " (the run's nearest release: none named)"),
        f"window: {dates} (compute_scores' rule)",
        "",
        NOT_COMPUTED.format(reason=report["not_computed"]),
        COMPUTABLE,
    ]
    coverage, metric = report["coverage"], report["harness_metric"]
    lines.append(f"the run's problems in the window: {score.coverage_words(coverage)}")
    if metric:
        lines.append(
            f"{report['format']}'s own metric ({metric['name']}), mean over its "
            f"{metric['problems']:,} problems in the window: {metric['mean']:.2f} (the harness's "
            "figure, not a pass@1 of either computation)"
        )
    return "\n".join(lines + score_render.closing_lines(report, _claim_line, lint))


def headline_unjudged(report: dict) -> str:
    what = [f"{report['format']} records no verdict per sample: no figure computed"]
    if "claim" in report:
        what.append(_claim_line(report))
    state = "FAILED" if report["failures"] else "INCOMPLETE"
    return f"{state}: " + "; ".join(report["failures"] + what)


def build(args, fmt) -> tuple[dict, bool]:
    """(the report, whether its figures were computed) for a log of another harness."""
    dataset = _dataset(args.dataset)
    try:
        rows, unjudged, lint = read_log(fmt, args.run, dataset)
    except LogError as error:
        raise score.RunError(str(error)) from None
    run = score.Run(args.run, rows, lint=lint)
    if unjudged is not None:
        if args.published:
            raise score.RunError(
                f"--published: {fmt.NAME}'s log records no verdict per sample: nothing to "
                "compare with the site's per-problem pass@1"
            )
        return unjudged_report(run, fmt, unjudged, args), False
    published = (
        score.read_published(args.published, args.model, args.run) if args.published else None
    )
    report = score.report_on(
        run, release=args.release, window=args.window, builder_tz=args.builder_tz,
        claim=args.claim, allow_missing=args.allow_missing, published=published,
    )  # fmt: skip
    report["format"] = fmt.NAME
    report["notes"].insert(0, OWN_VERDICTS.format(name=fmt.NAME))
    return report, True


def _without_format(argv: list[str]) -> list[str]:
    """The command line without --format (reports/score.py reads lcb_runner's files only)."""
    kept, skip = [], False
    for arg in argv:
        if skip or arg.startswith("--format="):
            skip = False
            continue
        skip = arg == "--format"
        if not skip:
            kept.append(arg)
    return kept


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = parser()
    args = commands.parse_args(argv)
    try:
        fmt = _format(args)
    except score.RunError as error:
        showdiff.write(f"score: {error}", sys.stderr)
        return exit_codes.UNUSABLE
    if fmt is None:
        if args.dataset is not None:
            commands.error("--dataset: lcb_runner's eval_all rows carry every problem's fields")
        return score.main(_without_format(argv))
    if args.model is not None and args.published is None:
        commands.error("--model names the model of --published, which is not given")
    try:
        report, computed = build(args, fmt)
    except score.RunError as error:
        showdiff.write(f"score: {error}", sys.stderr)
        return exit_codes.UNUSABLE
    view, head = (
        (score.render, score.headline(report))
        if computed
        else (render_unjudged, headline_unjudged(report))
    )
    text = view(report)
    written = report_files.write_reports(
        "lcb-conformance score",
        {
            "JSON": (args.json, lambda: json.dumps(report, indent=1) + "\n"),
            "HTML": (args.html, lambda: score.to_html(report, view(report, lint=False), head)),
        },
    )
    showdiff.write(text)
    showdiff.write("")
    showdiff.write(head)
    return report["exit_code"] if written else report_files.REPORT_NOT_WRITTEN


if __name__ == "__main__":
    sys.exit(main())
