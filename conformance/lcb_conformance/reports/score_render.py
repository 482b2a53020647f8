"""`lcb-conformance score`'s report as text (the problem set, the figures' table, the
published data, the claim), its headline and its HTML page."""

from __future__ import annotations

from collections.abc import Callable

from lcb_conformance.common import exit_codes, listing
from lcb_conformance.reports import run_lint, score_run
from lcb_conformance.reports.page_style import CSS, escape
from lcb_conformance.reports.score_claims import claim_sentence
from lcb_conformance.reports.score_figures import (
    COMPUTE_SCORES,
    LABELS,
    LEADERBOARD,
    PUBLISHED,
    SELF_REPAIR_RULE,
    coverage_words,
    covered_count,
)
from lcb_conformance.reports.score_run import SHOWN, listed_ids
from lcb_conformance.run_formats import registry
from lcb_conformance.run_formats.lcb_runner_files import CODE_GENERATION, SCENARIO_WORDS
from lcb_prompts import score as scoring


def _number(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def problem_lines(problems: dict) -> list[str]:
    """Each tag against the run: equal, or how the run stands to it (a subset: "100 of
    release_v1's 400 problems") and what is missing and extra."""
    lines = []
    for match in problems["matches"]:
        if match["equal"]:
            lines.append(f"  = {match['tag']} ({match['membership']})")
            continue
        if match["relation"] == "in_no_release" and not problems["asked_for"]:
            lines.append(f"  in no release: {match['words']}")
        else:
            lines.append(
                f"  {'not' if problems['asked_for'] else 'nearest:'} {match['tag']} "
                f"({match['membership']}): {match['words']}; {len(match['missing']):,} missing, "
                f"{len(match['extra']):,} extra"
            )
        for what in ("missing", "extra"):
            if match[what] and (what == "extra" or match["relation"] != "in_no_release"):
                lines.append(f"    {what}: {listed_ids(match[what])}")
    return lines


LABEL_WIDTH = 46


def _shown_line(columns: dict) -> str:
    return f"{'  as the site shows it (toFixed 1)':{LABEL_WIDTH}}{'':>9}" + "".join(
        f"{columns[c] if columns[c] != scoring.NOT_SHOWN else '-':>8}"
        for c in scoring.LEADERBOARD_COLUMNS
    )


def _table(report: dict) -> list[str]:
    ours, board = report["lcb_runner"], report["leaderboard"]
    narrowed = report["narrowed_to"]
    lines = [] if narrowed is None else [f"the figures count the problems of {narrowed}:"]
    if report["scenario"] != CODE_GENERATION:  # the labels below keep code generation's width
        words = SCENARIO_WORDS[report["scenario"]]
        lines.append(f"the figures are lcb_runner's {words} scenario's:")
    lines += [
        f"{'':{LABEL_WIDTH}}{'problems':>9}{'pass@1':>8}{'easy':>8}{'medium':>8}{'hard':>8}"
        f"{'± SE':>7}",
        f"{LABELS[COMPUTE_SCORES]:{LABEL_WIDTH}}{ours['count']:>9}"
        + "".join(f"{_number(ours['pass@1'][g]):>8}" for g in ("all", *scoring.DIFFICULTIES))
        + f"{_number(ours['standard_error']):>7}",
        f"{LABELS[LEADERBOARD]:{LABEL_WIDTH}}{board['count']:>9}{_number(board['mean']):>8}"
        + " " * 24
        + f"{_number(board['standard_error']):>7}",
        _shown_line(board["shown"]),
    ]
    if PUBLISHED in report:
        published = report[PUBLISHED]
        lines += [
            f"{LABELS[PUBLISHED]:{LABEL_WIDTH}}{published['count']:>9}"
            f"{_number(published['mean']):>8}",
            _shown_line(published["shown"]),
        ]
    return lines


def _published_lines(published: dict) -> list[str]:
    lines = [
        "",
        f"published: {published['file']}, model {published['model']}, "
        f"{published['window'][0]}..{published['window'][1]}",
    ]
    differing = published["differences"]
    if not differing:
        return [*lines, "  the site's data and this file agree on every problem"]
    inside = [d for d in differing if d["in_window"]]
    lines.append(
        f"  {len(differing):,} problems differ between the site's data and this file, "
        f"{len(inside):,} of them in the window:"
    )
    for difference in (inside + [d for d in differing if not d["in_window"]])[:SHOWN]:
        where = "in the window" if difference["in_window"] else "outside it"
        lines.append(f"    {difference['question_id']}: {difference['what']} ({where})")
    lines += listing.rest(len(differing), SHOWN, "    ")
    return lines


def _scenario_words(report: dict) -> str:
    """Said of a run of another scenario than code generation: its figures are that one's; of
    custom_evaluator's output, what it is (run_formats.registry)."""
    custom = report.get("file", {}).get("kind") == registry.CUSTOM_EVALUATOR
    kind = f" ({registry.CUSTOM_WORDS})" if custom else ""
    if report["scenario"] == CODE_GENERATION:
        return kind
    return f" (lcb_runner's {SCENARIO_WORDS[report['scenario']]} results){kind}"


def render(report: dict, lint: bool = True) -> str:
    """The report as text; ``lint``: with the lint's section (the page shows it as a table)."""
    problems, window = report["problems"], report["window"]
    ours, board = report["lcb_runner"], report["leaderboard"]
    dates = f"{window['start']}..{window['end']}" if window["start"] else "every contest date"
    lines = [
        f"score: {report['run']}{_scenario_words(report)}: {problems['count']} problems, "
        "problem set sha256 "
        f"{problems['sha256'][:16]}"
        + (
            f" (= {', '.join(problems['sha256_equals'])}'s: same problems and metadata)"
            if problems["sha256_equals"]
            else ""
        ),
        "problem set:",
        *problem_lines(problems),
        f"scope: {report['scope']['problems']}"
        + (
            ""
            if report["scope"]["named"] or report["scope"]["release"] is None
            else " (the run's nearest release: none named)"
        ),
        f"window: {dates}; the leaderboard's {board['window'][0]}..{board['window'][1]}, its "
        f"builder in {window['builder_tz']}",
        "",
        *_table(report),
    ]
    for figure in report["figures"]:
        if figure["missing"] or (figure["extra"] and report["scope"]["release"] is not None):
            lines.append(f"{figure['label']}: {coverage_words(figure)}")
    if ours["raised"]:
        lines.append(f"compute_scores itself ends in {ours['raised']} (no problem in the window)")
    if ours["pass@k"]:
        shown = ", ".join(f"pass@{k} {v}" for k, v in ours["pass@k"].items())
        lines.append(f"lcb_runner pass@k: {shown}")
    if ours["pass@k_counting_n_below_k_as_passed"]:
        ks = ", ".join(map(str, ours["pass@k_counting_n_below_k_as_passed"]))
        lines.append(
            f"compute_scores prints pass@{{{ks}}} counting every problem with n < k as passed "
            "(1.0; LiveCodeBench#40): not a score"
        )
    lines += report["notes"]
    if "statements" in report:  # the statement check (statements.py), one line
        lines.append(report["statements"]["summary"])
    if not report["listing"]["listed_by_builder"]:
        lines.append(listing_words(report["listing"]))
    if report["differences"]:
        lines += ["", "why the two numbers differ:", *(f"  {d}" for d in report["differences"])]
    if PUBLISHED in report:
        lines += _published_lines(report[PUBLISHED])
    if report["inconsistent"]:
        lines += [
            "",
            f"the file disagrees with itself: pass@1 is not graded_list.count(True)/len on "
            f"{len(report['inconsistent'])} rows ({listed_ids(report['inconsistent'])})",
        ]
    return "\n".join(lines + closing_lines(report, claim_sentence, lint))


def listing_words(listing: dict) -> str:
    """Why no edition, or only an unpublished builder's, lists the run (score_figures.listing)."""
    source, count = listing["source"], listing["run_rows"]
    if listing["rule"] == SELF_REPAIR_RULE:
        return (
            f"no published builder lists self-repair runs: the published one "
            f"({source['repository']} {source['commit']}) reads only "
            "Scenario.codegeneration_*_eval_all.json; the site's Self Repair tab "
            "(performances_repair.json) was built by a builder not published: the leaderboard's "
            f"computation here applies {source['commit']}'s rules, which the tab's component "
            "computes as code generation's"
        )
    builder = (
        f"the published builder ({source['repository']} {source['commit']}) keeps only files of "
        f"exactly {listing['builder_rows']} rows"
    )
    if edition := listing["edition"]:
        return (
            f"{builder}; the site's {edition['name']} leaderboard lists runs of {count:,} problems "
            f"({edition['release']}), built by a builder not published: the leaderboard's "
            f"computation here applies {source['commit']}'s rules"
        )
    sizes = ", ".join(f"{e['name']}: {e['problems']:,}" for e in listing["editions"])
    return (
        f"no leaderboard edition lists a run of {count:,} problems: {builder}, and the site's "
        f"editions list runs of one release each ({sizes})"
    )


FLAG_WORDS = {
    score_run.WITHOUT_GENERATIONS: lambda f: (
        f"{f['count']} problems without generations ({listed_ids(f['question_ids'])}): "
        "compute_scores' estimator takes n=0 as pass@k 1.0; compute_metrics_from_results then "
        "reports no pass@k at all"
    ),
    score_run.LISTS_UNEVEN: lambda f: (
        f"{f['count']} problems whose output_list or code_list is not one entry per verdict of "
        f"graded_list ({listed_ids(f['question_ids'])}): what was graded is not what is recorded"
    ),
    score_run.PASS_AT_1_DERIVED: lambda f: (
        f"{f['count']} rows lack pass@1: taken as graded_list.count(True)/len, as lcb_runner "
        "writes it (compute_scores itself would fail on them)"
    ),
}


def flag_words(flag: dict) -> str:
    """A flag of the rows (score_run.run_flags) in words."""
    return FLAG_WORDS[flag["kind"]](flag)


FLAGS_HEADING = "flags (the rows'; mixed n, no code and cut answers are the lint's, below):"


def closing_lines(report: dict, claim: Callable[[dict], str], lint: bool = True) -> list[str]:
    """What closes a score's text: the rows' flags, the claim's sentence (``claim``) and, with
    ``lint``, the lint's section."""
    lines = []
    if report["flags"]:
        lines += ["", FLAGS_HEADING, *(f"  - {flag_words(flag)}" for flag in report["flags"])]
    if "claim" in report:
        lines += ["", claim(report)]
    return lines + (run_lint.lines(report.get("lint", [])) if lint else [])


def not_checked(report: dict) -> list[str]:
    """What could not be checked on this file, said first in the headline."""
    found = []
    if not report.get("statements", {"carried": True})["carried"]:
        found.append("statements")
    if any(f["kind"] == run_lint.OUTPUTS_NOT_RECORDED for f in report.get("lint", [])):
        found.append("outputs")
    return found


def headline(report: dict) -> str:
    counts = "; ".join(
        f"{f['name']} {_number(f['value'])} on "
        + (
            f"{covered_count(f):,} of {f['expected']:,} problems"
            if f["missing"]
            else f"{f['count']:,} problems"
        )
        for f in report["figures"]
    )
    if report["scenario"] != CODE_GENERATION:
        counts = f"{SCENARIO_WORDS[report['scenario']]}: {counts}"
    nearest = report["problems"]["matches"][0]
    if nearest["relation"] in ("subset", "overlap", "superset"):
        counts = f"{nearest['words']}: {counts}"
    unchecked = not_checked(report)
    first = f"not checked (not in the file): {', '.join(unchecked)}; " if unchecked else ""
    if report["failures"]:
        return f"FAILED: {first}{counts}: " + "; ".join(report["failures"])
    allowed = (
        " (--allow-missing)"
        if report["allow_missing"] and any(f["missing"] for f in report["figures"])
        else ""
    )
    if "claim" in report:
        return f"OK{allowed}: {first}{claim_sentence(report)}; {counts}"
    return f"OK{allowed}: {first}{counts}"


def to_html(report: dict, text: str | None = None, head: str | None = None) -> str:
    """The page; ``text`` (without the lint, which the page shows as a table) and ``head``
    (default: render's and headline's) for another view of a run (regrade/score_logs.py's on a
    log without verdicts)."""
    status = "pass" if report["exit_code"] == exit_codes.OK else "fail"
    text = render(report, lint=False) if text is None else text
    head = headline(report) if head is None else head
    matches = "".join(
        f"<tr><td>{escape(m['tag'])}</td><td>{escape(m['words'])}</td>"
        f"<td>{escape(m['membership'])}</td><td>{len(m['missing'])}</td><td>{len(m['extra'])}</td></tr>"
        for m in report["problems"]["matches"]
    )
    body = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>lcb-conformance score: {escape(report['run'])} ({status})</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>lcb-conformance score</h1>",
        f'<p class="headline {status}" id="verdict">{escape(head)}</p>',
        '<h2 id="problems">Problem set</h2>',
        "<table><thead><tr><th>tag</th><th>the run</th><th>membership</th><th>missing</th>"
        f"<th>extra</th></tr></thead><tbody>{matches}</tbody></table>",
        '<h2 id="numbers">The numbers, and why they differ</h2>',
        f"<pre>{escape(text)}</pre>",
        *run_lint.html(report.get("lint", [])),
        "</body></html>",
    ]
    return "\n".join(body) + "\n"
