"""The judge: the implementation's judge_program against lcb_runner's judge goldens, the corpus
and the goldens checked for what they must cover, and the child-process runner held to its
safety promises (no hang, no stray process, no write outside its temporary directory).

The upstream judge's own drift run is test_upstream_drift.py (the judge family is one of the
upstream families)."""

from __future__ import annotations

import io
import json
import runpy
import subprocess
import tarfile
import time
from collections import Counter

import escapes
import pytest

from lcb_conformance.common import paths
from lcb_conformance.reports import judge as judge_report
from lcb_conformance.reports.verdict import answer
from lcb_conformance.runner import run as runner
from lcb_conformance.runner.results import ERROR, IDENTICAL, NOT_PROVIDED
from lcb_conformance.suite import families, goldens, judge_cases
from lcb_conformance.suite.cases import FixtureError
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import CHECKOUT_HINT, INSTALLED, Upstream, drift, judge, timing

pytestmark = pytest.mark.transformers_independent  # the judge runs programs

JUDGE_KEYS = families.expected_keys(goldens.JUDGE)


def golden_verdict(case_id: str) -> dict:
    return json.loads(goldens.read(GoldenKey(goldens.JUDGE, "", case_id)))


# ---- the implementation under test ---------------------------------------------------------


JUDGE_CASES = runner.Plan.of(runner.Selection(families=frozenset([goldens.JUDGE]))).sandboxed


@pytest.fixture(scope="session")
def impl_verdicts(case_runner):
    """Every corpus case judged by the implementation's judge_program through the case runner
    (sandboxed child processes, all at once), once per session."""
    return {result.id: result for result in case_runner.sandboxed(JUDGE_CASES)}


@pytest.mark.parametrize("case", JUDGE_CASES, ids=[case["id"] for case in JUDGE_CASES])
def test_judge(case, impl_verdicts, golden):
    """The implementation's verdict on the pair, normalised, is lcb_runner's byte for byte; on
    a row whose tests upstream cannot decode it must raise, not grade."""
    result = impl_verdicts[case["id"]]
    if result.status == NOT_PROVIDED:
        pytest.skip(result.reason)
    assert result.status != ERROR, result.reason
    if "rejected" in golden_verdict(goldens.key_of(case["id"]).case):
        assert result.status == IDENTICAL, result.reason  # it raised, as lcb_runner does
        return
    assert answer(result) == golden(goldens.key_of(case["golden"]))
    assert result.status == IDENTICAL, result.reason


# ---- the corpus and its goldens --------------------------------------------------------------


@pytest.mark.selftest
def test_corpus_meets_the_coverage_floor():
    cases = judge.judge_cases()
    assert len(cases) >= 60
    assert len({case.problem for case in cases.values()}) >= 25
    assert set(judge.CATEGORIES) <= {case.category for case in cases.values()}
    rows = judge.problems()
    call_based = [row for row in rows.values() if "func_name" in json.loads(row["metadata"])]
    assert call_based and len(call_based) < len(rows), "need stdin and call-based problems"
    encoded = [
        row for row in rows.values() if not row["private_test_cases"].lstrip().startswith("[")
    ]
    assert encoded and len(encoded) < len(rows), (
        "need private tests in the dataset's base64/zlib/pickle form and in plain JSON"
    )


@pytest.mark.selftest
def test_every_corpus_problem_is_judged():
    used = {case.problem for case in judge.judge_cases().values()}
    assert not set(judge.problems()) - used


@pytest.mark.selftest
def test_fixture_files_are_what_build_py_writes():
    """problems.jsonl and cases.jsonl come from fixtures/judge/build.py (the readable source):
    a hand edit of either, or an edit of build.py not written out, fails here. Encoded private
    tests are compared decoded (zlib's bytes may differ between builds)."""
    built = runpy.run_path(str(judge_cases.JUDGE_FIXTURES_DIR / "build.py"))
    rows = judge.problems()
    assert [row["question_id"] for row in built["PROBLEMS"]] == list(rows)
    for row in built["PROBLEMS"]:
        stored = rows[row["question_id"]]
        for field, value in row.items():
            if field == "private_test_cases" and field in stored and value != stored[field]:
                assert judge.decode_private(value) == judge.decode_private(stored[field])
            else:
                assert stored[field] == value, f"{row['question_id']}: {field}"
    entries = [built["case_entry"](case) for case in built["CASES"]]
    stored_cases = judge.judge_cases()
    assert [entry["id"] for entry in entries] == list(stored_cases)
    for entry in entries:
        case = stored_cases[entry["id"]]
        assert (case.problem, case.program, case.category, case.covers) == (
            entry["problem"],
            entry["program"],
            entry["category"],
            entry["covers"],
        )
        assert case.timeout == entry.get("timeout", judge.DEFAULT_TIMEOUT)
        assert case.needs == tuple(entry.get("needs", ()))


@pytest.mark.selftest
def test_goldens_hold_every_kind_of_verdict():
    """Upstream produced passes, fails and every error code the corpus is meant to reach."""
    codes = Counter()
    for key in JUDGE_KEYS:
        verdict = golden_verdict(key.case)
        if "rejected" in verdict:
            codes["rejected"] += 1
            continue
        codes["passed" if verdict["passed"] else "failed"] += 1
        codes[verdict["metadata"].get("error_code")] += 1
    for kind in ("passed", "failed", "rejected", -2, -3, -4, -5):
        assert codes[kind], f"no judge golden with {kind}: {dict(codes)}"


@pytest.mark.selftest
@pytest.mark.parametrize("key", JUDGE_KEYS, ids=str)
def test_pass_rule_agrees_with_upstream(key):
    """judge.passed (used for adapters' verdicts) gives the pass upstream's own
    extract_instance_results recorded in the golden."""
    verdict = golden_verdict(key.case)
    if "rejected" not in verdict:
        assert judge.passed(verdict["results"]) is verdict["passed"]


@pytest.mark.selftest
@pytest.mark.parametrize("key", JUDGE_KEYS, ids=str)
def test_goldens_hold_no_timing_or_address(key):
    text = goldens.read(key)
    assert "execution time" not in text
    assert not judge.ADDRESS.search(text.replace("0x?", "")), text


def test_normalise_drops_timings_and_addresses():
    verdict = judge.normalise(
        [True, -4],
        {"execution time": 0.25, "error": "<object at 0x7f3a2b1c9d80>", "error_code": -4},
    )
    assert verdict == {
        "results": [True, -4],
        "passed": False,
        "metadata": {"error": "<object at 0x?>", "error_code": -4},
    }


@pytest.mark.parametrize(
    ("results", "metadata", "message"),
    [
        ((True,), {}, "judge results must be a list, got tuple"),
        ([True], None, "judge metadata must be a dict, got NoneType"),
    ],
)
def test_normalise_names_a_malformed_answer(results, metadata, message):
    with pytest.raises(TypeError, match=message):
        judge.normalise(results, metadata)


def test_a_judge_with_its_own_pass_rule_gives_its_verdict():
    """(results, metadata, passed): the harness's verdict is kept where its rule is not
    lcb_runner's (SkyThought fails a program it got no result for; lcb_runner passes [])."""
    answer = judge.judge_answer(([], {}, False))
    assert judge.normalise(*answer) == {"results": [], "passed": False, "metadata": {}}
    assert judge.normalise(*judge.judge_answer(([], {})))["passed"] is True


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (([True],), "must return \\(results, metadata\\) or \\(results, metadata, passed\\)"),
        ({"results": []}, "must return"),
        (([True], {}, 1), "passed must be a bool, got 1"),
    ],
)
def test_a_malformed_judge_answer_is_named(answer, message):
    with pytest.raises(TypeError, match=message):
        judge.judge_answer(answer)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"id": "x", "problem": "nope", "program": "", "category": "correct", "covers": "c"},
         "problem 'nope' not in"),
        ({"id": "x", "problem": "j_sum", "program": "", "category": "fast", "covers": "c"},
         "category 'fast' is not one of"),
        ({"id": "x", "problem": "j_sum", "program": "", "category": "correct", "covers": " "},
         "say what the case covers"),
        ({"id": "x", "problem": "j_sum", "program": 1, "category": "correct", "covers": "c"},
         "'program' must be a string"),
        ({"id": "x", "problem": "j_sum", "program": "", "category": "correct", "covers": "c",
          "timeout": 0}, "'timeout' must be a whole number"),
        ({"id": "X!", "problem": "j_sum", "program": "", "category": "correct", "covers": "c"},
         "id 'X!' must match"),
    ],
)
def test_a_bad_corpus_line_is_named(tmp_path, monkeypatch, line, message):
    bad = tmp_path / "cases.jsonl"
    bad.write_text(json.dumps(line) + "\n", "utf-8")
    monkeypatch.setattr(judge_cases, "CASES_FILE", bad)
    judge.judge_cases.cache_clear()
    try:
        with pytest.raises(FixtureError, match=f"{bad}:1: .*{message}".replace("(", r"\(")):
            judge.judge_cases()
    finally:
        judge.judge_cases.cache_clear()


# ---- safety of the child-process runner ------------------------------------------------------


def safety_case(case_id: str, program: str, timeout: int) -> judge.JudgeCase:
    return judge.JudgeCase(case_id, "lc_two_sum", program, "timeout", "safety", timeout)


@pytest.fixture(scope="module")
def installed_source():
    """The installed stand-in's judge: enough to exercise the runner (it exec's programs and
    calls reliability_guard like any lcb_runner judge)."""
    try:
        Upstream(INSTALLED).version()
    except Exception as error:  # noqa: BLE001 - any reason it is unusable is a skip reason
        pytest.skip(f"no installed lcb_runner stand-in ({error}); tox -e upstream installs it")
    return INSTALLED


@pytest.mark.selftest
def test_a_program_that_sleeps_forever_is_killed_at_the_wall_limit(installed_source):
    """It ignores SIGALRM, so only a wall-time limit stops it; the suite's limit here is far
    below upstream's own global timeout (which the case's 600 s timeout puts at 20 min)."""
    program = (
        "import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "class Solution:\n    def twoSum(self, nums, target):\n"
        "        while True:\n            time.sleep(1)\n"
    )
    started = time.monotonic()
    outcome = judge.run_batch(
        judge.upstream_spec(installed_source),
        [safety_case("sleeper", program, 600)],
        wall_limit=8,
        parallel=1,
    )
    assert time.monotonic() - started < 30
    assert outcome["sleeper"]["failed"].startswith("no verdict: killed at its wall-time limit")


marker = escapes.marker  # its fixture, here too


@pytest.mark.selftest
def test_a_session_spawned_under_lcb_runners_judge_dies_with_it(installed_source, marker):
    """posix_spawn survives reliability_guard (only fork, Popen, system are removed), and
    setsid=True puts the process in a session of its own, out of the child's process group; a
    program doing that, then running forever, is killed at the wall limit with its spawn."""
    program = escapes.program(
        "import signal\n"
        "os.posix_spawn(sys.executable, [sys.executable, '-c', SLEEPER, "
        "os.path.join(READY, 'a')], MARKED, setsid=True)\n"
        "wait_until_up('a')\n"
        "class Solution:\n    def twoSum(self, nums, target):\n"
        "        signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "        while True:\n            time.sleep(1)\n",
        marker,
    )
    outcome = judge.run_batch(
        judge.upstream_spec(installed_source),
        [safety_case("spawner", program, 600)],
        wall_limit=15,
        parallel=1,
    )
    # killed at the limit, not failed: it got past wait_until_up, its spawn was up
    assert "killed at its wall-time limit" in outcome["spawner"]["failed"]
    assert escapes.survivors(marker) == []


UNGUARDED_JUDGE = """
def judge_program(row, program, timeout):
    exec(program, {"__name__": "__main__"})
    return [True], {}
"""


def unguarded_judge(directory, monkeypatch) -> dict:
    """A judge under test need not guard os.fork as lcb_runner does: one running the program
    in its own process, unguarded."""
    (directory / "lcb_unguarded_judge.py").write_text(UNGUARDED_JUDGE, "utf-8")
    monkeypatch.setenv("PYTHONPATH", str(directory))  # the child imports the adapter from here
    return judge.impl_spec("lcb_unguarded_judge")


@pytest.mark.selftest
@pytest.mark.parametrize("escape", sorted(escapes.ESCAPES))
def test_nothing_a_program_starts_outlives_the_judge(escape, marker, tmp_path, monkeypatch):
    """A program that leaves its process group (setsid), daemonises (double fork), leaves
    grandchildren, or keeps forking, its processes ignoring SIGTERM: when run_batch returns,
    none of them is left, and none held the run open (the verdict came, not the wall limit)."""
    spec = unguarded_judge(tmp_path, monkeypatch)
    program = escapes.program(escapes.ESCAPES[escape], marker)
    outcome = judge.run_batch(spec, [safety_case(escape, program, 6)], wall_limit=60, parallel=1)
    assert outcome[escape]["verdict"]["passed"] is True, outcome  # it ran to its end: all up
    assert escapes.survivors(marker) == []


@pytest.mark.selftest
def test_a_program_that_kills_its_ancestors_leaves_nothing_either(marker, tmp_path, monkeypatch):
    """A program that kills the judge child running it (and tries the sandbox's init): the
    case has no verdict, and what it started is gone all the same."""
    spec = unguarded_judge(tmp_path, monkeypatch)
    program = escapes.program(escapes.KILLS_ITS_ANCESTORS, marker)
    outcome = judge.run_batch(
        spec, [safety_case("regicide", program, 6)], wall_limit=60, parallel=1
    )
    assert outcome["regicide"]["failed"].startswith("no verdict"), outcome
    assert escapes.survivors(marker) == []


@pytest.mark.selftest
def test_survivors_are_found_by_their_marker(marker, tmp_path):
    """The check the tests above rely on finds a process that escaped nothing: one started
    outside any containment, in a session of its own."""
    import sys

    sleeper = subprocess.Popen(
        [sys.executable, "-c", escapes.SLEEPER, str(tmp_path / "up")], start_new_session=True
    )
    try:
        while not (tmp_path / "up").exists():
            assert sleeper.poll() is None
            time.sleep(0.01)
        assert [pid for pid, _ in escapes.survivors(marker)] == [sleeper.pid]
    finally:
        sleeper.kill()
        sleeper.wait()
    assert escapes.survivors(marker) == []


@pytest.mark.selftest
def test_memory_is_limited_and_files_stay_in_the_temporary_directory(installed_source):
    program = (
        "class Solution:\n    def twoSum(self, nums, target):\n"
        "        open('judge-wrote-this.txt', 'w').write('x')\n"
        "        return bytearray(5 * 1024 ** 3)\n"
    )
    outcome = judge.run_batch(
        judge.upstream_spec(installed_source), [safety_case("hog", program, 6)], parallel=1
    )
    verdict = outcome["hog"]["verdict"]
    assert verdict["metadata"]["error"] == "MemoryError()", verdict
    assert not (paths.ROOT / "judge-wrote-this.txt").exists()
    assert not (judge_cases.JUDGE_FIXTURES_DIR / "judge-wrote-this.txt").exists()


# ---- drift: the stand-in's named gaps, and the judge before 16de2a1 ---------------------------


class _Producing:
    """A stand-in for producers.Producer: ``upstream`` and a fixed produced text."""

    def __init__(self, upstream, text: str):
        self.upstream = upstream
        self.text = text

    def __call__(self, key):
        return self.text


class _StandIn:
    checkout = None

    def version(self):
        return "26.3"

    def describe_source(self):
        return "nvidia-livecodebench 26.3"


class _Checkout(_StandIn):
    checkout = paths.ROOT


def test_a_stand_in_lacking_a_needed_commit_is_missing_with_the_reason():
    key = GoldenKey(goldens.JUDGE, "", "sum_stdin_buffer_read")
    verdict = drift.judge(key, _Producing(_StandIn(), "{}\n"), pinned=False)
    assert verdict.status == drift.MISSING
    assert verdict.detail.startswith(
        "judge case sum_stdin_buffer_read needs lcb_runner 16de2a1, which "
        "nvidia-livecodebench 26.3 lacks: it patches sys.stdin with a plain StringIO"
    )


def test_a_stand_in_differing_elsewhere_is_drift():
    key = GoldenKey(goldens.JUDGE, "", "sum_input_correct")
    assert drift.judge(key, _Producing(_StandIn(), "{}\n"), pinned=False).status == drift.DIFFERS


def test_a_checkout_lacking_a_commit_is_drift_not_a_gap():
    key = GoldenKey(goldens.JUDGE, "", "sum_stdin_buffer_read")
    assert drift.judge(key, _Producing(_Checkout(), "{}\n"), pinned=False).status == (
        drift.DIFFERS
    )


BEFORE_STDIN_BUFFER = "16de2a1^"


@pytest.mark.upstream
def test_the_judge_before_16de2a1_fails_exactly_the_cases_that_need_it(upstream, tmp_path):
    """lcb_runner's tree before 16de2a1 (exported from the --upstream checkout's history)
    differs from the goldens on every case that needs 16de2a1, and on a sample of the others
    gives the golden. Needs --upstream=<a LiveCodeBench clone with history>."""
    if upstream.checkout is None:
        pytest.skip(f"needs --upstream=<LiveCodeBench clone>: {CHECKOUT_HINT}")
    tree = tmp_path / "tree"
    tree.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(upstream.checkout), "archive", BEFORE_STDIN_BUFFER, "lcb_runner"],
        capture_output=True,
    )
    if archive.returncode:
        pytest.skip(f"{upstream.checkout} has no {BEFORE_STDIN_BUFFER} (a shallow clone?)")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tree, filter="data")
    cases = judge.judge_cases()
    needing = [case for case in cases.values() if "16de2a1" in case.needs]
    others = [case for case in cases.values() if not case.needs][:6]
    outcomes = judge.run_batch(judge.upstream_spec(str(tree)), needing + others)
    differing = {
        case.id
        for case in needing + others
        if judge.canonical(outcomes[case.id]["verdict"]) != goldens.read(
            GoldenKey(goldens.JUDGE, "", case.id)
        )
    }
    assert differing == {case.id for case in needing}


# ---- what a judge costs: judge_report's directions ------------------------------------------


def _as_outcomes(**changed) -> dict[str, dict]:
    """Every case's golden as a judged outcome, with ``changed`` ones replaced."""
    return {case_id: {"verdict": golden_verdict(case_id)} for case_id in judge.judge_cases()} | (
        changed
    )


def _raised(kind: str, module: str, message: str) -> dict:
    return {"raised": {"type": kind, "module": module, "message": message}}


def test_the_goldens_themselves_have_no_judge_difference():
    assert judge_report.compare(_as_outcomes()) == []


def test_judge_differences_are_named_by_direction():
    passing, failing = golden_verdict("sum_input_correct"), golden_verdict("sum_off_by_one")
    changed = _as_outcomes(
        sum_input_correct={"verdict": {**passing, "passed": False, "results": [-4]}},
        sum_off_by_one={"verdict": {**failing, "passed": True, "results": [True]}},
        sum_zero_division={"verdict": {**golden_verdict("sum_zero_division"), "results": [-3]}},
        malformed_private_payload={"verdict": passing},
        two_sum_correct=_raised("RuntimeError", "builtins", "adapter broke"),
        sorted_correct=_raised("KeyError", "builtins", "'input'"),
    )
    found = {entry["case"]: entry["difference"] for entry in judge_report.compare(changed)}
    assert found == {
        "sum_input_correct": judge_report.FALSE_FAIL,
        "sum_off_by_one": judge_report.FALSE_PASS,
        "sum_zero_division": judge_report.DETAIL,
        "malformed_private_payload": judge_report.GRADED,
        "two_sum_correct": judge_report.NO_VERDICT,
        "sorted_correct": judge_report.NO_VERDICT,
    }


def test_a_raise_where_lcb_runner_raises_is_held_to_what_it_raises():
    """On the row lcb_runner cannot decode, raising what it raises is no difference; raising
    anything else is one (a judge raising KeyError everywhere is not lcb_runner's)."""
    rejected = golden_verdict("malformed_private_payload")["rejected"]
    kind, _, module = rejected["type"].rpartition(".")[::-1]
    same = _as_outcomes(malformed_private_payload=_raised(kind, module, rejected["message"]))
    assert judge_report.compare(same) == []
    other = _as_outcomes(malformed_private_payload=_raised("KeyError", "builtins", "'x'"))
    assert [entry["difference"] for entry in judge_report.compare(other)] == [judge_report.DETAIL]


@pytest.mark.parametrize(
    "golden, answer, why",
    [
        ("sum_infinite_loop", "average_integer_division", "time limit vs wrong answer"),
        ("sum_ignores_alarm", "sum_input_correct", "global time limit vs pass"),
        ("sum_input_correct", "sum_infinite_loop", "pass vs time limit"),
        ("average_integer_division", "bad_json_input", None),  # wrong vs runtime: no timing
        ("average_integer_division", "sum_input_correct", None),
    ],
)
def test_a_judge_difference_at_a_time_limit_is_timing_sensitive(golden, answer, why):
    """upstream/timing.py's rule on two of lcb_runner's own judge verdicts: either a time
    limit (error_code -3) or the global limit (graded [-2], error_code -5: nothing came back)."""
    assert timing.judged_sensitive(golden_verdict(golden), golden_verdict(answer)) == why


def test_the_judge_report_names_a_timing_sensitive_difference():
    """A time limit where lcb_runner passes is a false fail all the same, said to be one the
    machine's load may have decided; a runtime error there is not."""
    changed = _as_outcomes(
        sum_input_correct={"verdict": golden_verdict("sum_infinite_loop")},
        average_correct={"verdict": golden_verdict("bad_json_input")},
    )
    found = {entry["case"]: entry for entry in judge_report.compare(changed)}
    assert found["sum_input_correct"]["difference"] == judge_report.FALSE_FAIL
    assert found["sum_input_correct"]["timing_sensitive"] == "pass vs time limit"
    assert found["average_correct"]["timing_sensitive"] is None
    table = "\n".join(judge_report.table_lines(list(found.values())))
    assert "false fail (pass vs time limit: timing-sensitive: may be the machine's load)" in table
