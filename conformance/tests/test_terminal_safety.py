"""Hostile text reaches the terminal escaped: a name, id, message or argument holding escape
sequences (clear screen, a window title, an OSC 8 link), C1's one-character CSI, BEL,
backspace, a carriage return rewriting the line ("FAIL\\rOK:") or a bidirectional override is
printed as \\x1b, \\r, \\u202e, on every route it takes to stdout or stderr: an unknown option,
a run file's question_id and model folder (score, audit, regrade), a results file (report,
regrade show), an adapter's declared STYLES and exception messages (run, in-process and over
--impl-cmd). Each command runs as a user runs it (a subprocess, NO_COLOR=1); its JSON report
keeps the exact strings, its HTML report shows the bidirectional controls as escapes too, and
--color always colours the lines around the escaped text."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import regrade_inputs as inputs

from lcb_conformance.adapters import jsonl_server
from lcb_conformance.common import exit_codes, showdiff
from lcb_conformance.regrade import results_file
from lcb_conformance.suite import cases, score_cases

pytestmark = pytest.mark.selftest

# every way a string can rewrite what a terminal line says; no "/" (it names folders too)
HOSTILE = (
    "q\x1b[2J\x1b]0;title\x07\x1b]8;;http:evil\x07link\x1b]8;;\x07"
    "FAIL\rOK:\x08\x7f\x9b32m\u202edeliaf\u2066x\u2069"
)
RAW = ("\x1b", "\x07", "\x08", "\x7f", "\x9b", "\r", "\u202e", "\u2066", "\u2069")
# as shown; argument-quoting routes fold whitespace (\r) into a space, so it is not listed
SHOWN = ("\\x1b[2J", "\\x1b]8;;http:evil\\x07", "\\x9b32m", "\\u202edeliaf", "\\u2066")


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lcb_conformance.cli", *map(str, args)],
        cwd=cwd, env=dict(os.environ, NO_COLOR="1"), capture_output=True, timeout=300,
    )  # fmt: skip


def shown(done: subprocess.CompletedProcess) -> str:
    """stdout and stderr, held to: no raw control or bidirectional character, the escapes."""
    return safe((done.stdout + done.stderr).decode("utf-8"))


def safe(said: str) -> str:
    assert [c for c in RAW if c in said] == [], said[-3000:]
    missing = [form for form in SHOWN if form not in said]
    assert not missing, said[-3000:]
    return said


def strings(data) -> str:
    """Every string a JSON report holds, as it holds it (one per line)."""
    if isinstance(data, dict):
        return "\n".join(strings(value) for value in data.values())
    if isinstance(data, list):
        return "\n".join(strings(value) for value in data)
    return data if isinstance(data, str) else ""


def test_printable_escapes_what_rewrites_a_line_and_keeps_every_script():
    assert showdiff.printable("FAIL\rOK: \x1b[32m\u202e\x9b") == "FAIL\\rOK: \\x1b[32m\\u202e\\x9b"
    kept = "Crème brûlée, 東京, Ελληνικά, עברית — tab\tand\nnewline"
    assert showdiff.printable(kept) == kept


# each command with what it requires (argparse names a missing argument before an unknown one)
COMMANDS = {
    "run": [], "report": ["report", "r.jsonl"], "score": ["score", "run.json"],
    "audit": ["audit", "run.json"], "regrade": ["regrade", "run.json", "--dataset", "data"],
}  # fmt: skip


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS)
def test_an_unknown_option_is_quoted_escaped(tmp_path, command):
    done = run_cli(*command, "--" + HOSTILE, cwd=tmp_path)
    assert done.returncode == exit_codes.UNUSABLE
    assert "unrecognized arguments: --q\\x1b[2J" in shown(done)


def test_the_suites_own_pytest_quotes_an_unknown_option_escaped():
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "--" + HOSTILE],
        cwd=Path(__file__).parents[2], env=dict(os.environ, NO_COLOR="1"),
        capture_output=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == exit_codes.UNUSABLE
    shown(done)


def test_scores_question_ids_are_shown_escaped_and_kept_in_its_json(tmp_path):
    rows = json.loads((score_cases.SCORE_FIXTURES_DIR / "o1-mini-2024-09-12.json").read_text())
    rows[0]["question_id"] = HOSTILE
    run = tmp_path / "run.json"
    run.write_text(json.dumps(rows), "utf-8")
    done = run_cli("score", run, "--window", "2024-09-01:2025-02-01", "--json", "s.json",
                   cwd=tmp_path)  # fmt: skip
    assert done.returncode == exit_codes.DIFFERS, done.stderr
    assert "extra: " + showdiff.printable(HOSTILE) in shown(done)
    assert HOSTILE in strings(json.loads((tmp_path / "s.json").read_text("utf-8")))


def hostile_audit_run(folder: Path) -> Path:
    """first-block's run, its model folder and a question_id hostile."""
    shutil.copytree(cases.FIXTURES_DIR / "audit" / "lcb_runner" / "first-block", folder)
    for kind in ("output", "cache"):
        (folder / kind / "DSCoder-33b-Ins").rename(folder / kind / HOSTILE)
    run = folder / "output" / HOSTILE / "Scenario.codegeneration_3_0.2.json"
    rows = json.loads(run.read_text("utf-8"))
    rows[0]["question_id"] = HOSTILE
    run.write_text(json.dumps(rows), "utf-8")
    return run


def audit(pytestconfig, tmp_path, *argv: str) -> subprocess.CompletedProcess:
    run = hostile_audit_run(tmp_path / "run")
    upstream = pytestconfig.getoption("--upstream")
    return run_cli("audit", run, "--upstream", upstream, "--not-a-release", *argv, cwd=tmp_path)


def test_audits_refusal_of_a_model_folder_is_shown_escaped(pytestconfig, tmp_path):
    done = audit(pytestconfig, tmp_path)  # the folder names no model lcb_runner lists
    assert done.returncode == exit_codes.UNUSABLE
    assert "which model's run is it?" in shown(done)


def test_audits_model_folder_and_question_ids_are_shown_escaped(pytestconfig, tmp_path):
    done = audit(pytestconfig, tmp_path, "--model", "DSCoder-33b-Ins")
    assert done.returncode == exit_codes.DIFFERS, done.stderr
    assert f"{showdiff.printable(HOSTILE)} sample 0 extraction" in shown(done)


def test_regrades_refusal_of_a_dataset_is_shown_escaped(tmp_path):
    rows = json.loads(inputs.LCB_RUNNER_RUN.read_text("utf-8"))
    rows[0]["question_id"] = HOSTILE
    run = tmp_path / "output" / "GPT-4O-2024-08-06" / inputs.LCB_RUNNER_RUN.name
    run.parent.mkdir(parents=True)
    run.write_text(json.dumps(rows), "utf-8")
    dataset = inputs.write(tmp_path / "dataset", inputs.rows())
    done = run_cli("regrade", run, "--dataset", dataset, "--not-a-release", cwd=tmp_path)
    assert done.returncode == exit_codes.UNUSABLE
    assert "not in the dataset: " + showdiff.printable(HOSTILE) in shown(done)


def test_a_regrade_results_files_names_are_shown_escaped(tmp_path):
    samples = [inputs.regrade_sample(0, True), inputs.regrade_sample(1, False, harness=True)]
    results = tmp_path / "regrade.jsonl"
    writer = results_file.Writer(results, {**inputs.REGRADE_HEADER, "run": HOSTILE})
    for sample in samples:
        writer.write({**sample, "question_id": HOSTILE + sample["question_id"]})
    writer.close()
    done = run_cli("regrade", "show", results, cwd=tmp_path)
    assert done.returncode == exit_codes.DIFFERS, done.stderr
    assert f"{showdiff.printable(HOSTILE)}lc_starter_null_token_bucket: differs" in shown(done)


ADAPTER = f"""
HOSTILE = {HOSTILE!r}
STYLES = ["codeqwen", HOSTILE]

def extract_code(model_output, style):
    raise ValueError(HOSTILE)
"""
RAISED = f"the implementation raised ValueError: {showdiff.printable(HOSTILE)}"


@pytest.fixture(scope="module", params=["--impl", "--impl-cmd"])
def adapter_run(request, tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """A run of an adapter whose STYLES and exception messages are hostile, in-process or
    over the generic --impl-cmd server: its folder (r.jsonl, r.json) and what it printed."""
    folder = tmp_path_factory.mktemp("hostile-adapter")
    (folder / "hostile_adapter.py").write_text(ADAPTER, "utf-8")
    impl = ["--impl", "hostile_adapter", "--impl-path", folder]
    if request.param == "--impl-cmd":
        server = f"{sys.executable} {jsonl_server.PATH}"
        impl = ["--impl-cmd", f"{server} hostile_adapter --path {folder}"]
    done = run_cli(*impl, "--only", "extract", "--no-contract", "--results", "r.jsonl",
                   "--json", "r.json", "--html", "r.html", cwd=folder)  # fmt: skip
    return folder, done


def test_an_adapters_import_error_is_shown_escaped(tmp_path):
    (tmp_path / "raising_adapter.py").write_text(f"raise RuntimeError({HOSTILE!r})\n", "utf-8")
    done = run_cli("--impl", "raising_adapter", "--impl-path", tmp_path, cwd=tmp_path)
    assert done.returncode == exit_codes.UNUSABLE
    assert "cannot load raising_adapter: RuntimeError: " in shown(done)


def test_an_adapters_styles_and_exceptions_are_shown_escaped_and_kept_in_its_json(adapter_run):
    folder, done = adapter_run
    assert done.returncode == exit_codes.DIFFERS, done.stderr
    said = shown(done)
    assert f"warning: STYLES names {showdiff.printable(HOSTILE)}" in said and RAISED in said
    assert HOSTILE in strings(json.loads((folder / "r.json").read_text("utf-8")))
    page = (folder / "r.html").read_text("utf-8")  # a bidirectional override reorders a cell
    assert not {"\u202e", "\u2066", "\u2069"} & set(page)
    assert '<span class="escape">\\u202e</span>' in page


def test_a_results_files_styles_and_reasons_are_shown_escaped_by_report(adapter_run):
    folder, _ = adapter_run
    done = run_cli("report", "r.jsonl", cwd=folder)
    assert done.returncode == exit_codes.DIFFERS, done.stderr
    assert RAISED in shown(done)


# the console's own colours (reports/console.py), which --color always adds
OWN_COLOURS = re.compile(r"\x1b\[(?:32|31;1|33|2|0)m")


def test_the_consoles_colour_is_added_after_the_escaping(adapter_run):
    """--color always: the console's own sequences colour the lines, the hostile ones are
    escaped inside them."""
    folder, _ = adapter_run
    done = run_cli("report", "r.jsonl", "--color", "always", cwd=folder)
    assert done.returncode == exit_codes.DIFFERS, done.stderr
    coloured = (done.stdout + done.stderr).decode("utf-8")
    assert "\x1b[31;1mcodeqwen" in coloured  # the failed cell's row, red
    assert RAISED in safe(OWN_COLOURS.sub("", coloured))
