"""lcb-conformance audit over other harnesses' logs: OpenCompass's predictions and results
(written by OpenCompass 0.5.4's own writers, fixtures/audit/generate_opencompass.py) and
lm-evaluation-harness's samples (lm-eval 0.4.13's simple_evaluate end to end against the
loopback stub server, fixtures/audit/generate_lm_eval.py) and lighteval's details (lighteval
0.13.0's Pipeline end to end against the stub, fixtures/audit/generate_lighteval.py):
conformant runs audit clean, the non-conformant ones are caught with the sample and the
mistake named; bad input is a clear exit 2."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lcb_conformance import cli
from lcb_conformance.common import report_files
from lcb_conformance.run_audit import audit as run_audit
from lcb_conformance.run_audit import request_logs
from lcb_conformance.run_formats import opencompass as opencompass_format
from lcb_conformance.run_formats import registry
from lcb_conformance.suite import cases

AUDIT = cases.FIXTURES_DIR / "audit"
OPENCOMPASS_DATASET = AUDIT / "opencompass" / "dataset.jsonl"
PREDICTIONS = "predictions/stub-model/lcb_code_generation.json"
FIRST = "atc_grid_robot_detour"  # the first problem of every fixture run


def opencompass(run: str):
    return AUDIT / "opencompass" / run / PREDICTIONS


def audit_opencompass(path, upstream, results="found", dataset=None):
    """The audit of an OpenCompass predictions file against lcb_runner's OpenAIChat messages
    (results: the results file found beside it, or the one given; None for none)."""
    if results == "found":
        results = opencompass_format.opencompass_results(path)
    return run_audit.audit_log(
        path,
        run_audit.OPENCOMPASS,
        opencompass_format.read(path, results),
        upstream,
        "OpenAIChat",
        run_audit.read_dataset(dataset or OPENCOMPASS_DATASET),
    )


def lm_eval(run: str):
    return AUDIT / "lm_eval" / run / "samples_lcb_audit.jsonl"


def lighteval(run: str):
    return AUDIT / "lighteval" / run / "details_lcb:codegeneration|0.parquet"


LIGHTEVAL_DATASET = AUDIT / "lighteval" / "dataset.jsonl"  # the rows the run read, in order


# the fixture runs' problems are the project's own, in no release: audited as such
OWN_PROBLEMS = "--not-a-release"


def audit_cli(pytestconfig, capsys, *args: str) -> tuple[int, str]:
    upstream = pytestconfig.getoption("--upstream")
    code = run_audit.main([*args, OWN_PROBLEMS, "--upstream", upstream])
    out, err = capsys.readouterr()
    assert not err or err.strip() not in out  # a refusal is said on stderr only
    return code, err


def audit_report(pytestconfig, tmp_path, *args: str) -> tuple[int, dict]:
    """The command's exit code and its JSON report (--json FILE): the record the tests read."""
    target = tmp_path / "audit-report.json"
    upstream = pytestconfig.getoption("--upstream")
    code = run_audit.main([*args, OWN_PROBLEMS, "--json", str(target), "--upstream", upstream])
    return code, json.loads(target.read_text("utf-8"))


def assert_clean(code: int, report: dict, samples: int) -> None:
    """Exit 0 on every sample identical, the prompt and the extraction both checked."""
    assert code == report["exit_code"] == run_audit.EXIT_OK
    assert report["summary"] == {run_audit.IDENTICAL: samples}
    assert report["prompt_not_checked"] == report["extraction_not_checked"] == {}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (opencompass("as-shipped"), run_audit.OPENCOMPASS),
        (lm_eval("conformant"), request_logs.LM_EVAL),
    ],
)
def test_each_format_is_detected(path, expected):
    assert registry.detect(path).NAME == expected


def test_opencompass_finds_its_results_file_in_its_own_layout():
    results = opencompass_format.opencompass_results(opencompass("as-shipped"))
    assert results == AUDIT / "opencompass/as-shipped/results/stub-model/lcb_code_generation.json"


@pytest.mark.upstream
def test_a_conformant_opencompass_run_audits_clean(pytestconfig, tmp_path):
    code, report = audit_report(
        pytestconfig,
        tmp_path,
        str(opencompass("conformant")),
        "--dataset",
        str(OPENCOMPASS_DATASET),
        "--style",
        "OpenAIChat",
    )
    assert_clean(code, report, 12)


@pytest.mark.upstream
def test_opencompass_as_shipped_is_caught_no_system_message_and_first_block(upstream):
    """livecodebench_gen sends no system message and its evaluator's default extractor keeps
    the first block: every prompt differs, and the multi-block answers' extraction too."""
    path = opencompass("as-shipped")
    audit = audit_opencompass(path, upstream)
    assert {s.prompt for s in audit.samples} == {run_audit.DIFFERS}
    assert all(s.why.startswith("system message missing") for s in audit.samples if s.index == 1)
    # samples 0 and 2 are the answers with several blocks (first != last)
    assert {(s.index, s.verdict) for s in audit.samples} == {
        (0, f"{run_audit.PROMPT_DIFFERS} and {run_audit.EXTRACTION_DIFFERS}"),
        (1, run_audit.PROMPT_DIFFERS),
        (2, f"{run_audit.PROMPT_DIFFERS} and {run_audit.EXTRACTION_DIFFERS}"),
    }
    assert f"{FIRST} sample 0 prompt (system message missing" in audit.reports[0]
    assert audit.exit_code() == run_audit.EXIT_DIFFERS


@pytest.mark.upstream
def test_opencompass_without_its_results_file_checks_the_prompt_only(upstream, tmp_path):
    path = tmp_path / "lcb_code_generation.json"
    shutil.copy(opencompass("conformant"), path)
    assert opencompass_format.opencompass_results(path) is None
    audit = audit_opencompass(path, upstream, results=None)
    assert {s.extraction for s in audit.samples} == {run_audit.CANNOT}
    assert audit.counts() == {run_audit.IDENTICAL: 12}  # the prompt was checked
    assert list(audit.extraction_unchecked.values()) == [12]
    assert "extraction not checked for 12 samples" in run_audit.render(audit)


@pytest.mark.upstream
def test_a_conformant_lm_eval_run_audits_clean(pytestconfig, tmp_path):
    code, report = audit_report(
        pytestconfig, tmp_path, str(lm_eval("conformant")), "--style", "OpenAIChat"
    )
    assert_clean(code, report, 12)


@pytest.mark.upstream
def test_lm_eval_first_block_filter_is_caught_and_each_sample_named(pytestconfig, tmp_path):
    code, report = audit_report(
        pytestconfig, tmp_path, str(lm_eval("first-block")), "--style", "OpenAIChat"
    )
    assert code == report["exit_code"] == run_audit.EXIT_DIFFERS
    assert report["summary"] == {run_audit.EXTRACTION_DIFFERS: 8, run_audit.IDENTICAL: 4}
    first = report["samples"][0]
    assert (first["question_id"], first["sample"]) == (FIRST, 0)
    assert first["why"].startswith("scored other code than lcb_runner extracts")
    verdicts = {(s["sample"], s["verdict"]) for s in report["samples"]}
    assert verdicts == {
        (0, run_audit.EXTRACTION_DIFFERS),
        (1, run_audit.EXTRACTION_DIFFERS),
        (2, run_audit.IDENTICAL),  # one block only: first and last agree
    }


@pytest.mark.upstream
def test_lm_eval_without_a_system_instruction_is_caught_as_system_message_missing(
    pytestconfig, tmp_path
):
    code, report = audit_report(
        pytestconfig, tmp_path, str(lm_eval("no-system")), "--style", "OpenAIChat"
    )
    assert code == report["exit_code"] == run_audit.EXIT_DIFFERS
    assert {s["prompt"] for s in report["samples"]} == {run_audit.DIFFERS}
    assert len(report["samples"]) == 12  # 12 of 12 differ
    first = report["samples"][0]
    assert (first["question_id"], first["sample"]) == (FIRST, 0)
    assert first["why"].startswith("system message missing")
    assert f"{FIRST} sample 0 prompt (system message missing): differs" in (
        report["first_differences"][0]
    )


@pytest.mark.upstream
def test_lighteval_as_shipped_is_caught_no_system_message_and_its_own_user_message(
    pytestconfig, tmp_path
):
    assert registry.detect(lighteval("as-shipped")).NAME == run_audit.LIGHTEVAL
    code, report = audit_report(
        pytestconfig,
        tmp_path,
        str(lighteval("as-shipped")),
        "--dataset",
        str(LIGHTEVAL_DATASET),
        "--style",
        "OpenAIChat",
    )
    assert code == report["exit_code"] == run_audit.EXIT_DIFFERS
    assert any(
        f"{FIRST} sample 0 prompt (system message missing; user message differs at offset 0"
        in shown
        for shown in report["first_differences"]
    )
    rows = LIGHTEVAL_DATASET.read_text("utf-8").splitlines()
    problems = [json.loads(line)["question_id"] for line in rows]
    samples = report["samples"]
    assert len(samples) == 4  # 4 of 4 differ
    verdicts = {
        (s["question_id"], s["sample"]): (s["verdict"], s["prompt"], s["extraction"])
        for s in samples
    }
    # one output per problem (the task's num_samples); lighteval records no extracted code
    assert verdicts == {
        (qid, 0): (run_audit.PROMPT_DIFFERS, run_audit.DIFFERS, run_audit.CANNOT)
        for qid in problems
    }
    assert all("system message missing; user message differs" in s["why"] for s in samples)


@pytest.mark.upstream
def test_a_problem_absent_from_the_dataset_is_cannot_check_naming_it(upstream, tmp_path):
    dataset = tmp_path / "rows.jsonl"
    rows = OPENCOMPASS_DATASET.read_text("utf-8").splitlines(keepends=True)
    dataset.write_text("".join(rows[1:]), "utf-8")
    path = opencompass("conformant")
    audit = audit_opencompass(path, upstream, dataset=dataset)
    assert audit.prompt_unchecked == {f"problem {FIRST} is not in the dataset": 3}
    assert audit.counts() == {run_audit.IDENTICAL: 12}  # the extraction checked all 12


def opencompass_damaged(tmp_path, change, results_change=None):
    """The conformant run's folder copied, its predictions (and results) changed."""
    shutil.copytree(AUDIT / "opencompass" / "conformant", tmp_path / "run")
    path = tmp_path / "run" / PREDICTIONS
    data = json.loads(path.read_text("utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=4), "utf-8")
    if results_change:
        results = opencompass_format.opencompass_results(path)
        written = json.loads(results.read_text("utf-8"))
        results_change(written)
        results.write_text(json.dumps(written, indent=4), "utf-8")
    return str(path)


def lm_eval_damaged(tmp_path, change):
    lines = [json.loads(line) for line in lm_eval("conformant").read_text("utf-8").splitlines()]
    change(lines)
    path = tmp_path / "samples_lcb_audit.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    return str(path)


def no_action(_):
    return None


@pytest.mark.upstream
@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (
            lambda tmp: opencompass_damaged(tmp, lambda d: d["4"].pop("gold")),
            r"lcb_code_generation.json:\d+: prediction 4 lacks 'gold'",
        ),
        (
            lambda tmp: opencompass_damaged(tmp, lambda d: d["5"].update(prediction=None)),
            r"prediction 5: prediction must be a string, not NoneType",
        ),
        (
            lambda tmp: opencompass_damaged(
                tmp, no_action, lambda r: r["details"][2]["extracted_prediction"].pop()
            ),
            r"lc_lantern_row_brightness sample 2 has no extracted_prediction in .*results",
        ),
        (
            lambda tmp: opencompass_damaged(tmp, no_action, lambda r: r.pop("details")),
            r"results/stub-model/lcb_code_generation.json: no 'details' list .*dump_details",
        ),
        (
            lambda tmp: lm_eval_damaged(tmp, lambda lines: lines[2].pop("resps")),
            r"samples_lcb_audit.jsonl:3: doc 2 lacks 'resps'",
        ),
        (
            lambda tmp: lm_eval_damaged(
                tmp, lambda lines: lines[1]["filtered_resps"][0].extend(["x", "y"])
            ),
            r"samples_lcb_audit.jsonl:2: doc 1: filtered_resps\[0\] must hold at most one",
        ),
        (
            lambda tmp: lm_eval_damaged(
                tmp, lambda lines: lines[0]["arguments"]["gen_args_0"].update(arg_0=7)
            ),
            r"samples_lcb_audit.jsonl:1: doc 0: arguments.gen_args_0.arg_0 is not a prompt",
        ),
    ],
    ids=[
        "opencompass no gold",
        "opencompass null prediction",
        "opencompass results short",
        "opencompass no details",
        "lm-eval no resps",
        "lm-eval extra filtered",
        "lm-eval prompt not a string",
    ],
)
def test_bad_logs_are_exit_2_naming_file_line_and_sample(
    pytestconfig, capsys, tmp_path, damage, message
):
    # tests the console's contract: an input error is one line naming file, line and sample
    path = damage(tmp_path)
    code, printed = audit_cli(
        pytestconfig, capsys, path, "--dataset", str(OPENCOMPASS_DATASET), "--style", "OpenAIChat"
    )
    assert code == run_audit.EXIT_INPUT
    assert re.search(message, printed), printed
    assert "Traceback" not in printed and "identical to lcb_runner" not in printed


@pytest.mark.upstream  # the file is streamed: its end is read after upstream loads
@pytest.mark.parametrize("source", [opencompass("conformant"), lm_eval("conformant")])
def test_a_truncated_log_is_exit_2_naming_file_and_line(tmp_path, capsys, source):
    # tests the console's contract: an input error is one line naming file and line
    path = tmp_path / source.name
    text = source.read_text("utf-8")
    path.write_text(text[: len(text) * 2 // 3], "utf-8")
    code = run_audit.main(
        [str(path), "--dataset", str(OPENCOMPASS_DATASET), "--style", "OpenAIChat"]
    )
    assert code == run_audit.EXIT_INPUT
    printed = capsys.readouterr().err
    assert re.search(rf"{re.escape(str(path))}:\d+: (not valid JSON|.*ends early)", printed), (
        printed
    )


def test_opencompass_needs_the_dataset_for_the_statements(capsys):
    # tests the console's contract: an input error is one line saying what to pass
    assert run_audit.main([str(opencompass("conformant")), "--style", "OpenAIChat"]) == 2
    assert "name the problem (gold) but not its statement: pass --dataset" in (
        capsys.readouterr().err
    )


# lighteval: files with the columns lighteval 0.13.0's Detail gives its details (datasets'
# to_parquet of asdict(Detail)), for what the authentic run above does not hold: several
# outputs per row, string prompts, damaged files.


def lighteval_details(tmp_path, rows) -> str:
    import pyarrow
    import pyarrow.parquet as parquet

    path = tmp_path / "details_lcb:codegeneration|0_2026-01-01T00-00-00.parquet"
    parquet.write_table(pyarrow.Table.from_pylist(rows), path)
    return str(path)


def lighteval_row(position: int, sent, texts) -> dict:
    return {
        "doc": {"id": str(position), "query": "q", "specific": {"inputs": ["1"]}},
        "metric": {"codegen_pass@1:16": 0.0},
        "model_response": {"input": sent, "text": texts},
    }


@pytest.mark.upstream
def test_lighteval_details_are_read_by_position_prompt_checked_extraction_not(
    pytestconfig, tmp_path
):
    import lcb_prompts

    rows = [json.loads(line) for line in OPENCOMPASS_DATASET.read_text("utf-8").splitlines()]
    sent = [lcb_prompts.format_lcb_messages(row, style="generic") for row in rows]
    sent[1] = sent[1][1:]  # the second problem sent without the system message
    path = lighteval_details(
        tmp_path, [lighteval_row(i, messages, ["a", "b"]) for i, messages in enumerate(sent)]
    )
    assert registry.detect(tmp_path / path).NAME == run_audit.LIGHTEVAL
    code, report = audit_report(
        pytestconfig, tmp_path, path, "--dataset", str(OPENCOMPASS_DATASET), "--style", "OpenAIChat"
    )
    assert code == report["exit_code"] == run_audit.EXIT_DIFFERS
    differing = [
        (s["question_id"], s["sample"])
        for s in report["samples"]
        if s["prompt"] == run_audit.DIFFERS
    ]
    assert differing == [(rows[1]["question_id"], 0), (rows[1]["question_id"], 1)]  # 2 of 8
    assert len(report["samples"]) == 8
    assert f"row 1: {rows[1]['question_id']} sample 0 prompt (system message missing)" in (
        report["first_differences"][0]
    )
    (why,) = report["extraction_not_checked"]
    assert why.startswith("lighteval's details do not record")
    assert report["extraction_not_checked"][why] == 8


@pytest.mark.upstream  # pyarrow comes with datasets, in the upstream extra
def test_a_parquet_file_that_is_not_lighteval_details_is_an_unknown_format(tmp_path, capsys):
    # tests the console's contract: an input error is one line naming what is wrong
    path = lighteval_details(tmp_path, [{"question": "x"}])
    assert run_audit.main([path]) == run_audit.EXIT_INPUT
    assert "unknown format: a parquet file" in capsys.readouterr().err


@pytest.mark.upstream
def test_a_truncated_parquet_file_is_exit_2(tmp_path, capsys):
    # tests the console's contract: an input error is one line naming what is wrong
    path = lighteval_details(tmp_path, [lighteval_row(0, "prompt", ["a"])])
    data = Path(path).read_bytes()
    Path(path).write_bytes(data[: len(data) // 2])
    assert run_audit.main([path]) == run_audit.EXIT_INPUT
    assert "not a readable parquet file" in capsys.readouterr().err


@pytest.mark.upstream
def test_the_html_report_shows_the_verdict_and_every_sample_that_differs(pytestconfig, tmp_path):
    page = tmp_path / "reports" / "audit.html"
    code = cli.main(
        [
            "audit",
            str(lm_eval("no-system")),
            "--style",
            "OpenAIChat",
            "--html",
            str(page),
            "--upstream",
            pytestconfig.getoption("--upstream"),
        ]
    )
    assert code == run_audit.EXIT_DIFFERS
    text = page.read_text("utf-8")
    assert "NOT CONFORMANT: 12 of 12 samples differ" in text
    assert text.count("<td>system message missing; filter lcb_runner</td>") == 12  # per sample
    assert [p.name for p in page.parent.iterdir()] == ["audit.html"]  # no temporary left


@pytest.mark.upstream
def test_the_audit_module_run_itself_writes_the_html_report(pytestconfig, tmp_path):
    """The command is the module's own main: `python -m` it, --html included, as the
    lcb-conformance audit subcommand does."""
    page = tmp_path / "audit.html"
    done = subprocess.run(
        [
            sys.executable, "-m", "lcb_conformance.run_audit.audit", str(lm_eval("conformant")),
            "--style", "OpenAIChat", "--html", str(page), OWN_PROBLEMS,
            "--upstream", pytestconfig.getoption("--upstream"),
        ],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert done.returncode == run_audit.EXIT_OK, done.stdout[-2000:] + done.stderr[-2000:]
    assert "every checkable sample identical" in page.read_text("utf-8")


@pytest.mark.upstream
def test_a_report_the_audit_cannot_write_is_exit_6_and_the_other_is_written(
    pytestconfig, tmp_path, capsys
):
    # tests the console's contract: a report not written is one line on stderr
    taken = tmp_path / "taken"
    taken.mkdir()  # a directory where the JSON report should go
    page = tmp_path / "audit.html"
    code = cli.main(
        [
            "audit", str(lm_eval("conformant")), "--style", "OpenAIChat",
            "--json", str(taken), "--html", str(page), OWN_PROBLEMS,
            "--upstream", pytestconfig.getoption("--upstream"),
        ]
    )  # fmt: skip
    assert code == report_files.REPORT_NOT_WRITTEN
    assert capsys.readouterr().err == (
        f"lcb-conformance audit: JSON report not written: cannot write {taken}: {os.strerror(21)}\n"
    )
    assert "every checkable sample identical" in page.read_text("utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit.html", "taken"]
