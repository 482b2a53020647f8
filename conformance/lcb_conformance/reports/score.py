"""`lcb-conformance score RUN`: a run's problem set against the releases, its figures as
lcb_runner and the leaderboard compute it over the window's problems and what the run lacks of
them, why they differ, the site's published data compared, a claim held to the figures at its
precision.

    lcb-conformance score RUN [--release TAG] [--window START:END] [--builder-tz ZONE]
                              [--claim X] [--allow-missing] [--published FILE [--model NAME]]
                              [--json FILE] [--html FILE]

RUN is lcb_runner's eval_all file (``Scenario.codegeneration_<n>_<t>_eval_all.json``: a JSON
array of rows with question_id, contest_date, difficulty, platform, graded_list, pass@1, and,
unless trimmed, output_list and code_list), streamed one row at a time. The command says which
release tags its problems are (conformance/releases/), or the nearest and what is missing and
extra; computes the figures (``figures``): pass@1 (and pass@k) as lcb_runner's compute_scores
does, and the leaderboard's computation on this file (lcb_prompts.score, held to the score
goldens), each over the problems of the scope (the window of the release named, or of the
run's own release) with what it lacks; with ``--published``, the leaderboard site's own
per-problem data for the model (its performances_generation.json) and the problems where it
differs from the file. It flags mixed n, problems without generations, outputs with no code,
outputs that look cut off, and rows whose pass@1 is not their graded_list's.

``--claim X`` (percent, ``X%``, or a fraction when at most 1): a finished run's figures are
deterministic, so a claim holds when it IS one of them at the claim's own precision (53.7 is
53.74; 53.5 is not), and that figure covers every problem of the scope (``--allow-missing``:
the problems the run has).

Exit codes: 0 nothing failed; 1 the run is not the --release asked for, lacks problems of the
window or release named (unless --allow-missing), holds problems the scope does not, disagrees
with itself (a pass@1 not its graded_list's), differs from the --published data in the window,
or the claim is no figure (or only one the run does not cover); 2 unusable input (the message
names file, line and row), an impossible claim, a window with nothing in it; 6 a report asked
for could not be written.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import zoneinfo
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from pathlib import Path

from lcb_conformance import releases
from lcb_conformance.common import exit_codes, json_stream, report_files, shared_options
from lcb_conformance.reports.report import CSS, _e
from lcb_conformance.run_formats import lcb_runner_files
from lcb_prompts import score as scoring

EXIT_OK, EXIT_FAILED, EXIT_INPUT = exit_codes.OK, exit_codes.DIFFERS, exit_codes.UNUSABLE
SCHEMA = "lcb-conformance-score/2"
REQUIRED = ("question_id", "contest_date", "difficulty", "graded_list")
SHOWN = 12  # problems listed by id before "... and N more"
# The leaderboard's widest window: its first date mark, and a mark after any problem.
FIRST_MARK = "2023-05-01"
FENCE = "```"
# The figures, by name; what each is, as the output names it.
COMPUTE_SCORES, LEADERBOARD, PUBLISHED = "compute_scores", "leaderboard", "published"
LABELS = {
    COMPUTE_SCORES: "lcb_runner's compute_scores on this file",
    LEADERBOARD: "the leaderboard's computation on this file",
    PUBLISHED: "the leaderboard site's published data",
}
PUBLISHED_BUILDER = "LiveCodeBench/submissions 4d04b02"  # the only builder LiveCodeBench published
PERCENT = Decimal(100)
COVERAGE = ("expected", "missing", "without_generations", "extra")


class RunError(ValueError):
    """A run file (or a published data file) the command cannot score; the message names the
    file, line and row."""


@dataclass
class Run:
    path: Path
    rows: list[dict] = field(default_factory=list)  # the fields scoring reads, nothing more
    flags: list[str] = field(default_factory=list)
    # rows whose written pass@1 (or pass1) is not graded_list.count(True) / len
    inconsistent: list[str] = field(default_factory=list)


def _check(path: Path, line: int, index: int, row: object) -> dict:
    where = f"{path}:{line}: row {index}"
    if not isinstance(row, dict):
        raise RunError(f"{where} is {type(row).__name__}, not an object (an eval_all row)")
    missing = [name for name in REQUIRED if name not in row]
    if missing:
        raise RunError(f"{where} ({row.get('question_id', '?')}) lacks {', '.join(missing)}")
    if row["difficulty"] not in scoring.DIFFICULTIES:
        raise RunError(f"{where}: difficulty {row['difficulty']!r} is not easy/medium/hard")
    graded = row["graded_list"]
    if not isinstance(graded, list) or not all(isinstance(g, bool) for g in graded):
        raise RunError(
            f"{where}: graded_list is {json.dumps(graded)[:60]}, not a list of true/false "
            "(lcb_runner's per-generation verdicts)"
        )
    for name in ("pass@1", "pass1"):
        value = row.get(name, 0.0)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise RunError(f"{where}: {name} {value!r} is not a fraction in [0, 1]")
    try:
        datetime.fromisoformat(row["contest_date"])
    except (TypeError, ValueError):
        raise RunError(f"{where}: contest_date {row['contest_date']!r} is not ISO") from None
    return row


def _disagrees(row: dict) -> bool:
    """The row's written pass@1 (and pass1, which the leaderboard's builder prefers) is not
    graded_list.count(True) / len, what lcb_runner writes."""
    graded = row["graded_list"]
    if not graded:
        return False
    written = [row[name] for name in ("pass@1", "pass1") if name in row]
    return any(
        not math.isclose(v, graded.count(True) / len(graded), abs_tol=1e-12) for v in written
    )


def read_run(path: Path) -> Run:
    """The run's rows (the fields scoring reads) and what its outputs show."""
    if not path.is_file():
        raise RunError(f"{path}: no such file")
    named = lcb_runner_files.parse(path.name)
    if named is not None and named.scenario != lcb_runner_files.CODE_GENERATION:
        raise RunError(
            f"{path}: lcb_runner's {named.scenario} results: score aggregates code generation "
            "runs (their problems are the releases'); `lcb-conformance regrade RUN --dataset "
            "ROWS` re-scores this scenario with lcb_runner's own metrics (docs/regrade.md)"
        )
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
            if "pass1" in row:
                kept["pass1"] = row["pass1"]
            if "pass@1" in row:
                kept["pass@1"] = row["pass@1"]
            elif kept["graded_list"]:
                kept["pass@1"] = kept["graded_list"].count(True) / len(kept["graded_list"])
                derived_pass_1 += 1
            else:
                kept["pass@1"] = 0.0
                derived_pass_1 += 1
            if _disagrees(row):
                run.inconsistent.append(qid)
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


def _mean(values) -> float | None:
    return sum(values) / len(values) if values else None


# --- the problem set and the scope ----------------------------------------------------------


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
                "membership": "exact" if m.exact else "derived by date (docs/score-goldens.md)",
                "missing": list(m.missing),
                "extra": list(m.extra),
            }
            for m in matches
        ],
    }


@dataclass(frozen=True)
class Scope:
    """The problems the figures are held to: a release's, within the window (if any).
    ``named``: the user named the window or the release (else it is the run's nearest)."""

    release: str
    start: str | None
    end: str | None
    named: bool

    @property
    def rows(self) -> list[dict]:
        return releases.members(self.release)

    def describe(self) -> str:
        dates = f" dated {self.start}..{self.end}" if self.start else ""
        return f"{self.release}'s problems{dates}"


def scope_of(problems: dict, release: str | None, window) -> Scope:
    """--release's problems, or (unnamed) the release nearest the run's problem set."""
    start, end = window or (None, None)
    tag = release or problems["matches"][0]["tag"]
    return Scope(tag, start, end, named=bool(release or window))


def _coverage(counted, expected_ids) -> dict:
    """What the rows a figure counts lack of the scope's problems, and hold beyond them. A
    problem without generations is missing: compute_scores' estimator counts it as passed."""
    scored = {r["question_id"] for r in counted if r["graded_list"]}
    expected = set(expected_ids)
    return {
        "expected": len(expected),
        "missing": sorted(expected - scored),
        "without_generations": sorted(expected & {r["question_id"] for r in counted} - scored),
        "extra": sorted({r["question_id"] for r in counted} - expected),
    }


def board_window(scope: Scope, rows) -> tuple[str, str]:
    """The leaderboard's window: the one named, else from its first mark to a mark after every
    problem of the run and of the scope."""
    if scope.start is not None:
        return scope.start, scope.end
    last = max(r["contest_date"] for r in [*rows, *scope.rows])
    return FIRST_MARK, _month_after(last)


# --- the figures ------------------------------------------------------------------------------


def lcb_runner_view(rows, scope: Scope) -> dict:
    """compute_scores' numbers (percent) over the run's rows in the scope's window, the
    problems it counts, and what it lacks of the scope's."""
    start, end = scope.start, scope.end
    scores = scoring.score_run(rows, start, end)
    kept = scoring.lcb_runner_rows(rows, start, end)
    sizes = [len(r["graded_list"]) for r in kept]
    by_problem = [r["graded_list"].count(True) / n for r, n in zip(kept, sizes, strict=True) if n]
    value = scores["pass@k"]["1"]["all"]
    expected = [r["question_id"] for r in scoring.lcb_runner_rows(scope.rows, start, end)]
    return {
        "rule": "compute_scores: start <= contest_date <= end, the dates at midnight",
        "count": scores["count"],
        "question_ids": sorted(r["question_id"] for r in kept),
        "value": None if value != value else value * 100,
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
        **_coverage(kept, expected),
    }


def leaderboard_view(rows, scope: Scope, start: str, end: str, zone: str) -> dict:
    """The leaderboard's computation on the run over [start, end] (its builder in ``zone``):
    what its site would show for this file, and what the run lacks of the scope's problems;
    """
    shown = scoring.leaderboard_rows(rows, start, end, zone)
    values = [scoring.row_pass_at_1(r) for r in shown]
    expected = scoring.leaderboard_rows(scope.rows, start, end, zone)
    return {
        "rule": "build_leaderboard_json.py + leaderboardLib.tsx: contest_date (as UTC) + 1 day "
        f"between the date marks (midnights in {zone})",
        "window": [start, end],
        "count": len(shown),
        "question_ids": sorted(r["question_id"] for r in shown),
        "value": _mean(values),
        "mean": None if not values else round(_mean(values), 2),
        "shown": scoring.leaderboard_columns(shown),
        "standard_error": _percent(scoring.standard_error([v / 100 for v in values])),
        **_coverage(shown, [r["question_id"] for r in expected]),
    }


def label(name: str, narrowed_to: str | None) -> str:
    """What a figure is; on a run narrowed to --release's problems, said."""
    if narrowed_to is None or name == PUBLISHED:
        return LABELS[name]
    return LABELS[name].replace("this file", f"{narrowed_to}'s problems of this file")


def figures(report: dict) -> list[dict]:
    """The report's figures, each named, with its value (percent, full precision), the problems
    it counts and what it lacks of the scope's: what a claim is held to."""
    found = []
    for name in (COMPUTE_SCORES, LEADERBOARD, PUBLISHED):
        view = report.get({COMPUTE_SCORES: "lcb_runner"}.get(name, name))
        if view is None:
            continue
        found.append(
            {
                "name": name,
                "label": label(name, report["narrowed_to"]),
                "value": view["value"],
                "count": view["count"],
                "expected": view["expected"],
                "missing": view["missing"],
                "without_generations": view["without_generations"],
                "extra": view["extra"],
            }
        )
    return found


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


def listing(count: int) -> str | None:
    """Whether a leaderboard edition lists a run of ``count`` problems, by the published
    builder's rule and the sizes the site's editions list (conformance/releases)."""
    if count == scoring.LEADERBOARD_ROWS:
        return None
    manifest = releases.manifest()
    editions = {
        manifest["tags"][edition["release"]]["count"]: (name, edition["release"])
        for name, edition in manifest["leaderboards"].items()
    }
    builder = (
        f"the published builder ({PUBLISHED_BUILDER}) keeps only files of exactly "
        f"{scoring.LEADERBOARD_ROWS} rows"
    )
    if count in editions:
        name, release = editions[count]
        return (
            f"{builder}; the site's {name} leaderboard lists runs of {count:,} problems "
            f"({release}), built by a builder not published: the leaderboard's computation here "
            "applies 4d04b02's rules"
        )
    sizes = ", ".join(f"{name}: {size:,}" for size, (name, _) in sorted(editions.items()))
    return (
        f"no leaderboard edition lists a run of {count:,} problems: {builder}, and the site's "
        f"editions list runs of one release each ({sizes})"
    )


# --- the site's published data ------------------------------------------------------------------


@dataclass
class Published:
    """A model's records in the leaderboard site's performances_generation.json."""

    path: Path
    model: str
    records: dict[str, dict]  # question_id -> the site's record (date in ms, pass@1 x100)
    marks: list[int]  # the builder's date marks, epoch ms


def read_published(path: Path, model: str | None, run: Path) -> Published:
    """The site's data for ``model``; unnamed, the model the run's folder is named after (as
    lcb_runner and the submissions name it), else the file's only model."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise RunError(f"{path}: {error}") from None
    shape = "the leaderboard site's performances_generation.json"
    if not isinstance(data, dict) or not isinstance(data.get("performances"), list):
        raise RunError(f"{path}: no 'performances' list: not {shape}")
    marks = data.get("date_marks")
    if not isinstance(marks, list) or not marks or not all(isinstance(m, int) for m in marks):
        raise RunError(f"{path}: no 'date_marks' (epoch ms): not {shape}")
    fields = ("question_id", "model", "date", "difficulty", "pass@1")
    for index, record in enumerate(data["performances"]):
        if not isinstance(record, dict) or any(f not in record for f in fields):
            raise RunError(f"{path}: performances[{index}] lacks one of {', '.join(fields)}")
    models = sorted({record["model"] for record in data["performances"]})
    if model is None:
        folder = run.resolve().parent.name
        if folder in models or len(models) == 1:
            model = folder if folder in models else models[0]
        else:
            raise RunError(
                f"{path} holds {len(models)} models and none is the run's folder {folder!r}: "
                f"name one with --model ({_listed(models)})"
            )
    if model not in models:
        raise RunError(f"{path} has no records of model {model!r} (it has: {_listed(models)})")
    records: dict[str, dict] = {}
    for record in data["performances"]:
        if record["model"] == model:
            qid = str(record["question_id"])
            if qid in records:
                raise RunError(f"{path}: {model!r} has problem {qid} twice")
            records[qid] = record
    return Published(path, model, records, sorted(marks))


def _mark_dates(published: Published, zone: str) -> dict[str, int]:
    local = zoneinfo.ZoneInfo(zone)
    return {datetime.fromtimestamp(m / 1000, local).date().isoformat(): m for m in published.marks}


def published_window(published: Published, zone: str) -> tuple[str, str]:
    dates = list(_mark_dates(published, zone))
    return dates[0], dates[-1]


def published_view(published: Published, rows, start: str, end: str, zone: str) -> dict:
    """The site's figure for the model over [start, end] from its own records, and every
    problem where its data and the run's file differ (in the window or not)."""
    marks = _mark_dates(published, zone)
    unknown = [day for day in (start, end) if day not in marks]
    if unknown:
        first, last = next(iter(marks)), list(marks)[-1]
        raise RunError(
            f"{published.path}: {', '.join(unknown)} is no date mark of its builder (its marks: "
            f"{first}..{last}, month starts in {zone}): give --window between marks"
        )
    low, high = marks[start], marks[end]
    shown = [r for r in published.records.values() if low <= r["date"] <= high]
    by_id = {r["question_id"]: r for r in rows}
    found = []
    for qid in sorted(set(by_id) | set(published.records)):
        record, row = published.records.get(qid), by_id.get(qid)
        dates = [record["date"]] if record else []
        if row is not None:
            dates.append(scoring.builder_date(row["contest_date"]))
        what = _how_they_differ(record, row)
        if what:
            found.append(
                {
                    "question_id": qid,
                    "what": what,
                    "in_window": any(low <= d <= high for d in dates),
                }
            )
    values = [r["pass@1"] for r in shown]
    return {
        "file": str(published.path),
        "model": published.model,
        "window": [start, end],
        "count": len(shown),
        "question_ids": sorted(r["question_id"] for r in shown),
        "value": _mean(values),
        "mean": None if not values else round(_mean(values), 2),
        "shown": scoring.site_columns(shown),
        "differences": found,
        "differing_in_window": [d["question_id"] for d in found if d["in_window"]],
    }


def _how_they_differ(record: dict | None, row: dict | None) -> str | None:
    if record is None:
        return "in the run, not published"
    if row is None:
        return "published, not in the run"
    parts = []
    here = scoring.row_pass_at_1(row)
    if not math.isclose(here, record["pass@1"], abs_tol=1e-9):
        parts.append(f"pass@1 {here:g} here, {record['pass@1']:g} published")
    if scoring.builder_date(row["contest_date"]) != record["date"]:
        parts.append("another date")
    if row["difficulty"] != record["difficulty"]:
        parts.append(f"{row['difficulty']} here, {record['difficulty']} published")
    return "; ".join(parts) or None


# --- the claim --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """A claimed pass@1 as given: its value in percent and its precision (the unit of its last
    digit, in percent points)."""

    text: str
    percent: Decimal
    unit: Decimal
    fraction: bool  # given as a fraction (at most 1, as lcb_runner writes pass@1)

    def matches(self, value: float) -> bool:
        """The figure, rounded to the claim's precision, is the claim (a half unit either
        way: both roundings of a figure on the boundary)."""
        return abs(Decimal(value) - self.percent) <= self.unit / 2


def parse_claim(text: str) -> Claim:
    """X (percent), X% (percent), or a fraction when at most 1; refused when impossible (not a
    number, below 0, above 100 percent) or vaguer than a whole percent point."""
    percent_sign = text.endswith("%")
    try:
        given = Decimal(text.removesuffix("%"))
    except InvalidOperation:
        given = None
    if given is None or not given.is_finite():
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (a pass@1: 53.7, 53.7%, 0.537)")
    if given < 0 or (percent_sign or given > 1) and given > PERCENT:
        raise argparse.ArgumentTypeError(
            f"{text!r} is no pass@1: a pass@1 is a share of problems, 0..100 percent"
        )
    fraction = not percent_sign and given <= 1
    percent = given * PERCENT if fraction else given
    unit = Decimal(1).scaleb(given.as_tuple().exponent) * (PERCENT if fraction else 1)
    if unit > 1:
        raise argparse.ArgumentTypeError(
            f"{text!r} is {percent.normalize():f}% give or take {(unit / 2).normalize():f} "
            f"points: give a claim to a whole percent point at least ({percent.quantize(1)}%)"
        )
    return Claim(text, percent, unit, fraction)


def check_claim(claim: Claim, found: list[dict], allow_missing: bool) -> dict:
    """Which figures the claim is, at its precision; it holds when one of them covers every
    problem of the scope (with ``allow_missing``, the problems the run has) and none extra."""
    valued = [f for f in found if f["value"] is not None]
    if not valued:
        raise RunError(
            f"claim {claim.text}: no figure to hold it to (no problem of the run in the window)"
        )
    matched = [f for f in valued if claim.matches(f["value"])]
    covered = [f for f in matched if not _lacks(f, allow_missing)]
    return {
        "claimed": claim.text,
        "claimed_percent": float(claim.percent),
        "precision": float(claim.unit),
        "read_as_fraction": claim.fraction,
        "is": [f["name"] for f in matched],
        "holds_with": [f["name"] for f in covered],
        "consistent": bool(covered),
    }


# --- the report -------------------------------------------------------------------------------


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
            f"no problem of the run or of {scope.release} is dated {scope.start}..{scope.end}: "
            "nothing to score"
        )
    notes += _wider_release_note(scope, lcb_runner)
    report = {
        "schema": SCHEMA,
        "run": str(run.path),
        "window": {"start": scope.start, "end": scope.end, "builder_tz": builder_tz},
        "problems": problems,
        "scope": {"release": scope.release, "named": scope.named, "problems": scope.describe()},
        "lcb_runner": lcb_runner,
        "leaderboard": leaderboard,
        "listed": len(run.rows) == scoring.LEADERBOARD_ROWS,  # by the published builder
        "listing": listing(len(run.rows)),
        "narrowed_to": release if len(rows) < len(run.rows) else None,
        "differences": differences(lcb_runner, leaderboard, rows),
        "notes": notes,
        "flags": run.flags,
        "inconsistent": run.inconsistent,
        "allow_missing": allow_missing,
    }
    if published:
        report[PUBLISHED] = published_view(published, rows, board_start, board_end, builder_tz)
        report[PUBLISHED].update({key: leaderboard[key] for key in COVERAGE})
    report["figures"] = figures(report)
    if claim is not None:
        report["claim"] = check_claim(claim, report["figures"], allow_missing)
    report["failures"] = failures(report, release is not None)
    report["exit_code"] = EXIT_FAILED if report["failures"] else EXIT_OK
    return report


def _wider_release_note(scope: Scope, lcb_runner: dict) -> list[str]:
    """A window of the run's own release, said when release_latest holds more in it."""
    if scope.start is None or scope.release == releases.LATEST:
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
    found = []
    nearest = report["problems"]["matches"][0]
    if len(nearest["extra"]) == report["problems"]["count"]:
        found.append(
            f"none of the run's {report['problems']['count']} problems is in any release "
            f"(the nearest, {nearest['tag']}, holds none of them): no figure here is a "
            "LiveCodeBench number"
        )
    if release_named and not report["problems"]["matches"][0]["equal"]:
        match = report["problems"]["matches"][0]
        found.append(
            f"the run is not {match['tag']}: {len(match['missing'])} missing, "
            f"{len(match['extra'])} extra"
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
    claim = report.get("claim")
    if claim is not None and not claim["consistent"]:
        found.append(claim_sentence(report))
    elif claim is None and report["scope"]["named"]:
        for figure in report["figures"]:
            if figure["name"] != PUBLISHED and _lacks(figure, report["allow_missing"]):
                found.append(f"{figure['label']}: {_coverage_words(figure)}")
    return found


def _lacks(figure: dict, allow_missing: bool) -> bool:
    """The figure is not over the scope's problems: some extra, some without generations (the
    figure counts them, as passed), or some missing (unless allowed)."""
    return bool(
        figure["extra"]
        or figure["without_generations"]
        or (figure["missing"] and not allow_missing)
    )


def _covered(figure: dict) -> int:
    """How many of the scope's problems the figure has generations for."""
    return figure["expected"] - len(figure["missing"])


def _coverage_words(figure: dict) -> str:
    words = [f"on {_covered(figure):,} of {figure['expected']:,} problems"]
    if figure["missing"]:
        words.append(f"the run lacks {len(figure['missing']):,} ({_listed(figure['missing'])})")
    if figure["without_generations"]:
        words.append(
            f"{len(figure['without_generations']):,} of them are in the file without "
            "generations (compute_scores counts them as passed; --allow-missing does not help)"
        )
    if figure["extra"]:
        words.append(f"{len(figure['extra']):,} not of the scope ({_listed(figure['extra'])})")
    return "; ".join(words)


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
    if len(differing) > SHOWN:
        lines.append(f"    ... and {len(differing) - SHOWN} more")
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
        f"scope: {report['scope']['problems']}"
        + ("" if report["scope"]["named"] else " (the run's nearest release: none named)"),
        f"window: {dates}; the leaderboard's {board['window'][0]}..{board['window'][1]}, its "
        f"builder in {window['builder_tz']}",
        "",
        *_table(report),
    ]
    for figure in report["figures"]:
        if figure["missing"] or figure["extra"]:
            lines.append(f"{figure['label']}: {_coverage_words(figure)}")
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
    if report["listing"]:
        lines.append(report["listing"])
    if report["differences"]:
        lines += ["", "why the two numbers differ:", *(f"  {d}" for d in report["differences"])]
    if PUBLISHED in report:
        lines += _published_lines(report[PUBLISHED])
    if report["inconsistent"]:
        lines += [
            "",
            f"the file disagrees with itself: pass@1 is not graded_list.count(True)/len on "
            f"{len(report['inconsistent'])} rows ({_listed(report['inconsistent'])})",
        ]
    if report["flags"]:
        lines += ["", "flags:", *(f"  - {flag}" for flag in report["flags"])]
    if "claim" in report:
        lines += ["", claim_sentence(report)]
    return "\n".join(lines)


def claim_sentence(report: dict) -> str:
    """What the claim is: the figures it equals at its precision, and whether they cover the
    scope."""
    claim, found = report["claim"], {f["name"]: f for f in report["figures"]}
    text = f"claim {claim['claimed']}" + (
        f" (a fraction: {claim['claimed_percent']:g}%)" if claim["read_as_fraction"] else ""
    )
    if claim["consistent"]:
        named = [found[name] for name in claim["holds_with"]]
        return f"{text}: is {', and '.join(_figure_words(f) for f in named)}"
    if claim["is"]:
        named = [found[name] for name in claim["is"]]
        gaps = "; ".join(f"{f['name']} is {_coverage_words(f)}" for f in named)
        allow = "" if report["allow_missing"] else " (--allow-missing: the problems the run has)"
        return f"{text}: is {', and '.join(_figure_words(f) for f in named)}, but {gaps}{allow}"
    values = ", ".join(
        f"{f['label']} {f['value']:.2f}" for f in found.values() if f["value"] is not None
    )
    return (
        f"{text}: INCONSISTENT: no figure is {claim['claimed']} at its precision "
        f"(±{claim['precision'] / 2:g} points): {values}"
    )


def _figure_words(figure: dict) -> str:
    return f"{figure['label']} ({figure['value']:.2f}, on {figure['count']:,} problems)"


def headline(report: dict) -> str:
    counts = "; ".join(
        f"{f['name']} {_number(f['value'])} on "
        + (
            f"{_covered(f):,} of {f['expected']:,} problems"
            if f["missing"]
            else f"{f['count']:,} problems"
        )
        for f in report["figures"]
    )
    if report["failures"]:
        return f"FAILED: {counts}: " + "; ".join(report["failures"])
    allowed = (
        " (--allow-missing)"
        if report["allow_missing"] and any(f["missing"] for f in report["figures"])
        else ""
    )
    if "claim" in report:
        return f"OK{allowed}: {claim_sentence(report)}; {counts}"
    return f"OK{allowed}: {counts}"


def to_html(report: dict, text: str | None = None, head: str | None = None) -> str:
    """The page; ``text`` and ``head`` (default: render's and headline's) for another view of
    a run (regrade/score_logs.py's on a log without verdicts)."""
    status = "pass" if report["exit_code"] == EXIT_OK else "fail"
    text = render(report) if text is None else text
    head = headline(report) if head is None else head
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
        f'<p class="headline {status}" id="verdict">{_e(head)}</p>',
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


def parser(run_help: str = "lcb_runner's eval_all JSON file") -> argparse.ArgumentParser:
    found = argparse.ArgumentParser(
        prog="lcb-conformance score",
        description="Is this number comparable? A finished run's problem set and its score as "
        "lcb_runner computes it and as the leaderboard computes it; a claim held to them.",
    )
    found.add_argument("run", type=Path, help=run_help)
    found.add_argument("--release", type=_release, metavar="TAG", help="the release it claims")
    found.add_argument("--window", type=_window, metavar="START:END", help="contest dates")
    found.add_argument(
        "--builder-tz",
        type=_zone,
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
