"""`lcb-conformance regrade RUN --dataset PATH`: the comparable number from a finished run,
lcb_runner's extraction and judge on every sample; `--shard I/N`, `merge`, `show`.

    lcb-conformance regrade RUN --dataset PATH [--format auto|lcb_runner|evalscope|opencompass|
        lm-eval|lighteval] [--style LMSTYLE | --model ID] [--release TAG | --not-a-release]
        [--upstream installed|PATH] [--allow-modified-upstream] [--accept-judge-differences]
        [--workers N] [--timeout S] [--recheck N]
        [--shard I/N] [--results FILE] [--window START:END] [--json FILE] [--html FILE]
    lcb-conformance regrade merge SLICES... --results FILE [--window ...] [--json F] [--html F]
    lcb-conformance regrade show RESULTS [--window ...] [--json FILE] [--html FILE]

Every sample of RUN (read by run_formats, any format) is re-extracted with lcb_runner's own
extract_code for the model's LMStyle (``--style``, else ``--model`` or the run's model folder
resolved through lcb_runner's model list, as ``resolve`` does) and re-judged by lcb_runner's own
judge (upstream.grading: its run_test and evaluate_generations_by_problem, from ``--upstream``)
against the dataset's tests. Where the harness scored other code than lcb_runner's extraction,
that code is judged too, so each sample whose verdict changed says why: the extraction, the
judge, or both. The results file (regrade/results_file.py) streams as samples are graded;
every view (console, ``--json``, ``--html``, ``show``) is computed from it: the number as
lcb_runner's compute_scores and as the leaderboard compute it (reports/score.py's functions),
the harness's own number on the same problems, and per problem what changed.

The dataset (regrade/dataset.py) is checked before anything is graded: the release its file
names are (or ``--release``), every file byte for byte the one LiveCodeBench published (its
sha256 as the manifests record it), every problem of that release's manifest with its date,
difficulty and platform, and in a Hugging Face cache every file equal to what the Hub served.
A dataset that is no release (a private set, a fixture) is graded only with
``--not-a-release``, and every view says so. An ``--upstream PATH`` tree is held to the
pinned commit's lcb_runner file by file first (upstream/pinned_tree.py: git blob ids, not git's
metadata): one that differs is refused naming the files, unless ``--allow-modified-upstream``,
and then every view names them and the exit is never 0. The judge is checked first too
(grading.check_judge on the judge corpus, not re-run for a tree whose files are 28fef95's,
kept across calls for any other tree by its files' digest: upstream/judge_cache.py):
an upstream whose judge differs from 28fef95's (the installed stand-in, nvidia-livecodebench
26.3: the stdin-buffer cases) is refused unless
``--accept-judge-differences``, and then every view names the cases.

lcb_runner's self-repair results hold programs (the repairs), graded here exactly as code
generation's (its scenario_router scores them with codegen_metrics), every view naming the
scenario: the number is self-repair's. Its test output prediction and code execution results
hold predictions, not programs: regrade/scenario_regrade.py scores them with lcb_runner's own
extractor and scorer instead of the judge.

Each sample's verdict records its timing (upstream/timing.py): a time-limit verdict whose
child got far less CPU than wall time (it waited for a core) is graded again alone, both
outcomes kept, the second final; ``--recheck N`` grades every timing-sensitive verdict N more
times alone, and every view gives the number's timing band and names the samples that flipped
(docs/regrade-timing.md).

``--shard I/N`` grades the problems at positions I-1, I-1+N, ... of the run's sorted problem
ids (a deterministic slice); ``merge`` joins the N slices' results files into the whole run's,
byte for byte what one unsliced regrade writes but for the timings measured, which it keeps
as each slice holds them (docs/regrade.md: a job array's recipe).

Exit codes: 0 every sample graded and the harness's own verdict (or its per-problem score)
equal to lcb_runner's on every problem; 1 some problem's harness verdict or recorded extraction
differs from lcb_runner's (named, with why), or the run is of a scenario and LMStyle lcb_runner
28fef95 raises for building the prompts (no run it wrote, as audit and score fail it); 2
unusable input, named in one line before anything is graded: the run, the dataset (not the
release it was meant to be: a file not the published one, a problem missing or other metadata,
a file changed since download; no release without ``--not-a-release``), a problem the dataset
lacks, an unknown model, an upstream tree that is not the pinned commit's, a judge that differs
from the pinned commit's, slices of other runs or given twice, a results file (a slice) whose
samples or footer disagree with what they hold; 4 not everything asked for is covered: a
problem whose log records no verdict nor score of the harness (nothing to compare), a modified
upstream tree graded with ``--allow-modified-upstream``, a judge differing from 28fef95's graded
with ``--accept-judge-differences``, a slice missing or unfinished at
merge; 6 a report not written.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import deque
from pathlib import Path

from lcb_conformance import releases
from lcb_conformance.common import exit_codes, report_files, shared_options, showdiff
from lcb_conformance.regrade import dataset as datasets
from lcb_conformance.regrade import results_file, scenario_regrade, views

# A sample's vocabulary, shared with the scenarios' regrade: from the results file's module.
from lcb_conformance.regrade.results_file import (  # noqa: F401 (as regrade.*)
    DIFFERS,
    EXTRACTION,
    JUDGE,
    NOT_RECORDED,
    SAME,
    RegradeError,
    file_sha256,
    why,
)
from lcb_conformance.reports import run_lint, score
from lcb_conformance.run_formats import lcb_runner_files, registry
from lcb_conformance.run_formats.samples import LogError
from lcb_conformance.upstream import grading, judge_cache, resolver
from lcb_conformance.upstream.source import (
    ALLOW_MODIFIED,
    Upstream,
    UpstreamMissing,
    UpstreamSourceError,
)


def shard_of(text: str) -> tuple[int, int]:
    index, slash, count = text.partition("/")
    try:
        found = int(index), int(count)
    except ValueError:
        found = (0, 0)
    if not slash or not 1 <= found[0] <= found[1]:
        raise argparse.ArgumentTypeError(f"{text!r}: give I/N with 1 <= I <= N, e.g. 2/8")
    return found


def at_least(least: int):
    def whole_number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = least - 1
        if value < least:
            raise argparse.ArgumentTypeError(f"{text!r}: give a whole number of at least {least}")
        return value

    return whole_number


positive = at_least(1)


def lmstyle_of(fmt, run: Path, model: str | None, style: str | None) -> str:
    """The run's LMStyle: --style, else --model or the run's model folder resolved through
    lcb_runner's model list (as ``resolve``: only a model it lists)."""
    if style:
        return style
    query = model or fmt.model(run)
    if query is None:
        raise RegradeError(
            f"{run}: {fmt.NAME}'s files do not name the model; pass --model ID or --style LMSTYLE"
        )
    models = resolver.ModelList.pinned()
    resolution = resolver.resolve(list(models.models), query)
    if resolution.listed is None:
        by_repr = {listed.model_repr: listed for listed in models.models}
        if query in by_repr:  # lcb_runner names its output folder by model_repr
            return by_repr[query].lmstyle
        raise RegradeError(
            f"model {query!r} is not in lcb_runner's model list (its LMStyle decides the "
            "extraction); pass --style LMSTYLE"
        )
    return resolution.listed.lmstyle


# the installed stand-in's judge check by its version, for one process (not cached across
# calls: judge_cache.py says why)
_checked_judges: dict[str, list[str]] = {}


def judge_differences(
    upstream: Upstream, accept: bool, cache: Path | None = None
) -> tuple[list[str], dict | None]:
    """The judge cases on which ``upstream``'s judge differs from 28fef95's, and where a
    tree's check came from (judge_cache.check's ``cached``: None when graded now): none for a
    tree whose lcb_runner files are 28fef95's; otherwise refused (grading.require_pinned_judge)
    unless ``accept``, then the cases. A tree given by path is checked once by its files'
    digest, its verdicts kept in ``cache`` (None: checked now, nothing kept); it is here only
    with --allow-modified-upstream, never green, whatever its entry says."""
    if upstream.has_pinned_files():
        return [], None
    if upstream.checkout is not None:
        checked = judge_cache.check(upstream, cache)
        for said in checked.said:
            showdiff.write(f"regrade: {said}", sys.stderr)
        try:
            if not accept:
                grading.refuse_differing(upstream, checked.differing)
        except grading.JudgeDiffers as error:
            raise RegradeError(
                f"{error}{_from_cache(checked.cached)}, or --accept-judge-differences to grade "
                "with it all the same"
            ) from None
        return checked.differing, checked.cached
    if not accept:
        try:
            grading.require_pinned_judge(upstream)
        except grading.JudgeDiffers as error:
            raise RegradeError(
                f"{error}, or --accept-judge-differences to grade with it all the same"
            ) from None
        return [], None  # it gave 28fef95's verdict on every judge case
    key = upstream.describe_source()
    if key not in _checked_judges:
        _checked_judges[key] = grading.check_judge(upstream)
    return _checked_judges[key], None


def _from_cache(cached: dict | None) -> str:
    if cached is None:
        return ""
    return f" (its judge check from the cache, {cached['checked_at']}: --no-judge-cache checks it)"


def problem_id(sample, order: list[str]) -> str:
    """The sample's problem: its question_id, or the dataset's row at its position."""
    if sample.question_id is not None:
        return sample.question_id
    if sample.position is None:
        raise LogError(f"{sample.where}: the sample names no problem")
    name, position = sample.position
    if not isinstance(position, int) or not 0 <= position < len(order):
        raise RegradeError(
            f"{sample.where}: {name} {position} is no position in the dataset's "
            f"{len(order)} problems (the run read another dataset?)"
        )
    return order[position]


def _sent_text(sent) -> str:
    return sent if isinstance(sent, str) else "\n".join(m["content"] for m in sent)


def problems_of(fmt, run: Path, dataset: datasets.Dataset) -> list[str]:
    """The run's problem ids, sorted; RegradeError naming those the dataset lacks, and a
    problem named by position whose statement is not in the prompt sent (the run read
    another subset or order: evalscope's date filter, another release)."""
    order = list(dataset.entries)
    found, placed = set(), set()
    for sample in fmt.samples(run):
        qid = problem_id(sample, order)
        found.add(qid)
        if sample.question_id is None and sample.sent is not None and qid not in placed:
            placed.add(qid)
            statement = dataset.row(qid)["question_content"].strip()
            if statement not in _sent_text(sample.sent):
                raise RegradeError(
                    f"{sample.where}: {sample.position[0]} {sample.position[1]} is {qid} in the "
                    "dataset, but the prompt sent is not its statement: the run read another "
                    "set or order of problems (a date filter, another release)"
                )
    if not found:
        raise RegradeError(f"{run}: no samples")
    missing = sorted(found - dataset.entries.keys())
    if missing:
        raise RegradeError(
            f"{len(missing)} problems of the run are not in the dataset: "
            f"{datasets.listed(missing)} (another release or set?)"
        )
    return sorted(found)


class _Rows(dict):
    """The dataset's rows by problem id, loaded when the judge first asks for one."""

    def __init__(self, dataset: datasets.Dataset):
        super().__init__()
        self.dataset = dataset

    def __missing__(self, key: str) -> dict:
        return self.dataset.row(key)

    def __contains__(self, key) -> bool:
        return key in self.dataset.entries


def format_of(args: argparse.Namespace):
    registry.taken(args.run, registry.REGRADE)  # what it is, as every command recognises it
    return registry.formats()[args.format] if args.format != "auto" else registry.detect(args.run)


def regrade(args: argparse.Namespace, results_path: Path) -> dict:
    """Check, grade, stream the results file; its header."""
    try:
        dataset = datasets.read(args.dataset)
    except datasets.DatasetError as error:
        raise RegradeError(str(error)) from None
    tag = None if args.not_a_release else (args.release or datasets.release_of(dataset))
    if tag is None and not args.not_a_release:
        raise RegradeError(
            f"{args.dataset}: its files ({', '.join(dataset.files)}) are no release of "
            "LiveCodeBench's (test.jsonl .. test6.jsonl of Hugging Face's livecodebench/"
            "code_generation_lite): name it with --release TAG, or grade it anyway with "
            "--not-a-release"
        )
    mismatches = datasets.check(dataset, tag)
    if mismatches:
        meant = f"release {tag}" if tag else "what was downloaded"
        raise RegradeError(f"{args.dataset} is not {meant}: " + "; ".join(mismatches))
    fmt = format_of(args)
    lmstyle = lmstyle_of(fmt, args.run, args.model, args.style)
    order = list(dataset.entries)
    ids = problems_of(fmt, args.run, dataset)
    try:
        upstream = Upstream(args.upstream)
        upstream.require_pinned_files(args.allow_modified_upstream)
        # its extract_code runs for the style now (the LMStyle and the extraction module
        # checked before anything is graded; the prompt side's imports are not needed)
        upstream.extract_as(lmstyle, "")
        differs, cached = judge_differences(
            upstream,
            args.accept_judge_differences,
            None if args.no_judge_cache else args.judge_cache,
        )
    except (UpstreamSourceError, UpstreamMissing) as error:
        raise RegradeError(f"--upstream: {error}") from None
    scenario = registry.scenario(fmt)
    chosen = set(ids if args.shard is None else ids[args.shard[0] - 1 :: args.shard[1]])
    header = {
        "run": str(args.run),
        "run_sha256": file_sha256(args.run),
        "format": fmt.NAME,
        "scenario": scenario,
        "lmstyle": lmstyle,
        "upstream": upstream.provenance(),
        # where lcb_runner raises building the prompts: no run it wrote (as audit and score)
        "lcb_runner_raises": lcb_runner_files.lcb_runner_raises(scenario, False, lmstyle),
        "judge_differs": differs,
        "timeout": args.timeout,
        "recheck": args.recheck,
        "dataset": {
            "sha256": dataset.sha256(),
            "files": dataset.files,
            "revision": dataset.revision,
            "release": tag,
            "not_a_release": bool(args.not_a_release),
            "problems_in_release": len(releases.members(tag)) if tag else None,
        },
        "problems": len(ids),
        "shard": list(args.shard) if args.shard else None,
    }
    if cached:  # every view says the check came from the cache, and when it was made
        header["judge_cache"] = cached
    writer = results_file.Writer(results_path, header)
    try:
        _grade(args, fmt, dataset, order, chosen, upstream, lmstyle, writer)
    except BaseException:
        writer.abandon()
        raise
    writer.close()
    return header


def _grade(args, fmt, dataset, order, chosen, upstream, lmstyle, writer) -> None:
    """Extract, judge and write each sample of the chosen problems, in the run's order."""
    pending: deque[dict] = deque()  # samples sent to the judge, in order

    def to_judge():
        for n, logged in enumerate(fmt.samples(args.run)):
            qid = problem_id(logged, order)
            if qid not in chosen:
                continue
            code = upstream.extract_as(lmstyle, logged.output)
            if logged.scored is None:
                extraction = NOT_RECORDED
            else:
                extraction = SAME if logged.scored == code else DIFFERS
            entry = dataset.entries[qid]
            record = {
                "n": n,
                "question_id": qid,
                "index": logged.index,
                "where": logged.where,
                "contest_date": entry.contest_date,
                "difficulty": entry.difficulty,
                "platform": entry.platform,
                "harness": {
                    "passed": logged.passed,
                    "unjudged": logged.unjudged,
                    "problem_score": list(logged.problem_score) if logged.problem_score else None,
                },
                "extraction": extraction,
                "code": code,
                "output_faults": run_lint.output_faults(logged.output),
            }
            if extraction == DIFFERS:  # what the harness scored instead
                record["scored"] = logged.scored
            pending.append(record)
            yield grading.Sample(qid, 2 * n, code)
            if extraction == DIFFERS:  # its verdict is compared, not the number's: no rechecks
                yield grading.Sample(qid, 2 * n + 1, logged.scored, recheck=False)

    graded = grading.grade(
        _Rows(dataset), to_judge(), upstream=upstream, workers=args.workers,
        timeout=args.timeout, rechecks=args.recheck,
    )  # fmt: skip
    for verdict in graded:
        record = pending[0]
        if verdict.sample_index == 2 * record["n"]:
            record["regrade"] = _kept(vars(verdict))
            record["timing"] = verdict.timing
            if verdict.starved:  # its time limit was the machine's: the verdict is run alone's
                record["starved"] = {**_kept(verdict.starved), "timing": verdict.starved["timing"]}
            if verdict.rechecks is not None:
                record["rechecks"] = [{**_kept(o), "timing": o["timing"]} for o in verdict.rechecks]
            if verdict.touched:  # named only: the verdict above is lcb_runner's all the same
                record["judge_aware"] = verdict.touched
            record["harness_code_passed"] = None
            if record["extraction"] == DIFFERS:
                continue  # the harness's code is graded next
        else:
            record["harness_code_passed"] = verdict.passed
        pending.popleft()
        record["why"] = why(
            record["harness"]["passed"], record["regrade"]["passed"], record["extraction"],
            record["harness_code_passed"],
        )  # fmt: skip
        writer.write(record)


def _kept(outcome: dict) -> dict:
    """An outcome's verdict as the results file keeps it: the metadata as the goldens keep it
    (its "execution time", no two runs' alike, is the timing's)."""
    return {
        "passed": outcome["passed"],
        "graded": outcome["graded"],
        "metadata": json.dumps(grading.comparable_metadata(outcome["metadata"])),
    }


def _views(args, results_path: Path) -> int:
    regraded = results_file.read(results_path)
    report = views.build(regraded, args.window)
    written = report_files.write_reports(
        "lcb-conformance regrade",
        {
            "JSON": (args.json, lambda: json.dumps(report, indent=1) + "\n"),
            "HTML": (args.html, lambda: views.to_html(report)),
        },
    )
    showdiff.write(views.render(report))
    showdiff.write("")
    showdiff.write(views.headline(report))
    return report["exit_code"] if written else report_files.REPORT_NOT_WRITTEN


def _view_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--window", type=score.parse_window, metavar="START:END",
                        help="score over these contest dates (default: every problem)")  # fmt: skip
    shared_options.add_reports(parser)


def build_parser() -> argparse.ArgumentParser:
    parser = shared_options.CommandParser(
        prog="lcb-conformance regrade",
        description="The comparable number from a finished run: its raw outputs extracted and "
        "judged by lcb_runner's own code against LiveCodeBench's dataset (also: regrade merge "
        "SLICES..., regrade show RESULTS).",
    )
    parser.add_argument("run", type=Path, help="the run's log (any format run_formats reads)")
    parser.add_argument("--dataset", type=Path, required=True, metavar="PATH",
                        help="code_generation_lite's JSONL files: a folder, a Hugging Face "
                        "cache folder, or one JSON lines file of problem rows (test output "
                        "prediction, code execution: a JSON lines file of the scenario's "
                        "rows)")  # fmt: skip
    parser.add_argument("--format", choices=("auto", *registry.formats()), default="auto")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--style", metavar="LMSTYLE", help="the model's lcb_runner LMStyle")
    who.add_argument("--model", metavar="ID", help="the model, as lcb_runner's model list names it")
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--release",
        type=score.parse_release,
        metavar="TAG",
        help="the release the dataset is (default: as its file names say)",
    )
    which.add_argument(
        "--not-a-release",
        action="store_true",
        help="grade against a dataset that is no release (a private set)",
    )
    shared_options.add(parser, "upstream")
    parser.add_argument(
        "--accept-judge-differences",
        action="store_true",
        help="grade with an upstream whose judge differs from 28fef95's",
    )
    parser.add_argument("--judge-cache", type=Path, default=judge_cache.default_folder(),
                        metavar="DIR", help="keep a tree's judge check here, by its files' "
                        f"digest (default: ${judge_cache.ENV}, else "
                        "$XDG_CACHE_HOME/lcb-conformance/judge-checks)")  # fmt: skip
    parser.add_argument(
        "--no-judge-cache",
        action="store_true",
        help="check a tree's judge now, reading and keeping nothing",
    )
    parser.add_argument(
        ALLOW_MODIFIED,
        action="store_true",
        help="grade with an --upstream PATH whose lcb_runner files are not "
        "28fef95's (every view says so; never green: exit 4 at best)",
    )
    parser.add_argument(
        "--workers",
        type=positive,
        metavar="N",
        help="samples graded at once (default: as many as lcb_runner's "
        "codegen_metrics runs, its num_process_evaluate)",
    )
    parser.add_argument(
        "--timeout",
        type=positive,
        default=grading.TIMEOUT,
        metavar="S",
        help="lcb_runner's per-test timeout (its default: 6)",
    )
    parser.add_argument("--recheck", type=at_least(0), default=0, metavar="N",
                        help="grade every timing-sensitive verdict N more times, one at a "
                        "time: the number's timing band (default: 0)")  # fmt: skip
    parser.add_argument(
        "--shard",
        type=shard_of,
        metavar="I/N",
        help="grade the I-th of N deterministic slices (merge them after)",
    )
    shared_options.add(parser, "results", help="stream the results file here, a line per "
                       "sample as it is graded (the views read it)")  # fmt: skip
    _view_options(parser)
    return parser


def _refused(command: str, error: results_file.RegradeFileError) -> int:
    """One stderr line; INCOMPLETE for slices that do not cover the run, else UNUSABLE."""
    showdiff.write(f"{command}: {error}", sys.stderr)
    if isinstance(error, results_file.ShardsIncomplete):
        return exit_codes.INCOMPLETE
    return exit_codes.UNUSABLE


def merge_main(argv: list[str]) -> int:
    parser = shared_options.CommandParser(
        prog="lcb-conformance regrade merge",
        description="Join the results files of regrade --shard 1/N .. N/N into the whole run's.",
    )
    parser.add_argument("slices", type=Path, nargs="+", metavar="SLICE")
    shared_options.add(parser, "results", required=True, help="write the whole run's "
                       "results file here")  # fmt: skip
    _view_options(parser)
    args = parser.parse_args(argv)
    try:
        results_file.merge(args.slices, args.results)
    except results_file.RegradeFileError as error:
        return _refused("regrade merge", error)
    return _views(args, args.results)


def show_main(argv: list[str]) -> int:
    parser = shared_options.CommandParser(
        prog="lcb-conformance regrade show", description="The views of a regrade's results file."
    )
    parser.add_argument("results", type=Path, metavar="RESULTS")
    _view_options(parser)
    args = parser.parse_args(argv)
    try:
        return _views(args, args.results)
    except results_file.RegradeFileError as error:
        return _refused("regrade show", error)


# regrade's own subcommands (a word first); without one, the arguments are a run's regrade.
SUBCOMMANDS = {"merge": merge_main, "show": show_main}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]](argv[1:])
    args = build_parser().parse_args(argv)
    try:
        fmt = format_of(args)
        if not registry.programs(fmt):
            # predictions, not programs: lcb_runner's scenario scorer, not the judge
            lmstyle = lmstyle_of(fmt, args.run, args.model, args.style)
            return scenario_regrade.main(args, fmt, lmstyle)
    except (RegradeError, LogError) as error:
        showdiff.write(f"regrade: {error}", sys.stderr)
        return exit_codes.UNUSABLE
    with tempfile.TemporaryDirectory(prefix="lcb-regrade-") as scratch:
        results_path = args.results or Path(scratch) / "regrade.jsonl"
        try:
            regrade(args, results_path)
        except (RegradeError, LogError, grading.ProblemRejected) as error:
            showdiff.write(f"regrade: {error}", sys.stderr)
            return exit_codes.UNUSABLE
        except grading.GradingFailed as error:  # the results file has no footer
            showdiff.write(f"regrade: the judge stopped: {error}", sys.stderr)
            return exit_codes.INCOMPLETE
        return _views(args, results_path)


if __name__ == "__main__":
    sys.exit(main())
