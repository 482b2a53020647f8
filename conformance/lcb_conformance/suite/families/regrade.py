"""Golden families: lcb_runner's extract_code and codegen_metrics on each fixture run's raw
outputs; its test output prediction and code execution extractors and metrics on those scenarios'
fixture runs (fixtures/regrade).

regrade/<harness>/<run>: lcb_runner's own evaluation of a fixture run's raw outputs, as
canonical JSON: each output through ``extract_code(output, LMStyle)`` for the run's LMStyle,
then ``codegen_metrics(samples, code lists)`` with its defaults, against the tests of the rows
the run was made from (fixtures/regrade/runs.jsonl, written from fixtures/audit/ by its
build.py). regrade/lcb_runner_self_repair/<run>: the same for lcb_runner's self-repair
results of a run folder, its outputs through runner/scenario_router's combine_results for
Scenario.selfrepair (``output[0]`` of a list, then extract_code), then codegen_metrics, as its
get_metrics scores self-repair. The golden holds the problems in order, the extracted code, the
metrics and, per problem, every sample's graded list and metadata (normalised as the judge
goldens are: "execution time" dropped, memory addresses blanked). What a regrade of the run is
held to; upstream/grading.py's grade reproduces the graded lists and metadata from the code.

regrade-scenarios/lcb_runner/<run>[_cot]: the same for lcb_runner's test output prediction and
code execution fixture runs (fixtures/regrade/scenario_runs.jsonl, written by build.py): each
raw output through lcb_runner's extract_test_output_code(output, LMStyle) or
extract_execution_code(output, LMStyle, cot=...), then test_output_metrics(samples,
predictions, k_list=[1, 5]) or code_execution_metrics(samples, predictions), as runner/
scenario_router does, against the rows of fixtures/scenarios/. The golden holds the problems in
the file's order, the predictions, the metrics and each problem's graded list.
"""

from __future__ import annotations

from functools import cache

from lcb_conformance.suite import cases, goldens, judge_cases, scenario_cases, scenarios
from lcb_conformance.suite.families import CANONICAL_JSON, Family
from lcb_conformance.suite.goldens import JSON_SUFFIX, GoldenKey

FAMILY = "regrade"
# upstream/grading.py: every run's extraction and codegen_metrics in one sandboxed child
REGRADE = "grading.regrade_golden"
RUNS_FILE = cases.FIXTURES_DIR / "regrade" / "runs.jsonl"
# the fixture files a run's rows come from (runs.jsonl's "problems")
ROWS = {
    "problems.jsonl": lambda: {row["question_id"]: row for _, row in cases.iter_jsonl(
        cases.FIXTURES_DIR / "problems.jsonl")},
    "judge/problems.jsonl": judge_cases.problems,
}  # fmt: skip


# runs.jsonl's "scenario": lcb_runner's Scenario value whose results the run's line holds
CODE_GENERATION, SELF_REPAIR = "codegeneration", scenarios.SELF_REPAIR.lcb_runner


def key_of(run: str, scenario: str = CODE_GENERATION) -> GoldenKey:
    """The golden of a run folder under fixtures/audit/ ("lcb_runner/openai-chat"); of its
    self-repair results: in the group lcb_runner_self_repair."""
    harness, _, name = run.partition("/")
    if scenario == SELF_REPAIR:
        harness += "_" + scenarios.SELF_REPAIR.name.replace("-", "_")
    return GoldenKey(FAMILY, harness, name.replace("-", "_"))


@cache
def runs() -> dict[GoldenKey, dict]:
    """Each fixture run's line of runs.jsonl, with ``rows``: question_id -> its dataset row,
    and ``name``: its golden's path in the family (what grading.codegen_metrics answers by)."""
    found = {}
    for number, run in cases.iter_jsonl(RUNS_FILE):
        rows = ROWS[run["problems"]]()
        missing = sorted(set(run["outputs"]) - set(rows))
        if missing:
            raise cases.FixtureError(f"{RUNS_FILE}:{number}: no rows for {missing}")
        key = key_of(run["run"], run["scenario"])
        if key in found:
            raise cases.FixtureError(f"{RUNS_FILE}:{number}: {key} given twice")
        found[key] = {
            **run,
            "rows": {p: rows[p] for p in run["outputs"]},
            "name": f"{key.group}/{key.case}",
        }
    return found


def keys():
    return list(runs())


SCENARIO_FAMILY = "regrade-scenarios"
SCENARIO_RUNS_FILE = cases.FIXTURES_DIR / "regrade" / "scenario_runs.jsonl"
COT_SUFFIX = "_cot"
# upstream/scenarios.py: every scenario run's extractor and metrics in one sandboxed child
REGRADE_SCENARIO = "scenarios.regrade_golden"


def scenario_key_of(run: str, cot: bool) -> GoldenKey:
    """The golden of a results file of a run folder under fixtures/audit/: the folder's, with
    _cot for a code execution CoT file."""
    key = key_of(run)
    return GoldenKey(SCENARIO_FAMILY, key.group, key.case + (COT_SUFFIX if cot else ""))


@cache
def scenario_runs() -> dict[GoldenKey, dict]:
    """Each scenario results file's line of scenario_runs.jsonl, with ``rows``: problem name ->
    its dataset row (fixtures/scenarios/)."""
    found = {}
    for number, run in cases.iter_jsonl(SCENARIO_RUNS_FILE):
        rows = scenario_cases.problems(run["scenario"])
        missing = sorted(p["row"] for p in run["problems"] if p["row"] not in rows)
        if missing:
            raise cases.FixtureError(f"{SCENARIO_RUNS_FILE}:{number}: no rows for {missing}")
        key = scenario_key_of(run["run"], run["cot"])
        if key in found:
            raise cases.FixtureError(f"{SCENARIO_RUNS_FILE}:{number}: {key} given twice")
        found[key] = {**run, "rows": {p["name"]: rows[p["row"]] for p in run["problems"]}}
    return found


def scenario_keys():
    return list(scenario_runs())


FAMILIES = (
    Family(
        FAMILY,
        "regrade",
        "upstream extract_code per the run's LMStyle (a self-repair run's through "
        "scenario_router.combine_results), then codegen_metrics with its defaults, on each "
        "fixture run's raw outputs, in a sandboxed child (upstream/grading.py), as canonical "
        "JSON",
        keys,
        lambda source, key: goldens.canonical_json(source.run(REGRADE, source.upstream, key)),
        suffix=JSON_SUFFIX,
        compare=CANONICAL_JSON,
        in_history=False,
        runs=(REGRADE,),
    ),
    Family(
        SCENARIO_FAMILY,
        "regrade-scenarios",
        "upstream extract_test_output_code or extract_execution_code per the run's LMStyle "
        "(and CoT), then test_output_metrics (k_list [1, 5]) or code_execution_metrics, as "
        "runner/scenario_router calls them, on each scenario fixture run's raw outputs, in a "
        "sandboxed child (upstream/scenarios.py), as canonical JSON",
        scenario_keys,
        lambda source, key: goldens.canonical_json(
            source.run(REGRADE_SCENARIO, source.upstream, key)
        ),
        suffix=JSON_SUFFIX,
        compare=CANONICAL_JSON,
        in_history=False,
        runs=(REGRADE_SCENARIO,),
    ),
)
