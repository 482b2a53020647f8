"""lcb-conformance audit over lcb_runner's self-repair, test output prediction and code
execution results, written by lcb_runner's own main() (fixtures/audit/generate_lcb_runner.py):
the conformant runs audit clean, the runs with OpenCompass's scenario code fail on the samples
where it differs, a pair lcb_runner 28fef95 raises for is named, bad input is exit 2."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from lcb_conformance.run_audit import audit as run_audit
from lcb_conformance.run_audit import request as requested
from lcb_conformance.run_audit import scenario_results
from lcb_conformance.run_formats import lcb_runner_files, registry
from lcb_conformance.suite import cases, goldens
from lcb_conformance.suite import scenario_cases as scenarios
from lcb_conformance.suite import scenarios as declared
from lcb_conformance.suite.families import scenario_prompt

RUNS = cases.FIXTURES_DIR / "audit" / "lcb_runner"
SELF_REPAIR = "Scenario.selfrepair_1_0.2.json"
REPAIRED = "Scenario.codegeneration_3_0.2_eval_all.json"
TEST_OUTPUT = "Scenario.testoutputprediction_3_0.2.json"
DIRECT = "Scenario.codeexecution_3_0.2.json"
COT = "Scenario.codeexecution_3_0.2_cot.json"
TEST_OUTPUT_ROWS = scenarios.fixture_file(declared.TEST_OUTPUT.inputs)


def eval_all(name: str) -> str:
    return name.replace(".json", "_eval_all.json")


def results(run: str, name: str):
    (path,) = (RUNS / run / "output").glob(f"*/{name}")
    return path


def rows(run: str, name: str) -> list[dict]:
    return json.loads(results(run, name).read_text("utf-8"))


def audit_cli(pytestconfig, *args: str) -> int:
    return run_audit.main([*args, "--upstream", pytestconfig.getoption("--upstream")])


def audited(upstream, path, dataset=None, style=None, repaired=None):
    """The audit of a results file as the command runs it (its cache and, for self-repair,
    the code-generation run beside it)."""
    scenario, cot = scenario_results.scenario_of(path)
    cache = run_audit.CacheIndex.read(lcb_runner_files.default_cache(path))
    repaired = repaired or scenario_results.default_repaired(path, scenario)
    return scenario_results.audit_scenario_run(
        path,
        upstream,
        style or run_audit.resolve_lmstyle(path, None, None),
        scenario,
        cot,
        cache,
        scenario_results.read_dataset(dataset, scenario) if dataset else None,
        scenario_results.read_repaired(repaired) if repaired else None,
    )


def copy_run(run: str, tmp_path, name: str):
    """The run's output and cache folders, copied so a test may damage them."""
    shutil.copytree(RUNS / run, tmp_path / run)
    (path,) = (tmp_path / run / "output").glob(f"*/{name}")
    return path


def rewrite(path, change) -> None:
    data = json.loads(path.read_text("utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=4), "utf-8")


@pytest.mark.upstream
@pytest.mark.parametrize(
    ("run", "name", "dataset"),
    [
        ("self-repair", SELF_REPAIR, None),
        ("self-repair", eval_all(SELF_REPAIR), None),
        ("test-output", TEST_OUTPUT, TEST_OUTPUT_ROWS),
        ("test-output", eval_all(TEST_OUTPUT), TEST_OUTPUT_ROWS),
        ("code-execution", DIRECT, None),
        ("code-execution", eval_all(COT), None),
        ("code-execution-deepseek", DIRECT, None),
    ],
)
def test_a_conformant_scenario_run_audits_clean(upstream, run, name, dataset):
    path = results(run, name)
    audit = audited(upstream, path, dataset)
    samples = sum(len(row["output_list"]) for row in rows(run, name))
    assert audit.counts() == {run_audit.IDENTICAL: samples}
    assert {s.prompt for s in audit.samples} == {run_audit.IDENTICAL}
    assert not audit.prompt_unchecked and not audit.reports and not audit.lcb_runner_raises
    assert audit.exit_code() == run_audit.EXIT_OK


def test_the_scenario_and_cot_are_read_from_lcb_runners_file_name():
    assert scenario_results.scenario_of(results("self-repair", SELF_REPAIR)) == (
        declared.SELF_REPAIR.lcb_runner,
        False,
    )
    assert scenario_results.scenario_of(results("test-output", eval_all(TEST_OUTPUT))) == (
        declared.TEST_OUTPUT.lcb_runner,
        False,
    )
    assert scenario_results.scenario_of(results("code-execution", COT)) == (
        declared.CODE_EXECUTION.lcb_runner,
        True,
    )
    named = lcb_runner_files.parse(eval_all(COT))
    assert (named.n, named.temperature, named.kind) == (3, "0.2", "_eval_all")
    # lcb_runner names its cache without _cot: the direct and CoT runs share it
    direct = lcb_runner_files.default_cache(results("code-execution", DIRECT))
    assert lcb_runner_files.default_cache(results("code-execution", COT)) == direct


@pytest.mark.upstream
def test_cot_extraction_follows_the_file_name(upstream, tmp_path):
    """The CoT results read as a direct run (renamed without _cot): the answers whose [ANSWER]
    only the CoT extraction looks for differ, so the name is what the audit goes by."""
    path = copy_run("code-execution", tmp_path, COT)
    as_direct = path.with_name("Scenario.codeexecution_3_0.2_eval_all.json")
    as_direct.unlink()
    path.rename(as_direct)
    audit = audited(upstream, as_direct)
    assert {s.index for s in audit.samples if s.extraction == run_audit.DIFFERS} == {1, 2}


@pytest.mark.upstream
def test_test_output_without_the_dataset_checks_extraction_only(upstream):
    audit = audited(upstream, results("test-output", TEST_OUTPUT))
    assert audit.counts() == {run_audit.IDENTICAL: 9}
    assert audit.prompt_unchecked == {scenario_results.needs_dataset(declared.TEST_OUTPUT): 9}
    assert {s.question_id for s in audit.samples} == {"1/1", "151/0", "2727/0"}
    assert audit.exit_code() == run_audit.EXIT_OK


@pytest.mark.upstream
def test_opencompass_test_output_prompt_is_caught_without_its_system_message(
    pytestconfig, tmp_path
):
    path = results("test-output-opencompass", TEST_OUTPUT)
    report = tmp_path / "audit.json"
    code = audit_cli(
        pytestconfig, str(path), "--dataset", str(TEST_OUTPUT_ROWS), "--json", str(report)
    )
    data = json.loads(report.read_text("utf-8"))
    assert code == data["exit_code"] == run_audit.EXIT_DIFFERS
    assert data["summary"] == {run_audit.PROMPT_DIFFERS: 9}  # 9 of 9, the prompt only
    assert {(s["prompt"], s["extraction"]) for s in data["samples"]} == {
        (run_audit.DIFFERS, run_audit.IDENTICAL)
    }
    first = data["samples"][0]
    assert (first["question_id"], first["why"]) == ("1/1", "system message missing")
    assert "1/1 prompt (system message missing): differs from the lcb_runner" in (
        data["first_differences"][0]
    )


@pytest.mark.upstream
def test_opencompass_cot_extraction_ignoring_answer_tags_is_caught(pytestconfig, tmp_path):
    """OpenCompass's evaluator extracts code execution answers without cot: its prompt is
    lcb_runner's, its predictions differ where [ANSWER] decides."""
    report = tmp_path / "audit.json"
    path = results("code-execution-opencompass", COT)
    assert audit_cli(pytestconfig, str(path), "--json", str(report)) == run_audit.EXIT_DIFFERS
    data = json.loads(report.read_text("utf-8"))
    assert (data["scenario"], data["cot_code_execution"]) == ("codeexecution", True)
    assert {s["prompt"] for s in data["samples"]} == {run_audit.IDENTICAL}
    differing = [s for s in data["samples"] if s["extraction"] != run_audit.IDENTICAL]
    problems = ("sample_0", "sample_1", "sample_2")
    assert {(s["question_id"], s["sample"]) for s in differing} == {
        (problem, index) for problem in problems for index in (1, 2)
    }
    assert {s["why"] for s in differing} == {"scored another prediction than lcb_runner extracts"}


@pytest.mark.upstream
def test_self_repair_prompts_come_from_the_run_it_repaired(upstream):
    path = results("self-repair", SELF_REPAIR)
    audit = audited(upstream, path)
    accepted = [s for s in audit.samples if s.why == scenario_results.ACCEPTED]
    # j_sum's first attempt passed: lcb_runner sent nothing and kept its output
    assert [(s.question_id, s.index) for s in accepted] == [("j_sum", 0)]
    repaired = json.loads(results("self-repair", REPAIRED).read_text("utf-8"))
    assert rows("self-repair", SELF_REPAIR)[0]["output_list"][0] == repaired[0]["output_list"][0]
    # n: one repair per attempt, not the samples per problem
    (n,) = [f for f in audit.request.findings if f.parameter == requested.N]
    assert (n.outcome, n.why) == (requested.CANNOT, scenario_results.SELF_REPAIR_N)


@pytest.mark.upstream
def test_upstreams_positional_original_code_list_is_named_not_refused(upstream, tmp_path):
    """lcb_runner 28fef95's own self-repair file (self-repair-misaligned, written by its
    main()): main() pairs the rows with the code-generation run's by position, so
    j_two_numbers' original_code_list is j_sum_encoded's. run_main_repair prompted each
    problem from its own attempts: the audit checks them, names the pairing, and passes; an
    original_code_list that no position explains is still refused."""
    path = results("self-repair-misaligned", eval_all(SELF_REPAIR))
    audit = audited(upstream, path)
    assert audit.paired_by_position == {"j_two_numbers": "j_sum_encoded"}
    assert audit.counts() == {run_audit.IDENTICAL: 6}
    assert audit.exit_code() == run_audit.EXIT_OK
    assert "j_two_numbers has j_sum_encoded's" in run_audit.render(audit)
    assert audit.as_json()["original_code_list_by_position"] == audit.paired_by_position
    damaged = copy_run("self-repair-misaligned", tmp_path, eval_all(SELF_REPAIR))

    def unexplained(data):
        data[1]["original_code_list"] = ["print(0)"] * len(data[1]["original_code_list"])

    rewrite(damaged, unexplained)
    with pytest.raises(run_audit.AuditInputError, match="not the run it repaired"):
        audited(upstream, damaged)


@pytest.mark.upstream
def test_self_repair_without_the_repaired_run_checks_extraction_only(upstream, tmp_path):
    path = copy_run("self-repair", tmp_path, SELF_REPAIR)
    moved = tmp_path / "elsewhere.json"
    path.with_name(REPAIRED).rename(moved)
    audit = audited(upstream, path)
    assert audit.prompt_unchecked == {scenario_results.NO_REPAIRED_RUN: 6}
    assert audit.counts() == {run_audit.IDENTICAL: 6}  # the extraction
    assert audit.exit_code() == run_audit.EXIT_OK
    audit = audited(upstream, path, repaired=moved)  # --codegen-eval
    assert audit.counts() == {run_audit.IDENTICAL: 6} and not audit.prompt_unchecked


@pytest.mark.upstream
def test_a_changed_accepted_output_and_a_metadata_lcb_runner_raises_on_are_named(
    upstream, tmp_path
):
    """The repaired run as it would be had j_sum's second attempt not compiled (the judge's
    metadata for that, fixtures/scenarios/self_repair.jsonl): lcb_runner's prompt builder
    raises KeyError on it, its main() stops, so a sample there is not lcb_runner's."""
    path = copy_run("self-repair", tmp_path, SELF_REPAIR)
    syntax_error = scenarios.attempts(declared.SELF_REPAIR.name)["syntax_error"].metadata

    def no_inputs(data):
        data[0]["metadata"][1] = syntax_error

    rewrite(path.with_name(REPAIRED), no_inputs)

    def other_output(data):
        data[0]["output_list"][0] += "\n"

    rewrite(path, other_output)
    audit = audited(upstream, path)
    verdicts = {(s.question_id, s.index): (s.prompt, s.why) for s in audit.samples}
    assert verdicts[("j_sum", 0)] == (run_audit.DIFFERS, scenario_results.ACCEPTED_CHANGED)
    prompt, why = verdicts[("j_sum", 1)]
    # no prompt of lcb_runner's exists there: not compared (never "prompt differs"), and the run
    # still fails, lcb_runner writing no such sample
    assert prompt == run_audit.CANNOT and why.startswith("lcb_runner raises KeyError ('inputs')")
    assert audit.prompt_raised == {why: 1} and why not in audit.prompt_unchecked
    assert not audit.lcb_runner_raises  # every LMStyle raises on it: the input's, not OpenAIChat's
    assert f"prompt not compared for 1 samples: {why}" in run_audit.render(audit)
    assert audit.exit_code() == run_audit.EXIT_DIFFERS
    assert "1 samples' prompts not compared: lcb_runner raises" in run_audit.headline(audit)


@pytest.mark.upstream
def test_a_pair_lcb_runner_raises_for_is_named_fails_and_compares_no_prompt(
    pytestconfig, tmp_path
):
    """The code-execution run claimed for GenericBase: lcb_runner 28fef95 raises building
    every prompt (its expected-error golden), so no run of it can hold these samples, and no
    prompt of its exists to compare: none counts as "prompt differs"."""
    report, page = tmp_path / "audit.json", tmp_path / "audit.html"
    path = results("code-execution", DIRECT)
    code = audit_cli(
        pytestconfig, str(path), "--style", "GenericBase", "--json", str(report),
        "--html", str(page),
    )  # fmt: skip
    assert code == run_audit.EXIT_DIFFERS
    key = goldens.GoldenKey("code-execution/prompt", "direct/GenericBase", "sample_0")
    raised = json.loads(goldens.read(key))["raises"]
    data = json.loads(report.read_text("utf-8"))
    assert data["exit_code"] == run_audit.EXIT_DIFFERS
    assert (data["scenario"], data["lmstyle"]) == ("codeexecution", "GenericBase")
    assert f"lcb_runner 28fef95 raises {raised['type']} ({raised['message']})" in (
        data["lcb_runner_raises"]
    )
    assert f"(golden {key.relative})" in data["lcb_runner_raises"]
    assert {s["prompt"] for s in data["samples"]} == {run_audit.CANNOT}
    assert sum(data["prompt_raised"].values()) == len(data["samples"])
    assert run_audit.PROMPT_DIFFERS not in data["summary"]
    assert data["summary"] == {run_audit.IDENTICAL: len(data["samples"])}  # the extraction
    assert "28fef95 raises AttributeError" in page.read_text("utf-8")


@pytest.mark.upstream
def test_a_pair_raising_without_the_prompt_to_check_still_fails(upstream):
    """Test output prediction without --dataset builds no prompt; the golden still says
    lcb_runner 28fef95 writes no results for OpenAIReason."""
    audit = audited(upstream, results("test-output", TEST_OUTPUT), style="OpenAIReason")
    assert set(audit.counts()) == {run_audit.IDENTICAL}  # extraction only
    assert "OpenAIReason" in audit.lcb_runner_raises
    assert audit.exit_code() == run_audit.EXIT_DIFFERS


@pytest.mark.parametrize("scenario", [declared.TEST_OUTPUT.name, declared.CODE_EXECUTION.name])
def test_the_lmstyles_lcb_runner_raises_for_are_those_whose_every_golden_raises(scenario):
    """Test output prediction and code execution raise before reading the row: the LMStyles
    raised_for names are exactly those whose goldens raise for every input."""
    family = scenario_prompt.family_name(scenario)
    for group in scenarios.groups(scenario):
        mode, lmstyle = scenarios.parse_group(group)
        texts = [
            goldens.read(goldens.GoldenKey(family, group, case))
            for case in scenarios.problems(scenario)
        ]
        every = all(scenario_prompt.expects_error(text) for text in texts)
        assert (scenario_prompt.raised_for(scenario, mode, lmstyle) is not None) == every, group


def test_self_repair_errors_every_lmstyle_raises_are_the_inputs_not_the_lmstyles():
    assert scenario_prompt.raised_for(declared.SELF_REPAIR.name, None, "OpenAIChat") is None
    key, raised = scenario_prompt.raised_for(declared.SELF_REPAIR.name, None, "GenericBase")
    assert raised["type"] == "AttributeError" and key.group == "GenericBase"


def test_scenario_results_are_detected_as_lcb_runners():
    """Their own run format (regrade reads them by scenario); the audit reads them as
    lcb_runner's files, through scenario_results."""
    for run, name in (("test-output", TEST_OUTPUT), ("code-execution", COT)):
        module = registry.detect(results(run, name))
        assert registry.scenario(module) == name.split("_")[0].removeprefix("Scenario.")
        assert module.NAME not in run_audit.FORMATS


def drop_pred_list(data):
    del data[1]["pred_list"]


def shorten_pred_list(data):
    data[0]["pred_list"].pop()


def number_as_prediction(data):
    data[2]["pred_list"][0] = 9


@pytest.mark.upstream
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (drop_pred_list, r"\.json:\d+: 'pred_list' must be list"),
        (shorten_pred_list, r"problem 'sample_0': 3 outputs but 2 predictions"),
        (number_as_prediction, r"problem 'sample_2' sample 0: output and prediction must be"),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_bad_scenario_rows_are_exit_2_naming_file_line_and_sample(
    pytestconfig, tmp_path, capsys, change, message
):
    # tests the console's contract: an input error is one line naming file, line and sample
    path = copy_run("code-execution", tmp_path, DIRECT)
    rewrite(path, change)
    assert audit_cli(pytestconfig, str(path)) == run_audit.EXIT_INPUT
    printed = capsys.readouterr().err
    assert str(path) in printed and re.search(message, printed), printed
    assert "Traceback" not in printed


@pytest.mark.upstream
def test_a_self_repair_run_beside_another_code_generation_run_is_exit_2(
    pytestconfig, tmp_path, capsys
):
    # tests the console's contract: an input error is one line naming what is wrong
    path = copy_run("self-repair", tmp_path, eval_all(SELF_REPAIR))

    def other_code(data):
        data[1]["code_list"][2] = "print(0)"

    rewrite(path.with_name(REPAIRED), other_code)
    assert audit_cli(pytestconfig, str(path)) == run_audit.EXIT_INPUT
    assert "original_code_list is not the code-generation run's code_list" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("run", "name", "option", "message"),
    [
        ("code-execution", DIRECT, "--codegen-eval", "only a self-repair run repairs"),
        ("self-repair", SELF_REPAIR, "--dataset", "builds self-repair prompts from the code"),
    ],
)
def test_an_option_the_scenario_does_not_read_is_exit_2(capsys, run, name, option, message):
    # tests the console's contract: an input error is one line naming the option
    given = results("self-repair", REPAIRED)
    assert run_audit.main([str(results(run, name)), option, str(given)]) == run_audit.EXIT_INPUT
    assert message in capsys.readouterr().err


def test_renamed_code_execution_results_are_exit_2_cot_unknown(tmp_path, capsys):
    # tests the console's contract: an input error is one line naming what is wrong
    path = tmp_path / "results.json"
    shutil.copy(results("code-execution", DIRECT), path)
    assert run_audit.main([str(path), "--style", "OpenAIChat"]) == run_audit.EXIT_INPUT
    assert "only the name records --cot_code_execution" in capsys.readouterr().err


def test_a_dataset_of_other_rows_is_exit_2_naming_the_field(tmp_path, capsys):
    # tests the console's contract: an input error is one line naming file, line and field
    path = results("test-output", TEST_OUTPUT)
    # execution-v2 rows for test output prediction
    dataset = str(scenarios.fixture_file(declared.CODE_EXECUTION.inputs))
    assert run_audit.main([str(path), "--dataset", dataset]) == run_audit.EXIT_INPUT
    assert re.search(r"execution\.jsonl:1: 'question_title' must be str", capsys.readouterr().err)


@pytest.mark.upstream
def test_without_a_cache_only_the_accepted_attempts_prompt_is_still_checked(upstream, tmp_path):
    path = copy_run("self-repair", tmp_path, SELF_REPAIR)
    shutil.rmtree(tmp_path / "self-repair" / "cache")
    scenario, cot = scenario_results.scenario_of(path)
    audit = scenario_results.audit_scenario_run(
        path,
        upstream,
        "OpenAIChat",
        scenario,
        cot,
        repaired=scenario_results.read_repaired(path.with_name(REPAIRED)),
    )
    checked = [(s.question_id, s.index) for s in audit.samples if s.prompt != run_audit.CANNOT]
    assert checked == [("j_sum", 0)]
    assert audit.prompt_unchecked == {run_audit.NO_CACHE: 5}
    assert audit.counts() == {run_audit.IDENTICAL: 6}
