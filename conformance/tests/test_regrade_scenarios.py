"""lcb_runner's test output prediction and code execution results as run formats
(run_formats/lcb_runner_test_output.py, lcb_runner_code_execution.py), and the
regrade-scenarios goldens of their fixture runs (suite/families/regrade.py), and `regrade` of
those runs reproducing them (regrade/scenario_regrade.py)."""

from __future__ import annotations

import json

import pytest
import regrade_inputs as inputs

from lcb_conformance import cli
from lcb_conformance.common import exit_codes
from lcb_conformance.run_formats import (
    lcb_runner,
    lcb_runner_code_execution,
    lcb_runner_files,
    lcb_runner_test_output,
    registry,
)
from lcb_conformance.run_formats.samples import LogError
from lcb_conformance.suite import goldens, scenario_cases, scenarios
from lcb_conformance.suite.families import regrade as regrade_family

# lcb_runner's extraction and judge on the fixture runs: no tokenizer touches them (the
# compat-tf* envs leave them to the upstream env)
pytestmark = pytest.mark.transformers_independent

READERS = {
    lcb_runner_test_output.SCENARIO: lcb_runner_test_output,
    lcb_runner_code_execution.SCENARIO: lcb_runner_code_execution,
}
RESULTS = sorted(
    path
    for scenario in READERS
    for path in inputs.AUDIT.glob(f"lcb_runner/*/output/*/Scenario.{scenario}_*.json")
    if not path.stem.endswith("_eval")
)
# the fixture runs lcb_runner's own main() extracted (the others: OpenCompass's extractor)
LCB_RUNNERS_OWN = ("test-output", "code-execution", "code-execution-deepseek")


def _run_folder(path) -> str:
    return path.parents[2].relative_to(inputs.AUDIT).as_posix()


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: f"{_run_folder(p)}/{p.name}")
def test_each_scenario_results_file_is_read_by_its_format(path):
    """Every sample: the raw output, what lcb_runner graded (pred_list) and, in the
    _eval_all file, its verdict; the problem named as the audit names it."""
    fmt = registry.detect(path)
    scenario = lcb_runner_files.parse(path.name).scenario
    assert fmt is READERS[scenario]
    assert registry.scenario(fmt) == scenario
    rows = json.loads(path.read_text("utf-8"))
    samples = list(fmt.samples(path))
    assert [s.output for s in samples] == [o for row in rows for o in row["output_list"]]
    assert [s.scored for s in samples] == [p for row in rows for p in row["pred_list"]]
    assert [s.question_id for s in samples] == [
        fmt.problem_name(row) for row in rows for _ in row["output_list"]
    ]
    if path.stem.endswith("_eval_all"):
        assert [s.passed for s in samples] == [v for row in rows for v in row["graded_list"]]
    else:
        assert all(s.passed is None and s.unjudged for s in samples)


def test_code_executions_cot_is_what_the_file_name_records():
    folder = inputs.AUDIT / "lcb_runner" / "code-execution" / "output" / "GPT-4O-2024-08-06"
    assert lcb_runner_code_execution.cot(folder / "Scenario.codeexecution_3_0.2_cot.json")
    assert not lcb_runner_code_execution.cot(folder / "Scenario.codeexecution_3_0.2.json")


def test_code_generation_results_stay_lcb_runners_format():
    assert registry.detect(inputs.LCB_RUNNER_RUN) is lcb_runner
    assert registry.scenario(lcb_runner) == lcb_runner_files.CODE_GENERATION


def test_another_scenarios_file_is_refused_by_name(tmp_path):
    """A code execution file read as test output prediction's (--format) is named."""
    path = next(p for p in RESULTS if "codeexecution" in p.name)
    with pytest.raises(LogError, match="codeexecution results, not testoutputprediction"):
        list(lcb_runner_test_output.samples(path))


@pytest.mark.parametrize(
    "corrupt, says",
    [
        (lambda rows: rows[1].pop("pred_list"), "'pred_list' must be a list"),
        (lambda rows: rows[1]["pred_list"].pop(), "output_list and pred_list differ"),
        (lambda rows: rows[2]["graded_list"].pop(), "one verdict per output"),
        (lambda rows: rows.append(dict(rows[0])), "appears twice"),
        (lambda rows: rows[0]["pred_list"].__setitem__(0, 9), "prediction must be a string"),
    ],
)
def test_a_malformed_results_file_is_named(tmp_path, corrupt, says):
    source = next(p for p in RESULTS if p.name.endswith("_eval_all.json"))
    rows = json.loads(source.read_text("utf-8"))
    corrupt(rows)
    path = tmp_path / source.name
    path.write_text(json.dumps(rows), "utf-8")
    with pytest.raises(LogError, match=says):
        list(registry.detect(path).samples(path))


def test_every_scenario_fixture_run_has_a_golden():
    runs = regrade_family.scenario_runs()
    files = {(_run_folder(p), p.name.replace("_eval_all", "")) for p in RESULTS}
    assert {(run["run"], run["file"]) for run in runs.values()} == {
        pair for pair in files if not pair[1].endswith("_eval_all.json")
    }


def _recorded_and_golden(key):
    """What the run's _eval_all recorded per sample, (prediction, verdict), and what the
    golden (lcb_runner's extractor and scorer re-run by regen) gives, by (problem, index)."""
    run = regrade_family.scenario_runs()[key]
    folder = inputs.AUDIT / run["run"] / "output"
    (path,) = folder.glob("*/" + run["file"].replace(".json", "_eval_all.json"))
    golden = json.loads(goldens.read(key))
    recorded = {
        (s.question_id, s.index): (s.scored, s.passed) for s in registry.detect(path).samples(path)
    }
    regraded = {
        (problem, index): (prediction, golden["graded"][problem][index] == [True])
        for problem in golden["problems"]
        for index, prediction in enumerate(golden["predictions"][problem])
    }
    return run, recorded, regraded


@pytest.mark.parametrize(
    "key", regrade_family.scenario_keys(), ids=lambda key: f"{key.group}/{key.case}"
)
def test_the_golden_regrades_what_lcb_runners_own_runs_recorded(key):
    """On the runs lcb_runner's own main() made, its recorded predictions and verdicts equal
    the golden; on the runs made with OpenCompass's extractor, a verdict changes only where
    the prediction does."""
    run, recorded, regraded = _recorded_and_golden(key)
    assert list(recorded) == list(regraded)
    if run["run"].split("/")[1] in LCB_RUNNERS_OWN:
        assert recorded == regraded
    for sample, (prediction, verdict) in recorded.items():
        if prediction == regraded[sample][0]:
            assert verdict == regraded[sample][1], sample


def test_opencompass_code_execution_extraction_changes_verdicts():
    """OpenCompass's evaluator extracts a CoT answer without ``cot`` (so [ANSWER] is not looked
    for): the golden, lcb_runner's CoT extraction, grades some of those samples otherwise."""
    key = regrade_family.scenario_key_of("lcb_runner/code-execution-opencompass", cot=True)
    _, recorded, regraded = _recorded_and_golden(key)
    changed = [sample for sample in recorded if recorded[sample][1] != regraded[sample][1]]
    assert changed
    assert all(recorded[sample][0] != regraded[sample][0] for sample in changed)


# --- end to end: regrade with lcb_runner's own extractor and scorer --------------------------

ROWS = {
    name: scenario_cases.fixture_file(declared.inputs)
    for name, declared in scenarios.SCENARIOS.items()
    if declared.run_format
}


def _regrade(pytestconfig, upstream, run: dict, path, *argv) -> int:
    if upstream.checkout is None:
        pytest.skip("the installed stand-in scores differently (upstream/scenarios.py)")
    return cli.main(["regrade", str(path), "--dataset", str(ROWS[run["scenario"]]),
                     "--not-a-release", "--upstream", pytestconfig.getoption("--upstream"),
                     *argv])  # fmt: skip


@pytest.mark.upstream
@pytest.mark.parametrize(
    "key", regrade_family.scenario_keys(), ids=lambda key: f"{key.group}/{key.case}"
)
def test_each_scenario_run_regrades_to_lcb_runners_own_metrics(key, pytestconfig, upstream,
                                                              tmp_path):  # fmt: skip
    """regrade of the run's _eval_all: the golden's predictions, metrics and graded lists;
    0 where the run recorded what lcb_runner gives, else 1 with the samples named."""
    run, recorded, regraded = _recorded_and_golden(key)
    (path,) = (inputs.AUDIT / run["run"] / "output").glob(
        "*/" + run["file"].replace(".json", "_eval_all.json")
    )
    out = tmp_path / "report.json"
    code = _regrade(pytestconfig, upstream, run, path, "--json", str(out))
    report = json.loads(out.read_text("utf-8"))
    assert report["regrade"] == json.loads(goldens.read(key))
    changed = {(name, s["index"]) for name, found in report["changed"].items() for s in found}
    assert changed == {sample for sample in recorded if recorded[sample] != regraded[sample]}
    assert code == (exit_codes.DIFFERS if changed else exit_codes.OK) == report["exit_code"]


@pytest.mark.upstream
def test_a_run_without_verdicts_is_never_green(pytestconfig, upstream, tmp_path):
    key = regrade_family.scenario_key_of("lcb_runner/test-output", cot=False)
    run = regrade_family.scenario_runs()[key]
    (path,) = (inputs.AUDIT / run["run"] / "output").glob("*/" + run["file"])
    out = tmp_path / "report.json"
    code = _regrade(pytestconfig, upstream, run, path, "--json", str(out))
    report = json.loads(out.read_text("utf-8"))
    assert code == report["exit_code"] == exit_codes.INCOMPLETE
    assert report["harness"]["judged"] == 0 and report["harness"]["unjudged"]


@pytest.mark.upstream
def test_a_run_lcb_runner_raises_for_building_its_prompts_is_never_green(
    pytestconfig, upstream, tmp_path, capsys
):
    """lcb_runner's own test output prediction run under a model folder whose LMStyle
    (CodeQwenInstruct) lcb_runner 28fef95 builds no such prompt for: not a run it wrote, so 1
    and named, as audit and score fail it (run_formats.lcb_runner_files.lcb_runner_raises)."""
    key = regrade_family.scenario_key_of("lcb_runner/test-output", cot=False)
    run = regrade_family.scenario_runs()[key]
    (source,) = (inputs.AUDIT / run["run"] / "output").glob(
        "*/" + run["file"].replace(".json", "_eval_all.json")
    )
    path = tmp_path / "output" / "Qwen2.5-Ins-7B" / source.name
    path.parent.mkdir(parents=True)
    path.write_bytes(source.read_bytes())
    out = tmp_path / "report.json"
    code = _regrade(pytestconfig, upstream, run, path, "--json", str(out))
    text = capsys.readouterr().out
    report = json.loads(out.read_text("utf-8"))
    scenario = scenarios.SCENARIOS[run["scenario"]].lcb_runner
    raised = lcb_runner_files.lcb_runner_raises(scenario, False, "CodeQwenInstruct")
    assert raised and report["lcb_runner_raises"] == raised
    assert code == report["exit_code"] == exit_codes.DIFFERS
    assert f"NOT LCB_RUNNER'S RUN: {raised}" in text
    assert "DIFFERS: no run lcb_runner could have written" in text
