"""Golden families: test output prediction's and code execution's extractors per LMStyle.

<scenario>/extract/...: lcb_runner's extractor of each declared scenario that has its own
(suite/scenarios.py: test output prediction, code execution) on every fixture output, for
every LMStyle (the runner passes the model's LMStyle; extract_test_output_code reads [PYTHON]
tags for CodeLLaMaInstruct only, and extract_execution_code ignores it, which these goldens
would show changing).

    test-output/extract/<LMStyle>/<output_id>               extract_test_output_code
    code-execution/extract/<direct|cot>/<LMStyle>/<output_id> extract_execution_code(cot=)

Self-repair extracts with code generation's extract_code: the extract family covers it.
"""

from __future__ import annotations

from lcb_conformance.suite import index
from lcb_conformance.suite import scenario_cases as cases
from lcb_conformance.suite.families import Family
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.suite.scenarios import COT, SCENARIOS, Scenario, get

EXTRACT = "scenarios.extract"  # upstream/scenarios.py: lcb_runner's extractor of the scenario


def family_name(scenario: str) -> str:
    return f"{scenario}/extract"


def upstream_call(scenario: Scenario, mode: str | None, lmstyle: str) -> str:
    """lcb_runner's extractor call, in words (with ``cot=`` where the scenario has variants)."""
    cot = f", cot={mode == COT}" if scenario.modes else ""
    return f"{scenario.extraction.upstream}(output, LMStyle.{lmstyle}{cot})"


def parse(key: GoldenKey) -> tuple[str, str | None, str]:
    """(scenario, its prompt variant or None, LMStyle) of a key."""
    return (key.family.removesuffix("/extract"), *cases.parse_group(key.group))


def keys(scenario: str):
    return [
        GoldenKey(family_name(scenario), group, output)
        for group in cases.groups(scenario)
        for output in cases.outputs(scenario)
    ]


def produce(source, key: GoldenKey) -> str:
    scenario, mode, lmstyle = parse(key)
    output = cases.outputs(scenario)[key.case].output
    return source.run(EXTRACT, source.upstream, scenario, mode, lmstyle, output)


def entry(key: GoldenKey) -> dict:
    scenario, mode, lmstyle = parse(key)
    declared = get(scenario)
    outputs_file = declared.extraction.outputs
    args: dict = {"model_output": index.fixture(outputs_file, key.case), "lmstyle": lmstyle}
    if mode:
        args["cot"] = mode == COT
    return {
        "call": {"function": declared.extraction.function, "args": args},
        "cell": [scenario, lmstyle],
        "lmstyles": [lmstyle],
        "upstream": upstream_call(declared, mode, lmstyle),
    }


FAMILIES = tuple(
    Family(
        family_name(scenario),
        f"{scenario} extract",
        f"upstream {declared.extraction.upstream}(output, LMStyle) per LMStyle",
        lambda scenario=scenario: keys(scenario),
        produce,
        entry,
        fixtures=cases.FIXTURE_VALUES,
        runs=(EXTRACT,),
    )
    for scenario, declared in SCENARIOS.items()
    if declared.extraction
)
