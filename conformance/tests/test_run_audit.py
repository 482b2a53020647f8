"""lcb-conformance audit over runs written by lcb_runner's own main()
(fixtures/audit/generate_lcb_runner.py): conformant runs audit clean, the deliberately
non-conformant ones fail with the right samples named, bad input is a clear exit 2."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import urllib.request

import pytest

import lcb_prompts
from lcb_conformance.run_audit import audit as run_audit
from lcb_conformance.run_formats import evalscope, lcb_runner_files, registry
from lcb_conformance.runner import results as results_file
from lcb_conformance.suite import cases

RUNS = cases.FIXTURES_DIR / "audit" / "lcb_runner"
# the fixture runs' problems are the project's own, in no release: audited as such
OWN_PROBLEMS = "--not-a-release"
RESULTS_NAME = "Scenario.codegeneration_3_0.2.json"
EVAL_ALL_NAME = "Scenario.codegeneration_3_0.2_eval_all.json"


def results(run: str, name: str = RESULTS_NAME):
    (path,) = (RUNS / run / "output").glob(f"*/{name}")
    return path


def rows(run: str) -> list[dict]:
    return json.loads(results(run).read_text("utf-8"))


def audit_cli(pytestconfig, *args: str) -> int:
    upstream = pytestconfig.getoption("--upstream")
    return run_audit.main([*args, OWN_PROBLEMS, "--upstream", upstream])


def audit_report(pytestconfig, tmp_path, *args: str) -> tuple[int, dict]:
    """The command's exit code and its JSON report (--json FILE): the record the tests read."""
    target = tmp_path / "audit-report.json"
    code = audit_cli(pytestconfig, *args, "--json", str(target))
    return code, json.loads(target.read_text("utf-8"))


def copy_run(run: str, tmp_path, name: str = RESULTS_NAME):
    """The run's output and cache folders, copied so a test may damage them."""
    shutil.copytree(RUNS / run, tmp_path / run)
    (path,) = (tmp_path / run / "output").glob(f"*/{name}")
    return path


@pytest.mark.upstream
@pytest.mark.parametrize("name", [RESULTS_NAME, EVAL_ALL_NAME])
@pytest.mark.parametrize("run", ["openai-chat", "deepseek-instruct"])
def test_a_conformant_run_audits_clean_prompt_and_extraction(upstream, run, name):
    path = results(run, name)
    lmstyle = run_audit.resolve_lmstyle(path, None, None)
    cache = run_audit.CacheIndex.read(lcb_runner_files.default_cache(path))
    audit = run_audit.audit_run(path, upstream, lmstyle, cache)
    assert audit.counts() == {run_audit.IDENTICAL: 12}
    assert all(s.prompt == run_audit.IDENTICAL for s in audit.samples)
    assert not audit.prompt_unchecked and not audit.reports
    assert audit.exit_code() == run_audit.EXIT_OK


@pytest.mark.upstream
def test_the_model_is_read_from_the_output_folder():
    assert run_audit.resolve_lmstyle(results("openai-chat"), None, None) == "OpenAIChat"
    assert run_audit.resolve_lmstyle(results("deepseek-instruct"), None, None) == (
        "DeepSeekCodeInstruct"
    )


@pytest.mark.upstream
def test_extraction_is_judged_by_lcb_runners_rule_not_the_think_cutting_one(upstream):
    """The think sample: lcb_prompts.extract_code (cuts at </think>) extracts another block
    than lcb_runner did; the audit, using upstream's rule, calls the run identical."""
    row = rows("deepseek-instruct")[0]
    think = row["output_list"][1]  # a fenced draft inside <think>, nothing after
    assert "</think>" in think
    assert lcb_prompts.extract_code(think, style="deepseek") != row["code_list"][1]
    audit = run_audit.audit_run(results("deepseek-instruct"), upstream, "DeepSeekCodeInstruct")
    assert audit.samples[1].extraction == run_audit.IDENTICAL


@pytest.mark.upstream
def test_first_block_extraction_is_caught_and_each_sample_named(pytestconfig, tmp_path):
    code, report = audit_report(pytestconfig, tmp_path, str(results("first-block")))
    assert code == report["exit_code"] == run_audit.EXIT_DIFFERS
    # samples 0 and 2 have several blocks; sample 1 one only, where first and last agree
    assert report["summary"] == {run_audit.EXTRACTION_DIFFERS: 8, run_audit.IDENTICAL: 4}
    first = rows("first-block")[0]["question_id"]
    sample = report["samples"][0]
    assert (sample["question_id"], sample["sample"], sample["verdict"]) == (
        first, 0, run_audit.EXTRACTION_DIFFERS
    )
    assert sample["why"] == "scored other code than lcb_runner extracts"


@pytest.mark.upstream
def test_a_missing_system_message_is_caught_as_a_prompt_difference(pytestconfig, tmp_path):
    code, report = audit_report(pytestconfig, tmp_path, str(results("no-system")))
    assert code == report["exit_code"] == run_audit.EXIT_DIFFERS
    assert {s["prompt"] for s in report["samples"]} == {run_audit.DIFFERS}
    assert all(s["why"].startswith("system message missing") for s in report["samples"])
    assert report["summary"] == {run_audit.PROMPT_DIFFERS: 12}  # the extraction is lcb_runner's
    first = rows("no-system")[0]["question_id"]
    assert report["samples"][0]["why"] == "system message missing"
    assert f"{first} prompt (system message missing): differs from the lcb_runner" in (
        report["first_differences"][0]
    )
    assert '-[{"role": "system", "content": "You are an expert Python programmer.' in (
        report["first_differences"][0]
    )


@pytest.mark.upstream
def test_without_a_cache_the_prompt_is_cannot_check_and_extraction_still_judged(upstream, tmp_path):
    path = tmp_path / RESULTS_NAME
    shutil.copy(results("no-system"), path)  # the run that sent the wrong prompt
    assert lcb_runner_files.default_cache(path) is None
    audit = run_audit.audit_run(path, upstream, "OpenAIChat")
    assert {s.prompt for s in audit.samples} == {run_audit.CANNOT}
    assert list(audit.prompt_unchecked.values()) == [12]
    assert audit.exit_code() == run_audit.EXIT_OK  # every checkable sample: the extraction
    assert "prompt not checked for 12 samples" in run_audit.render(audit)


@pytest.mark.upstream
def test_the_json_report_has_a_verdict_per_sample(pytestconfig, tmp_path):
    report = tmp_path / "reports" / "audit.json"
    code = audit_cli(pytestconfig, str(results("first-block")), "--json", str(report))
    data = json.loads(report.read_text("utf-8"))
    assert code == data["exit_code"] == run_audit.EXIT_DIFFERS
    assert len(data["samples"]) == 12
    assert {(s["sample"], s["verdict"]) for s in data["samples"]} == {
        (0, run_audit.EXTRACTION_DIFFERS),
        (1, run_audit.IDENTICAL),
        (2, run_audit.EXTRACTION_DIFFERS),
    }
    assert [p.name for p in report.parent.iterdir()] == ["audit.json"]  # no temporary left


@pytest.mark.upstream
def test_a_problem_absent_from_the_dataset_is_cannot_check_naming_it(upstream, tmp_path):
    dataset = tmp_path / "rows.jsonl"
    kept = [
        row
        for row in cases.problems().values()
        if row["question_id"] != rows("openai-chat")[0]["question_id"]
    ]
    dataset.write_text("".join(json.dumps(row) + "\n" for row in kept), "utf-8")
    path = results("openai-chat")
    audit = run_audit.audit_run(
        path,
        upstream,
        "OpenAIChat",
        run_audit.CacheIndex.read(lcb_runner_files.default_cache(path)),
        run_audit.read_dataset(dataset),
    )
    missing = rows("openai-chat")[0]["question_id"]
    assert audit.prompt_unchecked == {f"problem {missing} is not in the dataset": 3}
    assert audit.counts()[run_audit.IDENTICAL] == 12  # extraction checked, prompt for 9


def damaged(tmp_path, change) -> str:
    """deepseek-instruct's results with change(rows) applied, written as lcb_runner does."""
    path = copy_run("deepseek-instruct", tmp_path)
    data = json.loads(path.read_text("utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=4), "utf-8")
    return str(path)


def drop_code_list_of_second(data):
    del data[1]["code_list"]


def shorten_code_list(data):
    data[2]["code_list"].pop()


def number_as_output(data):
    data[1]["output_list"][0] = 7


def duplicate_problem(data):
    data.append(data[0])


@pytest.mark.upstream
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (drop_code_list_of_second, r":\d+: row 'cf_team_formation_skills' lacks 'code_list'"),
        (shorten_code_list, r"'lc_lantern_row_brightness': 3 outputs but 2 extracted codes"),
        (number_as_output, r"'cf_team_formation_skills' sample 0: output and code must be"),
        (duplicate_problem, r"problem 'atc_grid_robot_detour' appears twice"),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_bad_rows_are_exit_2_naming_file_line_and_sample(
    pytestconfig, tmp_path, capsys, change, message
):
    # tests the console's contract: an input error is one line naming file, line and sample
    path = damaged(tmp_path, change)
    assert audit_cli(pytestconfig, path) == run_audit.EXIT_INPUT
    out, printed = capsys.readouterr()
    assert path in printed
    assert re.search(message, printed), printed
    assert "Traceback" not in printed and "identical to lcb_runner" not in out + printed
    assert not re.search(message, out)


@pytest.mark.upstream  # the file is streamed: its end is read after upstream loads
def test_a_truncated_results_file_is_exit_2_naming_file_and_line(tmp_path, capsys):
    # tests the console's contract: an input error is one line naming file and line
    path = copy_run("deepseek-instruct", tmp_path)
    text = path.read_text("utf-8")
    path.write_text(text[: len(text) * 2 // 3], "utf-8")
    assert run_audit.main([str(path)]) == run_audit.EXIT_INPUT
    printed = capsys.readouterr().err
    assert f"{path}:" in printed and "ends early (truncated?)" in printed


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"question_id": "x"}\n', "unknown format"),
        ('[{"doc": {}, "resps": []}]', "unknown format: not lcb_runner's results"),
        ("[]", "unknown format"),
    ],
)
def test_an_unknown_format_is_exit_2(tmp_path, capsys, content, message):
    # tests the console's contract: an input error is one line naming what is wrong
    path = tmp_path / "run.json"
    path.write_text(content, "utf-8")
    assert run_audit.main([str(path)]) == run_audit.EXIT_INPUT
    assert message in capsys.readouterr().err


def test_a_format_given_that_the_file_is_not_is_exit_2(capsys):
    # tests the console's contract: an input error is one line naming what is wrong
    assert run_audit.main([str(results("openai-chat")), "--format", "evalscope"]) == 2
    assert "--format evalscope, but it reads as lcb_runner" in capsys.readouterr().err


# the command in a process where lcb_runner's own dependency `datasets` cannot be imported, as
# in an install without the [upstream] extra
WITHOUT_DATASETS = (
    "import sys; sys.modules['datasets'] = None; "
    "from lcb_conformance.cli import main; sys.exit(main(sys.argv[1:]))"
)


def test_an_upstream_without_its_dependencies_is_one_line_exit_2(pytestconfig, tmp_path):
    # tests the console's contract: a missing extra is one line saying what to install
    report = tmp_path / "audit-report.json"
    argv = ["audit", str(results("openai-chat")), "--json", str(report)]
    argv += ["--upstream", pytestconfig.getoption("--upstream")]
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_DATASETS, *argv], capture_output=True, text=True
    )
    assert done.returncode == run_audit.EXIT_INPUT, done
    assert "Traceback" not in done.stdout + done.stderr and not report.exists()
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("audit: upstream lcb_runner is not available: cannot import")
    assert "pip install 'lcb-conformance[upstream]'" in done.stderr
    assert "not available" not in done.stdout


# evalscope 1.14.1's own run_task, end to end against the loopback stub server
# (fixtures/audit/generate_evalscope.py).
EVALSCOPE_RUN = cases.FIXTURES_DIR / "audit" / "evalscope" / "default"
(REVIEWS,) = (EVALSCOPE_RUN / "reviews").glob("*/*.jsonl")
EVALSCOPE_DATASET = EVALSCOPE_RUN / "dataset.jsonl"


def test_evalscope_reviews_are_detected():
    assert registry.detect(REVIEWS).NAME == run_audit.EVALSCOPE


def test_evalscope_needs_the_dataset_it_read(capsys):
    # tests the console's contract: an input error is one line saying what to pass
    assert run_audit.main([str(REVIEWS), "--style", "OpenAIChat"]) == run_audit.EXIT_INPUT
    assert "do not name them: pass --dataset" in capsys.readouterr().err


@pytest.mark.upstream
def test_evalscope_as_shipped_is_caught_with_its_prompt_named(pytestconfig, tmp_path):
    """evalscope sends the pre-December-2024 system message and no 'Ensure that' sentence
    (docs/peers.md): every sample's prompt differs, and the report shows those words."""
    code, report = audit_report(
        pytestconfig,
        tmp_path,
        str(REVIEWS),
        "--dataset",
        str(EVALSCOPE_DATASET),
        "--style",
        "OpenAIChat",
        "--show",
        "1",
    )
    assert code == report["exit_code"] == run_audit.EXIT_DIFFERS
    assert {s["prompt"] for s in report["samples"]} == {run_audit.DIFFERS}  # 12 of 12
    assert len(report["samples"]) == 12
    first = report["samples"][0]
    assert (first["question_id"], first["sample"]) == ("atc_grid_robot_detour", 0)
    assert first["why"].startswith("system message differs at offset")
    (shown,) = report["first_differences"]  # --show 1
    assert "atc_grid_robot_detour sample 0 prompt (system message differs at offset" in shown
    assert "You will NOT return anything except for the program." in shown


@pytest.mark.upstream
def test_evalscope_think_answers_are_judged_on_the_raw_output(upstream):
    """evalscope splits <think> off the server's answer and extracts from the rest; lcb_runner
    reads the whole answer, where the fenced draft inside <think> is the last block: the
    audit rebuilds the raw output and names the difference, on exactly the think samples."""
    audit = run_audit.audit_evalscope(
        REVIEWS, upstream, "OpenAIChat", run_audit.read_dataset(EVALSCOPE_DATASET)
    )
    differing = {(s.question_id, s.index) for s in audit.samples if s.extraction != "identical"}
    assert differing == {(row["question_id"], 1) for row in rows("deepseek-instruct")}
    think = next(s for s in audit.samples if s.index == 1)
    assert think.why.startswith("scored nothing where lcb_runner extracts code; system message")
    assert think.why.endswith(evalscope.REBUILT)
    assert {s.prompt for s in audit.samples} == {run_audit.DIFFERS}


@pytest.mark.upstream
def test_an_evalscope_sample_beyond_the_dataset_is_cannot_check(upstream, tmp_path):
    dataset = tmp_path / "rows.jsonl"
    dataset.write_text(EVALSCOPE_DATASET.read_text("utf-8").split("\n", 1)[0] + "\n", "utf-8")
    audit = run_audit.audit_evalscope(
        REVIEWS, upstream, "OpenAIChat", run_audit.read_dataset(dataset)
    )
    assert audit.prompt_unchecked == {
        "group_id 1: the dataset has 1 rows": 3,
        "group_id 2: the dataset has 1 rows": 3,
        "group_id 3: the dataset has 1 rows": 3,
    }


def evalscope_damaged(tmp_path, change) -> str:
    lines = [json.loads(line) for line in REVIEWS.read_text("utf-8").splitlines()]
    change(lines)
    path = tmp_path / "reviews.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    return str(path)


@pytest.mark.upstream
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda lines: lines[3].pop("sample_score"), r"reviews.jsonl:4: sample 3 lacks"),
        (
            lambda lines: lines[5]["sample_score"]["score"].update(extracted_prediction=None),
            r"reviews.jsonl:6: sample 5: prediction and extracted_prediction must be strings",
        ),
        (
            lambda lines: lines[1].update(messages="hello"),
            r"reviews.jsonl:2: sample 1: messages must be a list",
        ),
    ],
    ids=["no sample_score", "null extraction", "messages not a list"],
)
def test_bad_evalscope_lines_are_exit_2_naming_line_and_sample(
    pytestconfig, tmp_path, capsys, change, message
):
    # tests the console's contract: an input error is one line naming file, line and sample
    path = evalscope_damaged(tmp_path, change)
    code = audit_cli(
        pytestconfig, path, "--dataset", str(EVALSCOPE_DATASET), "--style", "OpenAIChat"
    )
    assert code == run_audit.EXIT_INPUT
    printed = capsys.readouterr().err
    assert re.search(message, printed), printed
    assert "Traceback" not in printed


@pytest.mark.upstream  # the file is streamed: its end is read after upstream loads
def test_a_truncated_evalscope_line_is_exit_2_naming_it(tmp_path, capsys):
    # tests the console's contract: an input error is one line naming file and line
    text = REVIEWS.read_text("utf-8")
    path = tmp_path / "reviews.jsonl"
    path.write_text(text[: len(text) // 2], "utf-8")
    code = run_audit.main([str(path), "--dataset", str(EVALSCOPE_DATASET), "--style", "OpenAIChat"])
    assert code == run_audit.EXIT_INPUT
    assert re.search(r"reviews.jsonl:\d+: not valid JSON", capsys.readouterr().err)


def test_a_run_whose_model_cannot_be_told_asks_for_model_or_style(tmp_path, capsys):
    # tests the console's contract: an input error is one line saying what to pass
    path = tmp_path / "somewhere" / RESULTS_NAME
    path.parent.mkdir()
    shutil.copy(results("openai-chat"), path)
    assert run_audit.main([str(path)]) == run_audit.EXIT_INPUT
    printed = capsys.readouterr().err
    assert "lcb_runner names its results folder by the model" in printed
    assert "'somewhere' is no model lcb_runner lists: pass --style LMSTYLE" in printed
    assert run_audit.main([str(path), "--model", "no-such-model-7b"]) == run_audit.EXIT_INPUT
    assert "not in lcb_runner's model list" in capsys.readouterr().err


def test_a_missing_file_is_exit_2(tmp_path, capsys):
    # tests the console's contract: an input error is one line naming the file
    assert run_audit.main([str(tmp_path / "absent.json")]) == run_audit.EXIT_INPUT
    assert "absent.json: no such file" in capsys.readouterr().err


def test_a_truncated_cache_is_exit_2_naming_it(tmp_path, capsys):
    # tests the console's contract: an input error is one line naming the file
    path = copy_run("openai-chat", tmp_path)
    cache = lcb_runner_files.default_cache(path)
    cache.write_text(cache.read_text("utf-8")[:500], "utf-8")
    assert run_audit.main([str(path)]) == run_audit.EXIT_INPUT
    assert f"{cache}:" in capsys.readouterr().err


def test_any_difference_wins_and_an_unchecked_prompt_does_not_hide_one():
    """A sample is identical only with nothing differing; an uncheckable prompt leaves the
    (always checked) extraction to decide."""
    sample = run_audit.Sample("q", 0, run_audit.IDENTICAL, run_audit.DIFFERS)
    assert sample.verdict == run_audit.EXTRACTION_DIFFERS
    sample = run_audit.Sample("q", 0, run_audit.DIFFERS, run_audit.DIFFERS)
    assert sample.verdict == f"{run_audit.PROMPT_DIFFERS} and {run_audit.EXTRACTION_DIFFERS}"
    assert run_audit.Sample("q", 0, run_audit.CANNOT, run_audit.IDENTICAL).verdict == (
        run_audit.IDENTICAL
    )


def load_stub_server():
    """fixtures/audit/stub_openai.py (the generators' helper, not a package module)."""
    spec = importlib.util.spec_from_file_location(
        "stub_openai", cases.FIXTURES_DIR / "audit" / "stub_openai.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.enable_socket
@pytest.mark.allow_hosts(["127.0.0.1"])
def test_the_stub_server_answers_on_loopback_only_and_stops():
    stub = load_stub_server()
    request = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "n": 2}
    with stub.serve(lambda sent: [sent["messages"][0]["content"] + "!"] * sent["n"]) as server:
        assert server.server_address[0] == "127.0.0.1"
        post = urllib.request.Request(
            server.base_url + "/chat/completions",
            data=json.dumps(request).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(post, timeout=10) as response:
            answer = json.load(response)
    assert [c["message"]["content"] for c in answer["choices"]] == ["hi!", "hi!"]
    assert server.requests == [request]
    with pytest.raises(OSError):  # closed on exit
        urllib.request.urlopen(server.base_url + "/models", timeout=2)


def test_the_rebuilt_evalscope_answer_is_the_servers_answer_byte_for_byte():
    """On evalscope's real records, reasoning and text parts rebuild exactly what the stub
    server sent: the generation_index-th canned answer (generate_lcb_runner.OUTPUTS)."""
    spec = importlib.util.spec_from_file_location(
        "generate_lcb_runner", cases.FIXTURES_DIR / "audit" / "generate_lcb_runner.py"
    )
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    canned = {row["id"]: row["output"] for _, row in cases.iter_jsonl(cases.OUTPUTS_FILE)}
    rebuilt_any = False
    for line, record in cases.iter_jsonl(REVIEWS):
        *_, output, _, rebuilt = evalscope.evalscope_record(REVIEWS, line, record)
        generation = record["sample_score"]["generation_index"]
        assert output == canned[generator.OUTPUTS[generation]]
        rebuilt_any |= rebuilt
    assert rebuilt_any  # the think answers went through the rebuild


@pytest.mark.upstream
def test_only_the_llama3_style_memoises_tokenizer_loading():
    from transformers import AutoTokenizer

    original = AutoTokenizer.from_pretrained
    with run_audit.tokenizers_memoised("LLaMa3") as cache:
        assert cache == {} and AutoTokenizer.from_pretrained != original
    with run_audit.tokenizers_memoised("OpenAIChat") as nothing:
        assert nothing is None and AutoTokenizer.from_pretrained == original


@pytest.mark.upstream
def test_an_unknown_style_is_named_with_the_valid_ones(pytestconfig, capsys):
    # tests the console's contract: an input error is one line naming the valid values
    """The problem is the style, not upstream: say so and list upstream's LMStyles."""
    code = audit_cli(pytestconfig, str(results("openai-chat")), "--style", "NotAStyle")
    assert code == run_audit.EXIT_INPUT
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("audit: --style NotAStyle: ") and "has no such LMStyle" in line
    assert "OpenAIChat, " in line and "not available" not in line


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("", None, "a folder; pass the results file in it"),
        ("e.json", "", "an empty file"),
        ("x_eval.json", "{}", "_eval.json (metrics only, no sample): pass its"),
        (
            "r.jsonl",
            json.dumps({"header": {"schema": results_file.SCHEMA}}) + "\n",
            "an lcb-conformance results file, not an evaluation's: lcb-conformance report",
        ),
    ],
    ids=["folder", "empty", "metrics-only", "our-results-file"],
)
def test_each_unusable_run_is_one_line_naming_it(tmp_path, capsys, name, content, message):
    # tests the console's contract: an input error is one line naming what is wrong
    path = tmp_path / name
    if content is not None:
        path.write_text(content, "utf-8")
    assert run_audit.main([str(path)]) == run_audit.EXIT_INPUT
    out, err = capsys.readouterr()
    (line,) = err.splitlines()
    assert message in line and not out


@pytest.mark.upstream
def test_the_audit_leads_with_its_summary_and_show_caps_the_problems(pytestconfig, capsys):
    # tests the console's contract: the printed table's layout (summary first, --show caps it)
    """--show 1: the summary row, one problem that differs, and how many were left out."""
    path = str(results("first-block"))
    assert audit_cli(pytestconfig, path, "--show", "1") == run_audit.EXIT_DIFFERS
    table = capsys.readouterr().out.split("\n\n")[0].splitlines()
    assert table[1].startswith("problem ") and table[2].startswith("all ")
    assert len(table) == 5, table  # the intro, the header, all, one problem, the left-out line
    assert table[4].startswith("… 3 more problems not shown (3 of them with a sample that")
