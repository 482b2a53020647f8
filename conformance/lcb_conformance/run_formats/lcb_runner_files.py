"""lcb_runner's output layout: what a results file's name records (scenario, n, temperature,
CoT), its cache file and the code-generation run a self-repair run repaired.

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
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lcb_conformance.suite import scenarios

CODE_GENERATION = "codegeneration"  # lcb_runner's Scenario.codegeneration
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
