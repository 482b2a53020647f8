"""lcb_runner's self-repair results and eval_all (output_list, code_list, graded_list,
original_code_list): programs, graded as code generation's.

lcb_runner 28fef95's self-repair run (``--scenario selfrepair``, which asserts ``--n 1``) repairs
a code-generation run: per problem and per attempt of
``output/<model_repr>/Scenario.codegeneration_<codegen_n>_<t>_eval_all.json``, a repair prompt,
or none for an attempt that passed, whose output it keeps (base_runner.run_main_repair). It
writes ``output/<model_repr>/Scenario.selfrepair_1_<t>[_eval_all].json``: code generation's row
per problem with ``output_list`` (one output per attempt, ``output[0]`` of a repair's list:
scenario_router.combine_results), ``code_list`` (extract_code of each for the model's LMStyle)
and, in the ``_eval_all`` file, ``graded_list`` (codegen_metrics' verdicts, as for code
generation: get_metrics) and ``original_code_list``.

main() takes ``original_code_list`` from the code-generation eval_all BY POSITION (the n-th row
of that file for the n-th problem), not by question_id: when that file holds other problems
than the self-repair run (another release, a ``--continue_existing_with_eval`` run) a row's
``original_code_list`` is another problem's. It is therefore not read as what was repaired
here; the samples are the repairs, paired with their problem by question_id as lcb_runner
grades them. A results file is this format when its rows carry ``original_code_list`` or its
name is lcb_runner's self-repair name (its rows are otherwise code generation's)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lcb_conformance.run_formats import lcb_runner, lcb_runner_files
from lcb_conformance.run_formats.samples import LogError, Logged

NAME = "lcb_runner_self_repair"
SCENARIO = lcb_runner_files.SELF_REPAIR
DESCRIBED = (
    "lcb_runner's self-repair results (Scenario.selfrepair_...json, rows with original_code_list)"
)
model = lcb_runner_files.model


def detect(peek) -> bool:
    return lcb_runner_files.programs_results(peek) and lcb_runner_files.self_repair(
        peek.path.name, peek.first
    )


def raw_output(output):
    """The output as scenario_router.combine_results keeps it: a repair's list of one output
    (its ``--n 1``) -> that output; a kept attempt's output as it is."""
    return output[0] if type(output) is list and output else output


def _row(path: Path, line: int, row: object) -> tuple[str, dict]:
    if not isinstance(row, dict):
        raise LogError(f"{path}:{line}: a row is {type(row).__name__}, not an object")
    label = f"{path}:{line}: row {row.get('question_id', '(no question_id)')!r}"
    for name in ("question_id", "output_list", "code_list"):
        if name not in row:
            raise LogError(f"{label} lacks {name!r}")
    outputs, codes = row["output_list"], row["code_list"]
    if not isinstance(outputs, list) or not isinstance(codes, list) or len(outputs) != len(codes):
        raise LogError(f"{label}: output_list and code_list must be lists of the same length")
    for name in ("graded_list", lcb_runner_files.SELF_REPAIR_MARKER):
        value = row.get(name)
        if value is not None and (not isinstance(value, list) or len(value) != len(outputs)):
            raise LogError(f"{label}: {name} must hold one entry per attempt")
    return str(row["question_id"]), {**row, "output_list": [raw_output(o) for o in outputs]}


def samples(path: Path) -> Iterator[Logged]:
    """Every attempt's repair (or kept output) of a self-repair results file, its extracted
    code and, in the _eval_all file, its verdict."""
    parsed = lcb_runner_files.parse(path.name)
    if parsed is not None and parsed.scenario not in lcb_runner_files.PROGRAM_SCENARIOS:
        raise LogError(f"{path}: lcb_runner's {parsed.scenario} results, not {SCENARIO}'s")
    # a file not named as self-repair's (renamed, or as code generation's) is self-repair's by
    # its rows' original_code_list alone
    named = parsed is not None and parsed.scenario == SCENARIO
    attempts: dict[str, int] = {}  # "first": the first problem's count, every problem's

    def checked(line: int, element: object) -> tuple[str, dict]:
        name, row = _row(path, line, element)
        if not named and lcb_runner_files.SELF_REPAIR_MARKER not in row:
            raise LogError(
                f"{path}:{line}: problem {name!r} has no "
                f"{lcb_runner_files.SELF_REPAIR_MARKER} and the file is not named as lcb_runner's "
                "self-repair results: code generation's (--format lcb_runner)"
            )
        count = len(row["output_list"])
        first = attempts.setdefault("first", count)
        if count != first:
            raise LogError(
                f"{path}:{line}: problem {name!r} has {count} attempts, the first problem "
                f"{first}: lcb_runner's self-repair repairs (or keeps) every attempt of the "
                "code-generation run it read (--codegen_n), so every problem has as many; "
                "attempts are missing"
            )
        return name, row

    yield from lcb_runner_files.results_samples(
        path,
        checked,
        "code_list",
        "code",
        lambda row: {name: row[name] for name in lcb_runner.PROBLEM_FIELDS if name in row},
    )
