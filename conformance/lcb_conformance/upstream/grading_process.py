"""The grading process, lean: run_test in a child forked per sample, upstream's
evaluate_generations_by_problem on its outcome; rows decoded by upstream's CodeGenerationProblem
in a child forked before any lcb_runner import.

The grading process of upstream/grading.py (``python -m lcb_conformance.upstream.grading_process
SOURCE WORKERS TIMEOUT INCOMING OUTGOING RERUN RECHECK``, under the supervisor; WORKERS a
number, or ``lcb_runner``: codegen_metrics' own default, its ``num_process_evaluate``): reads
rows and samples as JSON lines from INCOMING, forks one child per sample running lcb_runner's
``run_test``, and writes each sample's answer to OUTGOING in the samples' order (grading.py's
docstring says how and why). Each answer carries its timing (upstream/timing.py); a starved
one (RERUN 1) is run again alone, and a timing-sensitive one RECHECK more times alone, before
it is answered: "alone" is with no other child of this process running.
A row is decoded while the samples already started run: nothing waits for the running
children to end before the next problem's row, so a run of one sample per problem grades as
many at once as one of many.

It is the process every sample's child is forked from, so it imports little: the standard
library, lcb_runner's judge (evaluation.compute_code_generation_metrics, which imports
testing_util and numpy) and the few names of this package it needs, nothing of the suite's
readers and reports; a smaller process forks and exits faster. Rows are decoded in a child
forked before any lcb_runner import (:class:`_Decoder`), which alone imports lcb_runner's
benchmark modules. Where the time goes: docs/performance.md (bench/profile_regrade.py).
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import gc
import inspect
import io
import json
import os
import pickle
import select
import selectors
import signal
import sys
import time
import types
from dataclasses import dataclass

from lcb_conformance.adapters.jsonl_server import plain
from lcb_conformance.common import exit_codes
from lcb_conformance.upstream import judge_aware, timing
from lcb_conformance.upstream.source import Upstream

# Rows decoded and held by the grading process at once (least recently used dropped): a
# release's private tests run to gigabytes, a run is graded problem by problem.
PROBLEMS_HELD = 8
# Verdicts finished ahead of the oldest unfinished sample, at most: the reorder buffer's
# bound (a slow sample lets the other workers run this far ahead).
AHEAD_PER_WORKER = 256
READ_CHUNK = 1 << 16
AS_LCB_RUNNER = "lcb_runner"  # WORKERS: as many as codegen_metrics runs by default
# what a sample's other outcomes keep: verdict and timing (what it touched is the final's)
RECHECKED = ("graded", "metadata", "passed", "timing")
PROBLEM_MESSAGE = b'{"problem"'  # how a row's line starts (grading._encode)
PR_SET_DUMPABLE = 4
# What a child's pickled result may hold: numpy arrays and scalars, and builtin containers.
UNPICKLABLE_GLOBALS = {
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("builtins", "complex"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("builtins", "slice"),
    ("builtins", "bytearray"),
}


class HeldProblems:
    """Which rows the grading process holds: the same least-recently-used rule on both sides
    of the pipe, so the caller sends a row exactly when the grading process lacks it."""

    def __init__(self):
        self.held: collections.OrderedDict[str, object] = collections.OrderedDict()

    def use(self, problem_id: str) -> bool:
        """Mark the problem used; False when it was not held (it is now, the oldest dropped)."""
        if problem_id in self.held:
            self.held.move_to_end(problem_id)
            return True
        return False

    def hold(self, problem_id: str, value: object = None) -> None:
        self.held[problem_id] = value
        if len(self.held) > PROBLEMS_HELD:
            self.held.popitem(last=False)


def json_data(value):
    """A value of lcb_runner's results as plain JSON data (numpy scalars as their values)."""
    return json.loads(json.dumps(value, default=plain))


def lcb_runner_workers(metrics: types.ModuleType) -> int:
    """How many samples lcb_runner's codegen_metrics grades at once with its defaults (its
    num_process_evaluate), from upstream's compute_code_generation_metrics module."""
    signature = inspect.signature(metrics.codegen_metrics)
    return signature.parameters["num_process_evaluate"].default


class _ResultUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if (module, name) not in UNPICKLABLE_GLOBALS:
            raise pickle.UnpicklingError(f"{module}.{name} is not a result type")
        return super().find_class(module, name)


def _unpickled(data: bytes) -> tuple | None:
    try:
        outcome = _ResultUnpickler(io.BytesIO(data)).load()
    except Exception:  # nothing, or not a result: the child gave nothing
        return None
    # (results, metadata, what the program did: judge_aware's summary)
    return outcome if isinstance(outcome, tuple) and len(outcome) == 3 else None


@dataclass
class _Problem:
    sample: dict | None  # get_evaluation_sample(), None when rejected
    global_timeout: float  # check_correctness' join timeout
    rejected: dict | None = None  # judge.rejected's: what upstream raised, {type, message}


# Why a child runs: a sample's first run, its run alone after a starved first (its outcome
# final), or a recheck alone of a timing-sensitive verdict.
FIRST, RERUN, RECHECK = "first", "rerun", "recheck"


@dataclass
class _Run:
    number: int  # the sample's position in the stream
    problem: _Problem
    code: str
    recheck: bool  # whether its verdict is rechecked when timing-sensitive
    purpose: str = FIRST


@dataclass
class _Running:
    run: _Run
    started: float
    pid: int
    pidfd: int
    result: int  # the read end of its result pipe
    deadline: float
    data: bytearray


class _Grader:
    """The grading process: reads problems and samples, forks a child per sample, answers in
    order."""

    def __init__(self, source: str, workers: str, timeout: int, incoming: int, outgoing: int,
                 rerun: bool = True, rechecks: int = 0):  # fmt: skip
        # before anything is imported here: the decoder imports the heavy benchmark module
        self.decoder = _Decoder(source, keep_open=(incoming, outgoing))
        self.upstream = Upstream(source)
        self.metrics = self.upstream.module("evaluation.compute_code_generation_metrics")
        self.testing_util = self.upstream.module("evaluation.testing_util")
        self.pass_k = self.upstream.module("evaluation.pass_k_utils")
        # the judge's code, whose events are not the program's (judge_aware)
        self.judge = judge_aware.judge_for(self.testing_util)
        self._warm_up()
        # upstream's evaluate_generations_by_problem, given the child's outcome instead of a
        # Manager and a process (see the module docstring)
        self.metrics.check_correctness = self._delivered
        self.delivering: tuple[list, list] = ([], [])
        self.workers, self.timeout = self._workers(workers), timeout
        self.incoming, self.outgoing = incoming, outgoing
        self.held = HeldProblems()
        self.decoding: str | None = None  # the problem whose row the decoder holds
        self.buffer = b""
        self.input_ended = False
        self.running: dict[int, _Running] = {}  # by pidfd
        self.rerun, self.rechecks = rerun, rechecks
        self.alone: collections.deque[_Run] = collections.deque()  # to run with nothing else
        self.settling: dict[int, dict] = {}  # answers waiting for their runs alone, by number
        self.next_number = 0  # the next sample read gets this number
        self.next_answer = 0  # the next answer to write
        self.finished: dict[int, bytes] = {}
        self.output = bytearray()
        self.selector = selectors.DefaultSelector()
        self.devnull = os.open(os.devnull, os.O_RDWR)

    def _warm_up(self) -> None:
        """Do once here what every child would otherwise do first: import what every graded
        program imports (testing_util's import_string: statistics, fractions), fill
        unittest.mock's lazily built tables (mock_open's file spec) with one call_method of
        nothing (it patches stdin and open and restores them), and move what the process
        holds out of the collector's reach, so children do not copy its pages (gc.freeze)."""
        recursion_limit = sys.getrecursionlimit()
        exec(self.testing_util.import_string, {})  # noqa: S102 (upstream's own constant)
        # import_string raises it to 50000; a child starts at the interpreter's own, as
        # check_correctness' process does (ast.unparse in make_function runs before the
        # program's own import_string raises it)
        sys.setrecursionlimit(recursion_limit)
        self.testing_util.call_method(lambda: None, "")
        gc.freeze()

    def _workers(self, workers: str) -> int:
        """WORKERS as a number: AS_LCB_RUNNER is codegen_metrics' own default."""
        return lcb_runner_workers(self.metrics) if workers == AS_LCB_RUNNER else int(workers)

    def _delivered(self, sample, generation, timeout, debug=True):
        results, metadata = self.delivering
        return results[0], metadata[0]  # IndexError when the child gave nothing, as upstream

    # -- the loop --

    def serve(self) -> None:
        os.set_blocking(self.outgoing, False)
        while not self._done():
            self._start_samples()
            self._watch()
            wait = None
            if self.running:
                wait = max(0.0, min(r.deadline for r in self.running.values()) - time.monotonic())
            for key, _ in self.selector.select(wait):
                if key.fd == self.incoming:
                    chunk = os.read(self.incoming, READ_CHUNK)
                    self.buffer += chunk
                    self.input_ended = not chunk
                elif key.fd == self.outgoing:
                    written = os.write(self.outgoing, self.output)
                    del self.output[:written]
                elif key.fd == self.decoder.answers:
                    self._on_decoded()
                elif key.data is not None:
                    self._on_child(key.data, key.fd)
            now = time.monotonic()
            for running in [r for r in self.running.values() if r.deadline <= now]:
                self._finish(running, killed=True)

    def _done(self) -> bool:
        return (
            self.input_ended
            and not self.buffer
            and self.decoding is None
            and not self.running
            and not self.alone
            and self.next_answer == self.next_number
            and not self.output
        )

    def _room(self) -> bool:
        return (
            not self.alone
            and all(r.run.purpose == FIRST for r in self.running.values())
            and len(self.running) < self.workers
            and self.next_number - self.next_answer < AHEAD_PER_WORKER * self.workers
            and len(self.output) < READ_CHUNK * 16
        )

    def _start_samples(self) -> None:
        """Start samples in order while there is room; a row goes to the decoder at once (the
        lines after it wait for its answer, which the caller's order of problems needs). A
        run alone waits for every running child to end, and holds back the others."""
        if self.alone and not self.running:
            self._fork(self.alone.popleft())
        while self.decoding is None:
            line, found, rest = self.buffer.partition(b"\n")
            is_row = line.startswith(PROBLEM_MESSAGE)
            if not found or not (is_row or self._room()):
                return
            self.buffer = rest
            message = json.loads(line)
            if is_row:
                self.decoding = message["problem"]
                self.decoder.send(message["row"])
            else:
                self._start(message["sample"], message["code"], message.get("recheck", True))

    def _watch(self) -> None:
        wanted = {
            self.incoming: not self.input_ended and self._room() and b"\n" not in self.buffer,
            self.outgoing: bool(self.output),
            self.decoder.answers: self.decoding is not None,
        }
        for descriptor, want in wanted.items():
            registered = descriptor in self.selector.get_map()
            events = selectors.EVENT_WRITE if descriptor == self.outgoing else selectors.EVENT_READ
            if want and not registered:
                self.selector.register(descriptor, events)
            elif registered and not want:
                self.selector.unregister(descriptor)

    def _on_decoded(self) -> None:
        decoded = self.decoder.answer(block=False)
        if decoded is not None:
            problem_id, self.decoding = self.decoding, None
            self._hold(problem_id, decoded)

    def _hold(self, problem_id: str, decoded: dict) -> None:
        if "rejected" in decoded:  # upstream cannot read the row: no sample of it is graded
            self.held.hold(problem_id, _Problem(None, 0, decoded["rejected"]))
            return
        sample = decoded["sample"]
        tests = len(json.loads(sample["input_output"])["inputs"])
        self.held.hold(problem_id, _Problem(sample, (self.timeout + 1) * tests + 5))

    def _start(self, problem_id: str, code: str, recheck: bool) -> None:
        self.held.use(problem_id)
        problem = self.held.held[problem_id]
        number = self.next_number
        self.next_number += 1
        if problem.sample is None:
            self._answer(number, {"rejected": problem.rejected})
            return
        self._fork(_Run(number, problem, code, recheck))

    def _fork(self, run: _Run) -> None:
        reading, writing = os.pipe()
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            self._child(run.problem.sample, run.code, writing)
        os.close(writing)
        pidfd = os.pidfd_open(pid)
        running = _Running(run, started, pid, pidfd, reading,
                           started + run.problem.global_timeout, bytearray())  # fmt: skip
        self.running[pidfd] = running
        self.selector.register(pidfd, selectors.EVENT_READ, running)
        self.selector.register(reading, selectors.EVENT_READ, running)

    def _child(self, sample: dict, code: str, writing: int) -> None:
        """In the forked child: run_test as check_correctness' process does; never returns."""
        try:
            os.setpgid(0, 0)  # its own process group: what it starts is killed with it
            os.dup2(self.devnull, 0)
            os.dup2(self.devnull, 1)
            os.dup2(self.devnull, 2)
            os.closerange(3, writing)
            os.closerange(writing + 1, 1 << 16)
            sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 (as multiprocessing's)
            recorder = judge_aware.Recorder(self.judge)  # hears run_test's events
            results, metadata = self.testing_util.run_test(
                sample, test=code, debug=False, timeout=self.timeout
            )
            data = pickle.dumps((results, metadata, recorder.summary()))
            with open(writing, "wb") as result:
                result.write(data)
        except BaseException:  # noqa: S110 (the program's exit or crash: no result, as upstream)
            pass
        finally:
            os._exit(exit_codes.OK)  # the verdict is the pipe's content, not the status

    def _on_child(self, running: _Running, descriptor: int) -> None:
        if running.pidfd not in self.running:
            return  # finished by an earlier event of the same select
        if descriptor == running.result:
            chunk = os.read(running.result, READ_CHUNK)
            if chunk:
                running.data += chunk
                return
            self.selector.unregister(running.result)
            os.close(running.result)
            running.result = -1
            return
        self._finish(running, killed=False)

    def _finish(self, running: _Running, killed: bool) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(running.pid, signal.SIGKILL)  # it and anything it started
        if killed:
            signal.pidfd_send_signal(running.pidfd, signal.SIGKILL)
        _, _, usage = os.wait4(running.pid, 0)  # the child's CPU, and its children's it waited
        wall = time.monotonic() - running.started
        if running.result != -1:  # what it wrote before it ended
            os.set_blocking(running.result, False)
            with contextlib.suppress(BlockingIOError):
                while chunk := os.read(running.result, READ_CHUNK):
                    running.data += chunk
            self.selector.unregister(running.result)
            os.close(running.result)
        self.selector.unregister(running.pidfd)
        os.close(running.pidfd)
        del self.running[running.pidfd]
        outcome = None if killed else _unpickled(bytes(running.data))
        self.delivering = ([outcome[0]], [outcome[1]]) if outcome else ([], [])
        # a child that gave nothing (its exit, a crash, the global timeout) fails: nothing named
        touched = {}
        if outcome:
            touched = outcome[2] if judge_aware.checked(outcome[2]) else judge_aware.ALTERED
        run = running.run
        results, metadata = self.metrics.evaluate_generations_by_problem(
            ([run.code], run.problem.sample, False, self.timeout)
        )
        passed = self.pass_k.extract_instance_results({0: results})[0][0]
        text = json.dumps(metadata[0])  # as codegen_metrics' final_metadata
        self._settle(run, {
            "graded": json_data(results[0]),
            "metadata": text,
            "passed": bool(passed),
            "touched": touched,
            "timing": timing.measured(wall, usage.ru_utime + usage.ru_stime, text, killed),
        })  # fmt: skip

    def _settle(self, run: _Run, outcome: dict) -> None:
        """Answer the sample, or first run it alone: again when its first outcome was starved
        (that run's outcome final, the starved one kept as ``starved``), then ``rechecks``
        times when its verdict is timing-sensitive (each kept in ``rechecks``)."""
        if run.purpose == RECHECK:
            answer = self.settling[run.number]
            answer["rechecks"].append({name: outcome[name] for name in RECHECKED})
        elif run.purpose == FIRST and self.rerun and timing.starved(
            outcome["metadata"], outcome["timing"], self.timeout
        ):
            self.settling[run.number] = {"starved": {n: outcome[n] for n in RECHECKED}}
            self.alone.append(_Run(run.number, run.problem, run.code, run.recheck, RERUN))
            return
        else:
            answer = {**outcome, **self.settling.pop(run.number, {})}
            sensitive = timing.sensitive(
                answer["passed"], answer["metadata"], answer["timing"], self.timeout
            )
            if run.recheck and self.rechecks and sensitive:
                answer["rechecks"] = []
                self.settling[run.number] = answer
                self.alone.extend(
                    _Run(run.number, run.problem, run.code, True, RECHECK)
                    for _ in range(self.rechecks)
                )
        if len(answer.get("rechecks", ())) == (self.rechecks if "rechecks" in answer else 0):
            self.settling.pop(run.number, None)
            self._answer(run.number, answer)

    def _answer(self, number: int, answer: dict) -> None:
        self.finished[number] = json.dumps(answer).encode() + b"\n"
        while self.next_answer in self.finished:
            self.output += self.finished.pop(self.next_answer)
            self.next_answer += 1


class _Decoder:
    """A child forked before the grading process imports anything of lcb_runner: it imports
    benchmarks.code_generation and turns rows into evaluation samples with upstream's own
    CodeGenerationProblem(**row).get_evaluation_sample(), one JSON line each way. lcb_runner's
    benchmark modules import the ``datasets`` library only to load a dataset (load_dataset,
    Dataset), which decoding a row never does: the decoder imports them with
    :func:`_no_datasets` in its place (its import costs seconds of CPU per grading run)."""

    def __init__(self, source: str, keep_open: tuple[int, ...]):
        rows_read, self.rows = os.pipe()
        self.samples, samples_written = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            for descriptor in (*keep_open, self.rows, self.samples):
                os.close(descriptor)
            self._serve(source, rows_read, samples_written)
        os.close(rows_read)
        os.close(samples_written)
        self.answers = self.samples  # read as its lines arrive (answer)
        os.set_blocking(self.answers, False)
        self.received = bytearray()

    @staticmethod
    def _serve(source: str, rows_read: int, samples_written: int) -> None:
        status = exit_codes.SUITE_BROKEN  # lcb_runner's benchmark could not be imported
        try:
            with os.fdopen(rows_read, "rb") as rows, os.fdopen(samples_written, "wb") as out:
                try:
                    benchmark, answer_for = _Decoder._import(source)
                except Exception as error:  # said on the answers' pipe: the grading process
                    failed = {"failed": f"{type(error).__name__}: {error}"}  # names it
                    out.write(json.dumps(failed).encode() + b"\n")
                    return
                for line in rows:
                    out.write(json.dumps(answer_for(benchmark, line)).encode() + b"\n")
                    out.flush()
            status = exit_codes.OK
        finally:
            os._exit(status)

    @staticmethod
    def _import(source: str):
        """lcb_runner's benchmark module, imported without ``datasets``, and the function
        turning one row's line into its answer."""
        from lcb_conformance.adapters import implementation
        from lcb_conformance.upstream import judge

        sys.modules.setdefault("datasets", _no_datasets())
        benchmark = Upstream(source).module("benchmarks.code_generation")

        def answer_for(benchmark, line: bytes) -> dict:
            try:
                problem = benchmark.CodeGenerationProblem(**json.loads(line))
                return {"sample": problem.get_evaluation_sample()}
            except Exception as error:  # upstream cannot read the row
                return {"rejected": judge.rejected(implementation.raised(error))["rejected"]}

        return benchmark, answer_for

    def send(self, row: dict) -> None:
        """Give the decoder a row; its answer is read with :meth:`answer` before the next row
        is sent (one in flight: neither side then blocks writing while the other does)."""
        data = json.dumps(row).encode() + b"\n"
        try:
            while data:
                data = data[os.write(self.rows, data) :]
        except BrokenPipeError:  # it ended: what it said before, or that it ended
            self.answer(block=True)
            raise

    def decode(self, row: dict) -> dict:
        """:meth:`send` and wait for its answer: a row at a time, outside the grading loop (the
        tests and bench/profile_regrade.py)."""
        self.send(row)
        return self.answer(block=True)

    def answer(self, block: bool) -> dict | None:
        """The row's answer, {"sample": the evaluation sample} or {"rejected": why upstream
        cannot read it}; None while its line is not complete (``block``: wait for it)."""
        while True:
            if block:
                select.select([self.answers], [], [])
            try:
                chunk = os.read(self.answers, READ_CHUNK)
            except BlockingIOError:
                return None
            if not chunk:
                raise RuntimeError("the row decoder ended without a word")
            self.received += chunk
            if chunk.endswith(b"\n"):  # one row in flight: its line ends the decoder's output
                answer = json.loads(bytes(self.received))
                self.received.clear()
                if "failed" in answer:
                    raise RuntimeError(f"the row decoder ended: {answer['failed']}")
                return answer


def _no_datasets() -> types.ModuleType:
    """A module standing for the ``datasets`` library in the row decoder: every name it is
    asked for is a function that raises (nothing in decoding a row calls one)."""

    def unavailable(name: str):
        def refuse(*args, **kwargs):
            raise RuntimeError(f"datasets.{name}: the row decoder loads no dataset")

        return refuse

    module = types.ModuleType("datasets", _no_datasets.__doc__)
    module.__getattr__ = unavailable
    return module


def main(source: str, workers: str, timeout: str, incoming: str, outgoing: str,
         rerun: str = "1", rechecks: str = "0") -> int:
    # Not dumpable (inherited by the decoder and every sample's child): a program can open no
    # other process's /proc/PID/fd, mem or environ, so it cannot write this process's answers
    # or another sample's result pipe (it has no capability in the sandbox to override that).
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    grader = _Grader(source, workers, int(timeout), int(incoming), int(outgoing),
                     rerun == "1", int(rechecks))  # fmt: skip
    grader.serve()
    return exit_codes.OK


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:8]))
