"""`lcb-conformance score RUN`: a run's problem set against the releases, its figures as
lcb_runner and the leaderboard compute it over the window's problems and what the run lacks of
them, why they differ, the site's published data compared, a claim held to the figures at its
precision.

    lcb-conformance score RUN [--release TAG] [--window START:END] [--builder-tz ZONE]
                              [--claim X] [--allow-missing] [--published FILE [--model NAME]]
                              [--json FILE] [--html FILE]

RUN is lcb_runner's eval_all file (``Scenario.codegeneration_<n>_<t>_eval_all.json``: a JSON
array of rows with question_id, contest_date, difficulty, platform, graded_list, pass@1, and,
unless trimmed, output_list and code_list), streamed one row at a time; or its self-repair
eval_all (``Scenario.selfrepair_1_<t>_eval_all.json``, rows with original_code_list, however
named), whose figures are the self-repair scenario's: lcb_runner's compute_scores takes
``--scenario selfrepair`` and computes it alike, and the site's Self Repair tab shows it with
the same leaderboard component; every figure is labelled self-repair. The command says which
release tags its problems are (conformance/releases/), or the nearest and what is missing and
extra; computes the figures (``figures``): pass@1 (and pass@k) as lcb_runner's compute_scores
does, and the leaderboard's computation on this file (lcb_prompts.score, held to the score
goldens), each over the problems of the scope (the window of the release named, or of the
run's own release) with what it lacks; with ``--published``, the leaderboard site's own
per-problem data for the model (its performances_generation.json) and the problems where it
differs from the file. It flags problems without generations and rows whose pass@1 is not
their graded_list's; its lint (reports/run_lint.py) names the run's own faults (mixed n, no
code, cut answers) and ERRATA's problems, never the number.

``--claim X`` (percent, ``X%``, or a fraction when at most 1): a finished run's figures are
deterministic, so a claim holds when it IS one of them at the claim's own precision (53.7 is
53.74; 53.5 is not), and that figure covers every problem of the scope (``--allow-missing``:
the problems the run has).

The nearest release is chosen by containment (releases.closest): a run whose problems are all
a release's is that release's subset, and scored over its problems.

Exit codes: 0 nothing failed; 1 some of the run's problems are in no release, the run is not
the --release asked for, lacks problems of the window or release named (unless
--allow-missing), holds problems the scope does not or without generations, disagrees with
itself (a pass@1 not its graded_list's, lists not one entry per verdict), differs from the
--published data in the window, is a self-repair run whose folder's model lcb_runner 28fef95
builds no self-repair prompt for (run_formats.lcb_runner_files.lcb_runner_raises, as audit
asks it), or the claim is no figure (or only one the run does not cover); 2 unusable input
(the message names file, line and row), an impossible claim, a window with nothing in it; 6 a
report asked for could not be written.
"""

from __future__ import annotations

import argparse
import json
import sys
import zoneinfo
from datetime import datetime
from pathlib import Path

from lcb_conformance import releases, statements
from lcb_conformance.common import exit_codes, report_files, shared_options, showdiff

# The command's parts (regrade's views and score_logs, the docs' figures read them as score.*):
# the run read (score_run), its figures over the scope (score_figures), the site's published
# data (score_published), the claim (score_claims), the text and the page (score_render).
from lcb_conformance.reports import run_lint, score_run
from lcb_conformance.reports.score_claims import Claim, check_claim, claim_sentence, parse_claim
from lcb_conformance.reports.score_figures import (  # noqa: F401
    PUBLISHED,
    Scope,
    board_window,
    coverage_words,
    differences,
    figures,
    lacks_problems,
    lcb_runner_view,
    leaderboard_view,
    listing,
    problem_set,
    scope_of,
)
from lcb_conformance.reports.score_published import (  # noqa: F401
    Published,
    published_view,
    published_window,
    read_published,
)
from lcb_conformance.reports.score_render import headline, not_checked, render, to_html
from lcb_conformance.reports.score_run import (  # noqa: F401
    Run,
    RunError,
    listed_ids,
    read_run,
)
from lcb_conformance.run_formats.lcb_runner_files import CODE_GENERATION
from lcb_prompts import score as scoring

EXIT_OK, EXIT_FAILED, EXIT_INPUT = exit_codes.OK, exit_codes.DIFFERS, exit_codes.UNUSABLE
# 3: listing and flags are data, not sentences; 4: mixed_n, no_code, cut_off and
# outputs_not_recorded are no flags: the lint's findings say them (run_lint.py), once
SCHEMA = "lcb-conformance-score/4"
COVERAGE = ("expected", "missing", "without_generations", "extra")


def build(args: argparse.Namespace) -> dict:
    """The report on the command line's run and options."""
    run = read_run(args.run)
    published = read_published(args.published, args.model, args.run) if args.published else None
    return report_on(
        run,
        release=args.release,
        window=args.window,
        builder_tz=args.builder_tz,
        claim=args.claim,
        allow_missing=args.allow_missing,
        published=published,
    )


def report_on(
    run: Run,
    *,
    release: str | None = None,
    window: tuple[str, str] | None = None,
    builder_tz: str = "UTC",
    claim: Claim | None = None,
    allow_missing: bool = False,
    published: Published | None = None,
) -> dict:
    """A run's report: its problem set, its figures over the scope and what they lack, the
    published data compared, the claim held to the figures, the failures and the exit code.
    ``run`` holds the eval_all rows (Run(path, rows), flags and inconsistent rows optional)."""
    problems = problem_set(run, release)
    scope = scope_of(problems, release, window)
    rows, notes = run.rows, []
    if release:  # the number on that release: its problems the run has
        members = {r["question_id"] for r in scope.rows}
        rows = [r for r in run.rows if r["question_id"] in members]
        if len(rows) < len(run.rows):
            notes.append(
                f"--release {release}: the figures count the run's {len(rows):,} problems "
                f"of {release}; compute_scores on the whole file would count "
                f"{len(run.rows):,} ({len(run.rows) - len(rows):,} left out)"
            )
    if published and scope.start is None:
        board_start, board_end = published_window(published, builder_tz)
    else:
        board_start, board_end = board_window(scope, rows)
    lcb_runner = lcb_runner_view(rows, scope)
    leaderboard = leaderboard_view(rows, scope, board_start, board_end, builder_tz)
    if scope.named and not (lcb_runner["count"] or lcb_runner["expected"]):
        raise RunError(
            f"no problem of the run or of {scope.release or 'any release'} is dated "
            f"{scope.start}..{scope.end}: "
            "nothing to score"
        )
    notes += _wider_release_note(scope, lcb_runner)
    report = {
        "schema": SCHEMA,
        "run": str(run.path),
        "scenario": run.scenario,
        # what the file is and whether lcb_runner builds its prompts (as audit says them)
        "file": {
            "kind": run.kind, "lmstyle": run.lmstyle, "lcb_runner_raises": run.lcb_runner_raises,
        },  # fmt: skip
        "window": {"start": scope.start, "end": scope.end, "builder_tz": builder_tz},
        "problems": problems,
        "scope": {"release": scope.release, "named": scope.named, "problems": scope.describe()},
        "lcb_runner": lcb_runner,
        "leaderboard": leaderboard,
        # by the published builder, which reads code generation's files only
        "listed": run.scenario == CODE_GENERATION and len(run.rows) == scoring.LEADERBOARD_ROWS,
        "listing": listing(len(run.rows), run.scenario),
        "narrowed_to": release if len(rows) < len(run.rows) else None,
        "differences": differences(lcb_runner, leaderboard, rows),
        "notes": notes,
        "flags": run.flags,
        "inconsistent": run.inconsistent,
        "uneven": run.uneven,
        "allow_missing": allow_missing,
    }
    if published:
        report[PUBLISHED] = published_view(published, rows, board_start, board_end, builder_tz)
        report[PUBLISHED].update({key: leaderboard[key] for key in COVERAGE})
    report["statements"] = statements_record(run)
    report["figures"] = figures(report)
    report["lint"] = lint_findings(run, rows, scope, lcb_runner)
    if claim is not None:
        report["claim"] = check_claim(claim, report["figures"], allow_missing)
    report["failures"] = failures(report, release is not None)
    report["not_checked"] = not_checked(report)  # what the file does not hold: the headline's first
    report["exit_code"] = EXIT_FAILED if report["failures"] else EXIT_OK
    return report


# --- the statement check (statements.py): what the model saw, problem by problem ---
def statements_record(run: Run) -> dict:
    """The run's statements against the release's digests, as the report records them."""
    result = statements.check(run.statement_rows, releases.problems())
    return result.record() | {"summary": result.summary(), "differs": result.differs}


def statement_failure(report: dict) -> list[str]:
    """A rewritten or foreign statement fails the run: it is not the release's problem set."""
    record = report.get("statements")
    if not record or not record["differs"]:
        return []
    return [f"the run's problems are not the release's as the model saw them: {record['summary']}"]


# --- end of the statement check ---


def lint_findings(run: Run, rows: list[dict], scope: Scope, lcb_runner: dict) -> list[dict]:
    """The run's own faults (reports/run_lint.py), ERRATA's among the problems the official
    figure counts, and that figure without them by the same aggregation."""
    found = run_lint.sample_findings(run.lint) if run.lint.sizes else []
    dropped = run_lint.errata_ids()
    kept = [r for r in rows if r["question_id"] not in dropped]
    without = lcb_runner_view(kept, scope)["value"] if kept else None
    return found + [
        run_lint.errata_finding(lcb_runner["question_ids"], lcb_runner["value"], without)
    ]


def _wider_release_note(scope: Scope, lcb_runner: dict) -> list[str]:
    """A window of the run's own release, said when release_latest holds more in it."""
    if scope.start is None or scope.release in (None, releases.LATEST):
        return []
    latest = scoring.lcb_runner_rows(releases.members(releases.LATEST), scope.start, scope.end)
    more = len(latest) - lcb_runner["expected"]
    if more <= 0:
        return []
    return [
        f"the window is held to {scope.describe()}; {releases.LATEST} holds {more:,} more "
        f"problems in it (a later release's leaderboard counts them: --release {releases.LATEST} "
        "holds the run to them)"
    ]


def failures(report: dict, release_named: bool) -> list[str]:
    """Why the report fails, each in one line; none: exit 0."""
    found = problem_set_failures(report["problems"], release_named)
    without = {f["kind"]: f for f in report["flags"]}.get(score_run.WITHOUT_GENERATIONS)
    if without:
        found.append(
            f"{without['count']} problems have no generations "
            f"({listed_ids(without['question_ids'])}): compute_scores counts them as passed"
        )
    if report.get("uneven"):
        found.append(
            f"the file disagrees with itself: {len(report['uneven'])} problems' output_list or "
            f"code_list is not one entry per graded_list verdict ({listed_ids(report['uneven'])})"
        )
    if report["inconsistent"]:
        found.append(
            f"the file disagrees with itself: {len(report['inconsistent'])} rows' pass@1 is not "
            "their graded_list's (compute_scores reads graded_list, the leaderboard pass@1)"
        )
    if PUBLISHED in report and report[PUBLISHED]["differing_in_window"]:
        published = report[PUBLISHED]
        found.append(
            f"the file is not what the site published for {published['model']}: "
            f"{len(published['differing_in_window'])} problems of the window differ"
        )
    found += statement_failure(report)
    raised = report.get("file", {}).get("lcb_runner_raises")
    if raised:  # audit fails the file for it too: one verdict per file
        found.append(
            f"{raised}: its prompts are not lcb_runner's and could not be checked "
            "(`lcb-conformance audit` names each sample)"
        )
    claim = report.get("claim")
    if claim is not None and not claim["consistent"]:
        found.append(claim_sentence(report))
    elif claim is None and report["scope"]["named"]:
        for figure in report["figures"]:
            if figure["name"] != PUBLISHED and lacks_problems(figure, report["allow_missing"]):
                found.append(f"{figure['label']}: {coverage_words(figure)}")
    return found


def problem_set_failures(problems: dict, release_named: bool) -> list[str]:
    """The run's problems in no release (every one, or some), and a --release they are not."""
    found, nearest = [], problems["matches"][0]
    foreign = problems["in_no_release"]
    if len(foreign) == problems["count"]:
        found.append(
            f"none of the run's {problems['count']:,} problems is in any release: no figure here "
            "is a LiveCodeBench number"
        )
    elif foreign:
        found.append(
            f"{len(foreign):,} of the run's {problems['count']:,} problems are in no release "
            f"({listed_ids(foreign)}): the figures count problems that are no LiveCodeBench one"
        )
    if release_named and not nearest["equal"]:
        found.append(
            f"the run is not {nearest['tag']}: it holds {nearest['words']}; "
            f"{len(nearest['missing'])} missing, {len(nearest['extra'])} extra"
        )
    return found


def parse_window(text: str) -> tuple[str, str]:
    start, colon, end = text.partition(":")
    try:
        if not colon or datetime.fromisoformat(start) > datetime.fromisoformat(end):
            raise ValueError
        for day in (start, end):
            datetime.strptime(day, scoring.DATE_FORMAT)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give START:END as YYYY-MM-DD:YYYY-MM-DD, START not after END"
        ) from None
    return start, end


def parse_release(text: str) -> str:
    if text not in releases.tag_files():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a release tag of the dataset's loader (release_v1..release_v6, "
            "release_latest, v1..v6, vA_vB)"
        )
    return text


def parse_zone(text: str) -> str:
    try:
        zoneinfo.ZoneInfo(text)
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a time zone of this system's database (an IANA name such as UTC "
            "or America/Los_Angeles)"
        ) from None
    return text


def parser(run_help: str = "lcb_runner's eval_all JSON file") -> argparse.ArgumentParser:
    found = shared_options.CommandParser(
        prog="lcb-conformance score",
        description="Is this number comparable? A finished run's problem set and its score as "
        "lcb_runner computes it and as the leaderboard computes it; a claim held to them.",
    )
    found.add_argument("run", type=Path, help=run_help)
    found.add_argument("--release", type=parse_release, metavar="TAG", help="the release it claims")
    found.add_argument("--window", type=parse_window, metavar="START:END", help="contest dates")
    found.add_argument(
        "--builder-tz",
        type=parse_zone,
        default="UTC",
        metavar="ZONE",
        help="the leaderboard builder's time zone (default: UTC, what the site's data used)",
    )
    found.add_argument(
        "--claim",
        type=parse_claim,
        metavar="X",
        help="a claimed pass@1: percent (53.7, 53.7%%) or a fraction (0.537); it holds when it "
        "is a figure at its own precision, over every problem of the window or release",
    )
    found.add_argument(
        "--allow-missing",
        action="store_true",
        help="hold the claim to the problems the run has of the window or release",
    )
    found.add_argument(
        "--published",
        type=Path,
        metavar="FILE",
        help="the leaderboard site's performances_generation.json (any commit): compare",
    )
    found.add_argument(
        "--model", metavar="NAME", help="the model of --published (default: the run's folder)"
    )
    shared_options.add_reports(found)
    return found


def main(argv: list[str] | None = None) -> int:
    commands = parser()
    args = commands.parse_args(argv)
    if args.model is not None and args.published is None:
        commands.error("--model names the model of --published, which is not given")
    try:
        report = build(args)
    except RunError as error:
        showdiff.write(f"score: {error}", sys.stderr)
        return EXIT_INPUT
    written = report_files.write_reports(
        "lcb-conformance score",
        {
            "JSON": (args.json, lambda: json.dumps(report, indent=1) + "\n"),
            "HTML": (args.html, lambda: to_html(report)),
        },
    )
    showdiff.write(render(report))
    showdiff.write("")
    showdiff.write(headline(report))
    return report["exit_code"] if written else report_files.REPORT_NOT_WRITTEN


if __name__ == "__main__":
    sys.exit(main())
