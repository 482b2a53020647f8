"""Miniature judges: ``judge_program`` adapters that grade, raise, or claim "not provided" by a
phrase, so the judge's every outcome is pinned on both routes (in-process and --impl-cmd).

Standard library only and Python 3.8 or later: a harness's own environment serves them with the
generic server (``python jsonl_server.py miniature_judges:NAME --path conformance/tests``).
`--impl miniature_judges:NAME --impl-path conformance/tests` runs one in-process.

``own`` is a small judge of its own, not lcb_runner's: it decodes the tests as the dataset says
(a JSON list, or base64(zlib(pickle(JSON)))), runs the program once per test in a fresh
interpreter (stdin tests: the input on stdin, the output compared line by line, stripped;
LeetCode tests: ``Solution().<func_name>(*args)`` compared as JSON), stops at the first
failure and reports True per passed test, then -2 (wrong), -3 (time limit) or -4 (runtime
error, with the exception's name: its message differs across Pythons) and the metadata it has.
The program may not fork: a forked copy would race its parent for the input, and the verdict
would depend on the machine. It agrees with lcb_runner where a program passes, and on the row
whose private tests cannot be decoded (it raises what lcb_runner raises there, zlib.error); on
most failing programs its metadata differs.
"""

from __future__ import annotations

import base64
import json
import pickle
import subprocess
import sys
import types
import zlib

WRONG, TIME_LIMIT, RUNTIME_ERROR = -2, -3, -4
NO_FORK = "import os\nos.fork = None\n"
# how a LeetCode test is run: the program, then its method on the JSON arguments
CALL = """
import json, sys
arguments = [json.loads(line) for line in sys.stdin.read().split("\\n") if line.strip()]
print(json.dumps(Solution().{name}(*arguments)))
"""


def tests_of(row: dict) -> list:
    """The row's public and private tests; what decoding raises where it cannot."""
    private = row["private_test_cases"]
    try:
        decoded = json.loads(private)
    except ValueError:
        decoded = json.loads(pickle.loads(zlib.decompress(base64.b64decode(private))))
    return json.loads(row["public_test_cases"]) + decoded


def _run(source: str, stdin: str, timeout: int) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", source],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _lines(text: str) -> list:
    return [line.strip() for line in text.strip().splitlines()]


def _passes(test: dict, done: subprocess.CompletedProcess, functional: bool) -> bool:
    if functional:
        try:
            return json.loads(done.stdout) == json.loads(test["output"])
        except ValueError:
            return False
    return _lines(done.stdout) == _lines(test["output"])


def judge_own(row: dict, program: str, timeout: int):
    name = json.loads(row["metadata"]).get("func_name")
    source = NO_FORK + program + (CALL.format(name=name) if name else "")
    results = []
    for test in tests_of(row):
        try:
            done = _run(source, test["input"], timeout)
        except subprocess.TimeoutExpired:
            return results + [TIME_LIMIT], {"error_code": TIME_LIMIT, "inputs": test["input"]}
        if done.returncode != 0:  # the exception's name: its message differs across Pythons
            error = (done.stderr.strip().splitlines() or [""])[-1].partition(":")[0]
            return results + [RUNTIME_ERROR], {"error_code": RUNTIME_ERROR, "error": error}
        if not _passes(test, done, bool(name)):
            return results + [WRONG], {"error_code": WRONG, "output": done.stdout}
        results.append(True)
    return results, {}


own = types.SimpleNamespace(judge_program=judge_own)


def _raise_key_error(row, program, timeout):
    raise KeyError("private_test_cases")


# a judge raising KeyError on every row: lcb_runner raises zlib.error on one of them only
raises_key_error = types.SimpleNamespace(judge_program=_raise_key_error)


def _raise_value_error_saying_not_provided(row, program, timeout):
    raise ValueError("this row's format: the harness does not provide a decoder for it")


# a judge whose error's message holds the words "does not provide": an error, not "not provided"
says_does_not_provide = types.SimpleNamespace(judge_program=_raise_value_error_saying_not_provided)


def _judge_reading_stdin(row, program, timeout):
    """What lcb_runner lets a judged program do: read the judging process's stdin (open(0))."""
    with open(0, closefd=False) as stdin:
        read = stdin.read()
    return [True], {"judge_read": read}


# a judge returning what it read from its own stdin: /dev/null gives nothing
reads_its_stdin = types.SimpleNamespace(judge_program=_judge_reading_stdin)


def _time_limit_everywhere(row, program, timeout):
    """What a judge on a starved machine may answer: every program over its first test's
    limit, in lcb_runner's form (error_code -3), the programs lcb_runner passes included."""
    return [TIME_LIMIT], {"error_code": TIME_LIMIT, "error_message": "Time Limit Exceeded"}


# a judge answering "time limit" where lcb_runner passes: a timing-sensitive difference
time_limit_everywhere = types.SimpleNamespace(judge_program=_time_limit_everywhere)


def _wrong_answer_everywhere(row, program, timeout):
    return [WRONG], {"error_code": WRONG, "error_message": "Wrong Answer"}


# a judge answering "wrong answer" everywhere: a difference that is no timing matter
wrong_answer_everywhere = types.SimpleNamespace(judge_program=_wrong_answer_everywhere)
