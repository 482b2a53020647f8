"""lcb_runner's output layout: what a results file's name records (scenario, n, temperature,
CoT), its cache file, the code-generation run a self-repair run repaired, and whether lcb_runner
raises building its prompts for the folder's model.

lcb_runner's output layout (runner/main.py, utils/path_utils.py at 28fef95): what a results
file's name records, and the files lcb_runner keeps beside it.

    output/<model_repr>/Scenario.<scenario>_<n>_<temperature>[_cot][_eval|_eval_all].json
    cache/<model_repr>/Scenario.<scenario>_<n>_<temperature>.json      (--use_cache; no _cot)

The name is the only record of the scenario, ``--n``, ``--temperature`` and
``--cot_code_execution`` (get_output_path). The cache file is named without ``_cot``
(get_cache_path), so code execution's direct and CoT runs share it, keyed by prompt. A
self-repair run reads the code-generation results it repairs from
``output/<model_repr>/Scenario.codegeneration_<codegen_n>_<temperature>_eval_all.json``
(base_runner.run_main_repair), ``codegen_n`` being the attempts per problem.

Every scenario's results file is a JSON array of rows, each with ``output_list`` (raw outputs),
what was scored of each (code generation's ``code_list``, the predictions' ``pred_list``) and,
in the ``_eval_all`` file, ``graded_list``: ``results_samples`` reads them alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from lcb_conformance.common import json_stream
from lcb_conformance.run_formats.samples import LogError, Logged, check_strings
from lcb_conformance.suite import scenarios
from lcb_conformance.suite.families import scenario_prompt
from lcb_conformance.upstream.model_list import ModelList

CODE_GENERATION = "codegeneration"  # lcb_runner's Scenario.codegeneration
SELF_REPAIR = scenarios.SELF_REPAIR.lcb_runner  # lcb_runner's Scenario.selfrepair
# the scenarios whose samples are programs, graded by codegen_metrics (runner/scenario_router's
# get_metrics scores self-repair exactly as code generation)
PROGRAM_SCENARIOS = (CODE_GENERATION, SELF_REPAIR)
SELF_REPAIR_MARKER = scenarios.SELF_REPAIR.audit.marker  # original_code_list
# how a sentence names each of lcb_runner's scenarios (its Scenario value -> words)
SCENARIO_WORDS = {
    CODE_GENERATION: "code generation",
    **{declared.lcb_runner: declared.words for declared in scenarios.SCENARIOS.values()},
}
# lcb_runner's Scenario values: code generation and each declared scenario's
LCB_RUNNER_SCENARIOS = (
    CODE_GENERATION,
    *(declared.lcb_runner for declared in scenarios.SCENARIOS.values()),
)
RESULTS_NAME = re.compile(
    rf"^Scenario\.(?P<scenario>{'|'.join(LCB_RUNNER_SCENARIOS)})_(?P<n>\d+)_(?P<temperature>[0-9.]+)"
    r"(?P<cot>_cot)?(?P<kind>_eval_all|_eval)?\.json$"
)
NAME_PATTERN = "Scenario.<scenario>_<n>_<temperature>[_cot].json"
NOT_GRADED = "a results file without graded_list (lcb_runner's _eval_all file has the verdicts)"


@dataclass(frozen=True)
class ResultsName:
    """What an lcb_runner results file's name records."""

    scenario: str  # lcb_runner's Scenario value
    n: int
    temperature: str  # as lcb_runner wrote it (str of a float)
    cot: bool  # --cot_code_execution
    kind: str  # "" (the results), "_eval" (the metrics) or "_eval_all"


def parse(name: str) -> ResultsName | None:
    """The file name read as lcb_runner's; None when it is not one."""
    match = RESULTS_NAME.match(name)
    if match is None:
        return None
    return ResultsName(
        match["scenario"], int(match["n"]), match["temperature"], bool(match["cot"]),
        match["kind"] or "",
    )  # fmt: skip


def _model_folder(run: Path) -> Path | None:
    """output/<model_repr>/ when RUN is in lcb_runner's layout."""
    return run.parent if run.parent.parent.name == "output" else None


def default_cache(run: Path) -> Path | None:
    """lcb_runner's cache for RUN (cache/<model_repr>/Scenario.<scenario>_<n>_<temperature>
    .json; a renamed results file: its own name without _eval_all), when that file exists."""
    folder = _model_folder(run)
    if folder is None:
        return None
    parsed = parse(run.name)
    if parsed is None:
        name = run.name.removesuffix(".json").removesuffix("_eval_all") + ".json"
    else:
        name = f"Scenario.{parsed.scenario}_{parsed.n}_{parsed.temperature}.json"
    candidate = folder.parent.parent / "cache" / folder.name / name
    return candidate if candidate.is_file() else None


def repaired_results(run: Path, codegen_n: int) -> Path | None:
    """The code-generation eval_all a self-repair RUN repaired, beside it, when it exists."""
    folder, parsed = _model_folder(run), parse(run.name)
    if folder is None or parsed is None:
        return None
    name = f"Scenario.{CODE_GENERATION}_{codegen_n}_{parsed.temperature}_eval_all.json"
    candidate = folder / name
    return candidate if candidate.is_file() else None


def programs_results(peek) -> bool:
    """A results file whose rows hold programs (output_list and code_list): code generation's
    or self-repair's, as :func:`self_repair` tells them apart."""
    return peek.opening == b"[" and "output_list" in peek.first and "code_list" in peek.first


def self_repair(name: str, first: dict) -> bool:
    """A self-repair results file: its rows carry original_code_list (the _eval_all file's, what
    main() adds), or lcb_runner's name says so (the results file's rows are code
    generation's)."""
    parsed = parse(name)
    return SELF_REPAIR_MARKER in first or (parsed is not None and parsed.scenario == SELF_REPAIR)


def mode(declared: scenarios.Scenario, cot: bool) -> str | None:
    """The prompt variant, direct or CoT (the golden group's mode), of a scenario with
    variants (code execution: the file name records --cot_code_execution); None otherwise."""
    if not declared.modes:
        return None
    return scenarios.COT if cot else scenarios.DIRECT


def lcb_runner_raises(scenario: str, cot: bool, lmstyle: str | None) -> str:
    """Where lcb_runner 28fef95 raises building the scenario's prompts for the LMStyle (its
    expected-error goldens), in words: its main() writes no results there, so no file of that
    pair is lcb_runner's and none of its prompts can be compared; "" where it builds them, for
    code generation and for an LMStyle not known. The one place audit and score ask it."""
    if lmstyle is None or scenario == CODE_GENERATION:
        return ""
    declared = scenarios.by_lcb_runner(scenario)
    found = scenario_prompt.raised_for(declared.name, mode(declared, cot), lmstyle)
    if found is None:
        return ""
    key, raised = found
    return (
        f"lcb_runner 28fef95 raises {raised['type']} ({raised['message']}) building the "
        f"{declared.words} prompt for LMStyle.{lmstyle} (golden {key.relative}): its main() "
        "writes no results for this pair"
    )


def folder_lmstyle(run: Path) -> str | None:
    """The LMStyle of the model RUN's folder names (lcb_runner's output/<model_repr>/, or a
    model_name as evalscope names it), by lcb_runner 28fef95's model list; None when the folder
    is no model it lists."""
    models = ModelList.pinned().models
    by_folder = {listed.model_repr: listed.lmstyle for listed in models}
    by_folder.update({listed.model_name: listed.lmstyle for listed in models})
    return by_folder.get(run.resolve().parent.name)


def model(path: Path) -> str | None:
    """output/<model_repr>/<file>: the folder names the model (its model_repr)."""
    return path.parent.name if path.parent.parent.name == "output" else None


def results_samples(
    path: Path,
    checked_row: Callable[[int, object], tuple[str, dict]],
    scored: str,
    what: str,
    problem_of: Callable[[dict], dict],
) -> Iterator[Logged]:
    """Every sample of a results file: each row checked (``checked_row(line, element)``: the
    problem's name and the row, or LogError), a problem given twice refused, then per raw
    output the value its ``scored`` list holds (code_list, pred_list; ``what`` it is, in an
    error) and graded_list's verdict."""
    seen: set[str] = set()
    try:
        for line, element in json_stream.iter_array(path):
            name, row = checked_row(line, element)
            if name in seen:
                raise LogError(f"{path}:{line}: problem {name!r} appears twice")
            seen.add(name)
            graded = row.get("graded_list")
            problem = problem_of(row)
            for index, (output, value) in enumerate(
                zip(row["output_list"], row[scored], strict=True)
            ):
                label = f"{path}:{line}: {name} sample {index}"
                check_strings(label, output=output, **{what: value})
                yield Logged(
                    f"{path}:{line}",
                    index,
                    None,
                    output,
                    value,
                    question_id=name,
                    problem=problem,
                    passed=None if graded is None else graded[index] is True,
                    unjudged=NOT_GRADED if graded is None else "",
                )
    except json_stream.JsonStreamError as error:
        raise LogError(str(error)) from None
