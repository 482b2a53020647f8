"""lcb_runner's test output prediction and code execution results, read for their two format
modules (output_list, pred_list, graded_list).

What lcb_runner 28fef95's main() writes for its test output prediction and code execution
scenarios (``output/<model_repr>/Scenario.<scenario>_<n>_<temperature>[_cot][_eval_all].json``):
a JSON array of the dataset's rows, each with ``output_list`` (raw outputs), ``pred_list``
(what its extractor kept and its scorer graded) and, in the ``_eval_all`` file, ``graded_list``
(the scorer's verdict per output). Read by one format module per scenario."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from lcb_conformance.common import json_stream
from lcb_conformance.run_formats import lcb_runner_files
from lcb_conformance.run_formats.samples import LogError, Logged, check_strings

NOT_GRADED = "a results file without graded_list (lcb_runner's _eval_all file has the verdicts)"
# what a row carries beside the dataset's fields
RUN_FIELDS = ("output_list", "pred_list", "graded_list", "pass@1")


def detect(peek, marker: str) -> bool:
    """lcb_runner's results of a scenario whose rows carry ``marker`` (a field no other
    scenario's rows have)."""
    first = peek.first
    return (
        peek.opening == b"[" and "output_list" in first and "pred_list" in first and marker in first
    )


def model(path: Path) -> str | None:
    """output/<model_repr>/<file>: the folder names the model (its model_repr)."""
    return path.parent.name if path.parent.parent.name == "output" else None


def _row(path: Path, line: int, row: object, name_of: Callable[[dict], str]) -> tuple[str, dict]:
    if not isinstance(row, dict):
        raise LogError(f"{path}:{line}: a row is {type(row).__name__}, not an object")
    for field in ("output_list", "pred_list"):
        if not isinstance(row.get(field), list):
            raise LogError(f"{path}:{line}: {field!r} must be a list")
    try:
        name = name_of(row)
    except KeyError as missing:
        raise LogError(f"{path}:{line}: a row lacks {missing}") from None
    outputs, predictions, graded = row["output_list"], row["pred_list"], row.get("graded_list")
    if len(outputs) != len(predictions):
        raise LogError(f"{path}:{line}: problem {name!r}: output_list and pred_list differ in "
                       "length")  # fmt: skip
    if graded is not None and (not isinstance(graded, list) or len(graded) != len(outputs)):
        raise LogError(f"{path}:{line}: problem {name!r}: graded_list must hold one verdict per "
                       "output")  # fmt: skip
    return name, row


def samples(path: Path, scenario: str, name_of: Callable[[dict], str]) -> Iterator[Logged]:
    """Every sample of an lcb_runner results file of ``scenario``, its problem named by
    ``name_of(row)``; LogError for another scenario's file, a malformed row or a problem
    given twice."""
    parsed = lcb_runner_files.parse(path.name)
    if parsed is not None and parsed.scenario != scenario:
        raise LogError(f"{path}: lcb_runner's {parsed.scenario} results, not {scenario}'s")
    seen: set[str] = set()
    try:
        for line, element in json_stream.iter_array(path):
            name, row = _row(path, line, element, name_of)
            if name in seen:
                raise LogError(f"{path}:{line}: problem {name!r} appears twice")
            seen.add(name)
            graded = row.get("graded_list")
            problem = {field: value for field, value in row.items() if field not in RUN_FIELDS}
            for index, (output, prediction) in enumerate(
                zip(row["output_list"], row["pred_list"], strict=True)
            ):
                check_strings(f"{path}:{line}: {name} sample {index}", output=output,
                              prediction=prediction)  # fmt: skip
                yield Logged(
                    f"{path}:{line}",
                    index,
                    None,
                    output,
                    prediction,
                    question_id=name,
                    problem=problem,
                    passed=None if graded is None else graded[index] is True,
                    unjudged=NOT_GRADED if graded is None else "",
                )
    except json_stream.JsonStreamError as error:
        raise LogError(str(error)) from None
