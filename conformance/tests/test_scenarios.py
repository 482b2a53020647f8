"""The three other leaderboard scenarios (self-repair, test output prediction, code execution):
the implementation under test held to every prompt, extraction and scoring golden of the case
index, and the scenario fixtures held to what they claim.

The prompt and extraction cases run in test_conformance.py (a golden recording that lcb_runner
raises is met by the call raising); the scoring cases run here, through the case runner, each
call in a sandboxed child (scorers run model text as code).
"""

from __future__ import annotations

import json

import pytest

import lcb_prompts
from lcb_conformance.adapters import implementation
from lcb_conformance.reports.verdict import answer, mismatch_report
from lcb_conformance.runner import run as runner
from lcb_conformance.runner.results import ERROR, IDENTICAL, NOT_PROVIDED, SKIPPED
from lcb_conformance.suite import families, goldens, index, judge_cases
from lcb_conformance.suite import scenario_cases as scenarios
from lcb_conformance.suite.families import scenario_prompt, scenario_score
from lcb_conformance.suite.scenarios import CODE_EXECUTION, SCENARIOS, SELF_REPAIR
from lcb_conformance.upstream import resolver
from lcb_conformance.upstream import scenarios as upstream_scenarios

SCORE_CASES = runner.Plan.of(
    runner.Selection(
        families=frozenset(
            scenario_score.family_name(name) for name, s in SCENARIOS.items() if s.scoring
        )
    )
).sandboxed


@pytest.fixture(scope="module")
def scored(case_runner):
    """Every scoring case through the case runner (each call in a sandboxed child)."""
    return {result.id: result for result in case_runner.sandboxed(SCORE_CASES)}


@pytest.mark.parametrize("case", SCORE_CASES, ids=[case["id"] for case in SCORE_CASES])
def test_scenario_score(case, scored, golden):
    """The implementation's scorer on one problem's generations is lcb_runner's, as canonical
    JSON (the prompt and extraction cases are test_conformance.py's)."""
    result = scored[case["id"]]
    if result.status in (NOT_PROVIDED, SKIPPED):
        pytest.skip(result.reason)
    actual = answer(result)
    if actual is None:  # it raised, or returned something that is not JSON data
        pytest.fail(mismatch_report(result), pytrace=False)
    assert actual == golden(goldens.key_of(result.golden))
    assert result.status == IDENTICAL


def test_a_raising_implementation_meets_a_raises_golden_only(case_runner):
    """Where lcb_runner raises, raising is identical; where it builds a prompt, raising is an
    error (an implementation that refuses everything fails)."""
    raising = runner.Runner(implementation.wrap("refuses", Refuses()))
    cases = {case["id"]: case for case in index.held_cases()}
    assert raising.golden(cases["code-execution/prompt/direct/QwQ/sample_0"]).status == IDENTICAL
    assert raising.golden(cases["code-execution/prompt/direct/OpenAIChat/sample_0"]).status == (
        ERROR
    )


class Refuses:
    @staticmethod
    def format_code_execution_prompt(row, lmstyle, cot=False, tokenizer=None):
        raise ValueError(f"no prompt for {lmstyle}")


# ---- lcb_prompts' own contract --------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "lmstyle"),
    [
        (lambda style: lcb_prompts.format_self_repair_prompt(attempt("time_limit"), style), "QwQ"),
        (lambda style: lcb_prompts.format_test_output_prompt(row("test-output"), style), "Grok"),
        (
            lambda style: lcb_prompts.format_code_execution_prompt(row("code-execution"), style),
            "DeepSeekR1",
        ),
    ],
)
def test_lcb_prompts_names_the_pair_lcb_runner_has_no_prompt_for(call, lmstyle):
    with pytest.raises(lcb_prompts.NoLcbRunnerPrompt, match=rf"LMStyle\.{lmstyle}.*MagiCoder"):
        call(lmstyle)


def test_lcb_prompts_says_why_a_timeout_verdict_gets_no_self_repair_prompt():
    with pytest.raises(lcb_prompts.NoLcbRunnerPrompt, match="error_code -5.*NotImplementedError"):
        lcb_prompts.format_self_repair_prompt(attempt("global_timeout"), "OpenAIChat")


def test_lcb_prompts_refuses_an_unknown_lmstyle():
    with pytest.raises(ValueError, match="lmstyle must be one of lcb_runner's LMStyles"):
        lcb_prompts.format_code_execution_prompt(row("code-execution"), "GPT4")


def test_lcb_prompts_knows_lcb_runners_lmstyles():
    assert set(lcb_prompts.LMSTYLES) == set(scenarios.LMSTYLES)


def test_lcb_prompts_scenarios_are_the_declared_ones():
    """lcb_prompts (standard library only) keeps its own table of the scenarios: their names
    and lcb_runner's builders, the same as the declarations (suite/scenarios.py); every
    function a declaration names is lcb_prompts'."""
    from lcb_prompts import scenarios as impl_scenarios

    assert list(lcb_prompts.SCENARIO_LMSTYLES) == list(SCENARIOS)
    builders = {name: declared.prompt.upstream for name, declared in SCENARIOS.items()}
    assert impl_scenarios.UPSTREAM_BUILDERS == builders
    for declared in SCENARIOS.values():
        parts = (declared.prompt, declared.extraction, declared.scoring)
        for function in (part.function for part in parts if part):
            assert function in lcb_prompts.__all__, f"{declared.name}: {function}"


def attempt(attempt_id: str) -> dict:
    return scenarios.attempts(SELF_REPAIR.name)[attempt_id].value()


def row(scenario: str) -> dict:
    return next(iter(scenarios.problems(scenario).values()))


# ---- the fixtures ----------------------------------------------------------------------------


@pytest.mark.selftest
@pytest.mark.parametrize(
    "attempt_id",
    [a.id for a in scenarios.attempts(SELF_REPAIR.name).values() if a.judge_metadata],
)
def test_self_repair_metadata_is_what_the_judge_writes(attempt_id):
    """A self-repair attempt's verdict and metadata are lcb_runner's judge's for its program
    (the judge golden; "execution time", a timing, left out of both)."""
    found = scenarios.attempts(SELF_REPAIR.name)[attempt_id]
    judged = json.loads(goldens.read(goldens.GoldenKey(goldens.JUDGE, "", found.judge_case)))
    metadata = json.loads(found.metadata)
    metadata.pop("execution time", None)
    assert (found.graded, metadata) == (judged["passed"], judged["metadata"])
    assert judge_cases.judge_cases()[found.judge_case].program == found.value()["code"]


@pytest.mark.selftest
def test_every_error_code_the_self_repair_prompt_reads_has_an_attempt():
    attempts = scenarios.attempts(SELF_REPAIR.name).values()
    codes = {json.loads(a.metadata).get("error_code") for a in attempts}
    assert codes >= {-1, -2, -3, -4, -5}


# ---- lcb-conformance resolve --scenario ------------------------------------------------------


def test_resolve_names_the_error_lcb_runner_raises_for_a_models_scenario():
    assert resolver.main(["Qwen/QwQ-32B-Preview", "--scenario", "code-execution"]) == 1
    pinned = list(resolver.ModelList.pinned().models)
    lmstyle = resolver.resolve(pinned, "Qwen/QwQ-32B-Preview").lmstyle
    answer = resolver.scenario_answer(CODE_EXECUTION.name, lmstyle).as_dict()
    assert answer["builds"] == {} and answer["calls"] == []  # lcb_prompts: NoLcbRunnerPrompt
    assert list(answer["raises"]) == [
        "AttributeError: type object 'LMStyle' has no attribute 'MagiCoder'"
    ]


def test_resolve_gives_the_calls_where_lcb_runner_builds_the_scenario(capsys):
    assert resolver.main(["gpt-4o-2024-05-13", "--scenario", "self-repair", "--json", "-"]) == 0
    answer = json.loads(capsys.readouterr().out)["scenario"]
    assert list(answer["builds"]) == ["chat messages [system, user]"]
    assert set(answer["builds"]["chat messages [system, user]"]) == {
        f"self-repair/prompt/OpenAIChat/{attempt_id}"
        for attempt_id in scenarios.attempts(SELF_REPAIR.name)
        if attempt_id not in ("passed", "syntax_error", "global_timeout")
    }
    assert answer["kept"] == ["self-repair/prompt/OpenAIChat/passed"]
    assert answer["calls"][0] == 'format_self_repair_prompt(attempt, lmstyle="OpenAIChat")'


@pytest.mark.upstream
def test_the_stand_ins_scoring_gap_is_real(upstream):
    """STAND_IN_GAPS names a real difference: the installed stand-in scores a grading case
    otherwise than the golden (else the entry is stale and hides drift)."""
    if upstream.checkout is not None or upstream.version() not in upstream_scenarios.STAND_IN_GAPS:
        pytest.skip(f"{upstream.describe_source()} has no scoring gap listed")
    key = goldens.GoldenKey(scenario_score.family_name(CODE_EXECUTION.name), "", "half_right")
    outcome = upstream_scenarios.scored_by(upstream.source, CODE_EXECUTION.name)[key.case]
    assert goldens.canonical_json(outcome["scored"]) != goldens.read(key)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_lcb_prompts_builds_where_the_goldens_say_lcb_runner_does(scenario):
    """SCENARIO_LMSTYLES is the set of LMStyles with a non-empty prompt golden."""
    building = set()
    for key in families.expected_keys(scenario_prompt.family_name(scenario)):
        recorded = json.loads(goldens.read(key))
        if recorded and not scenario_prompt.expects_error(goldens.read(key)):
            building.add(scenario_prompt.parse(key)[2])
    assert building == set(lcb_prompts.SCENARIO_LMSTYLES[scenario])


MARK = "lcb-prompts-scorer-probe"  # in every process an answer below starts, to find them


@pytest.mark.parametrize(
    "answer",
    [
        "(lambda: [0 for _ in iter(int, 1)])()",  # never ends: killed at the time limit
        "__import__('os')._exit(0)",  # leaves before the assert: no verdict
        f"__import__('subprocess').Popen(['sleep', '600', '{MARK}']) and 1/0",  # a leftover
    ],
    ids=["hangs", "exits", "spawns"],
)
def test_the_reference_scorer_fails_an_answer_that_hangs_exits_or_spawns(answer):
    """lcb_prompts' code execution scorer runs answers in children of its executor: each of
    these fails, and closing the executor (at exit) leaves no process it started."""
    import subprocess

    from lcb_prompts import scenario_scoring

    scored = lcb_prompts.score_code_execution(row("code-execution"), [answer])
    assert scored[1] == {0: [[False]]}
    scenario_scoring._executor.close()
    found = subprocess.run(["pgrep", "-f", MARK], capture_output=True, text=True)
    assert found.stdout == "", f"left running: {found.stdout}"
