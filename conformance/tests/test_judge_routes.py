"""The judge on both routes: an implementation's judge_program in-process (sandboxed children)
and over --impl-cmd (its own process under the same limits) gives the same results against the
same goldens; a raise is credited only where lcb_runner raises the same; not provided is a type,
never a phrase; and no judge reads the gate's own stdin."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import interpreters
import miniature_judges
import pytest

from lcb_conformance import cli
from lcb_conformance.adapters import implementation, jsonl_server, process
from lcb_conformance.common import exit_codes
from lcb_conformance.reports import verdict
from lcb_conformance.runner import records
from lcb_conformance.runner import run as runner
from lcb_conformance.runner.results import DIFFERS, ERROR, IDENTICAL, NOT_PROVIDED
from lcb_conformance.suite import goldens, judge_cases
from lcb_conformance.upstream import judge as judge_module

pytestmark = pytest.mark.selftest

TESTS = Path(__file__).parent
JUDGE_CASES = {
    case["id"]: case
    for case in runner.Plan.of(runner.Selection(families=frozenset([goldens.JUDGE]))).sandboxed
}
REJECTED = "judge/malformed_private_payload"  # the row whose tests lcb_runner cannot decode
GRADED = "judge/sum_input_correct"


def served(name: str, python: str | Path = sys.executable) -> str:
    """The --impl-cmd of a miniature judge served by the generic server under ``python``."""
    return shlex.join([str(python), jsonl_server.PATH, f"miniature_judges:{name}", "--path",
                       str(TESTS)])  # fmt: skip


def load(name: str, route: str) -> implementation.Implementation:
    if route == "impl-cmd":
        return process.load_command(served(name))
    return implementation.load(f"miniature_judges:{name}")


def judged(name: str, route: str, case_ids: list[str]) -> dict:
    impl = load(name, route)
    try:
        found = runner.Runner(impl).sandboxed([JUDGE_CASES[case_id] for case_id in case_ids])
    finally:
        if route == "impl-cmd":
            impl.module.remove()
    return {result.id: result for result in found}


ROUTES = ("in-process", "impl-cmd")


@pytest.mark.parametrize("route", ROUTES)
def test_a_judge_raising_what_lcb_runner_raises_there_is_identical_there(route):
    """``own`` decodes the tests as the dataset says: on the undecodable row it raises what
    lcb_runner raises (the golden records it), and grades the others."""
    found = judged("own", route, [REJECTED, GRADED])
    assert found[REJECTED].status == IDENTICAL, found[REJECTED]
    assert found[GRADED].status == IDENTICAL, found[GRADED]


@pytest.mark.parametrize("route", ROUTES)
def test_a_judge_raising_key_error_everywhere_earns_nothing(route):
    found = judged("raises_key_error", route, [REJECTED, GRADED])
    # where lcb_runner raises zlib.error, KeyError is another answer: shown against the golden
    assert found[REJECTED].status == DIFFERS
    assert '"type": "builtins.KeyError"' in found[REJECTED].actual
    assert found[GRADED].status == ERROR
    assert found[GRADED].reason == "KeyError: 'private_test_cases'"


@pytest.mark.parametrize("route", ROUTES)
def test_an_error_saying_does_not_provide_is_an_error(route):
    found = judged("says_does_not_provide", route, [GRADED])
    assert found[GRADED].status == ERROR
    assert "does not provide" in found[GRADED].reason


def test_the_judge_over_impl_cmd_runs_where_it_was_not_provided_before():
    impl = process.load_command(served("own"))
    try:
        assert impl.provides("judge_program")
        found = runner.Runner(impl).sandboxed([JUDGE_CASES[GRADED]])
    finally:
        impl.module.remove()
    assert found[0].status == IDENTICAL


# ---- the sandboxed scorers' outcomes: typed -----------------------------------------------

SCORER_CASES = [
    case
    for case in runner.Plan.of(
        runner.Selection(families=frozenset(["test-output/score"]))
    ).sandboxed
][:2]


def test_not_provided_raised_in_a_sandboxed_scorer_is_not_provided():
    impl = implementation.load("miniatures:scorer_not_provided")
    found = runner.Runner(impl).sandboxed(SCORER_CASES)
    assert [result.status for result in found] == [NOT_PROVIDED] * len(SCORER_CASES)
    # its first call decided: the function is not provided, and not called again
    assert found[0].reason == (
        "miniatures:scorer_not_provided does not provide score_test_output (its first call "
        "raised NotProvided: this harness does not score test output prediction)"
    )
    assert {result.reason for result in found} == {found[0].reason}


def test_a_sandboxed_scorer_error_saying_does_not_provide_is_an_error():
    impl = implementation.load("miniatures:scorer_says_does_not_provide")
    found = runner.Runner(impl).sandboxed(SCORER_CASES)
    assert [result.status for result in found] == [ERROR] * len(SCORER_CASES)
    assert found[0].reason == "ValueError: the harness does not provide a grader for this row"


def test_the_server_sends_an_error_as_data_and_not_provided_by_type_only(tmp_path):
    """Type, module and message cross as data; process.py raises a built-in by its name and
    keeps the record; only the type NotProvided means not provided."""
    (tmp_path / "raising.py").write_text(
        "import zlib\n"
        "def extract_code(model_output, style='generic'):\n"
        "    if model_output == 'zlib':\n"
        "        zlib.decompress(b'no')\n"
        "    raise ValueError('the harness does not provide ' + model_output)\n",
        "utf-8",
    )
    impl = process.load_command(
        f"{shlex.quote(sys.executable)} {jsonl_server.PATH} raising --path {tmp_path}"
    )
    try:
        with pytest.raises(ValueError) as raised:
            impl.extract_code("this")
        assert implementation.raised(raised.value) == {
            "type": "ValueError",
            "module": "builtins",
            "message": "the harness does not provide this",
        }
        assert not implementation.not_provided(implementation.raised(raised.value))
        with pytest.raises(process.RemoteError) as raised:
            impl.extract_code("zlib")
        assert implementation.raised_type(implementation.raised(raised.value)) == "zlib.error"
    finally:
        impl.module.remove()


def test_an_exception_merely_named_not_provided_is_an_error_over_the_protocol():
    """Only the protocol's not-provided answer (type NotProvided, no module) is not provided:
    a program's own class of that name crosses with its module, an error as in-process."""
    impl = process.load_command(
        f"{shlex.quote(sys.executable)} {jsonl_server.PATH} own_not_provided --path {TESTS}"
    )
    try:
        with pytest.raises(process.RemoteError) as raised:
            impl.extract_code("```\na\n```\n```\nb\n```")
        record = implementation.raised(raised.value)
        assert (record["type"], record["module"]) == ("NotProvided", "own_not_provided")
        assert not implementation.not_provided(record)
        with pytest.raises(implementation.NotProvided) as missing:  # the server's own answer
            impl.module.request("decode_context", {"context": []})
        assert implementation.not_provided(implementation.raised(missing.value))
    finally:
        impl.module.remove()


# ---- the gate's own stdin reaches no judge ---------------------------------------------------


def run_gate(*args: str, stdin: str, cwd: Path) -> list[dict]:
    """lcb-conformance run with ``stdin`` on its stdin; its results, timings aside."""
    results = cwd / "results.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "lcb_conformance.cli", *args, "--results", str(results)],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=900,
        env={key: value for key, value in os.environ.items() if key != "NO_COLOR"},
    )
    assert done.returncode in (0, 1), done.stdout[-2000:] + done.stderr[-2000:]
    found = []
    for line in results.read_text("utf-8").splitlines():
        record = json.loads(line)
        if "result" in record:
            record["result"].pop("seconds")
            found.append(record["result"])
    return found


@pytest.mark.parametrize("route", ROUTES)
def test_the_verdicts_do_not_change_with_data_on_the_gates_stdin(route, tmp_path):
    """A judge that reads its process's stdin (as lcb_runner's judged programs do, through
    open(0)) reads nothing, in-process and over --impl-cmd, whatever the gate was given."""
    which = (
        ("--impl-cmd", served("reads_its_stdin"))
        if route == "impl-cmd"
        else ("--impl", "miniature_judges:reads_its_stdin", "--impl-path", str(TESTS))
    )
    args = (*which, "--only", goldens.JUDGE, "--no-contract")
    quiet = run_gate(*args, stdin="", cwd=tmp_path)
    fed = run_gate(*args, stdin="40 2\n" * 1000, cwd=tmp_path)
    assert fed == quiet
    assert all('"judge_read": ""' in result["actual"] for result in fed if result["actual"])


@pytest.mark.upstream
def test_lcb_runners_judge_reads_nothing_from_the_judging_process_stdin(upstream, tmp_path):
    """lcb_runner gives a judged program the real open: its open(0) reads the judging
    process's stdin. The judge child's stdin is /dev/null, so a run with "40 2" on the
    caller's stdin still gives the golden (a program summing open(0) reads nothing)."""
    case = judge_cases.judge_cases()["two_lines_open_0"]
    script = (
        "import json, sys\n"
        "from lcb_conformance.upstream import judge\n"
        "case = judge.judge_cases()['two_lines_open_0']\n"
        f"source = {str(upstream.checkout or upstream.source)!r}\n"
        "outcome = judge.run_batch(judge.upstream_spec(source), [case])\n"
        "print(judge.canonical(outcome[case.id]['verdict']), end='')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input="40 2\n", capture_output=True, text=True,
        timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == goldens.read(goldens.key_of(f"judge/{case.id}"))


# ---- a harness in its own environment: the same results as in-process ------------------------


@pytest.fixture(scope="module")
def in_process_own(tmp_path_factory) -> list[dict]:
    folder = tmp_path_factory.mktemp("in-process")
    args = ("--impl", "miniature_judges:own", "--impl-path", str(TESTS))
    return run_gate(*args, "--only", goldens.JUDGE, "--no-contract", stdin="", cwd=folder)


@pytest.mark.parametrize("which", ["3.10", "debian"])
def test_a_harness_judge_in_its_own_environment_gets_the_in_process_results(
    which, in_process_own, tmp_path
):
    """A harness's judge_program in a virtual environment of its own (lcb_prompts and the
    harness, nothing of lcb-conformance), served by the generic server run by path with that
    environment's python, is held to the 99 judge goldens with the same results, case by
    case, as in-process."""
    harness_python = interpreters.venv_with_lcb_prompts(
        interpreters.other_python(which), tmp_path / "venv"
    )
    assert not interpreters.imports(harness_python, "lcb_conformance")
    over_process = run_gate(
        "--impl-cmd", served("own", harness_python), "--only", goldens.JUDGE, "--no-contract",
        stdin="", cwd=tmp_path,
    )  # fmt: skip
    assert len(over_process) == len(judge_cases.judge_cases()) == len(in_process_own)
    assert over_process == in_process_own
    statuses = {result["status"] for result in over_process}
    assert statuses == {IDENTICAL, DIFFERS}, statuses  # graded against every golden



# ---- a time limit where lcb_runner passes: it differs, and every view says it may be the load


@pytest.mark.parametrize("route", ROUTES)
def test_a_time_limit_where_lcb_runner_passes_differs_and_is_timing_sensitive(route):
    """The judge's answer is a time limit, lcb_runner's golden a pass: the case still differs,
    and its result says why the machine's load may have decided it; a wrong answer is no
    timing matter, nor is a raise."""
    found = judged("time_limit_everywhere", route, [GRADED])[GRADED]
    assert found.status == DIFFERS
    assert found.timing_sensitive == "pass vs time limit"
    assert found.rechecked == found.actual  # re-run alone, a time limit again: both recorded
    assert "pass vs time limit: timing-sensitive: may be the machine's load" in (
        verdict.mismatch_report(found).splitlines()[0]
    )
    raised = judged("raises_key_error", route, [GRADED])[GRADED]
    assert raised.status == ERROR and raised.timing_sensitive is None


def test_a_timing_sensitive_difference_is_identical_only_when_its_re_run_alone_gives_the_golden(
    monkeypatch,
):
    """The batch's answer a time limit, the re-run alone lcb_runner's own verdict: identical,
    both answers kept, and `report` re-derives it so; the same file with the re-run's answer
    on a difference that is no timing matter is refused."""
    golden = json.loads(goldens.read(goldens.key_of(GRADED)))
    time_limit = miniature_judges.time_limit_everywhere.judge_program(None, "", 6)
    calls = []

    def judge(self, cases):  # the batch answers a time limit, the re-run alone the golden
        calls.append([case.id for case in cases])
        verdict = golden if len(calls) > 1 else judge_module.normalise(*time_limit)
        return {case.id: {"verdict": verdict} for case in cases}

    monkeypatch.setattr(runner.Runner, "_judge", judge)
    [found] = runner.Runner(load("own", "in-process")).sandboxed([JUDGE_CASES[GRADED]])
    assert calls == [["sum_input_correct"], ["sum_input_correct"]]
    assert (found.status, found.timing_sensitive) == (IDENTICAL, "pass vs time limit")
    assert found.rechecked == goldens.read(goldens.key_of(GRADED)) != found.actual
    deviations = ()
    assert records._disagreement(found, deviations) == ""
    wrong = dataclasses.replace(found, actual=json.dumps({**golden, "passed": False}))
    assert records._disagreement(wrong, deviations).endswith("its golden is differs")


def test_every_view_names_a_timing_sensitive_difference_and_report_rederives_it(
    tmp_path, capsys
):
    """Console failure groups, the JSON and HTML reports and the results file name the
    timing-sensitive difference; `report RESULTS` derives the field again from the golden and
    the answer the file holds, and exits 1 on it as the run did: a timing-sensitive
    difference still differs."""
    results_file, json_file, html_file = (tmp_path / n for n in ("r.jsonl", "r.json", "r.html"))
    argv = ["run", "--impl", "miniature_judges:time_limit_everywhere", "--impl-path",
            str(TESTS), "--only", goldens.JUDGE, "--no-contract", "--results", str(results_file),
            "--json", str(json_file), "--html", str(html_file)]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "lcb_conformance.cli", *argv],
        capture_output=True, text=True, cwd=tmp_path, timeout=600,
    )  # fmt: skip
    assert done.returncode == exit_codes.DIFFERS, done.stderr[-2000:]
    said = "pass vs time limit: timing-sensitive: may be the machine's load"
    assert said in done.stdout and "differs (timing-sensitive)" in done.stdout
    rows = [json.loads(line)["result"] for line in results_file.read_text().splitlines()[1:-1]]
    assert {r["id"]: r for r in rows}[GRADED]["timing_sensitive"] == "pass vs time limit"
    failures = json.loads(json_file.read_text())["failures"]
    [failure] = [entry for entry in failures if entry["case"] == GRADED]
    assert failure["timing_sensitive"] == "pass vs time limit" and said in failure["report"]
    assert "timing-sensitive: may be the machine&#x27;s load" in html_file.read_text()
    assert cli.main(["report", str(results_file)]) == exit_codes.DIFFERS
    # the field is re-derived, not believed: dropped from a row, the file is refused
    lines = results_file.read_text().splitlines()
    number = next(n for n, line in enumerate(lines) if f'"{GRADED}"' in line)
    record = json.loads(lines[number])
    record["result"]["timing_sensitive"] = None
    lines[number] = json.dumps(record)
    results_file.write_text("\n".join(lines) + "\n")
    assert cli.main(["report", str(results_file)]) == exit_codes.UNUSABLE
    assert "its timing_sensitive is None, its answer's 'pass vs time limit'" in (
        capsys.readouterr().err
    )
