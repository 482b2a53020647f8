"""The run's own faults (reports/run_lint.py) in score, audit and regrade: outputs cut inside a
code block, `###` among the stops, unclosed `<think>`, no code, token limits, mixed n, ERRATA's
problems with the figure without them; never the number, never the exit code (issue 34)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest
import regrade_inputs as inputs

from lcb_conformance import cli
from lcb_conformance.common import exit_codes, paths
from lcb_conformance.regrade import results_file
from lcb_conformance.reports import run_lint
from lcb_conformance.suite import cases, score_cases

# score, audit and regrade's own reading: no tokenizer touches it (the compat-tf* envs leave it)
pytestmark = pytest.mark.transformers_independent

O1_MINI = score_cases.SCORE_FIXTURES_DIR / "o1-mini-2024-09-12.json"
OPENAI_CHAT = cases.FIXTURES_DIR / "audit" / "lcb_runner" / "openai-chat"
EVAL_ALL = "Scenario.codegeneration_3_0.2_eval_all.json"
RESULTS = "Scenario.codegeneration_3_0.2.json"
# ERRATA.md at 28fef95 as it reads: its headings say 7 and 1, its lists hold 11, 2 and 4
ERRATA_KINDS = {"multiple_solutions": 11, "interactive": 2, "erroneous_tests": 4}


def _by_kind(findings: list[dict]) -> dict[str, dict]:
    return {f["kind"]: f for f in findings}


def _score(tmp_path: Path, run: Path, *argv: str) -> tuple[int, dict, str]:
    out = tmp_path / "score.json"
    page = tmp_path / "score.html"
    code = cli.main(["score", str(run), *argv, "--json", str(out), "--html", str(page)])
    return code, json.loads(out.read_text("utf-8")), page.read_text("utf-8")


def _cut(output: str) -> str:
    """The output cut as a stop string cuts it: inside its first code block (one fence left,
    so lcb_runner's extract_code finds nothing)."""
    first = output.index("```")
    return output[: output.index("```", first + 3)]


def _damaged_run(tmp_path: Path) -> Path:
    """lcb_runner's own eval_all (openai-chat) with sample 0 of its first problem cut inside
    its code block, sample 2 an unclosed <think> with no code, its last problem one sample."""
    rows = json.loads(next((OPENAI_CHAT / "output").glob(f"*/{EVAL_ALL}")).read_text("utf-8"))
    first, last = rows[0], rows[-1]
    first["output_list"][0] = _cut(first["output_list"][0])
    first["output_list"][2] = "<think>\nthe loop first, then the formula"
    first["code_list"][2] = ""
    for name in ("output_list", "code_list", "graded_list"):
        last[name] = last[name][:1]
    last["pass@1"] = last["graded_list"].count(True) / 1
    target = tmp_path / EVAL_ALL
    target.write_text(json.dumps(rows), "utf-8")
    return target


def test_errata_data_is_what_errata_md_lists_with_its_provenance():
    data = run_lint.errata()
    assert Counter(p["kind"] for p in data["problems"]) == ERRATA_KINDS
    assert data["source"]["path"] == "ERRATA.md" and data["source"]["commit"].startswith("28fef95")
    assert [p["number"] for p in data["problems"] if p["kind"] == "multiple_solutions"] == [
        1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12  # the file's own numbering: it skips 9
    ]  # fmt: skip
    # the LeetCode slugs' ids come from the O1-Mini submission fixtures/score trims
    sources = json.loads((score_cases.SCORE_FIXTURES_DIR / "sources.json").read_text("utf-8"))
    assert data["titles"]["sha256"] == sources[O1_MINI.name]["original_sha256"]


@pytest.mark.upstream
def test_errata_data_is_the_checkouts_errata_md(pinned_clone):
    from lcb_conformance_dev import errata

    source, entries = errata.errata_source(pinned_clone)
    stored = run_lint.errata()
    assert stored["source"] == source
    assert hashlib.sha256((pinned_clone / "ERRATA.md").read_bytes()).hexdigest() == source["sha256"]
    keys = ("named", "kind", "section", "number", "words")
    assert [{k: p[k] for k in keys} for p in stored["problems"]] == entries


def test_score_names_errata_problems_and_gives_the_number_without_them_beside(tmp_path):
    """The public O1-Mini submission: its 2024-08..2025-02 window holds arc185_c and arc189_a;
    the figure without them is the official figure of the same file without them."""
    window = ("--window", "2024-08-01:2025-02-01")
    code, report, page = _score(tmp_path, O1_MINI, *window)
    errata = _by_kind(report["lint"])["errata"]
    assert [(p["question_id"], p["kind"]) for p in errata["problems"]] == [
        ("arc185_c", "multiple_solutions"), ("arc189_a", "erroneous_tests")
    ]  # fmt: skip
    assert errata["official"] == report["lcb_runner"]["value"]
    rows = [r for r in json.loads(O1_MINI.read_text("utf-8")) if r["question_id"] not in
            {"arc185_c", "arc189_a"}]  # fmt: skip
    trimmed = tmp_path / "trimmed" / O1_MINI.name
    trimmed.parent.mkdir()
    trimmed.write_text(json.dumps(rows), "utf-8")
    _, without, _ = _score(tmp_path / "trimmed", trimmed, *window)
    assert errata["without_errata"] == without["lcb_runner"]["value"] != errata["official"]
    assert code == exit_codes.OK == report["exit_code"]
    assert 'id="lint"' in page and "arc189_a (erroneous_tests)" in page
    # the whole file: every problem ERRATA.md lists, the LeetCode ones by their ids
    _, whole, _ = _score(tmp_path, O1_MINI)
    named = _by_kind(whole["lint"])["errata"]
    assert named["by_kind"] == ERRATA_KINDS
    assert {"3194", "3221", "3308", "3363", "3453"} <= {p["question_id"] for p in named["problems"]}


def test_score_names_cut_think_and_mixed_n_samples_without_moving_the_number(tmp_path, capsys):
    run = _damaged_run(tmp_path)
    code, report, _ = _score(tmp_path, run)
    console = capsys.readouterr().out
    found = _by_kind(report["lint"])
    first = json.loads(run.read_text("utf-8"))[0]["question_id"]
    assert found["cut_in_code_block"]["samples"] == [f"{first}#0"]
    assert found["think_unclosed"]["samples"] == [f"{first}#2"]
    assert found["think_unclosed"]["without_code"] == 1
    assert found["no_code"]["samples"] == [f"{first}#2"]
    assert found["mixed_n"]["problems_by_n"] == [{"n": 1, "problems": 1}, {"n": 3, "problems": 3}]
    assert found["token_limit"]["recorded"] is False
    assert found["stop_hashes"]["recorded"] is False and '"###"' in found["stop_hashes"]["words"]
    assert f"{first}#0" in console and "token counts" in console
    # the number and the exit code are the undamaged file's
    original = next((OPENAI_CHAT / "output").glob(f"*/{EVAL_ALL}"))
    (tmp_path / "original").mkdir()
    _, clean, _ = _score(tmp_path / "original", original)
    assert clean["exit_code"] == report["exit_code"] == code
    assert _by_kind(clean["lint"])["cut_in_code_block"]["count"] == 0


def test_a_recorded_stop_holding_hashes_is_named():
    lint = run_lint.Lint()
    found = _by_kind(run_lint.sample_findings(lint, stop=["###", "<|im_end|>"]))
    assert found["stop_hashes"]["count"] == 1 and "PR #117" in found["stop_hashes"]["words"]
    assert _by_kind(run_lint.sample_findings(lint, stop=[]))["stop_hashes"]["words"] == ""
    assert run_lint.recorded_stop('["###"]') == ["###"]
    assert run_lint.recorded_stop("not recorded") is None


@pytest.mark.upstream
def test_audit_names_the_runs_own_faults_and_its_exit_is_unchanged(pytestconfig, tmp_path):
    """The audit's lint on lcb_runner's results file (the output_list beside its cache) with
    the damaged samples; the fixture runs hold no ERRATA problem."""
    import shutil

    shutil.copytree(OPENAI_CHAT, tmp_path / "run")
    (path,) = (tmp_path / "run" / "output").glob(f"*/{RESULTS}")
    rows = json.loads(path.read_text("utf-8"))
    rows[0]["output_list"][0] = _cut(rows[0]["output_list"][0])
    rows[0]["code_list"][0] = ""  # lcb_runner's extraction of a cut block: nothing
    path.write_text(json.dumps(rows), "utf-8")
    out, page = tmp_path / "audit.json", tmp_path / "audit.html"
    # the fixture run's problems are the project's own: --not-a-release
    code = cli.main(["audit", str(path), "--upstream", pytestconfig.getoption("--upstream"),
                     "--json", str(out), "--html", str(page), "--not-a-release"])  # fmt: skip
    report = json.loads(out.read_text("utf-8"))
    found = _by_kind(report["lint"])
    assert found["cut_in_code_block"]["samples"] == [f"{rows[0]['question_id']}#0"]
    assert found["no_code"]["count"] == 1 and found["errata"]["count"] == 0
    assert found["stop_hashes"]["recorded"] is False
    assert code == report["exit_code"] == exit_codes.OK
    assert 'id="lint"' in page.read_text("utf-8")


def test_regrade_shows_the_lint_from_its_results_file(tmp_path, capsys):
    samples = [inputs.regrade_sample(n, n % 3 != 0) for n in range(4)]
    samples[0]["question_id"] = samples[2]["question_id"] = "abc337_e"
    samples[1]["output_faults"] = ["cut_in_code_block"]
    samples[1]["code"] = ""
    whole = tmp_path / "regrade.jsonl"
    writer = results_file.Writer(whole, {**inputs.REGRADE_HEADER, "shard": None})
    for sample in samples:
        writer.write(sample)
    writer.close()
    schema = json.loads(paths.REGRADE_SCHEMA.read_text("utf-8"))
    import jsonschema

    for line in whole.read_text("ascii").splitlines():
        jsonschema.validate(json.loads(line), schema)
    out = tmp_path / "views.json"
    code = cli.main(["regrade", "show", str(whole), "--json", str(out)])
    report = json.loads(out.read_text("utf-8"))
    found = _by_kind(report["lint"])
    assert found["cut_in_code_block"]["samples"] == [f"{samples[1]['question_id']}#0"]
    assert found["no_code"]["count"] == 1
    assert [p["question_id"] for p in found["errata"]["problems"]] == ["abc337_e"]
    assert found["errata"]["official"] == report["regrade"]["lcb_runner"]["value"]
    assert code == report["exit_code"]
    assert "lint (the run's own faults" in capsys.readouterr().out


@pytest.mark.upstream
def test_audit_names_a_recorded_hashes_stop(pytestconfig, tmp_path):
    """lm-eval's own log (its samples record the generation arguments) with `until: ["###"]`:
    the lint says the request's stop holds "###"; the request check says it differs."""
    import shutil

    run = tmp_path / "conformant"
    shutil.copytree(cases.FIXTURES_DIR / "audit" / "lm_eval" / "conformant", run)
    log = run / "samples_lcb_audit.jsonl"
    text = log.read_text("utf-8")
    assert '"until": []' in text
    log.write_text(text.replace('"until": []', '"until": ["###"]'), "utf-8")
    out = tmp_path / "audit.json"
    code = cli.main(["audit", str(log), "--style", "OpenAIChat", "--json", str(out),
                     "--upstream", pytestconfig.getoption("--upstream")])  # fmt: skip
    report = json.loads(out.read_text("utf-8"))
    stop = _by_kind(report["lint"])["stop_hashes"]
    assert (stop["recorded"], stop["count"]) == (True, 1) and "PR #117" in stop["words"]
    assert code == report["exit_code"] == exit_codes.DIFFERS  # the request's stop, not the lint


def test_score_on_another_harness_log_carries_the_lint(tmp_path, capsys):
    """evalscope's own log scored: its samples' lint beside its own verdicts' figures."""
    dataset = inputs.write(tmp_path / "dataset", inputs.rows())
    out = tmp_path / "score.json"
    cli.main(["score", str(inputs.EVALSCOPE_RUN), "--dataset", str(dataset), "--json", str(out)])
    found = _by_kind(json.loads(out.read_text("utf-8"))["lint"])
    assert {"cut_in_code_block", "think_unclosed", "no_code", "mixed_n", "errata"} <= set(found)
    assert found["errata"]["count"] == 0  # the fixture's problems are the project's own
