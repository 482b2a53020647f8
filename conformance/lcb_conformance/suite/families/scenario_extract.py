"""<scenario>/extract/...: lcb_runner's extractor of test output prediction and code
execution on every fixture output, for every LMStyle (the runner passes the model's LMStyle;
extract_test_output_code reads [PYTHON] tags for CodeLLaMaInstruct only, and
extract_execution_code ignores it, which these goldens would show changing).

    test-output/extract/<LMStyle>/<output_id>               extract_test_output_code
    code-execution/extract/<direct|cot>/<LMStyle>/<output_id> extract_execution_code(cot=)

Self-repair extracts with code generation's extract_code: the extract family covers it.
"""

from __future__ import annotations

from lcb_conformance.suite import index
from lcb_conformance.suite import scenario_cases as scenarios
from lcb_conformance.suite.families import Family
from lcb_conformance.suite.goldens import GoldenKey

CALLS = {
    scenarios.TEST_OUTPUT: ("extract_test_output", "extract_test_output_code(output, LMStyle.{})"),
    scenarios.CODE_EXECUTION: (
        "extract_execution_answer",
        "extract_execution_code(output, LMStyle.{}, cot={})",
    ),
}

EXTRACT = "scenarios.extract"  # upstream/scenarios.py: lcb_runner's extractor of the scenario


def family_name(scenario: str) -> str:
    return f"{scenario}/extract"


def parse(key: GoldenKey) -> tuple[str, str | None, str]:
    """(scenario, code execution's mode or None, LMStyle) of a key."""
    return (key.family.removesuffix("/extract"), *scenarios.parse_group(key.group))


def keys(scenario: str):
    return [
        GoldenKey(family_name(scenario), group, output)
        for group in scenarios.groups(scenario)
        for output in scenarios.outputs(scenario)
    ]


def produce(source, key: GoldenKey) -> str:
    scenario, mode, lmstyle = parse(key)
    output = scenarios.outputs(scenario)[key.case].output
    return source.run(EXTRACT, source.upstream, scenario, mode, lmstyle, output)


def entry(key: GoldenKey) -> dict:
    scenario, mode, lmstyle = parse(key)
    function, upstream = CALLS[scenario]
    outputs_file = scenarios.fixture_name(scenarios.FILES[scenario].outputs)
    args: dict = {"model_output": index.fixture(outputs_file, key.case), "lmstyle": lmstyle}
    if mode:
        args["cot"] = mode == scenarios.COT
    return {
        "call": {"function": function, "args": args},
        "cell": [scenario, lmstyle],
        "lmstyles": [lmstyle],
        "upstream": upstream.format(lmstyle, mode == scenarios.COT),
    }


FAMILIES = tuple(
    Family(
        family_name(scenario),
        f"{scenario} extract",
        f"upstream {CALLS[scenario][1].split('(')[0]}(output, LMStyle) per LMStyle",
        lambda scenario=scenario: keys(scenario),
        produce,
        entry,
        fixtures=scenarios.FIXTURE_VALUES,
        runs=(EXTRACT,),
    )
    for scenario in scenarios.FILES
)
