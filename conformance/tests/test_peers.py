"""The peer adapters' machinery (peers/) and the peers report (lcb_conformance_dev.peers).

The adapters of evalscope, lighteval and OpenCompass need their peer installed: their tox envs
(peer-*) run them. Here: the one adapter whose peer is the upstream package itself, and the
report rendered from a run (the source loader they rely on: test_harness_source.py)."""

from __future__ import annotations

import importlib.metadata
import json

import pytest

from lcb_conformance.adapters import implementation
from lcb_conformance.common import paths
from lcb_conformance.reports import judge as judge_report
from lcb_conformance.suite import cases
from lcb_conformance.upstream import judge
from lcb_conformance_dev import peers as peers_report
from lcb_conformance_dev import peers_page, peers_predictions


@pytest.fixture
def peers(monkeypatch):
    """The peers package (a top-level folder of the repository, not installed)."""
    monkeypatch.syspath_prepend(str(paths.ROOT))
    import peers

    return peers


@pytest.mark.upstream
def test_nvidia_adapter_is_upstreams_generic_oai_server(peers):
    """peers.nvidia_generic_oai calls the installed package: one user message, the generic
    template .rstrip()-ed; extraction takes the first ```python block."""
    from livecodebench.lm_styles import LMStyle
    from livecodebench.utils.extraction_utils import extract_code

    adapter = implementation.load("peers.nvidia_generic_oai")
    assert adapter.styles == ("generic",)
    assert adapter.not_provided_styles() == tuple(
        style for style in cases.EXTRACTION_LMSTYLES if style != "generic"
    )
    row = cases.problems()["atc_stamp_card_rally"]
    from peers import nvidia_generic_oai

    (message,) = nvidia_generic_oai.messages(row)
    assert message["role"] == "user"
    assert adapter.format_lcb_prompt(row) == message["content"]
    assert message["content"].startswith("### Question:\n")
    assert message["content"].endswith("### Answer: (use the provided format with backticks)")
    output = cases.outputs()["two_blocks_last_wins"].output
    extracted = adapter.extract_code(output)
    assert extracted == extract_code(output, LMStyle.GenericOAIServer)
    assert extracted == "n = int(input())\nprint(sum(range(n + 1)))"  # the first block


def _run(actual: str, golden: str) -> dict:
    """A stored peer run (lcb-conformance --json plus the peer description), reduced to what
    the report reads."""
    case = f"prompt/generic/{next(iter(cases.problems()))}"
    return {
        "peer": {
            "module": "peers.opencompass_lcb",
            "peer": "OpenCompass",
            "version": "0.5.4",
            "follows": "generic: one HUMAN round",
        },
        "headline": "peers.opencompass_lcb: NOT identical to lcb_runner",
        "tiers": {
            "upstream": {"identical": False, "identical_cases": 0, "run": 1},
            "declared_deviations": {"deviations": [], "identical": False, "passed": 0, "run": 1},
            "api_contract": {"passed": 1, "run": 2},
        },
        "impl": {"not_provided": ["decode_context"], "styles_not_provided": ["codeqwen"]},
        "totals": {"not-provided": 3},
        "cells": [
            {"style": "generic", "tokenizer": "no template", "checks": ["prompt"], "cases": 1,
             "run": 1, "ok": 0, "not_ok": 1, "not_provided": 0, "status": "fail",
             "first_failure": case},
            {"style": "codeqwen", "tokenizer": "-", "checks": ["prompt"], "cases": 3,
             "run": 0, "ok": 0, "not_ok": 0, "not_provided": 3, "status": "not provided",
             "first_failure": None},
        ],
        "contract": [
            {"style": "API contract", "tokenizer": "bad-input", "checks": ["bad-input"],
             "cases": 2, "run": 2, "ok": 1, "not_ok": 1, "not_provided": 0, "status": "fail",
             "first_failure": "contract/bad-input/row[list]"},
        ],
        "failures": [
            {"case": case, "tier": "upstream", "status": "differs", "reason": "content",
             "golden": golden, "actual": actual, "declared_deviation": None, "report": "…"},
        ],
    }  # fmt: skip


def _pages(runs: list[dict]) -> str:
    """Both pages render writes: the summary and the matrix beside it."""
    return peers_page.render(runs) + peers_page.render_matrix(runs)


def test_render_writes_the_summary_and_the_matrix_it_links_to(tmp_path, capsys):
    golden = peers_predictions.system_message() + "\n\n### Question:\nQ\n\n### Answer: x\n\n"
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "opencompass_lcb.json").write_text(json.dumps(_run("x", golden)), "utf-8")
    output = tmp_path / "pages" / "peers.md"
    output.parent.mkdir()
    assert peers_report.main(["render", "--out-dir", str(runs), "--output", str(output)]) == 0
    summary, matrix = output.read_text("utf-8"), (output.parent / "peers-matrix.md").read_text()
    assert "](peers-matrix.md)" in summary and "## OpenCompass 0.5.4" not in summary
    assert "## OpenCompass 0.5.4 — `peers.opencompass_lcb`" in matrix
    assert "| generic | no template | prompt | 1 | 0 | 1 |" in matrix


def test_peers_report_shows_cells_first_failure_and_predictions():
    golden = peers_predictions.system_message() + "\n\n### Question:\nQ\n\n### Answer: x\n\n"
    actual = "### Question:\nQ\n\n### Answer: x\n\n"
    page = _pages([_run(actual, golden)])
    assert (
        "| OpenCompass | 0.5.4 | `peers.opencompass_lcb` | 1 | 0 | 1 | 3 | NOT identical | - | "
        "not provided |" in page
    )
    missing = [name for name in peers_page.PEERS if name != "opencompass_lcb"]
    assert f"No run stored for: {', '.join(missing)}." in page
    assert "| generic | no template | prompt | 1 | 0 | 1 |" in page
    assert "the styles codeqwen and the functions decode_context" in page
    assert "1 passed, 1 failed in bad-input (1)" in page
    assert "1. identical to lcb_runner (its own goldens): no, 0 of 1 cases run" in page
    assert "3. API contract (apart): 1 of 2 passed" in page
    # the first failing case, as showdiff shows it
    assert "first difference at offset 0" in page
    assert "golden: You are an expert Python programmer. You…" in page
    # the survey's predictions, checked against the run
    assert (
        "| defines the generic system message but never sends it; one HUMAN round "
        "(configs/datasets/livecodebench/livecodebench_gen_a4f90b.py:24, :35-38) | yes | "
        "1/1 failing prompt/generic/* cases have no lcb_runner system message |" in page
    )
    assert (
        "| default extractor v1 = FIRST block; v2 = last (datasets/livecodebench/evaluator.py:"
        "267, extract_utils.py:19) | **no** |" in page
    )


def _judge_run(**actual_verdicts) -> dict:
    """A stored run whose judge tests all ran, failing on the cases given (their verdicts)."""
    from lcb_conformance.suite import goldens

    run = _run("x", "y")
    total = len(judge.judge_cases())
    run["cells"].append(
        {"style": "judge", "tokenizer": "-", "checks": ["judge"], "cases": total, "run": total,
         "ok": total - len(actual_verdicts), "not_ok": len(actual_verdicts),
         "not_provided": 0, "status": "fail", "first_failure": None}
    )  # fmt: skip
    for case, verdict in actual_verdicts.items():
        actual = None if verdict is None else goldens.canonical_json(verdict)
        run["failures"].append(
            {"case": f"judge/{case}", "tier": "upstream",
             "status": "error" if verdict is None else "differs", "actual": actual,
             "reason": "RuntimeError: the adapter broke" if verdict is None else "content",
             "declared_deviation": None, "report": "…"}
        )  # fmt: skip
    return run


def test_peers_report_shows_judge_differences_and_their_direction():
    """The judge column counts the score-changing differences by direction; the peer's
    section lists each case."""
    total = len(judge.judge_cases())
    error = {"error": "AttributeError()", "error_code": -4}
    run = _judge_run(
        sum_stdin_buffer_read={"metadata": error, "passed": False, "results": [-4]},
        count_lines_iterate_stdin={"metadata": {}, "passed": True, "results": [True]},
        sum_quit={"metadata": {}, "passed": False, "results": [-2]},
    )
    page = _pages([run])
    assert f"| NOT identical | - | 1 false pass, 1 false fail (of {total} pairs) |" in page
    assert "| sum_stdin_buffer_read | stdin-reader | false fail | pass [True, True, True] |" in page
    iterate = "| count_lines_iterate_stdin | stdin-reader | false pass | fail [-4] -4 TypeError("
    assert iterate in page
    assert "| sum_quit | exit | detail |" in page
    only_detail = _judge_run(sum_quit={"metadata": {}, "passed": False, "results": [-2]})
    assert f"| same pass verdict on all {total} pairs |" in _pages([only_detail])


def test_judge_directions_come_from_the_suites_own_verdicts():
    """The page reads the judge verdicts the run recorded (no second judge run that could
    disagree with the judge cell): cases not identical give their verdict or their error,
    identical ones the golden."""
    wrong = {"metadata": {}, "passed": False, "results": [-2]}
    run = _judge_run(sum_input_correct=wrong, sum_quit=None)
    found = {
        entry["case"]: (entry["difference"], entry["implementation"])
        for entry in peers_predictions.judge_differences(run)
    }
    assert found == {
        "sum_input_correct": (judge_report.FALSE_FAIL, wrong),
        "sum_quit": (judge_report.NO_VERDICT, "RuntimeError: the adapter broke"),
    }
    run["cells"][-1]["run"] -= 1  # the run broke off: no directions at all
    assert peers_predictions.judge_differences(run) is None


def test_every_prediction_names_a_known_check():
    """peers/predictions.toml is data: each entry's check exists, and each peer has one."""
    predictions = peers_predictions.predictions()
    assert set(predictions) == set(peers_page.PEERS)
    for peer_predictions in predictions.values():
        for prediction in peer_predictions:
            check = getattr(prediction.check, "func", prediction.check)  # a partial: its cases
            assert prediction.claim and check in peers_predictions.CHECKS.values()


def test_a_prediction_with_an_unknown_check_is_named(tmp_path, monkeypatch):
    bad = tmp_path / "predictions.toml"
    bad.write_text('[[evalscope_lcb]]\nclaim = "x"\ncheck = "no_such_check"\n', "utf-8")
    monkeypatch.setattr(peers_predictions, "PREDICTIONS_FILE", bad)
    peers_predictions.predictions.cache_clear()
    try:
        with pytest.raises(peers_predictions.PredictionsError, match=r"\[\[evalscope_lcb\]\] #1: "):
            peers_predictions.predictions()
    finally:
        peers_predictions.predictions.cache_clear()


def test_cases_go_only_with_the_checks_that_take_them(tmp_path, monkeypatch):
    bad = tmp_path / "predictions.toml"
    monkeypatch.setattr(peers_predictions, "PREDICTIONS_FILE", bad)
    entries = {
        "a check that takes cases, without them": 'check = "judge_false_fail"\n',
        "cases for a check that takes none": 'check = "first_block"\ncases = ["x"]\n',
    }
    for entry in entries.values():
        bad.write_text(f'[[verl_prime_code]]\nclaim = "x"\n{entry}', "utf-8")
        peers_predictions.predictions.cache_clear()
        try:
            with pytest.raises(peers_predictions.PredictionsError, match="`cases` goes with"):
                peers_predictions.predictions()
        finally:
            peers_predictions.predictions.cache_clear()


def test_a_judge_prediction_names_its_cases_and_their_direction():
    """judge_false_fail and its kin read the run's own judge verdicts, case by case."""
    wrong = {"metadata": {}, "passed": False, "results": [-2]}
    run = _judge_run(sum_input_correct=wrong, sum_quit=None)
    observed, evidence = peers_predictions.judge_false_fail(run, ("sum_input_correct",))
    assert observed and evidence == "false fail on 1/1 of sum_input_correct (1 false fail in all)"
    observed, _ = peers_predictions.judge_false_fail(run, ("sum_input_correct", "sum_quit"))
    assert not observed
    assert peers_predictions.judge_no_verdict(run, ("sum_quit",))[0]
    assert not peers_predictions.judge_false_pass(run, ("sum_input_correct",))[0]


def test_a_judge_that_did_not_run_over_impl_cmd_is_not_called_not_provided():
    """A peer served over --impl-cmd whose adapter has a judge_program that the route did not
    run says so; an adapter without one is "not provided"."""
    run = _run("x", "y")
    run["peer"] |= {"route": "--impl-cmd, Python 3.10.13", "has_judge": True}
    assert peers_page.judge_summary(run) == "did not run over --impl-cmd"
    page = _pages([run])
    assert "| `peers.opencompass_lcb` (over --impl-cmd, Python 3.10.13) |" in page
    assert "Its adapter's `judge_program` did not run over --impl-cmd: no judge verdicts" in page
    assert peers_predictions.judge_false_fail(run, ("sum_quit",)) == (
        False,
        "the judge did not run in full (did not run over --impl-cmd)",
    )
    run["peer"]["has_judge"] = False
    assert peers_page.judge_summary(run) == "not provided"


def test_a_peer_served_from_another_python_is_described_by_that_python(tmp_path, monkeypatch):
    """--python: the version is asked of the interpreter that has the peer installed, and the
    adapter is served from it by the generic server, this checkout on its path."""
    import sys

    from lcb_conformance.adapters import jsonl_server

    (tmp_path / "served_peer.py").write_text(
        'PEER = "pytest as a peer"\nDISTRIBUTION = "pytest"\n', "utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    described = peers_report.describe("served_peer", sys.executable)
    assert described["route"].startswith("--impl-cmd, Python 3.")
    assert described["version"] == importlib.metadata.version("pytest")
    assert not described["has_judge"]
    command = peers_report.impl_cmd("peers.skythought_lcb", "/envs/h310/bin/python")
    assert command == (
        f"/envs/h310/bin/python {jsonl_server.PATH} peers.skythought_lcb "
        f"--path {paths.ROOT} --path {paths.ROOT / 'conformance'}"
    )


def test_peers_report_names_the_closest_official_style():
    """The run's closest_official entries (reports.closest): a summary in the table, the
    sentences with the first difference in the peer's section."""
    golden = peers_predictions.system_message() + "\n\n### Question:\nQ\n\n### Answer: x\n\n"
    run = _run("### Question:\nQ\n\n### Answer: x\n\n", golden)
    run["closest_official"] = [
        {
            "summary": "generic prompts closest to Claude3 (0/39 equal)",
            "sentence": "generic prompts: closest to Claude3 (equal on 0 of 39); first "
            "difference, q1: output differs at offset 0",
        }
    ]
    page = _pages([run])
    assert "| NOT identical | generic prompts closest to Claude3 (0/39 equal) |" in page
    assert "- generic prompts: closest to Claude3 (equal on 0 of 39); first difference, q1:" in page


def test_the_requests_table_reads_lcb_runner_from_the_request_goldens():
    report = {
        "peer": {"module": "peers.opencompass_lcb", "peer": "OpenCompass", "version": "0.5.4"}
    }
    lines = peers_page.request_lines([report])
    assert (
        "| lcb_runner 28fef95 (OpenAIChat, LLaMa3) | release_latest (1,055; --release_version) | "
        "10 | 0.2 | 0.95 | 2000 | none (API runners); ['###'] (vLLM) |" in "\n".join(lines)
    )
    assert any(
        line.startswith("| OpenCompass 0.5.4 | release_v1 (400) | 1 | 0.7") for line in lines
    )


def test_the_score_table_lists_the_functions_a_peer_provides():
    report = {
        "peer": {"peer": "OpenCompass"},
        "cells": [
            {"style": "pass_at_k", "tokenizer": "-", "run": 7, "ok": 6, "not_ok": 1},
            {"style": "score_run", "tokenizer": "-", "run": 0, "ok": 0, "not_ok": 0},
        ],
        "failures": [{"case": "score-pass-k/no_tasks"}],
    }
    lines = peers_page.score_lines([report])
    assert "| OpenCompass | `pass_at_k` | 7 | 6 | 1 | `score-pass-k/no_tasks` |" in lines
    assert not any(line.startswith("| OpenCompass | `score_run`") for line in lines)


def test_a_missing_interpreter_is_named_with_where_it_was_looked_for(tmp_path, capsys):
    # tests the console's contract: an input error is one line naming where it looked
    """peer-skythought's first step: no such Python is exit 2 and one line saying where."""
    from lcb_conformance.adapters import interpreters

    assert interpreters.main(["venv", "3.99", str(tmp_path / "harness")]) == 2
    assert "no Python 3.99 here (python3.99 on PATH, or " in capsys.readouterr().err
    assert not (tmp_path / "harness").exists()


def test_a_prompt_without_the_starter_code_is_named_and_blank_starter_code_is_not_counted():
    problems = cases.problems()
    starters = sorted(n for n, row in problems.items() if (row["starter_code"] or "").strip())
    blank = next(
        n for n, row in problems.items() if row["starter_code"] and not row["starter_code"].strip()
    )
    run = _run("x", "y")
    run["failures"] = [
        {"case": f"prompt/generic/{name}", "actual": "a prompt without it", "golden": "g"}
        for name in (starters[0], blank)
    ]
    assert peers_predictions.no_starter_code(run) == (
        True,
        "1/1 failing prompt/generic/* cases of problems with starter code lack it",
    )
    run["failures"][0]["actual"] += problems[starters[0]]["starter_code"]
    assert not peers_predictions.no_starter_code(run)[0]
