"""A verdict's timing (upstream/timing.py, regrade/timing_band.py, docs/regrade-timing.md): a
program correct alone, starved while the cores are taken, is graded again alone and keeps
its idle-machine verdict, both outcomes in the results file; --recheck's timing band and the
samples that flipped in every view, kept by --shard and merge."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import jsonschema
import pytest
import regrade_inputs as inputs
from false_greens.regrade_scenarios import TEST_OUTPUT, TEST_OUTPUT_ROWS

from lcb_conformance import cli
from lcb_conformance.common import exit_codes, paths
from lcb_conformance.regrade import regrade, results_file
from lcb_conformance.upstream import grading, judge, timing

pytestmark = pytest.mark.transformers_independent

GRADING_PROCESS = b"lcb_conformance.upstream.grading_process"
# correct, and well inside a 2 s limit alone: a tight loop of some 0.3 s of CPU
LOOPED_SUM = (
    "a, b = map(int, input().split())\nx = 0\nfor i in range(8_000_000):\n    x += i\n"
    "print(a + b)\n"
)
# a child is stopped once in its program: past the judge's set-up, its test's alarm set
STOP_AFTER_TICKS = 10  # of CPU (clock ticks, 100 a second)
# passes its first run, slowly (over half its 1 s limit: timing-sensitive); every later run
# finds the file it left in the shared working directory and times out: a flip on recheck
FLIPS = (
    "import os, time\na, b = map(int, input().split())\nif os.path.exists('graded-once'):\n"
    "    while True:\n        pass\nopen('graded-once', 'w').close()\ntime.sleep(0.7)\n"
    "print(a + b)\n"
)
SPINS = "while True:\n    pass\n"
HOG_SECONDS = 40  # a hog's bound, should teardown not come


def _one_test_problem(question_id: str) -> dict:
    """The judge corpus's A-plus-B problem with its first test only: a global limit of
    (1 + 1) x 1 + 5 = 7 s at --timeout 1."""
    row = judge.problems()["j_sum"]
    first = json.loads(row["public_test_cases"])[:1]
    return {**row, "question_id": question_id, "public_test_cases": json.dumps(first),
            "private_test_cases": "[]"}  # fmt: skip


def _run(folder: Path, programs: dict[str, list[tuple[str, bool]]]) -> tuple[Path, Path]:
    """A dataset of one-test problems and an lcb_runner-format run on them: per problem its
    (program, the harness's verdict); (dataset folder, run)."""
    dataset = inputs.write(folder / "dataset", [_one_test_problem(q) for q in programs])
    rows = [
        {"question_id": qid, "contest_date": "2025-01-01T00:00:00", "difficulty": "easy",
         "platform": "atcoder",
         "output_list": [f"```python\n{code}```\n" for code, _ in answers],
         "code_list": [code.rstrip("\n") for code, _ in answers],
         "graded_list": [passed for _, passed in answers]}
        for qid, answers in programs.items()
    ]  # fmt: skip
    run = folder / "Scenario.codegeneration_3_0.2_eval_all.json"
    run.write_text(json.dumps(rows), "utf-8")
    return dataset, run


def _regrade(pytestconfig, upstream, *argv: str, timeout: int = 1) -> int:
    accept = ["--accept-judge-differences"] if upstream.checkout is None else []
    return cli.main(["regrade", *argv, "--upstream", pytestconfig.getoption("--upstream"),
                     "--not-a-release", "--style", "OpenAIChat", "--timeout", str(timeout),
                     *accept])  # fmt: skip


class CoresTaken:
    """A busy loop per core, bounded, until :meth:`end` (and at the latest at teardown)."""

    def __init__(self):
        loop = f"import time\nend = time.monotonic() + {HOG_SECONDS}\nwhile time.monotonic() < end:\n    pass\n"  # noqa: E501
        self.hogs = [subprocess.Popen([sys.executable, "-c", loop])
                     for _ in os.sched_getaffinity(0)]  # fmt: skip

    def end(self) -> None:
        for hog in self.hogs:
            hog.kill()
            hog.wait()


@pytest.fixture
def cores_taken():
    taken = CoresTaken()
    yield taken
    taken.end()


class Starver(threading.Thread):
    """Stops the first sample children of this test's grading process (SIGSTOP) once they are
    in their program, one for each of ``stalls`` seconds, then lets them go on: a starved
    child, certainly (no CPU while its wall clock runs); ``then()`` once all are stopped. The
    children after them (the runs alone) run."""

    def __init__(self, stalls: list[float], then):
        super().__init__(daemon=True)
        self.stalls, self.then = list(stalls), then
        self.stopped: list[int] = []
        self.done = threading.Event()

    def run(self) -> None:
        while self.stalls and not self.done.is_set():
            for pid in _sample_children():
                if pid not in self.stopped and self.stalls and _ticks(pid) >= STOP_AFTER_TICKS:
                    self.stopped.append(pid)
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGSTOP)
                    threading.Timer(self.stalls.pop(0), _go_on, (pid,)).start()
            time.sleep(0.001)
        self.then()


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _sample_children() -> list[int]:
    """The children of this test's grading processes (bwrap's below this process) in a
    process group of their own: a sample's (the row decoder stays in its parent's)."""
    found, below = [], _children(os.getpid())
    while below:
        pid = below.pop()
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if command[1:3] != [b"-m", GRADING_PROCESS]:
            below += _children(pid)
            continue
        found += [child for child in _children(pid) if _group(child) == child]
    return sorted(found)


def _group(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[2])
    except OSError:
        return None


def _ticks(pid: int) -> int:
    """The CPU a process has had, in clock ticks (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime, stime


def _go_on(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGCONT)


def test_the_rules_read_only_the_recorded_outcome():
    tle = json.dumps({"error_code": -3, "error_message": "Time Limit Exceeded"})
    ran = {"wall": 1.2, "cpu": 1.1, "execution": None, "global_timeout": False}
    assert timing.sensitive(False, tle, ran, 1) and not timing.starved(tle, ran, 1)
    assert timing.starved(tle, {**ran, "cpu": 0.2}, 1)
    killed = {**ran, "cpu": 0.01, "wall": 7.0, "global_timeout": True}
    assert timing.starved(json.dumps({"error_code": -5}), killed, 1)
    assert not timing.agrees([-3], tle, killed)
    assert timing.agrees([-2], '{"error_code": -5}', killed)
    quick = {**ran, "execution": 0.4}
    assert not timing.sensitive(True, "{}", quick, 1) and timing.sensitive(True, "{}", quick, 0.7)
    assert not timing.starved("{}", {**quick, "cpu": 0.0}, 1)  # a pass is never starved


def test_a_runtime_error_no_sooner_than_a_tests_limit_is_compile_codes_alarm():
    """lcb_runner grades its own alarm during the module's run (compile_code) -4, "Error during
    testing": measured on a loaded machine (bench_regrade_loaded), a correct program starved
    there failed so; as long as one test's limit, it is a time limit to the rules, re-run
    alone when starved; sooner, a runtime error. A /3 results file keeps the rule of /3."""
    alarm = json.dumps({"error_code": -4, "error_message": "Error during testing: "})
    waited = {"wall": 6.0, "cpu": 1.5, "execution": None, "global_timeout": False}
    assert timing.starved(alarm, waited, 6) and timing.sensitive(False, alarm, waited, 6)
    assert not timing.starved(alarm, {**waited, "cpu": 5.9}, 6)
    assert timing.sensitive(False, alarm, {**waited, "cpu": 5.9}, 6)
    sooner = {**waited, "wall": 0.4, "cpu": 0.1}
    assert not timing.starved(alarm, sooner, 6) and not timing.sensitive(False, alarm, sooner, 6)
    assert not timing.starved(alarm, waited, None)
    assert not timing.sensitive(False, alarm, waited, 6, module_alarm=False)


@pytest.mark.upstream
def test_a_starved_program_correct_alone_keeps_its_idle_verdict(pytestconfig, upstream, tmp_path,
                                                                capsys, cores_taken):  # fmt: skip
    """Every core taken, and the two samples' first runs stopped, one past its test's 2 s
    limit, one past the sample's global limit of 8 s (lcb_runner's -5 path): each is graded
    again alone, its verdict the idle machine's (passed), both outcomes in the results file
    and named."""
    dataset, run = _run(tmp_path, {"j_one": [(LOOPED_SUM, True), (LOOPED_SUM, True)]})
    results, out = tmp_path / "r.jsonl", tmp_path / "report.json"
    # the judge check first (a stand-in's, cached): none of its children is to be stopped
    regrade.judge_differences(upstream, accept=upstream.checkout is None)
    starver = Starver([2.5, 9.0], then=cores_taken.end)
    starver.start()
    try:
        code = _regrade(pytestconfig, upstream, str(run), "--dataset", str(dataset), "--workers",
                        "2", "--results", str(results), "--json", str(out), timeout=2)  # fmt: skip
    finally:
        starver.done.set()
    console = capsys.readouterr().out
    assert len(starver.stopped) == 2, console
    assert code == inputs.agreeing_exit(upstream), console
    samples = results_file.read(results).samples
    assert [s["regrade"]["passed"] for s in samples] == [True, True]
    first = sorted((s["starved"] for s in samples), key=lambda o: o["timing"]["global_timeout"])
    assert [o["graded"] for o in first] == [[-3], [-2]]
    assert [o["timing"]["global_timeout"] for o in first] == [False, True]
    assert json.loads(first[1]["metadata"])["error_code"] == -5  # lcb_runner's global timeout
    assert all(o["timing"]["cpu"] < o["timing"]["wall"] / 2 for o in first)
    report = json.loads(out.read_text("utf-8"))
    assert report["regrade"]["lcb_runner"]["pass@1"]["all"] == 100.0
    assert [s["sample"] for s in report["timing"]["starved"]] == ["j_one[0]", "j_one[1]"]
    assert "2 starved time limits" in console
    assert "j_one[1]: failed starved, passed alone" in console
    schema = json.loads(paths.REGRADE_SCHEMA.read_text("utf-8"))
    for line in results.read_text("ascii").splitlines():
        jsonschema.validate(json.loads(line), schema)


QUICK_PASS = {"graded": [True], "metadata": "{}", "passed": True, "touched": {},
              "timing": {"wall": 0.1, "cpu": 0.1, "execution": 0.01, "global_timeout": False}}
STARVED_LIMIT = {"graded": [-3], "metadata": json.dumps({"error_code": -3}), "passed": False,
                 "timing": {"wall": 2.5, "cpu": 0.1, "execution": None, "global_timeout": False}}


@pytest.mark.parametrize("answer,runs", [
    ({**QUICK_PASS, "starved": {**QUICK_PASS, "touched": None}}, grading._Runs(2, 1)),
    ({**QUICK_PASS, "starved": {k: v for k, v in QUICK_PASS.items() if k != "touched"}},
     grading._Runs(2, 1)),
    ({**STARVED_LIMIT, "touched": {}}, grading._Runs(2, 1)),
    ({**QUICK_PASS, "starved": STARVED_LIMIT}, grading._Runs(2, 1, rerun_starved=False)),
    ({**QUICK_PASS, "rechecks": [STARVED_LIMIT]}, grading._Runs(2, 1, rechecks=1)),
    ({**STARVED_LIMIT, "touched": {}, "starved": STARVED_LIMIT, "rechecks": []},
     grading._Runs(2, 1, rechecks=1)),
    ({**QUICK_PASS, "timing": {**QUICK_PASS["timing"], "global_timeout": True}},
     grading._Runs(2, 1)),
])  # fmt: skip
def test_an_answer_whose_runs_alone_its_timing_does_not_ask_for_is_refused(answer, runs):
    """The second wall: a starved outcome kept that was not starved (or not asked to be run
    again), a starved verdict not run again, rechecks of a quick pass or short of the count
    asked, a global timeout graded otherwise than lcb_runner grades one."""
    with pytest.raises(grading.GradingFailed, match="not an answer"):
        grading._checked(grading.Sample("j_sum", 0, ""), json.dumps(answer).encode(), runs)


def test_an_answer_with_its_runs_alone_is_taken():
    runs = grading._Runs(2, 1, rechecks=2)
    answer = {**QUICK_PASS, "starved": STARVED_LIMIT, "rechecks": [STARVED_LIMIT] * 2}
    answer["timing"] = {**QUICK_PASS["timing"], "execution": 0.6}  # over half of 1 s: rechecked
    taken = grading._checked(grading.Sample("j_sum", 0, ""), json.dumps(answer).encode(), runs)
    assert taken["rechecks"] == [STARVED_LIMIT] * 2


def test_recheck_is_refused_for_predictions(capsys):
    """Test output prediction has no judge and no time limit: --recheck is refused, not
    ignored."""
    argv = [TEST_OUTPUT, "--dataset", TEST_OUTPUT_ROWS, "--not-a-release", "--recheck", "2"]
    assert cli.main(["regrade", *argv]) == exit_codes.UNUSABLE
    assert "--recheck: not for" in capsys.readouterr().err


@pytest.mark.upstream
def test_rechecks_give_the_timing_band_in_every_view_and_merge_keeps_them(
    pytestconfig, upstream, tmp_path, capsys
):
    """--recheck 2: the slow pass that times out when graded again flips, the time limit does
    not; console, --json and --html give the band and name the flip; slices merged hold the
    same, their samples byte for byte."""
    dataset, run = _run(tmp_path, {
        "j_one": [(FLIPS, True)], "j_two": [(inputs.CORRECT_SUM, True), (SPINS, False)],
    })  # fmt: skip
    common = [str(run), "--dataset", str(dataset), "--recheck", "2", "--workers", "2"]
    whole, out, page = tmp_path / "whole.jsonl", tmp_path / "report.json", tmp_path / "r.html"
    code = _regrade(pytestconfig, upstream, *common, "--results", str(whole), "--json", str(out),
                    "--html", str(page))  # fmt: skip
    console = capsys.readouterr().out
    assert code == inputs.agreeing_exit(upstream), console
    said = "75.00 (compute_scores, timing band 25.00\u201375.00 over 2 rechecks; 1 sample flipped: j_one[0])"  # noqa: E501
    assert said in console
    report = json.loads(out.read_text("utf-8"))
    assert report["timing"]["band"] == [25.0, 75.0]
    assert report["timing"]["flipped"] == ["j_one[0]"]
    assert report["timing"]["sensitive"] == ["j_one[0]", "j_two[1]"]
    html = page.read_text("utf-8")
    assert "j_one[0]: flipped on recheck" in html and "timing band 25.00" in html
    samples = results_file.read(whole).samples
    assert [len(s.get("rechecks", ())) for s in samples] == [2, 0, 2]
    assert [o["graded"] for o in samples[0]["rechecks"]] == [[-3], [-3]]

    slices = [tmp_path / f"{i}.jsonl" for i in (1, 2)]
    for number, path in enumerate(slices, start=1):
        assert _regrade(pytestconfig, upstream, *common, "--shard", f"{number}/2",
                        "--results", str(path)) == inputs.agreeing_exit(upstream)  # fmt: skip
    merged = tmp_path / "merged.jsonl"
    merged_out = tmp_path / "merged.json"
    assert cli.main(["regrade", "merge", *map(str, slices), "--results", str(merged),
                     "--json", str(merged_out)]) == inputs.agreeing_exit(upstream)  # fmt: skip
    assert inputs.sample_lines(merged) == inputs.sample_lines(*slices)
    assert inputs.unmeasured(merged) == inputs.unmeasured(whole)
    capsys.readouterr()
    assert cli.main(["regrade", "show", str(merged)]) == inputs.agreeing_exit(upstream)
    assert said in capsys.readouterr().out
    merged_timing = json.loads(merged_out.read_text("utf-8"))["timing"]
    assert {k: merged_timing[k] for k in ("band", "flipped")} == {
        "band": [25.0, 75.0], "flipped": ["j_one[0]"]
    }
