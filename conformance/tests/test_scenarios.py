"""The three other leaderboard scenarios (self-repair, test output prediction, code execution):
the implementation under test held to every prompt, extraction and scoring golden of the case
index, and the scenario fixtures held to what they claim.

Until the case runner holds these families, this file runs their cases: the function of the
case's call, found on the adapter object itself (the adapter protocol's API lists the
code-generation functions only), with the call's arguments. A golden recording that lcb_runner
raises is met by the call raising. Scorers run model text as code: they are called in a
sandboxed child (lcb_conformance.upstream.sandbox).
"""

from __future__ import annotations

import json

import pytest

import lcb_prompts
from lcb_conformance.adapters import implementation
from lcb_conformance.suite import families, goldens, index, judge_cases
from lcb_conformance.suite import scenario_cases as scenarios
from lcb_conformance.suite.families import scenario_extract, scenario_prompt, scenario_score
from lcb_conformance.upstream import resolver, sandbox
from lcb_conformance.upstream import scenarios as upstream_scenarios

PROMPT_FAMILIES = [scenario_prompt.family_name(s) for s in scenarios.SCENARIOS]
EXTRACT_FAMILIES = [scenario_extract.family_name(s) for s in scenarios.FILES]
SCORE_FAMILIES = [scenario_score.family_name(s) for s in scenarios.FILES]
CHILD_SECONDS = 120  # one scoring call: start-up plus a few seconds per generation


def cases_of(names: list[str]) -> list:
    return [pytest.param(case, id=case["id"]) for name in names for case in index.held_cases(name)]


def adapter_function(impl, name: str):
    """The case's function on the adapter object, or a skip saying it is not provided."""
    found = getattr(getattr(impl, "module", None), name, None)
    if not callable(found):
        pytest.skip(f"{impl.name} {implementation.NOT_PROVIDED} {name}")
    return found


def arguments(case: dict, chat_tokenizer) -> dict:
    resolved = index.arguments(case["call"])
    if resolved.get("tokenizer") is not None:
        resolved["tokenizer"] = chat_tokenizer(resolved["tokenizer"])
    return resolved


@pytest.mark.parametrize("case", cases_of(PROMPT_FAMILIES))
def test_scenario_prompt(case, impl, chat_tokenizer):
    function = adapter_function(impl, case["call"]["function"])
    golden = goldens.read(families.key_of(case["golden"]))
    try:
        answer = function(**arguments(case, chat_tokenizer))
    except implementation.NotProvided as missing:
        pytest.skip(str(missing))
    except Exception as error:
        assert scenario_prompt.expects_error(golden), (
            f"raised {type(error).__name__}: {error}; lcb_runner builds a prompt here"
        )
        return
    assert not scenario_prompt.expects_error(golden), (
        f"returned a prompt; lcb_runner raises here: {json.loads(golden)['raises']}"
    )
    assert scenario_prompt.render(answer, case["call"]["args"]) == golden


@pytest.mark.parametrize("case", cases_of(EXTRACT_FAMILIES))
def test_scenario_extraction(case, impl):
    function = adapter_function(impl, case["call"]["function"])
    try:
        answer = function(**index.arguments(case["call"]))
    except implementation.NotProvided as missing:
        pytest.skip(str(missing))
    assert answer == goldens.read(families.key_of(case["golden"]))


@pytest.mark.parametrize("case", cases_of(SCORE_FAMILIES))
def test_scenario_score(case, impl):
    adapter_function(impl, case["call"]["function"])
    answer = sandbox.call_in_child(
        impl.name, case["call"]["function"], index.arguments(case["call"]), CHILD_SECONDS
    )
    if implementation.NOT_PROVIDED in answer.get("raised", ""):
        pytest.skip(answer["raised"])
    assert "raised" not in answer, answer["raised"]
    golden = goldens.read(families.key_of(case["golden"]))
    assert goldens.canonical_json(answer["value"]) == golden


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


def attempt(attempt_id: str) -> dict:
    return scenarios.attempts()[attempt_id].value()


def row(scenario: str) -> dict:
    return next(iter(scenarios.problems(scenario).values()))


# ---- the fixtures ----------------------------------------------------------------------------


@pytest.mark.selftest
@pytest.mark.parametrize(
    "attempt_id",
    [a.id for a in scenarios.attempts().values() if a.judge_metadata],
)
def test_self_repair_metadata_is_what_the_judge_writes(attempt_id):
    """A self-repair attempt's verdict and metadata are lcb_runner's judge's for its program
    (the judge golden; "execution time", a timing, left out of both)."""
    found = scenarios.attempts()[attempt_id]
    judged = json.loads(goldens.read(goldens.GoldenKey(goldens.JUDGE, "", found.judge_case)))
    metadata = json.loads(found.metadata)
    metadata.pop("execution time", None)
    assert (found.graded, metadata) == (judged["passed"], judged["metadata"])
    assert judge_cases.judge_cases()[found.judge_case].program == found.value()["code"]


@pytest.mark.selftest
def test_every_error_code_the_self_repair_prompt_reads_has_an_attempt():
    codes = {json.loads(a.metadata).get("error_code") for a in scenarios.attempts().values()}
    assert codes >= {-1, -2, -3, -4, -5}


# ---- lcb-conformance resolve --scenario ------------------------------------------------------


def test_resolve_names_the_error_lcb_runner_raises_for_a_models_scenario(capsys):
    assert resolver.main(["Qwen/QwQ-32B-Preview", "--scenario", "codeexecution"]) == 1
    shown = capsys.readouterr().out
    assert "RAISES AttributeError: type object 'LMStyle' has no attribute 'MagiCoder'" in shown
    assert "lcb_prompts raises NoLcbRunnerPrompt" in shown


def test_resolve_gives_the_calls_where_lcb_runner_builds_the_scenario(capsys):
    assert resolver.main(["gpt-4o-2024-05-13", "--scenario", "selfrepair", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)["scenario"]
    assert list(answer["builds"]) == ["chat messages [system, user]"]
    assert set(answer["builds"]["chat messages [system, user]"]) == {
        f"self-repair/prompt/OpenAIChat/{attempt_id}"
        for attempt_id in scenarios.attempts()
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
    key = goldens.GoldenKey(scenario_score.family_name(scenarios.CODE_EXECUTION), "", "half_right")
    outcome = upstream_scenarios.scored_by(upstream.source, scenarios.CODE_EXECUTION)[key.case]
    assert goldens.canonical_json(outcome["scored"]) != goldens.read(key)


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS)
def test_lcb_prompts_builds_where_the_goldens_say_lcb_runner_does(scenario):
    """SCENARIO_LMSTYLES is the set of LMStyles with a non-empty prompt golden."""
    building = set()
    for key in families.expected_keys(scenario_prompt.family_name(scenario)):
        recorded = json.loads(goldens.read(key))
        if recorded and not scenario_prompt.expects_error(goldens.read(key)):
            building.add(scenario_prompt.parse(key)[2])
    assert building == set(lcb_prompts.SCENARIO_LMSTYLES[scenario])
