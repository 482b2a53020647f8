"""How lcb_runner scores test output prediction and code execution (LiveCodeBench 28fef95:
compute_test_output_prediction_metrics.py, compute_code_execution_metrics.py), for one
problem's generations: ``[metrics, results]`` as lcb_runner returns them, results keyed by
the problem's index (0).

Both run model text as Python: a test output prediction's expected value is eval()-ed, a code
execution answer is executed in ``assert <output> == <answer>``. Here each one runs in a child
process of its own, forked from an executor process (``python -I``, its own session, an
address-space limit) that has imported BASE_IMPORTS once; each child in a fresh temporary
directory, under a time limit: never in the caller's process.

BASE_IMPORTS is lcb_runner's string constant. lcb_runner executes it as part of every code
execution check, so where numpy or pandas is not installed every answer fails there; here an
import that is not installed is left out instead (no execution-v2 problem uses them), and the
time limit starts after the imports (lcb_runner's covers them too, which a loaded machine can
turn into a false timeout).
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence

from .score import estimate, pass_at_k

# lcb_runner's execution timeout per code execution answer (check_correctness(..., 3)).
EXECUTION_TIMEOUT = 3
# A test output prediction's eval() has no limit in lcb_runner; here it gets this one.
EVAL_TIMEOUT = 10
MEMORY_LIMIT_BYTES = 4 * 1024**3
# test_output_metrics's k_list as lcb_runner's runner passes it.
TEST_OUTPUT_KS = (1, 5)

BASE_IMPORTS = """from itertools import accumulate, chain, combinations, count, permutations, product, groupby, islice, repeat
from copy import deepcopy
from string import ascii_lowercase
from math import floor, log2, log10, sqrt, comb, gcd, ceil, inf, isqrt
from collections import defaultdict, deque, Counter
from bisect import bisect, bisect_left, bisect_right, insort
from heapq import heappush, heappop, heapify, merge
from functools import reduce, cache, lru_cache
from random import randrange, shuffle
from operator import itemgetter, sub
from re import search as re_search  # Assuming 're' refers to a regex search
from os.path import commonprefix
from typing import List, Tuple, Dict, Set, Optional, Union, Any, Callable, Iterable, Iterator, Generator
import copy
import string
import math
import collections
import bisect
import heapq
import functools
import random
import itertools
import operator
import re
import numpy as np
import pandas as pd
from math import log, prod  # 'log' and 'prod' are functions in the math module
from collections import deque, defaultdict, Counter, OrderedDict
from itertools import accumulate, permutations, combinations, product, groupby, islice, chain, repeat, zip_longest, cycle
from functools import lru_cache, reduce, partial
# from sortedcontainers import SortedList, SortedDict, SortedSet
# import sortedcontainers
from operator import iand
import sys
"""  # noqa: E501 (lcb_runner's text, line for line)

# The executor: a process that has run BASE_IMPORTS once (as lcb_runner's check forks from a
# process with them loaded) forks one child per answer, in a fresh temporary directory, so an
# answer costs a fork, not a Python start with numpy and pandas. A child writes "passed" to
# its pipe only when the code ran to its end (an os._exit or a crash on the way leaves nothing:
# a failure); one past its time is killed.
_EXECUTOR = r"""
import contextlib, io, json, os, select, shutil, signal, sys, tempfile
for line in sys.argv[1].splitlines():
    try:
        exec(line, {})
    except ImportError:
        pass
replies = os.fdopen(os.dup(1), "w")
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)

def expired(signum, frame):
    raise TimeoutError("timed out")

def answer(job):
    namespace = {}
    for line in job["imports"].splitlines():
        try:
            exec(line, namespace)
        except ImportError:
            pass
    signal.signal(signal.SIGALRM, expired)
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            signal.setitimer(signal.ITIMER_REAL, job["timeout"])
            if "expression" in job:
                value = eval(job["expression"], namespace)
                signal.setitimer(signal.ITIMER_REAL, 0)
                return value == json.loads(job["expected"])
            exec(job["program"], namespace)
            signal.setitimer(signal.ITIMER_REAL, 0)
            return True
    except BaseException:
        return False

for line in sys.stdin:
    job = json.loads(line)
    directory = tempfile.mkdtemp(prefix="lcb-prompts-answer-")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.chdir(directory)
        passed = answer(job)
        os.write(write, b"passed" if passed is True else b"failed")
        os._exit(0)
    os.close(write)
    ready, _, _ = select.select([read], [], [], job["timeout"] + 5)
    verdict = os.read(read, 16) if ready else b""
    if not ready:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(read)
    shutil.rmtree(directory, ignore_errors=True)
    replies.write(json.dumps(verdict == b"passed") + "\n")
    replies.flush()
"""


class _Executor:
    """The executor process, started on the first answer and kept for the next ones."""

    def __init__(self):
        self.process: subprocess.Popen | None = None

    def run(self, job: dict) -> bool:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-c", _EXECUTOR, BASE_IMPORTS],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                cwd=tempfile.gettempdir(),
                start_new_session=True,  # its answers' processes go with it (close)
                preexec_fn=_limit_memory,
            )
        try:
            self.process.stdin.write(json.dumps(job) + "\n")
            self.process.stdin.flush()
            # start-up and imports come before the first answer's time limit
            ready, _, _ = select.select([self.process.stdout], [], [], job["timeout"] + 60)
            reply = self.process.stdout.readline() if ready else ""
        except OSError:
            reply = ""
        if not reply:  # it died or hung: this answer failed, the next one starts it again
            self.close()
            return False
        return json.loads(reply) is True

    def close(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


_executor = _Executor()
atexit.register(_executor.close)


def score_code_execution(row: Mapping[str, object], generations: Sequence[str]) -> list:
    """lcb_runner's code_execution_metrics for one execution-v2 row: each generation is
    checked by running the row's code then ``assert <output> == <generation>``; a generation
    containing the row's input is skipped (not graded at all), and when every one is skipped
    each counts as failed. Returns [{"pass@1": percent}, {0: [[passed], ...]}]: pass@1 on a
    0-100 scale (code generation and test output prediction use 0-1)."""
    code, test_input, output = (_text(row, name) for name in ("code", "input", "output"))
    generations = _generations(generations)
    results = [
        _run({"imports": BASE_IMPORTS, "program": f"{code}\nassert {output} == {generation}"})
        for generation in generations
        if test_input not in generation
    ] or [False] * len(generations)
    pass_at_1 = estimate(len(results), results.count(True), 1)
    return [{"pass@1": pass_at_1 * 100}, _by_problem(results)]


def score_test_output(row: Mapping[str, object], generations: Sequence[str]) -> list:
    """lcb_runner's test_output_metrics for one test_generation row (k_list [1, 5]): each
    generation's expected value -- the right-hand side of its assert line's ==, or the whole
    text without an assert -- is eval()-ed and compared with the row's first test output read
    as JSON. Returns [metrics, {0: [[passed], ...]}], metrics holding pass@k (0-1) for each k
    not above the number of generations and their per-problem "detail"."""
    expected = _first_output(row)
    results = [
        _run({"imports": "", "expression": _predicted_value(generation), "expected": expected})
        for generation in _generations(generations)
    ]
    by_problem = _by_problem(results)
    return [pass_at_k(by_problem, TEST_OUTPUT_KS), by_problem]


def _predicted_value(generation: str) -> str:
    """The text lcb_runner eval()s for a prediction (check_testcase_output)."""
    lines = generation.splitlines()
    if len(lines) > 1:
        generation = next(
            (line for line in lines if not line.startswith("#") and "assert" in line),
            generation,
        )
    generation = generation.strip()
    if "assert" not in generation:
        return generation
    try:
        tree = ast.parse(generation, mode="exec")
    except SyntaxError:
        return "Invalid syntax"
    if not tree.body:
        return "Empty statement"
    statement = tree.body[0]
    if not isinstance(statement, ast.Assert):
        return "Not an assert statement"
    test = statement.test
    if not isinstance(test, ast.Compare) or not isinstance(test.ops[0], ast.Eq):
        return "Not an equality assertion"
    return str(ast.get_source_segment(generation, test.comparators[0]))


def _by_problem(results: list[bool]) -> dict:
    """lcb_runner's per-problem results: problem 0's generations, one [passed] each."""
    return {0: [[result] for result in results]}


def _run(job: dict) -> bool:
    timeout = EXECUTION_TIMEOUT if "program" in job else EVAL_TIMEOUT
    return _executor.run({**job, "timeout": timeout})


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


def _text(row: object, name: str) -> str:
    if not isinstance(row, Mapping):
        raise TypeError(f"row must be a mapping (a dataset row); got {type(row).__name__}")
    if not isinstance(row.get(name), str):
        raise ValueError(f"row[{name!r}] must be a string")
    return row[name]


def _generations(generations: object) -> list[str]:
    if isinstance(generations, str) or not all(isinstance(g, str) for g in generations):
        raise TypeError("generations must be a list of strings (one problem's answers)")
    return list(generations)


def _first_output(row: Mapping[str, object]) -> str:
    try:
        output = json.loads(_text(row, "test"))[0]["output"]
    except (ValueError, IndexError, KeyError, TypeError):
        raise ValueError(
            "row['test'] must be a JSON list of tests ({input, output, testtype}) with at least "
            "one, as livecodebench/test_generation holds it"
        ) from None
    if not isinstance(output, str):
        raise ValueError("row['test'][0]['output'] must be a string (JSON text)")
    return output
