"""A regrade's views from its results file: the number both ways, the harness's own, per problem
what changed and why (text, JSON, HTML).

A regrade's views, all computed from its results file (regrade/results_file.py, which
re-derives each sample's verdicts from its graded list as it reads them): the
comparable number both ways (reports/score_figures.py's lcb_runner and leaderboard views, held
to the score goldens), the harness's own number on the same problems, and per problem what
changed and why, and the verdicts' timing (regrade/timing_band.py: the timing-sensitive ones, the
starved ones graded again alone, the timing band of ``--recheck``); as text, JSON (schema
``lcb-conformance-regrade-report/1``) and one HTML page."""

from __future__ import annotations

from collections import Counter, defaultdict

from lcb_conformance import releases
from lcb_conformance.common import exit_codes, listing
from lcb_conformance.regrade import timing_band
from lcb_conformance.regrade.results_file import Regrade, prompts_raise
from lcb_conformance.reports import run_lint, score
from lcb_conformance.reports.page_style import CSS, escape
from lcb_conformance.run_formats.lcb_runner_files import CODE_GENERATION, SCENARIO_WORDS
from lcb_conformance.upstream import judge_aware
from lcb_conformance.upstream.source import ALLOW_MODIFIED, is_modified, named

SCHEMA = "lcb-conformance-regrade-report/1"
SAME, DIFFERS, NOT_COMPARED = "same", "differs", "not compared"
SHOWN = 20  # problems shown in the text view before "... and N more"
# the headline's, where lcb_runner raises building the run's prompts (its first line says how)
RAISES_WORDS = (
    "no run lcb_runner could have written (28fef95 raises building its {} prompts for "
    "LMStyle.{}: not checked); "
)
NO_RELEASE = "NOT A RELEASE: graded with --not-a-release; the number is on no published problem set"


def _problems(samples: list[dict]) -> dict[str, list[dict]]:
    by_problem: dict[str, list[dict]] = defaultdict(list)
    for sample in samples:
        by_problem[sample["question_id"]].append(sample)
    return {
        qid: sorted(found, key=lambda s: s["index"]) for qid, found in sorted(by_problem.items())
    }  # noqa: E501


def compare(samples: list[dict]) -> dict:
    """One problem: lcb_runner's verdicts against the harness's, and why they differ."""
    regraded = [s["regrade"]["passed"] for s in samples]
    harness = [s["harness"]["passed"] for s in samples]
    scored = samples[0]["harness"]["problem_score"]
    found = {
        "question_id": samples[0]["question_id"],
        "samples": len(samples),
        "regrade_passed": regraded.count(True),
        "harness_passed": None if None in harness else harness.count(True),
        "harness_score": scored,
        "extraction_differs": sum(s["extraction"] == "differs" for s in samples),
        "changed": [
            {"sample": s["index"], "harness": s["harness"]["passed"],
             "lcb_runner": s["regrade"]["passed"], "why": s["why"], "where": s["where"]}
            for s in samples if s["why"]
        ],
        # samples whose program changed the judge running it: their verdict is lcb_runner's
        # (it credits them too), named so a reader can look (a /1 results file names none)
        "judge_aware": [
            {"sample": s["index"], "lcb_runner": s["regrade"]["passed"],
             "touched": s["judge_aware"], "where": s["where"]}
            for s in samples if s.get("judge_aware")
        ],
    }  # fmt: skip
    if None not in harness:
        found["status"] = DIFFERS if found["changed"] else SAME
    elif scored is not None:
        regraded_rate = regraded.count(True) / len(regraded)
        found["status"] = DIFFERS if abs(scored[1] - regraded_rate) > 1e-9 else SAME
        if found["status"] == DIFFERS:
            found["why"] = (
                f"the harness's {scored[0]} is {scored[1]:.4g}, lcb_runner's pass@1 "
                f"{regraded_rate:.4g} (its log records no verdict per sample: extraction or judge)"
            )
    else:
        found["status"] = NOT_COMPARED
        found["why"] = samples[0]["harness"]["unjudged"]
    return found


def _rows(problems: dict[str, list[dict]], verdict) -> list[dict]:
    rows = []
    for qid, samples in problems.items():
        graded = [verdict(s) for s in samples]
        first = samples[0]
        rows.append({
            "question_id": qid, "contest_date": first["contest_date"],
            "difficulty": first["difficulty"], "platform": first["platform"],
            "graded_list": graded, "pass@1": graded.count(True) / len(graded),
        })  # fmt: skip
    return rows


def numbers(rows: list[dict], window, release: str | None) -> dict:
    """compute_scores' and the leaderboard's numbers over ``rows`` (reports/score_figures.py),
    held to the release's problems in the window (the dataset's release; no release: the
    nearest)."""
    start, end = window or (None, None)
    tag = release or releases.nearest([r["question_id"] for r in rows])
    scope = score.Scope(tag, start, end, named=bool(window))
    board_start, board_end = score.board_window(scope, rows)
    return {
        "lcb_runner": score.lcb_runner_view(rows, scope),
        "leaderboard": score.leaderboard_view(rows, scope, board_start, board_end, "UTC"),
    }


def lint_findings(samples, problems, window, release, report: dict) -> list[dict]:
    """The run's own faults (reports/run_lint.py) from the samples' records, ERRATA's among
    the problems the regrade's figure counts and that figure without them, by numbers()."""
    lint = run_lint.Lint()
    for s in samples:
        lint.add(s["question_id"], s["index"], None, s["code"], s.get("output_faults"))
    ours = report["regrade"]["lcb_runner"]
    dropped = run_lint.errata_ids()
    kept = {qid: found for qid, found in problems.items() if qid not in dropped}
    regraded = _rows(kept, lambda s: s["regrade"]["passed"])
    without = numbers(regraded, window, release)["lcb_runner"]["value"] if kept else None
    errata = run_lint.errata_finding(ours["question_ids"], ours["value"], without)
    return run_lint.sample_findings(lint) + [errata]


def build(regraded: Regrade, window) -> dict:
    head = regraded.header
    dataset = head["dataset"]
    release = None if dataset["not_a_release"] else dataset["release"]
    problems = _problems(regraded.samples)
    compared = [compare(samples) for samples in problems.values()]
    report = {
        "schema": SCHEMA,
        "header": head,
        "window": list(window) if window else None,
        "samples": len(regraded.samples),
        "regrade": numbers(
            _rows(problems, lambda s: s["regrade"]["passed"]), window, release
        ),
        "harness": None,
        "problems": compared,
        "counts": dict(Counter(p["status"] for p in compared)),
        "reasons": dict(Counter(
            reason for p in compared for c in p["changed"] for reason in ["+".join(c["why"])]
        )),
        "judge_aware": sum(len(p["judge_aware"]) for p in compared),
    }  # fmt: skip
    if all(s["harness"]["passed"] is not None for s in regraded.samples):
        report["harness"] = numbers(
            _rows(problems, lambda s: s["harness"]["passed"]), window, release
        )
    elif all(p["harness_score"] for p in compared):
        metric = {p["harness_score"][0] for p in compared}
        report["harness"] = {
            "metric": ", ".join(sorted(metric)),
            "mean": round(100 * sum(p["harness_score"][1] for p in compared) / len(compared), 2),
        }
    report["lint"] = lint_findings(regraded.samples, problems, window, release, report)
    report["timing"] = timing_band.summary(
        regraded.samples, head,
        lambda verdict: numbers(_rows(problems, verdict), window, release)["lcb_runner"][
            "pass@1"]["all"],
    )  # fmt: skip
    # graded by a tree that is not 28fef95's lcb_runner (--allow-modified-upstream), or by a
    # judge that differs from 28fef95's (--accept-judge-differences): what differs is named
    # in every view, and its number is never green
    report["upstream_modified"] = head["upstream"].get("tree", {}).get("changes", [])
    not_lcb_runners = is_modified(head["upstream"]) or bool(head["judge_differs"])
    # no run lcb_runner wrote: audit and score fail it (derived, as the header's was checked)
    report["lcb_runner_raises"] = prompts_raise(head)
    if report["counts"].get(DIFFERS) or report["lcb_runner_raises"]:
        report["exit_code"] = exit_codes.DIFFERS
    elif report["counts"].get(NOT_COMPARED) or not_lcb_runners:
        report["exit_code"] = exit_codes.INCOMPLETE
    else:
        report["exit_code"] = exit_codes.OK
    return report


def _number(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def _harness_line(harness: dict | None) -> str:
    if harness is None:
        return "harness's own: not recorded for every problem (nothing to compare on some)"
    if "metric" in harness:
        return (
            f"harness's own ({harness['metric']}, mean over problems): {_number(harness['mean'])}"  # noqa: E501
        )
    ours, board = harness["lcb_runner"], harness["leaderboard"]
    return (
        f"harness's own verdicts: compute_scores {_number(ours['pass@1']['all'])}, "
        f"leaderboard {_number(board['mean'])}"
    )


def dataset_line(head: dict) -> str:
    found = head["dataset"]
    if found["not_a_release"]:
        return f"dataset: {NO_RELEASE} (sha256 {found['sha256'][:16]})"
    return (
        f"dataset: release {found['release']} ({found['problems_in_release']} problems; its "
        "files the published ones, ids, dates, difficulties, platforms as its manifest; "
        f"sha256 {found['sha256'][:16]})"
    )


def render(report: dict) -> str:
    head = report["header"]
    ours, board = report["regrade"]["lcb_runner"], report["regrade"]["leaderboard"]
    lines = [
        f"regrade: {head['run']} ({scenario_named(head)}; {head['format']}, "
        f"LMStyle.{head['lmstyle']}), {len(report['problems'])} problems, "
        f"{report['samples']} samples",
        dataset_line(head),
        f"upstream: {named(head['upstream'])}",
    ]
    if report.get("lcb_runner_raises"):
        lines.insert(1, f"NOT LCB_RUNNER'S RUN: {report['lcb_runner_raises']}: its prompts are "
                     "not lcb_runner's and could not be checked")  # fmt: skip
    if head["judge_differs"]:
        lines.append(
            f"  its judge differs from 28fef95's on {len(head['judge_differs'])} judge cases "
            f"({', '.join(head['judge_differs'])}): graded with --accept-judge-differences"
        )
    if head.get("judge_cache"):
        cached = head["judge_cache"]
        lines.append(
            f"  its judge check from the judge cache, not run now: checked {cached['checked_at']}"
            f" by {cached['checked_by']} ({cached['entry']}; --no-judge-cache checks again)"
        )
    if head["shard"]:
        lines.append(f"slice {head['shard'][0]}/{head['shard'][1]} of {head['problems']} problems")
    lines += [
        "",
        f"{'':34}{'problems':>9}{'pass@1':>8}{'easy':>8}{'medium':>8}{'hard':>8}{'± SE':>7}",
        f"{'lcb_runner (compute_scores)':34}{ours['count']:>9}"
        + "".join(f"{_number(ours['pass@1'][g]):>8}" for g in ("all", "easy", "medium", "hard"))
        + f"{_number(ours['standard_error']):>7}",
        f"{'leaderboard (mean of pass@1)':34}{board['count']:>9}{_number(board['mean']):>8}"
        + " " * 24 + f"{_number(board['standard_error']):>7}",
        _harness_line(report["harness"]),
        "",
    ]  # fmt: skip
    changed = [p for p in report["problems"] if p["status"] != SAME]
    lines.append(
        "per problem: "
        + ", ".join(
            f"{count} {status}" for status, count in sorted(report["counts"].items())
        )  # fmt: skip
    )
    for problem in changed[:SHOWN]:
        lines.append(f"  {problem['question_id']}: {problem['status']}"
                     + (f" ({problem['why']})" if problem.get("why") else ""))  # fmt: skip
        for change in problem["changed"]:
            lines.append(
                f"    sample {change['sample']}: harness {_verdict(change['harness'])}, "
                f"lcb_runner {_verdict(change['lcb_runner'])}: {' and '.join(change['why'])} "
                "differs"
            )
    lines += listing.rest(len(changed), SHOWN, "  ", "--json")
    aware = [(p["question_id"], a) for p in report["problems"] for a in p["judge_aware"]]
    if aware:
        lines.append(f"judge-aware: {len(aware)} samples changed the judge running them (their "
                     "verdicts are lcb_runner's, which credits them too):")  # fmt: skip
    for qid, found in aware[:SHOWN]:
        lines.append(f"  {qid} sample {found['sample']} ({_verdict(found['lcb_runner'])}): "
                     f"{judge_aware.named(found['touched'])}")  # fmt: skip
    lines += listing.rest(len(aware), SHOWN, "  ", "--json")
    lines += timing_band.lines(report.get("timing"))
    noted = sum(p["extraction_differs"] for p in report["problems"])
    if noted:
        lines.append(f"{noted} samples where the harness scored other code than lcb_runner's "
                     "extraction (a verdict changed only where named above)")  # fmt: skip
    return "\n".join(lines + run_lint.lines(report.get("lint", [])))


def scenario_words(head: dict) -> str:
    """The scenario whose number the regrade gives: lcb_runner's and the leaderboard's
    self-repair number is not its code generation number. A results file written before the
    header recorded it is code generation's (regrade refused every other scenario then)."""
    return SCENARIO_WORDS[head.get("scenario", CODE_GENERATION)]


def scenario_named(head: dict) -> str:
    return f"lcb_runner's {scenario_words(head)} scenario"


def _verdict(value) -> str:
    return {True: "passed", False: "failed", None: "not recorded"}[value]


def headline(report: dict) -> str:
    state = {exit_codes.OK: "OK", exit_codes.DIFFERS: "DIFFERS"}.get(
        report["exit_code"], "INCOMPLETE"
    )
    ours = report["regrade"]["lcb_runner"]
    board = report["regrade"]["leaderboard"]
    release = report["header"]["dataset"]
    on = "no release" if release["not_a_release"] else release["release"]
    band = timing_band.band_words(report.get("timing"))
    head = report["header"]
    raised = ""
    if report.get("lcb_runner_raises"):
        raised = RAISES_WORDS.format(scenario_words(head), head["lmstyle"])
    return (
        f"{state}: {raised}lcb_runner's {scenario_words(head)} regrade "
        f"{_number(ours['pass@1']['all'])} (compute_scores{', ' + band if band else ''}), "
        f"{_number(board['mean'])} (leaderboard), on {on}; "
        f"{report['counts'].get(DIFFERS, 0)} problems graded differently by the harness"
        + (f"; by a MODIFIED lcb_runner ({ALLOW_MODIFIED})" if report["upstream_modified"] else "")
        + (f"; by a judge that differs from 28fef95's on {len(head['judge_differs'])} judge "
           "cases (--accept-judge-differences)" if head["judge_differs"] else "")
        + (f"; {report['judge_aware']} judge-aware samples named" if report["judge_aware"] else "")
    )


def _changes(problem: dict) -> str:
    changed = [f"sample {c['sample']}: {' and '.join(c['why'])}" for c in problem["changed"]]
    changed += [f"sample {a['sample']} judge-aware: {judge_aware.named(a['touched'])}"
                for a in problem["judge_aware"]]  # fmt: skip
    return "; ".join(changed) or problem.get("why", "")


def _timing_html(found: dict | None) -> list[str]:
    """Every starved and every flipped sample, by name (the text view shows the first few)."""
    if not found or not (found["starved"] or found["flipped"]):
        return []
    items = [f"<li>{escape(s['sample'])}: starved, graded again alone "
             f"({_verdict(s['starved'])} starved, {_verdict(s['alone'])} alone)</li>"
             for s in found["starved"]]  # fmt: skip
    items += [f"<li>{escape(name)}: flipped on recheck</li>" for name in found["flipped"]]
    return ['<h2 id="timing">Timing</h2>', f"<ul>{''.join(items)}</ul>"]


def to_html(report: dict) -> str:
    status = "pass" if report["exit_code"] == exit_codes.OK else "fail"
    rows = "".join(
        f"<tr><td>{escape(p['question_id'])}</td><td>{escape(p['status'])}</td>"
        f"<td>{p['regrade_passed']}/{p['samples']}</td>"
        f"<td>{'-' if p['harness_passed'] is None else p['harness_passed']}</td>"
        f"<td>{escape(_changes(p))}</td></tr>"
        for p in report["problems"]
    )
    body = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>lcb-conformance regrade: {escape(report['header']['run'])} ({status})</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>lcb-conformance regrade</h1>",
        f'<p class="headline {status}" id="verdict">{escape(headline(report))}</p>',
        '<h2 id="numbers">The numbers</h2>',
        f"<pre>{escape(render(report))}</pre>",
        '<h2 id="problems">Per problem</h2>',
        "<table><thead><tr><th>problem</th><th>status</th><th>lcb_runner passed</th>"
        f"<th>harness passed</th><th>why</th></tr></thead><tbody>{rows}</tbody></table>",
        *run_lint.html(report.get("lint", [])),
        *_timing_html(report.get("timing")),
        "</body></html>",
    ]
    return "\n".join(body) + "\n"
