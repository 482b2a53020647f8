"""<scenario>/score/<grading>: lcb_runner's scorer of test output prediction and code execution
on one problem's generations, as canonical JSON [metrics, results]:

    test-output/score/<grading>     test_output_metrics([sample], [generations], k_list=[1, 5])
    code-execution/score/<grading>  code_execution_metrics([sample], [generations])

``sample`` is the problem class's get_evaluation_sample(). What they pin: a prediction's
right-hand side is eval()-ed and compared with the JSON expected output; code execution runs
``assert output == generation`` after upstream's BASE_IMPORTS, skips a generation containing
the input (all skipped: every one False) and reports pass@1 x100, where code generation and
test output prediction report 0-1. Self-repair is scored by code generation's judge (the judge
family); its prompts depend on that judge's metadata (self-repair/prompt).

Both scorers run untrusted code: upstream's in a sandboxed child (upstream/scenarios.py), an
implementation's only in sandboxed child processes too (``sandboxed``).
"""

from __future__ import annotations

from lcb_conformance.suite import goldens, index
from lcb_conformance.suite import scenario_cases as scenarios
from lcb_conformance.suite.families import CANONICAL_JSON, Family
from lcb_conformance.suite.goldens import JSON_SUFFIX, GoldenKey

CALLS = {
    scenarios.TEST_OUTPUT: (
        "score_test_output",
        "test_output_metrics([TestOutputPredictionProblem(**row).get_evaluation_sample()], "
        "[generations], k_list=[1, 5])",
    ),
    scenarios.CODE_EXECUTION: (
        "score_code_execution",
        "code_execution_metrics([CodeExecutionProblem(**row).get_evaluation_sample()], "
        "[generations])",
    ),
}
SCORE = "scenarios.score"  # upstream/scenarios.py: lcb_runner's scorer, in a sandboxed child
SCORE_COLUMN = "score"  # the scorer's cell of a scenario's row of the verdict matrix


def family_name(scenario: str) -> str:
    return f"{scenario}/score"


def keys(scenario: str):
    return [
        GoldenKey(family_name(scenario), "", grading) for grading in scenarios.gradings(scenario)
    ]


def produce(source, key: GoldenKey) -> str:
    scenario = key.family.removesuffix("/score")
    return goldens.canonical_json(source.run(SCORE, source.upstream, scenario, key.case))


def entry(key: GoldenKey) -> dict:
    scenario = key.family.removesuffix("/score")
    function, upstream = CALLS[scenario]
    files = scenarios.FILES[scenario]
    grading = scenarios.gradings(scenario)[key.case]
    return {
        "call": {
            "function": function,
            "args": {
                "row": index.fixture(scenarios.fixture_name(files.problems), grading.problem),
                "generations": index.fixture(scenarios.fixture_name(files.gradings), key.case),
            },
        },
        "cell": [scenario, SCORE_COLUMN],
        "upstream": upstream,
    }


FAMILIES = tuple(
    Family(
        family_name(scenario),
        f"{scenario} score",
        f"upstream {CALLS[scenario][1].split('(')[0]} on one problem's generations, run in a "
        "sandboxed child, as canonical JSON",
        lambda scenario=scenario: keys(scenario),
        produce,
        entry,
        render=lambda value, arguments: goldens.canonical_json(value),
        suffix=JSON_SUFFIX,
        compare=CANONICAL_JSON,
        sandboxed=True,
        fixtures=scenarios.FIXTURE_VALUES,
        runs=(SCORE,),
    )
    for scenario in scenarios.FILES
)
