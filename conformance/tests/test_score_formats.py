"""`lcb-conformance score` on every format's log (issue 26 item 2): the evalscope and OpenCompass
fixture runs give their own verdicts aggregated both ways with the problem-set checks; lm-eval's
and lighteval's, recording no verdict per sample, give the checks and their metric and never a
green; a claim on another harness's run is held as on lcb_runner's files; problems named by
position go through the regrade's guard; lcb_runner's files still go to reports/score.py."""

from __future__ import annotations

import json

import pytest
import regrade_inputs as inputs
from false_greens import score_formats as made

from lcb_conformance import cli, releases
from lcb_conformance.common import exit_codes
from lcb_conformance.regrade import score_logs
from lcb_conformance.run_formats import registry

pytestmark = pytest.mark.selftest

# the fixture runs (evalscope's and lighteval's name problems by position: --dataset)
VERDICTS = {"evalscope": inputs.EVALSCOPE_RUN, "opencompass": inputs.OPENCOMPASS_RUN}
METRICS = {
    "lm-eval": (inputs.LM_EVAL_RUN, "extracted", 100.0),
    "lighteval": (inputs.LIGHTEVAL_RUN, "codegen_pass@1:16", 0.0),
}
FIXTURE_IDS = sorted(row["question_id"] for row in inputs.rows())


@pytest.fixture
def dataset(tmp_path):
    return inputs.write(tmp_path / "dataset", inputs.rows())


def run_score(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main(["score", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def score_report(tmp_path, capsys, *argv) -> tuple[int, dict]:
    """The command's exit code and its JSON report (--json FILE): the record the tests read."""
    target = tmp_path / "score-report.json"
    code, _, _ = run_score(capsys, *argv, "--json", target)
    return code, json.loads(target.read_text("utf-8"))


def _verdicts(run) -> list[bool]:
    """The harness's own verdicts in the log, every sample's."""
    return [sample.passed for sample in registry.detect(run).samples(run)]


@pytest.mark.parametrize("name", VERDICTS)
def test_a_logs_own_verdicts_are_scored_both_ways(name, dataset, tmp_path, capsys):
    run = VERDICTS[name]
    code, report = score_report(tmp_path, capsys, run, "--dataset", dataset)
    verdicts = _verdicts(run)
    # the fixture problems are in no release: the figures are computed, and are no LCB number
    assert code == exit_codes.DIFFERS == report["exit_code"]
    assert report["format"] == name
    assert report["lcb_runner"]["question_ids"] == FIXTURE_IDS
    own = 100 * verdicts.count(True) / len(verdicts)  # the same n on every problem
    assert report["lcb_runner"]["value"] == own == report["leaderboard"]["value"]
    assert report["problems"]["asked_for"] is None  # the nearest release, none in it
    nearest = report["problems"]["matches"][0]
    assert nearest["extra"] == FIXTURE_IDS and not nearest["equal"]
    assert len(report["failures"]) == 1  # in no release
    assert report["notes"][0] == score_logs.OWN_VERDICTS.format(name=name)


@pytest.mark.parametrize("name", METRICS)
def test_a_log_without_verdicts_gives_the_checks_and_no_figure(name, dataset, tmp_path, capsys):
    run, metric, mean = METRICS[name]
    code, report = score_report(tmp_path, capsys, run, "--dataset", dataset)
    assert code == exit_codes.INCOMPLETE == report["exit_code"]
    assert report["figures"] == [] and report["failures"] == [] and report["not_computed"]
    assert report["harness_metric"] == {"name": metric, "mean": mean, "problems": 4}
    assert report["problems"]["matches"][0]["extra"] == FIXTURE_IDS  # the checks still made
    # the samples' faults are the lint's, on a log without verdicts too (no flag says them)
    kinds = {finding["kind"] for finding in report["lint"]}
    assert {"cut_in_code_block", "no_code", "mixed_n", "errata"} <= kinds


def test_a_claim_on_another_harness_is_held_as_on_lcb_runners_files(tmp_path, capsys):
    ids = made._window_ids()
    made.opencompass_run(tmp_path, ids)
    run = made.PREDICTIONS.format(tmp=tmp_path)
    scope = ("--release", made.RELEASE, "--window", ":".join(made.WINDOW))
    value = made.expected_percent(ids)
    code, report = score_report(tmp_path, capsys, run, *scope, "--claim", f"{value:.2f}")
    assert code == exit_codes.DIFFERS  # one month is not release_v1: the release check holds
    assert "compute_scores" in report["claim"]["holds_with"]
    assert report["lcb_runner"]["count"] == len(ids) and not report["lcb_runner"]["missing"]
    code, report = score_report(
        tmp_path, capsys, run, "--window", ":".join(made.WINDOW), "--claim", "1%"
    )
    assert code == exit_codes.DIFFERS == report["exit_code"]
    assert report["claim"]["is"] == [] and not report["claim"]["consistent"]


def test_a_claim_on_a_whole_release_run_of_another_harness_holds(tmp_path, capsys):
    ids = [row["question_id"] for row in releases.members(made.RELEASE)]
    made.opencompass_run(tmp_path, ids)
    run = made.PREDICTIONS.format(tmp=tmp_path)
    value = f"{made.expected_percent(ids):.2f}"
    code, report = score_report(tmp_path, capsys, run, "--release", made.RELEASE, "--claim", value)
    assert code == exit_codes.OK == report["exit_code"], report["failures"]
    assert report["claim"]["consistent"] and report["claim"]["claimed"] == value


def test_a_claim_on_a_run_missing_problems_holds_only_with_allow_missing(tmp_path, capsys):
    ids = made._window_ids()
    kept = ids[:2] + ids[3:]
    made.opencompass_run(tmp_path, kept)
    run = made.PREDICTIONS.format(tmp=tmp_path)
    claim = ("--release", made.RELEASE, "--window", ":".join(made.WINDOW), "--claim")
    value = f"{made.expected_percent(kept):.2f}"
    code, report = score_report(tmp_path, capsys, run, *claim, value)
    assert code == exit_codes.DIFFERS == report["exit_code"]
    assert report["claim"]["holds_with"] == [] and not report["claim"]["consistent"]
    (compute_scores,) = [f for f in report["figures"] if f["name"] == "compute_scores"]
    assert compute_scores["missing"] == [ids[2]]


def test_positions_need_the_dataset_and_its_order(dataset, tmp_path, capsys):
    # tests the console's contract: an input error is one line saying what to pass
    code, _, err = run_score(capsys, inputs.LIGHTEVAL_RUN)
    assert code == exit_codes.UNUSABLE and "pass --dataset PATH" in err
    reordered = inputs.write(tmp_path / "reordered", inputs.rows()[::-1])
    code, _, err = run_score(capsys, inputs.EVALSCOPE_RUN, "--dataset", reordered)
    assert code == exit_codes.UNUSABLE and "the prompt sent is not its statement" in err


def test_lcb_runners_files_are_read_as_before(tmp_path, capsys, dataset):
    code, report = score_report(tmp_path, capsys, inputs.LCB_RUNNER_RUN, "--format", "lcb_runner")
    assert code == exit_codes.DIFFERS == report["exit_code"]
    assert "format" not in report and report["notes"] == []  # reports/score.py's, no own verdicts
    assert report["problems"]["matches"][0]["extra"] == FIXTURE_IDS  # in no release
    with pytest.raises(SystemExit) as stopped:
        run_score(capsys, inputs.LCB_RUNNER_RUN, "--dataset", dataset)
    assert stopped.value.code == exit_codes.UNUSABLE


def test_the_page_of_a_log_without_verdicts(dataset, tmp_path, capsys):
    page = tmp_path / "score.html"
    run_score(capsys, inputs.LM_EVAL_RUN, "--html", page)
    text = page.read_text("utf-8")
    assert 'class="headline fail"' in text and "NOT COMPUTED" in text
