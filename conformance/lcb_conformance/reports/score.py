"""`lcb-conformance score RUN`: is this number comparable? A finished run's problem set against
the release manifests, and its score both as lcb_runner computes it and as the leaderboard
shows it, with what makes them differ.

    lcb-conformance score RUN [--release TAG] [--window START:END] [--builder-tz ZONE]
                              [--claim X] [--json FILE] [--html FILE]

RUN is lcb_runner's eval_all file (``Scenario.codegeneration_<n>_<t>_eval_all.json``: a JSON
array of rows with question_id, contest_date, difficulty, platform, graded_list, pass@1, and,
unless trimmed, output_list and code_list), streamed one row at a time. The command says which
release tags its problems are (conformance/releases/), or the nearest and what is missing and
extra; computes pass@1 (and pass@k) as lcb_runner's compute_scores does and as the leaderboard
shows it (lcb_prompts.score, held to the score goldens), overall and per difficulty, with the
standard error over problems; says which problems only one of them counts and why; and flags
mixed n, problems without generations, outputs with no code and outputs that look cut off
(an unclosed code fence). ``--claim X`` (percent, or a fraction when at most 1): consistent
when within one standard error of either number.

Exit codes: 0 nothing failed; 1 the run is not the --release asked for, or the claim is
inconsistent; 2 unusable input (the message names file, line and row); 6 a report asked for
could not be written.
"""

from __future__ import annotations

import argparse
import json
import sys
import zoneinfo
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from lcb_conformance.reports.report import CSS, _e
from lcb_conformance.suite import exit_codes, json_stream, releases, report_files
from lcb_prompts import score as scoring

EXIT_OK, EXIT_FAILED, EXIT_INPUT = exit_codes.OK, exit_codes.DIFFERS, exit_codes.UNUSABLE
SCHEMA = "lcb-conformance-score/1"
REQUIRED = ("question_id", "contest_date", "difficulty", "graded_list")
SHOWN = 12  # problems listed by id before "... and N more"
# The leaderboard's widest window: its first date mark, and a mark after any problem.
FIRST_MARK = "2023-05-01"
FENCE = "```"


class RunError(ValueError):
    """A run file the command cannot score; the message names file, line and row."""


@dataclass
class Run:
    path: Path
    rows: list[dict] = field(default_factory=list)  # the fields scoring reads, nothing more
    flags: list[str] = field(default_factory=list)


def _check(path: Path, line: int, index: int, row: object) -> dict:
    where = f"{path}:{line}: row {index}"
    if not isinstance(row, dict):
        raise RunError(f"{where} is {type(row).__name__}, not an object (an eval_all row)")
    missing = [name for name in REQUIRED if name not in row]
    if missing:
        raise RunError(f"{where} ({row.get('question_id', '?')}) lacks {', '.join(missing)}")
    if row["difficulty"] not in scoring.DIFFICULTIES:
        raise RunError(f"{where}: difficulty {row['difficulty']!r} is not easy/medium/hard")
    if not isinstance(row["graded_list"], list):
        raise RunError(f"{where}: graded_list is {type(row['graded_list']).__name__}, not a list")
    try:
        datetime.fromisoformat(row["contest_date"])
    except (TypeError, ValueError):
        raise RunError(f"{where}: contest_date {row['contest_date']!r} is not ISO") from None
    return row


def read_run(path: Path) -> Run:
    """The run's rows (the fields scoring reads) and what its outputs show."""
    if not path.is_file():
        raise RunError(f"{path}: no such file")
    run = Run(path)
    no_code = cut = derived_pass_1 = 0
    outputs_recorded = False
    seen: set[str] = set()
    try:
        for index, (line, element) in enumerate(json_stream.iter_array(path)):
            row = _check(path, line, index, element)
            qid = str(row["question_id"])
            if qid in seen:
                raise RunError(f"{path}:{line}: row {index}: question_id {qid} appears twice")
            seen.add(qid)
            outputs_recorded |= "output_list" in row or "code_list" in row
            no_code += sum(1 for code in row.get("code_list") or () if not code)
            cut += sum(1 for out in row.get("output_list") or () if out.count(FENCE) % 2)
            kept = {name: row[name] for name in REQUIRED}
            kept["question_id"] = qid
            kept["platform"] = row.get("platform")
            if "pass@1" in row:
                kept["pass@1"] = row["pass@1"]
            elif kept["graded_list"]:
                kept["pass@1"] = kept["graded_list"].count(True) / len(kept["graded_list"])
                derived_pass_1 += 1
            else:
                kept["pass@1"] = 0.0
                derived_pass_1 += 1
            run.rows.append(kept)
    except json_stream.JsonStreamError as error:
        raise RunError(str(error)) from None
    if not run.rows:
        raise RunError(f"{path}: no rows (an eval_all file is a JSON array of rows)")
    run.flags = _flags(run.rows, no_code, cut, derived_pass_1, outputs_recorded)
    return run


def _flags(rows, no_code: int, cut: int, derived: int, outputs_recorded: bool) -> list[str]:
    flags = []
    sizes = Counter(len(r["graded_list"]) for r in rows)
    if len(sizes) > 1:
        spread = ", ".join(f"n={n}: {count}" for n, count in sorted(sizes.items()))
        flags.append(f"mixed n ({spread}): compute_scores averages per-problem estimates anyway")
    empty = [r["question_id"] for r in rows if not r["graded_list"]]
    if empty:
        flags.append(
            f"{len(empty)} problems without generations ({_listed(empty)}): compute_scores' "
            "estimator takes n=0 as pass@k 1.0; compute_metrics_from_results then reports no "
            "pass@k at all"
        )
    if not outputs_recorded:
        flags.append(
            "outputs not recorded (no output_list/code_list): no-code and cut-off "
            "outputs not checked"
        )
    if no_code:
        flags.append(f"{no_code} outputs with no code extracted (code_list entry empty)")
    if cut:
        flags.append(f"{cut} outputs look cut off at the token limit (an unclosed ``` fence)")
    if derived:
        flags.append(
            f"{derived} rows lack pass@1: taken as graded_list.count(True)/len, as "
            "lcb_runner writes it (compute_scores itself would fail on them)"
        )
    return flags


def _listed(ids) -> str:
    ids = sorted(ids)
    more = f", ... and {len(ids) - SHOWN} more" if len(ids) > SHOWN else ""
    return ", ".join(ids[:SHOWN]) + more


def _percent(value) -> float | None:
    return None if value is None or value != value else round(value * 100, 2)


def problem_set(run: Run, release: str | None) -> dict:
    """The run's problems against the release tags (or the one asked for); its sha256 over the
    run's own question ids, dates, difficulties and platforms, and the tags whose manifest has
    the same (same problems, same metadata)."""
    ids = [r["question_id"] for r in run.rows]
    matches = [releases.compare(ids, release)] if release else releases.closest(ids)
    digest = releases.problem_set_sha256([{**r, "platform": r["platform"] or ""} for r in run.rows])
    return {
        "count": len(ids),
        "sha256": digest,
        "sha256_equals": [
            tag for tag, m in releases.manifest()["tags"].items() if m["sha256"] == digest
        ],
        "asked_for": release,
        "matches": [
            {
                "tag": m.tag,
                "equal": m.equal,
                "membership": "exact" if m.exact else "derived by date (docs/score.md)",
                "missing": list(m.missing),
                "extra": list(m.extra),
            }
            for m in matches
        ],
    }


def lcb_runner_view(rows, start, end) -> dict:
    """compute_scores' numbers (percent) over the run, and the problems it counts."""
    scores = scoring.score_run(rows, start, end)
    kept = scoring.lcb_runner_rows(rows, start, end)
    sizes = [len(r["graded_list"]) for r in kept]
    by_problem = [r["graded_list"].count(True) / n for r, n in zip(kept, sizes, strict=True) if n]
    return {
        "rule": "compute_scores: start <= contest_date <= end, the dates at midnight",
        "count": scores["count"],
        "question_ids": sorted(r["question_id"] for r in kept),
        "pass@1": {group: _percent(v) for group, v in scores["pass@k"]["1"].items()},
        # k above the smallest n: the estimator counts those problems as passed (1.0)
        "pass@k": {
            k: _percent(groups["all"])
            for k, groups in scores["pass@k"].items()
            if k != "1" and sizes and int(k) <= min(sizes)
        },
        "pass@k_counting_n_below_k_as_passed": [
            int(k) for k in scores["pass@k"] if sizes and int(k) > min(sizes)
        ],
        "standard_error": _percent(scoring.standard_error(by_problem)),
        "raised": scores.get("raised"),
    }


def leaderboard_view(rows, start: str, end: str, zone: str, listed: bool) -> dict:
    """What the leaderboard shows for the run over [start, end] (its builder in ``zone``);
    ``listed``: whether its builder lists the run at all (exactly 880 rows)."""
    shown = scoring.leaderboard_rows(rows, start, end, zone)
    values = [scoring.row_pass_at_1(r) for r in shown]
    return {
        "rule": "build_leaderboard_json.py + leaderboardLib.tsx: contest_date (as UTC) + 1 day "
        f"between the date marks (midnights in {zone})",
        "window": [start, end],
        "listed": listed,
        "count": len(shown),
        "question_ids": sorted(r["question_id"] for r in shown),
        "mean": round(sum(values) / len(values), 2) if values else None,
        "shown": scoring.leaderboard_columns(shown),
        "standard_error": _percent(scoring.standard_error([v / 100 for v in values])),
    }


def differences(lcb_runner: dict, leaderboard: dict, rows) -> list[str]:
    """Which problems only one number counts, by contest date, and why."""
    dates = {r["question_id"]: r["contest_date"] for r in rows}
    ours, theirs = set(lcb_runner["question_ids"]), set(leaderboard["question_ids"])
    lines = []
    for ids, only, other in (
        (theirs - ours, "the leaderboard's", "compute_scores'"),
        (ours - theirs, "compute_scores'", "the leaderboard's"),
    ):
        by_day = Counter(dates[q][:10] for q in ids)
        for day, count in sorted(by_day.items()):
            lines.append(f"{count} problems dated {day} are in {only} window, not {other}")
    if lines:
        lines.append(
            "why: compute_scores keeps start <= contest_date <= end (midnight); the leaderboard's "
            "builder adds one day to every contest date (read as UTC) and the site keeps "
            "start <= date <= end between its builder's local midnights"
        )
    ours_value, theirs_value = lcb_runner["pass@1"]["all"], leaderboard["mean"]
    if ours_value is not None and theirs_value is not None:
        gap = theirs_value - ours_value
        lines.append(f"the leaderboard's mean is {gap:+.2f} points from compute_scores' pass@1")
    return lines


def check_claim(claim: float, lcb_runner: dict, leaderboard: dict) -> dict:
    claimed = claim * 100 if claim <= 1 else claim
    found = {"claimed_percent": claimed, "consistent_with": []}
    for name, value, error in (
        ("lcb_runner", lcb_runner["pass@1"]["all"], lcb_runner["standard_error"]),
        ("leaderboard", leaderboard["mean"], leaderboard["standard_error"]),
    ):
        if value is None:
            continue
        distance = abs(claimed - value)
        found[name] = {"value": value, "standard_error": error, "distance": round(distance, 2)}
        if distance <= (error or 0):
            found["consistent_with"].append(name)
    found["consistent"] = bool(found["consistent_with"])
    return found


def build(args: argparse.Namespace) -> dict:
    run = read_run(args.run)
    start, end = args.window or (None, None)
    problems = problem_set(run, args.release)
    rows = run.rows
    if args.release:  # the number on that release: its problems the run has
        members = {r["question_id"] for r in releases.members(args.release)}
        rows = [r for r in run.rows if r["question_id"] in members]
    board_start = start or FIRST_MARK
    board_end = end or _month_after(max(r["contest_date"] for r in run.rows))
    lcb_runner = lcb_runner_view(rows, start, end)
    listed = len(run.rows) == scoring.LEADERBOARD_ROWS
    leaderboard = leaderboard_view(rows, board_start, board_end, args.builder_tz, listed)
    report = {
        "schema": SCHEMA,
        "run": str(args.run),
        "window": {"start": start, "end": end, "builder_tz": args.builder_tz},
        "problems": problems,
        "lcb_runner": lcb_runner,
        "leaderboard": leaderboard,
        "differences": differences(lcb_runner, leaderboard, rows),
        "flags": run.flags,
    }
    if args.claim is not None:
        report["claim"] = check_claim(args.claim, lcb_runner, leaderboard)
    failed = (args.release and not problems["matches"][0]["equal"]) or (
        args.claim is not None and not report["claim"]["consistent"]
    )
    report["exit_code"] = EXIT_FAILED if failed else EXIT_OK
    return report


def _month_after(contest_date: str) -> str:
    """The first month start after a contest date plus one day: a date mark holding it."""
    moment = datetime.fromisoformat(contest_date) + timedelta(days=1)
    year, month = (moment.year + 1, 1) if moment.month == 12 else (moment.year, moment.month + 1)
    return f"{year:04d}-{month:02d}-01"


# --- rendering ----------------------------------------------------------------------------------


def _number(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def _problem_lines(problems: dict) -> list[str]:
    lines = []
    for match in problems["matches"]:
        if match["equal"]:
            lines.append(f"  = {match['tag']} ({match['membership']})")
            continue
        lines.append(
            f"  {'not' if problems['asked_for'] else 'nearest:'} {match['tag']} "
            f"({match['membership']}): {len(match['missing'])} missing, "
            f"{len(match['extra'])} extra"
        )
        for what in ("missing", "extra"):
            if match[what]:
                lines.append(f"    {what}: {_listed(match[what])}")
    return lines


def render(report: dict) -> str:
    problems, window = report["problems"], report["window"]
    ours, board = report["lcb_runner"], report["leaderboard"]
    dates = f"{window['start']}..{window['end']}" if window["start"] else "every contest date"
    lines = [
        f"score: {report['run']}: {problems['count']} problems, problem set sha256 "
        f"{problems['sha256'][:16]}"
        + (
            f" (= {', '.join(problems['sha256_equals'])}'s: same problems and metadata)"
            if problems["sha256_equals"]
            else ""
        ),
        "problem set:",
        *_problem_lines(problems),
        f"window: {dates}; the leaderboard's {board['window'][0]}..{board['window'][1]}, its "
        f"builder in {window['builder_tz']}",
        "",
        f"{'':34}{'problems':>9}{'pass@1':>8}{'easy':>8}{'medium':>8}{'hard':>8}{'± SE':>7}",
        f"{'lcb_runner (compute_scores)':34}{ours['count']:>9}"
        + "".join(f"{_number(ours['pass@1'][g]):>8}" for g in ("all", *scoring.DIFFICULTIES))
        + f"{_number(ours['standard_error']):>7}",
        f"{'leaderboard (mean of pass@1)':34}{board['count']:>9}{_number(board['mean']):>8}"
        + " " * 24
        + f"{_number(board['standard_error']):>7}",
        f"{'leaderboard, as shown (toFixed 1)':34}{'':>9}"
        + "".join(
            f"{board['shown'][c] if board['shown'][c] != scoring.NOT_SHOWN else '-':>8}"
            for c in scoring.LEADERBOARD_COLUMNS
        ),
    ]
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
    if not board["listed"]:
        lines.append(
            f"the leaderboard's builder lists only runs of exactly {scoring.LEADERBOARD_ROWS} "
            f"problems; this run ({problems['count']}) would not be on it"
        )
    if report["differences"]:
        lines += ["", "why the two numbers differ:", *(f"  {d}" for d in report["differences"])]
    if report["flags"]:
        lines += ["", "flags:", *(f"  - {flag}" for flag in report["flags"])]
    if "claim" in report:
        lines += ["", claim_sentence(report["claim"])]
    return "\n".join(lines)


def claim_sentence(claim: dict) -> str:
    parts = [
        f"{name} {claim[name]['value']:.2f} ± {claim[name]['standard_error']:.2f}"
        for name in ("lcb_runner", "leaderboard")
        if name in claim
    ]
    verdict = (
        f"consistent with {', '.join(claim['consistent_with'])}"
        if claim["consistent"]
        else "INCONSISTENT: outside one standard error of both"
    )
    return f"claim {claim['claimed_percent']:.2f}: {verdict} ({'; '.join(parts)})"


def headline(report: dict) -> str:
    ours, board = report["lcb_runner"], report["leaderboard"]
    state = "OK" if report["exit_code"] == EXIT_OK else "FAILED"
    return (
        f"{state}: lcb_runner {ours['count']} problems / {_number(ours['pass@1']['all'])}, "
        f"leaderboard {board['count']} / {_number(board['mean'])}"
    )


def to_html(report: dict) -> str:
    status = "pass" if report["exit_code"] == EXIT_OK else "fail"
    text = render(report)
    matches = "".join(
        f"<tr><td>{_e(m['tag'])}</td><td>{'yes' if m['equal'] else 'no'}</td>"
        f"<td>{_e(m['membership'])}</td><td>{len(m['missing'])}</td><td>{len(m['extra'])}</td></tr>"
        for m in report["problems"]["matches"]
    )
    body = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>lcb-conformance score: {_e(report['run'])} ({status})</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>lcb-conformance score</h1>",
        f'<p class="headline {status}" id="verdict">{_e(headline(report))}</p>',
        '<h2 id="problems">Problem set</h2>',
        "<table><thead><tr><th>tag</th><th>equal</th><th>membership</th><th>missing</th>"
        f"<th>extra</th></tr></thead><tbody>{matches}</tbody></table>",
        '<h2 id="numbers">The numbers, and why they differ</h2>',
        f"<pre>{_e(text)}</pre>",
        "</body></html>",
    ]
    return "\n".join(body) + "\n"


def _window(text: str) -> tuple[str, str]:
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


def _release(text: str) -> str:
    if text not in releases.tag_files():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a release tag of the dataset's loader (release_v1..release_v6, "
            "release_latest, v1..v6, vA_vB)"
        )
    return text


def _zone(text: str) -> str:
    try:
        zoneinfo.ZoneInfo(text)
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a time zone of this system's database (an IANA name such as UTC "
            "or America/Los_Angeles)"
        ) from None
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="lcb-conformance score",
        description="Is this number comparable? A finished run's problem set and its score as "
        "lcb_runner computes it and as the leaderboard shows it.",
    )
    parser.add_argument("run", type=Path, help="lcb_runner's eval_all JSON file")
    parser.add_argument("--release", type=_release, metavar="TAG", help="the release it claims")
    parser.add_argument("--window", type=_window, metavar="START:END", help="contest dates")
    parser.add_argument(
        "--builder-tz",
        type=_zone,
        default="UTC",
        metavar="ZONE",
        help="the leaderboard builder's time zone (default: UTC, what the site's data used)",
    )
    parser.add_argument("--claim", type=float, metavar="X", help="a claimed pass@1 (percent)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the JSON report here")
    parser.add_argument("--html", type=Path, metavar="FILE", help="write the HTML report here")
    args = parser.parse_args(argv)
    try:
        report = build(args)
    except RunError as error:
        print(f"score: {error}", file=sys.stderr)
        return EXIT_INPUT
    written = report_files.write_reports(
        "lcb-conformance score",
        {
            "JSON": (args.json, lambda: json.dumps(report, indent=1) + "\n"),
            "HTML": (args.html, lambda: to_html(report)),
        },
    )
    print(render(report))
    print()
    print(headline(report))
    return report["exit_code"] if written else report_files.REPORT_NOT_WRITTEN


if __name__ == "__main__":
    sys.exit(main())
