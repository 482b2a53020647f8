"""lcb_runner's code-generation results and eval_all files (output_list, code_list, graded_list).

lcb_runner's own code-generation results, ``output/<model_repr>/Scenario.codegeneration_
<n>_<temperature>[_eval_all].json``: a JSON array of rows with the problem's fields,
``output_list`` (raw outputs), ``code_list`` (what extract_code kept and the judge ran) and, in
the ``_eval_all`` file, ``graded_list`` (the judge's verdict per output). Its other three
scenarios' results are read by run_audit.scenario_results (their samples are no programs to
grade)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lcb_conformance.common import json_stream
from lcb_conformance.run_formats import lcb_runner_files
from lcb_conformance.run_formats.samples import LogError, Logged, check_strings

NAME = "lcb_runner"
DESCRIBED = "lcb_runner's results (a JSON array of rows with output_list and code_list)"
# The problem's fields a row carries (what the score and the release check read).
PROBLEM_FIELDS = ("question_id", "contest_date", "difficulty", "platform")
NOT_GRADED = "a results file without graded_list (lcb_runner's _eval_all file has the verdicts)"


def detect(peek) -> bool:
    first = peek.first
    return peek.opening == b"[" and "output_list" in first and "code_list" in first


def model(path: Path) -> str | None:
    """output/<model_repr>/<file>: the folder names the model (its model_repr)."""
    return path.parent.name if path.parent.parent.name == "output" else None


def scenario(path: Path) -> str:
    """The --scenario the file's name records (code generation for a renamed file)."""
    parsed = lcb_runner_files.parse(path.name)
    return parsed.scenario if parsed else lcb_runner_files.CODE_GENERATION


def _row(path: Path, line: int, row: object) -> dict:
    if not isinstance(row, dict):
        raise LogError(f"{path}:{line}: a row is {type(row).__name__}, not an object")
    label = f"{path}:{line}: row {row.get('question_id', '(no question_id)')!r}"
    if "original_code_list" in row or "code_list" not in row:  # self-repair's, pred_list's
        raise LogError(
            f"{label}: a row of lcb_runner's self-repair, test output prediction or code "
            "execution (code generation only: its rows have code_list)"
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
    if found != lcb_runner_files.CODE_GENERATION:
        raise LogError(
            f"{path}: lcb_runner's {found} results hold no programs to grade (code generation "
            "only: Scenario.codegeneration_...)"
        )
    seen: set[str] = set()
    try:
        for line, element in json_stream.iter_array(path):
            row = _row(path, line, element)
            question_id = str(row["question_id"])
            if question_id in seen:
                raise LogError(f"{path}:{line}: problem {question_id!r} appears twice")
            seen.add(question_id)
            graded = row.get("graded_list")
            problem = {name: row[name] for name in PROBLEM_FIELDS if name in row}
            for index, (output, code) in enumerate(
                zip(row["output_list"], row["code_list"], strict=True)
            ):
                check_strings(f"{path}:{line}: {question_id} sample {index}", output=output,
                              code=code)  # fmt: skip
                yield Logged(
                    f"{path}:{line}",
                    index,
                    None,
                    output,
                    code,
                    question_id=question_id,
                    problem=problem,
                    passed=None if graded is None else graded[index] is True,
                    unjudged=NOT_GRADED if graded is None else "",
                )
    except json_stream.JsonStreamError as error:
        raise LogError(str(error)) from None
