"""lcb_runner's code-generation results and eval_all files (output_list, code_list, graded_list).

lcb_runner's own code-generation results, ``output/<model_repr>/Scenario.codegeneration_
<n>_<temperature>[_eval_all].json``: a JSON array of rows with the problem's fields,
``output_list`` (raw outputs), ``code_list`` (what extract_code kept and the judge ran) and, in
the ``_eval_all`` file, ``graded_list`` (the judge's verdict per output). Self-repair's results
(the same fields, and original_code_list in the _eval_all) are lcb_runner_self_repair's; test
output prediction's and code execution's are their own modules'."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lcb_conformance.run_formats import lcb_runner_files
from lcb_conformance.run_formats.samples import LogError, Logged

NAME = "lcb_runner"
DESCRIBED = "lcb_runner's results (a JSON array of rows with output_list and code_list)"
# The problem's fields a row carries (what the score and the release check read).
PROBLEM_FIELDS = ("question_id", "contest_date", "difficulty", "platform")


def detect(peek) -> bool:
    return lcb_runner_files.programs_results(peek) and not lcb_runner_files.self_repair(
        peek.path.name, peek.first
    )


model = lcb_runner_files.model


def scenario(path: Path) -> str:
    """The --scenario the file's name records (code generation for a renamed file)."""
    parsed = lcb_runner_files.parse(path.name)
    return parsed.scenario if parsed else lcb_runner_files.CODE_GENERATION


def _row(path: Path, line: int, row: object) -> dict:
    if not isinstance(row, dict):
        raise LogError(f"{path}:{line}: a row is {type(row).__name__}, not an object")
    label = f"{path}:{line}: row {row.get('question_id', '(no question_id)')!r}"
    if lcb_runner_files.SELF_REPAIR_MARKER in row:
        raise LogError(
            f"{label}: a row of lcb_runner's self-repair eval_all (it has "
            f"{lcb_runner_files.SELF_REPAIR_MARKER}): read it as self-repair (--format "
            "lcb_runner_self_repair), not as code generation"
        )
    if "code_list" not in row:  # pred_list's
        raise LogError(
            f"{label}: a row of lcb_runner's test output prediction or code execution (code "
            "generation only: its rows have code_list)"
        )
    for name in ("question_id", "output_list"):
        if name not in row:
            raise LogError(f"{label} lacks {name!r}")
    outputs, codes = row["output_list"], row["code_list"]
    graded = row.get("graded_list")
    if not isinstance(outputs, list) or not isinstance(codes, list) or len(outputs) != len(codes):
        raise LogError(f"{label}: output_list and code_list must be lists of the same length")
    if graded is not None and (not isinstance(graded, list) or len(graded) != len(outputs)):
        raise LogError(f"{label}: graded_list must hold one verdict per output")
    return row


def samples(path: Path) -> Iterator[Logged]:
    found = scenario(path)
    if found == lcb_runner_files.SELF_REPAIR:
        raise LogError(
            f"{path}: lcb_runner's {found} results: read them as self-repair (--format "
            "lcb_runner_self_repair), not as code generation"
        )
    if found != lcb_runner_files.CODE_GENERATION:
        raise LogError(
            f"{path}: lcb_runner's {found} results hold no programs to grade (code generation "
            "only: Scenario.codegeneration_...)"
        )
    yield from lcb_runner_files.results_samples(
        path,
        lambda line, element: _named(_row(path, line, element)),
        "code_list",
        "code",
        lambda row: {name: row[name] for name in PROBLEM_FIELDS if name in row},
    )


def _named(row: dict) -> tuple[str, dict]:
    return str(row["question_id"]), row
