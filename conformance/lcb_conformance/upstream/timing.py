"""A verdict's timing: what a sample's child took (wall and CPU seconds, from the grading
process's clock and the child's resource usage), what lcb_runner's judge measured ("execution
time" in its metadata), and the rules read from them: which verdicts a busier or idler machine
could change (timing-sensitive), and which a starved child gave (re-run alone before final).

lcb_runner limits each test by wall-clock time (signal.alarm) and each sample by a global
limit ((timeout + 1) x tests + 5 s), so a verdict near a limit depends on the machine's load.
The rules are pure functions of a recorded outcome, so a results file's reader re-derives
them (regrade/results_file.py) rather than believing what it says. docs/regrade-timing.md.
"""

from __future__ import annotations

import json

TIME_LIMIT_CODE = -3  # run_test's error_code for "Time Limit Exceeded"
RUNTIME_ERROR_CODE = -4  # run_test's for an exception, its own alarm's at the module's run too
RUNNER_ERROR_CODE = -5  # evaluate_generations_by_problem's for a child that gave nothing
# A time-limited child that had less than this share of a core over its wall time waited
# for a core (or was stopped): its verdict is the machine's, not the program's.
STARVED_CPU_SHARE = 0.5
# A pass is timing-sensitive when its tests took more than this share of one test's limit in
# all (the judge records their sum, not the slowest: an upper bound of the slowest).
SENSITIVE_SHARE = 0.5
DIGITS = 3  # seconds kept, to the millisecond
FIELDS = ("wall", "cpu", "execution", "global_timeout")


def measured(wall: float, cpu: float, metadata: str, global_timeout: bool) -> dict:
    """An outcome's timing: the child's wall and CPU seconds, the judge's "execution time"
    (None when its metadata has none: a failure), whether the global limit killed it."""
    execution = json.loads(metadata).get("execution time")
    return {
        "wall": round(wall, DIGITS),
        "cpu": round(cpu, DIGITS),
        "execution": None if execution is None else round(float(execution), DIGITS),
        "global_timeout": global_timeout,
    }


def well_formed(timing) -> bool:
    """Whether ``timing`` is one :func:`measured` gives (a results file's or an answer's)."""
    def seconds(value, nullable=False):
        if value is None:
            return nullable
        return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0

    return (
        isinstance(timing, dict)
        and set(timing) == set(FIELDS)
        and seconds(timing["wall"])
        and seconds(timing["cpu"])
        and seconds(timing["execution"], nullable=True)
        and isinstance(timing["global_timeout"], bool)
    )


def error_code(metadata: str):
    return json.loads(metadata).get("error_code")


def agrees(graded: list, metadata: str, timing: dict) -> bool:
    """A global timeout is what the judge grades [-2] with error_code -5 (nothing came back)."""
    if not timing["global_timeout"]:
        return True
    return graded == [-2] and error_code(metadata) == RUNNER_ERROR_CODE


def time_limited(metadata: str, timing: dict, timeout: float | None) -> bool:
    """A time-limit outcome: a test over its limit, the sample over the global limit, or a
    runtime error that came no sooner than one test's limit: compile_code's alarm, which
    lcb_runner grades -4 ("Error during testing"), when the program's module ran too long
    (measured: a starved module run flipped a pass, docs/performance-regrade-e2e.md).
    ``timeout`` None: a results file of schema /3, written before that rule."""
    code = error_code(metadata)
    module_alarm = (
        timeout is not None and code == RUNTIME_ERROR_CODE and timing["wall"] >= timeout
    )
    return timing["global_timeout"] or code == TIME_LIMIT_CODE or module_alarm


# lcb_runner's error codes as a person reads them (testing_util.run_test; -5: a child that gave
# nothing back, which on a graded [-2] is the global limit: ``agrees``)
OUTCOME_WORDS = {
    -1: "compile error",
    -2: "wrong answer",
    TIME_LIMIT_CODE: "time limit",
    RUNTIME_ERROR_CODE: "runtime error",
    RUNNER_ERROR_CODE: "runner error",
}
TIME_LIMIT, GLOBAL_TIME_LIMIT = "time limit", "global time limit"


def verdict_outcome(verdict: dict) -> str:
    """What a judge's normalised verdict (upstream/judge.normalise: results, passed,
    metadata; no timing, which is the machine's) says, in words: "pass", "time limit",
    "global time limit", "wrong answer", ..., "raises" for a rejected row."""
    if "rejected" in verdict:
        return "raises"
    if verdict.get("passed") is True:
        return "pass"
    code = (verdict.get("metadata") or {}).get("error_code")
    if code == RUNNER_ERROR_CODE and verdict.get("results") == [-2]:
        return GLOBAL_TIME_LIMIT
    return OUTCOME_WORDS.get(code, f"error_code {code}")


def judged_sensitive(golden: dict, answer: dict) -> str | None:
    """Why a judge's answer that differs from lcb_runner's golden may be the machine's load
    ("time limit vs wrong answer": golden first), or None: either side a time limit or a
    global time limit. A pass near the limit cannot be told here: a judge verdict keeps no
    execution time (its golden must be the same bytes on every machine), and such a pass
    that flips is a time limit on the other side."""
    said = verdict_outcome(golden), verdict_outcome(answer)
    if not {TIME_LIMIT, GLOBAL_TIME_LIMIT} & set(said):
        return None
    return " vs ".join(said)


def starved(metadata: str, timing: dict, timeout: float | None) -> bool:
    """A time-limit outcome whose child got far less CPU than wall time: it waited."""
    waited = timing["cpu"] < STARVED_CPU_SHARE * timing["wall"]
    return time_limited(metadata, timing, timeout) and waited


def sensitive(
    passed: bool, metadata: str, timing: dict, timeout: float, module_alarm: bool = True
) -> bool:
    """A verdict a busier or idler machine could change: a time limit, a global time limit,
    or a pass whose tests took more than half a test's limit (``module_alarm`` False: the
    schema /3 rule, no runtime error counted as a time limit)."""
    if time_limited(metadata, timing, timeout if module_alarm else None):
        return True
    execution = timing["execution"]
    return passed and execution is not None and execution > SENSITIVE_SHARE * timeout
