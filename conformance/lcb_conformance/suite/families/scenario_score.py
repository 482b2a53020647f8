"""Golden families: test output prediction's and code execution's scorers, run sandboxed.

<scenario>/score/<grading>: lcb_runner's scorer of each declared scenario that has its own
(suite/scenarios.py: test output prediction, code execution) on one problem's generations,
as canonical JSON [metrics, results]:

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
from lcb_conformance.suite import scenario_cases as cases
from lcb_conformance.suite.families import CANONICAL_JSON, Family
from lcb_conformance.suite.goldens import JSON_SUFFIX, GoldenKey
from lcb_conformance.suite.scenarios import SCENARIOS, Scenario, get

SCORE = "scenarios.score"  # upstream/scenarios.py: lcb_runner's scorer, in a sandboxed child
SCORE_COLUMN = "score"  # the scorer's cell of a scenario's row of the verdict matrix


def family_name(scenario: str) -> str:
    return f"{scenario}/score"


def upstream_call(scenario: Scenario) -> str:
    """lcb_runner's scorer call on one problem's generations, in words."""
    scoring = scenario.scoring
    keywords = "".join(f", {name}={value!r}" for name, value in scoring.upstream_keywords)
    return (
        f"{scoring.upstream}([{scenario.dataset.upstream_class}(**row).get_evaluation_sample()], "
        f"[generations]{keywords})"
    )


def keys(scenario: str):
    return [GoldenKey(family_name(scenario), "", grading) for grading in cases.gradings(scenario)]


def produce(source, key: GoldenKey) -> str:
    scenario = key.family.removesuffix("/score")
    return goldens.canonical_json(source.run(SCORE, source.upstream, scenario, key.case))


def entry(key: GoldenKey) -> dict:
    scenario = key.family.removesuffix("/score")
    declared = get(scenario)
    grading = cases.gradings(scenario)[key.case]
    return {
        "call": {
            "function": declared.scoring.function,
            "args": {
                "row": index.fixture(declared.inputs, grading.problem),
                "generations": index.fixture(declared.scoring.gradings, key.case),
            },
        },
        "cell": [scenario, SCORE_COLUMN],
        "upstream": upstream_call(declared),
    }


FAMILIES = tuple(
    Family(
        family_name(scenario),
        f"{scenario} score",
        f"upstream {declared.scoring.upstream} on one problem's generations, run in a "
        "sandboxed child, as canonical JSON",
        lambda scenario=scenario: keys(scenario),
        produce,
        entry,
        render=lambda value, arguments: goldens.canonical_json(value),
        suffix=JSON_SUFFIX,
        compare=CANONICAL_JSON,
        sandboxed=True,
        fixtures=cases.FIXTURE_VALUES,
        runs=(SCORE,),
    )
    for scenario, declared in SCENARIOS.items()
    if declared.scoring
)
