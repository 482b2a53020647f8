"""`lcb-conformance score`'s input: lcb_runner's eval_all file, read and checked row by row.

`lcb-conformance score`'s input: lcb_runner's eval_all file read and checked row by row
(streamed; RunError names file, line and row), with what the rows flag (problems without
generations, a pass@1 derived or not its graded_list's, lists not one entry per verdict); the
samples' own faults (mixed n, no code, cut answers) are the lint's (reports/run_lint.py)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from pathlib import Path

from lcb_conformance import statements
from lcb_conformance.common import json_stream, listing
from lcb_conformance.reports.run_lint import Lint
from lcb_conformance.run_formats import lcb_runner_files, registry
from lcb_conformance.run_formats.samples import LogError
from lcb_prompts import score as scoring

REQUIRED = ("question_id", "contest_date", "difficulty", "graded_list")


SHOWN = 12  # problems listed by id before "... and N more"


class RunError(ValueError):
    """A run file (or a published data file) the command cannot score; the message names the
    file, line and row."""


@dataclass
class Run:
    path: Path
    rows: list[dict] = field(default_factory=list)  # the fields scoring reads, nothing more
    flags: list[dict] = field(default_factory=list)  # run_flags'
    # rows whose written pass@1 (or pass1) is not graded_list.count(True) / len
    inconsistent: list[str] = field(default_factory=list)
    # lcb_runner's scenario whose results the rows are: code generation, or self-repair (its
    # eval_all: compute_scores --scenario selfrepair, the site's Self Repair tab)
    scenario: str = lcb_runner_files.CODE_GENERATION
    # each row's question_id and the statement fields it carries (statements.py checks them)
    statement_rows: list[dict] = field(default_factory=list)
    lint: Lint = field(default_factory=Lint)  # the samples' own faults (reports/run_lint.py)
    kind: str = registry.EVAL_ALL  # what the file is (run_formats.registry's Recognised.kind)
    # the LMStyle of the model its folder names (lcb_runner's output/<model_repr>/), when known
    lmstyle: str | None = None
    # where lcb_runner 28fef95 raises building the scenario's prompts for that LMStyle, in
    # words (run_formats.lcb_runner_files.lcb_runner_raises, as the audit asks it)
    lcb_runner_raises: str = ""
    # rows whose output_list or code_list (where recorded) is not as long as graded_list
    uneven: list[str] = field(default_factory=list)


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


def _uneven(row: dict) -> bool:
    """The row's recorded output_list and code_list are not one entry per verdict of its
    graded_list (an emptied list, or 3 outputs graded once)."""
    recorded = [row[n] for n in ("output_list", "code_list") if isinstance(row.get(n), list)]
    return bool(recorded) and len({len(row["graded_list"]), *map(len, recorded)}) > 1


def read_run(path: Path) -> Run:
    """The run's rows (the fields scoring reads) and what its outputs show."""
    try:  # what the file is, as every command recognises it (run_formats.registry)
        found = registry.taken(path, registry.SCORE)
    except LogError as error:
        raise RunError(str(error)) from None
    named = lcb_runner_files.parse(path.name)
    run = Run(path, kind=found.kind, lmstyle=lcb_runner_files.folder_lmstyle(path))
    repaired: set[bool] = set()  # whether each row is self-repair's (original_code_list)
    derived_pass_1 = 0
    seen: set[str] = set()
    try:
        for index, (line, element) in enumerate(json_stream.iter_array(path)):
            row = _check(path, line, index, element)
            qid = str(row["question_id"])
            if qid in seen:
                raise RunError(f"{path}:{line}: row {index}: question_id {qid} appears twice")
            seen.add(qid)
            repaired.add(lcb_runner_files.SELF_REPAIR_MARKER in row)
            _lint_row(run.lint, qid, row)
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
            if _uneven(row):
                run.uneven.append(qid)
            run.rows.append(kept)
            run.statement_rows.append(
                {"question_id": qid} | {f: row[f] for f in statements.FIELDS if f in row}
            )
    except json_stream.JsonStreamError as error:
        raise RunError(str(error)) from None
    if not run.rows:
        raise RunError(f"{path}: no rows (an eval_all file is a JSON array of rows)")
    run.scenario = _scenario(path, named, repaired)
    run.lcb_runner_raises = lcb_runner_files.lcb_runner_raises(run.scenario, False, run.lmstyle)
    run.flags = run_flags(run.rows, derived_pass_1)
    if run.uneven:
        uneven = {"kind": LISTS_UNEVEN, "count": len(run.uneven), "question_ids": run.uneven}
        run.flags.append(uneven)
    return run


def _lint_row(lint: Lint, qid: str, row: dict) -> None:
    """The row's samples into the lint: output_list's outputs, code_list's code (None where a
    list is not recorded or an entry is not a string)."""
    outputs, codes = row.get("output_list"), row.get("code_list")
    count = max(len(x) for x in (row["graded_list"], outputs or (), codes or ()))
    for index in range(count):
        output, code = (
            v[index] if isinstance(v, list) and index < len(v) and isinstance(v[index], str)
            else None
            for v in (outputs, codes)
        )  # fmt: skip
        lint.add(qid, index, output, code)


def _scenario(path: Path, named, repaired: set[bool]) -> str:
    """Self-repair when its rows carry original_code_list (what lcb_runner's self-repair
    eval_all adds to every row, whatever the file is named) or its name says so; RunError for a
    file mixing such rows with code generation's."""
    marker = lcb_runner_files.SELF_REPAIR_MARKER
    if len(repaired) > 1:
        raise RunError(
            f"{path}: some rows carry {marker} (self-repair's) and some do not (code "
            "generation's): no one run of either scenario"
        )
    if True in repaired or (named is not None and named.scenario == lcb_runner_files.SELF_REPAIR):
        return lcb_runner_files.SELF_REPAIR
    return lcb_runner_files.CODE_GENERATION


# What a flag of the rows is about (its "kind"); reports/score_render.py says each in words.
# The samples' faults (mixed n, no code, cut answers, outputs not recorded) are no flag: the
# lint says them (reports/run_lint.py), once.
WITHOUT_GENERATIONS = "without_generations"
PASS_AT_1_DERIVED = "pass_at_1_derived"
LISTS_UNEVEN = "lists_uneven"


def run_flags(rows, derived: int) -> list[dict]:
    """What the rows flag, each {"kind", ...its fields}: without_generations' count and
    question_ids; pass_at_1_derived's count of rows."""
    flags = []
    empty = sorted(r["question_id"] for r in rows if not r["graded_list"])
    if empty:
        flags.append({"kind": WITHOUT_GENERATIONS, "count": len(empty), "question_ids": empty})
    if derived:
        flags.append({"kind": PASS_AT_1_DERIVED, "count": derived})
    return flags


def listed_ids(ids) -> str:
    return listing.named(sorted(ids), SHOWN)


def as_percent(value) -> float | None:
    return None if value is None or value != value else round(value * 100, 2)


def mean_of(values) -> float | None:
    return sum(values) / len(values) if values else None


# --- a figure's exact value (what a claim is held to: score_claims.py), beside its float ---
def as_written(value: float) -> Fraction:
    """A number as a JSON file writes it (its shortest decimal): 0.537 is 537/1000."""
    return Fraction(repr(float(value)))


def exact_mean(values: list[Fraction]) -> str | None:
    """The mean as an exact fraction ("p/q"), as the report records it; None without values."""
    return str(sum(values, Fraction(0)) / len(values)) if values else None
