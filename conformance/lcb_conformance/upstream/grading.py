"""lcb_runner's judge, fast: run_test in a child forked per sample from one pre-imported grading
process under the supervisor, upstream's evaluate_generations_by_problem on its outcome; samples
streamed in, verdicts in order; the judge check refusing a stand-in; codegen_metrics for the
regrade goldens.

lcb_runner's own grading of code-generation samples, fast: the judge of ``regrade``.

Interface (agreed with ``regrade``)::

    grade(problems: Mapping[str, dict], samples: Iterable[Sample], *,
          upstream: Upstream, workers: int = WORKERS, timeout: int = TIMEOUT) -> Iterator[Graded]

- ``problems``: problem id -> the dataset row (code_generation_lite schema, as
  ``CodeGenerationProblem(**row)`` takes it). Only the rows of problems samples name are read,
  when a sample of a problem the grading process does not hold arrives (it holds the
  PROBLEMS_HELD last used: group a run's samples by problem).
- ``samples``: ``Sample(problem_id, sample_index, code)``, already extracted code (regrade runs
  lcb_runner's extraction before). Consumed lazily: memory stays flat in their number.
- yields one ``Graded(problem_id, sample_index, graded, metadata, passed)`` per sample, in the
  order the samples came: ``graded`` is lcb_runner's graded list for the sample (what
  ``codegen_metrics`` returns in ``results[problem][i]``: True/False/-1..-4 per test, or -2
  for a sample upstream's judge could not run), ``metadata`` its metadata string (what
  ``codegen_metrics`` returns in ``final_metadata[problem][i]``: ``json.dumps`` of the dict),
  ``passed`` lcb_runner's pass rule on it (pass_k_utils.extract_instance_results).
- ``upstream``: an :class:`lcb_conformance.upstream.source.Upstream` (a checkout or the
  installed stand-in); :func:`check_judge` first (below) says whether its judge is 28fef95's.
- ``timeout``: lcb_runner's per-test timeout (codegen_metrics' default, 6 s).
- raises :class:`GradingFailed` when the grading process dies (the message says how),
  :class:`ProblemRejected` when upstream cannot read a problem's row (codegen_metrics would
  crash on it), KeyError for a sample naming a problem not in ``problems``.

``check_judge(upstream) -> list[str]``: the judge corpus cases (conformance/goldens/judge) on
which this judge, run with ``upstream``, differs from the goldens (28fef95's verdicts);
:func:`require_pinned_judge` raises :class:`JudgeDiffers` naming them (PyPI's
nvidia-livecodebench 26.3 predates 16de2a1's stdin fix: it differs on the stdin-buffer cases).

How it runs. ``grade`` starts one grading process (``python -m lcb_conformance.upstream.grading``)
under the supervisor every untrusted run uses (adapters/untrusted.py's Contained: the judge's
address-space limit, nothing it starts outlives it, internet sockets refused, a fresh temporary
working directory) and streams samples to it and verdicts back over two pipes. That process
imports lcb_runner's judge once (compute_code_generation_metrics, which imports testing_util
and numpy) and does once what every child would do first (:meth:`_Grader._warm_up`), then
forks one child per sample, up to ``workers`` at a time, stdin /dev/null. Rows become
evaluation samples by upstream's CodeGenerationProblem in a decoder child forked before any
lcb_runner import, so the forking parent stays lean (no ``datasets``), while no sample runs.
The child calls upstream's ``run_test(sample, test=code, debug=False, timeout=timeout)`` exactly as
check_correctness' ``multiprocessing.Process`` does and hands (results, metadata) back through
a pipe, pickled as the Manager's lists would carry them; the parent kills it at
check_correctness' global timeout ((timeout + 1) x tests + 5 s) and kills its process group
when it ends. Then upstream's own ``evaluate_generations_by_problem`` turns that outcome into
the sample's graded list and metadata (its numpy clean-up, and its -5 "TestRunnerError" with
the ``IndexError`` check_correctness raises when the child gave nothing: a crash, SystemExit,
the global timeout, an unpicklable result): the grading process gives it a check_correctness
that returns the child's outcome instead of starting a ``Manager`` and a process. What differs
from upstream is only the plumbing: no pool task, Manager process and Process per sample but a
fork, the rows decoded once per problem held, the child's result unpickled by an unpickler
that admits only numpy's and plain builtin types (anything else counts as a child that gave
nothing, as an unpicklable one does upstream).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import gc
import io
import json
import os
import pickle
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from lcb_conformance.adapters import implementation, sandbox
from lcb_conformance.adapters.jsonl_server import plain
from lcb_conformance.adapters.untrusted import Contained
from lcb_conformance.common import exit_codes
from lcb_conformance.upstream import judge
from lcb_conformance.upstream.source import PINNED_COMMIT, Upstream, UpstreamMissing

# codegen_metrics' default per-test timeout (seconds): the leaderboard's.
TIMEOUT = judge.DEFAULT_TIMEOUT
WORKERS = len(os.sched_getaffinity(0))
# Rows decoded and held by the grading process at once (least recently used dropped): a
# release's private tests run to gigabytes, a run is graded problem by problem.
PROBLEMS_HELD = 8
# Verdicts finished ahead of the oldest unfinished sample, at most: the reorder buffer's
# bound (a slow sample lets the other workers run this far ahead).
AHEAD_PER_WORKER = 256
READ_CHUNK = 1 << 16
EXIT_GRACE_SECONDS = 10  # for the grading process to exit after its last answer
PROBLEM_MESSAGE = b'{"problem"'  # how a row's line starts (_encode)
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


@dataclass(frozen=True)
class Sample:
    problem_id: str
    sample_index: int
    code: str


@dataclass(frozen=True)
class Graded:
    problem_id: str
    sample_index: int
    graded: list  # codegen_metrics' results[problem][i]
    metadata: str  # codegen_metrics' final_metadata[problem][i]: json.dumps of a dict
    passed: bool  # pass_k_utils.extract_instance_results


class GradingFailed(RuntimeError):
    """The grading process ended before grading every sample; the message says how."""


class ProblemRejected(ValueError):
    """lcb_runner cannot read a problem's row (CodeGenerationProblem raises): no verdict."""

    def __init__(self, problem_id: str, raised: dict):
        self.error = f"{raised['type']}: {raised['message']}"  # judge.rejected's record
        super().__init__(f"lcb_runner cannot read problem {problem_id}'s row: {self.error}")
        self.problem_id = problem_id


class JudgeDiffers(RuntimeError):
    """The upstream's judge is not 28fef95's on the judge goldens: its verdicts are not the
    pinned commit's, so they are refused."""


def grade(
    problems: Mapping[str, dict],
    samples: Iterable[Sample],
    *,
    upstream: Upstream,
    workers: int = WORKERS,
    timeout: int = TIMEOUT,
) -> Iterator[Graded]:
    """lcb_runner's verdict on each sample, in their order (see the module docstring)."""
    for sample, answer in _outcomes(problems, samples, upstream, workers, timeout):
        if "rejected" in answer:
            raise ProblemRejected(sample.problem_id, answer["rejected"])
        yield Graded(
            sample.problem_id, sample.sample_index, answer["graded"], answer["metadata"],
            answer["passed"],
        )  # fmt: skip


def _source(upstream: Upstream) -> str:
    return str(upstream.checkout or upstream.source)


class _HeldProblems:
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


def _outcomes(problems, samples, upstream, workers, timeout) -> Iterator[tuple[Sample, dict]]:
    """(sample, the grading process's answer for it), in the samples' order."""
    with tempfile.TemporaryDirectory(prefix="lcb-grading-") as directory:
        root = Path(directory)
        work = root / "work"  # the programs' working directory; our files live beside it
        work.mkdir()
        stderr_path = root / "stderr.txt"
        child_reads, to_child = os.pipe()
        from_child, child_writes = os.pipe()
        with stderr_path.open("wb") as err:
            process = Contained(
                [
                    sys.executable, "-m", __spec__.name, _source(upstream), str(workers),
                    str(timeout), str(child_reads), str(child_writes),
                ],
                memory_limit=judge.MEMORY_LIMIT_BYTES,
                cwd=work,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                env=sandbox.child_environment(),
                pass_fds=(child_reads, child_writes),
            )  # fmt: skip
        os.close(child_reads)
        os.close(child_writes)
        still_open = {to_child, from_child}
        try:
            yield from _converse(problems, iter(samples), to_child, from_child, still_open)
            # it exits once its answers are out: let it (its children's CPU time is then
            # accounted to the caller, as a benchmark reads it); stop() kills it otherwise
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=EXIT_GRACE_SECONDS)
        except _Ended:
            process.stop()
            stderr = stderr_path.read_text("utf-8", errors="replace").strip().splitlines()
            raise GradingFailed(
                f"the grading process ({upstream.describe_source()}) exited with "
                f"{process.returncode}" + (f": {stderr[-1]}" if stderr else "")
            ) from None
        finally:
            for descriptor in still_open:  # once only: a closed number may be reused by now
                os.close(descriptor)
            process.stop()


class _Ended(Exception):
    """The grading process's answers ended before every sample sent had one."""


def _converse(problems, samples: Iterator[Sample], to_child: int, from_child: int, still_open):
    """Send samples (and rows the grading process lacks) as JSON lines while reading its
    answers, never blocking on one pipe while the other waits."""
    os.set_blocking(to_child, False)
    held = _HeldProblems()
    sent: collections.deque[Sample] = collections.deque()
    pending = b""  # encoded, not yet written
    exhausted = False
    received = b""
    with selectors.DefaultSelector() as selector:
        selector.register(from_child, selectors.EVENT_READ)
        selector.register(to_child, selectors.EVENT_WRITE)
        while not exhausted or pending or sent:
            if not pending and not exhausted:
                sample = next(samples, None)
                if sample is None:
                    exhausted = True
                    selector.unregister(to_child)
                    os.close(to_child)  # the grading process reads the end of the samples
                    still_open.discard(to_child)
                    continue
                pending = _encode(problems, held, sample)
                sent.append(sample)
            for key, _ in selector.select():
                if key.fd == to_child:
                    try:
                        written = os.write(to_child, pending)
                    except BrokenPipeError:
                        raise _Ended from None
                    pending = pending[written:]
                    continue
                chunk = os.read(from_child, READ_CHUNK)
                if not chunk:
                    raise _Ended
                received += chunk
                *lines, received = received.split(b"\n")
                for line in lines:
                    yield sent.popleft(), json.loads(line)


def _encode(problems, held: _HeldProblems, sample: Sample) -> bytes:
    lines = []
    if not held.use(sample.problem_id):
        row = problems[sample.problem_id]
        held.hold(sample.problem_id)
        lines.append({"problem": sample.problem_id, "row": row})
    lines.append({"sample": sample.problem_id, "code": sample.code})
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


# ---- the judge check -------------------------------------------------------------------------


def check_judge(upstream: Upstream, workers: int = WORKERS) -> list[str]:
    """The judge corpus cases on which grading with ``upstream`` differs from the judge
    goldens (28fef95's verdicts), in corpus order; [] when it agrees on all of them."""
    from lcb_conformance.suite import goldens

    cases = list(judge.judge_cases().values())
    rows = judge.problems()
    by_timeout: dict[int, list] = {}
    for case in cases:
        by_timeout.setdefault(case.timeout, []).append(case)
    differing = set()
    for timeout, group in by_timeout.items():
        samples = (Sample(case.problem, number, case.program) for number, case in enumerate(group))
        answers = _outcomes(rows, samples, upstream, workers, timeout)
        for case, (_, answer) in zip(group, answers, strict=True):
            if "rejected" in answer:
                verdict = {"rejected": answer["rejected"]}
            else:
                verdict = judge.normalise(
                    answer["graded"], json.loads(answer["metadata"]), answer["passed"]
                )
            golden = goldens.read(goldens.GoldenKey(goldens.JUDGE, "", case.id))
            if judge.canonical(verdict) != golden:
                differing.add(case.id)
    return [case.id for case in cases if case.id in differing]


def _known_differences(upstream: Upstream) -> tuple[list[str], str]:
    """The judge cases an installed stand-in is known to grade differently, and why (judge.py's
    STAND_IN_GAPS: the commits it lacks; test_grading checks check_judge finds exactly these):
    it is refused without grading the corpus first."""
    if upstream.checkout is not None:
        return [], ""
    gaps = judge.STAND_IN_GAPS.get(upstream.version(), {})
    cases = [case.id for case in judge.judge_cases().values() if set(case.needs) & set(gaps)]
    return cases, "; ".join(
        f"it lacks lcb_runner {commit}: it {why}" for commit, why in gaps.items()
    )


def require_pinned_judge(upstream: Upstream, workers: int = WORKERS) -> None:
    """Refuse an upstream whose judge differs from 28fef95's: JudgeDiffers naming the cases.
    A clean checkout of 28fef95 is the pinned commit itself and is not re-checked."""
    if upstream.is_pinned():
        return
    differing, why = _known_differences(upstream)
    if not differing:
        differing, why = check_judge(upstream, workers), "its judge is not 28fef95's"
    if differing:
        raise JudgeDiffers(
            f"{upstream.describe_source()} grades {len(differing)} of the "
            f"{len(judge.judge_cases())} judge cases unlike lcb_runner {PINNED_COMMIT[:7]}: "
            f"{', '.join(differing)} ({why}); pass --upstream PATH, a LiveCodeBench checkout "
            f"at {PINNED_COMMIT[:7]}"
        )


# ---- the regrade goldens: lcb_runner's own codegen_metrics ----------------------------------

# What an installed stand-in of lcb_runner computes differently in codegen_metrics, by its
# version: a regrade golden is reported as not reproducible by it (this reason), not as drift.
STAND_IN_GAPS = {
    "26.3": "its codegen_metrics adds pass@k_stderr to the metrics, and its judge lacks "
    "16de2a1's stdin fix",
}
# Seconds the codegen_metrics child may take beyond upstream's own global timeouts.
CODEGEN_CHILD_OVERHEAD_SECONDS = 120


def codegen_metrics(upstream: Upstream, runs: list[dict]) -> dict[str, dict]:
    """lcb_runner's own evaluation of each run (fixtures/regrade/runs.jsonl lines, with
    ``rows``: question_id -> dataset row), in one sandboxed child: every raw output through
    ``extract_code(output, LMStyle)``, then ``codegen_metrics(samples, code lists)`` with its
    defaults (16 processes, timeout 6 s), as lcb_runner's runner/main does. Per run: the
    problems in order, the extracted code, and codegen_metrics' [metrics, results, metadata]
    as JSON data (metadata as its JSON strings). UpstreamMissing for a stand-in known to
    compute them differently."""
    if upstream.checkout is None and upstream.version() in STAND_IN_GAPS:
        raise UpstreamMissing(
            f"{upstream.describe_source()} evaluates differently: "
            f"{STAND_IN_GAPS[upstream.version()]}"
        )
    return _codegen_metrics_by(_source(upstream), json.dumps(runs, sort_keys=True))


@functools.cache
def _codegen_metrics_by(source: str, runs_json: str) -> dict[str, dict]:
    runs = json.loads(runs_json)
    tests = sum(
        judge.count_tests(run["rows"][problem]) or 1
        for run in runs
        for problem, outputs in run["outputs"].items()
        for _ in outputs
    )
    wall_limit = (TIMEOUT + 1) * tests + 5 * len(runs) + CODEGEN_CHILD_OVERHEAD_SECONDS
    request = {"upstream": source, "runs": runs}
    return sandbox.run_child(__spec__.name, request, wall_limit)


def regrade_golden(upstream: Upstream, key) -> dict:
    """The regrade golden of a fixture run (suite/families/regrade.py): codegen_metrics of
    every fixture run (once per source), this one's as the golden records it."""
    from lcb_conformance.suite.families import regrade

    runs = regrade.runs()
    answer = codegen_metrics(upstream, list(runs.values()))[runs[key]["run"]]
    metrics, results, metadata = answer["scored"]
    problems = answer["problems"]
    return {
        "lmstyle": runs[key]["lmstyle"],
        "problems": problems,
        "code": dict(zip(problems, answer["code"], strict=True)),
        "metrics": metrics,
        "graded": {problem: results[str(i)] for i, problem in enumerate(problems)},
        "metadata": {
            problem: [comparable_metadata(text) for text in metadata[i]]
            for i, problem in enumerate(problems)
        },
    }


def comparable_metadata(text: str) -> dict:
    """A sample's metadata string as the goldens keep it: the judge goldens' normalisation
    ("execution time", a timing, dropped; memory addresses blanked)."""
    return judge.normalise([], json.loads(text))["metadata"]


def codegen_child_main(request_path: str, result_path: str) -> int:
    """In the child: codegen_metrics on every run of the request."""
    sandbox.block_internet()
    request = json.loads(Path(request_path).read_text("utf-8"))
    upstream = Upstream(request["upstream"])
    benchmark = upstream.module("benchmarks.code_generation")
    metrics = upstream.module("evaluation.compute_code_generation_metrics")
    done = {}
    for run in request["runs"]:
        problems = sorted(run["outputs"])
        samples = [
            benchmark.CodeGenerationProblem(**run["rows"][p]).get_evaluation_sample()
            for p in problems
        ]
        code = [
            [upstream.extract_as(run["lmstyle"], o) for o in run["outputs"][p]] for p in problems
        ]
        scored = metrics.codegen_metrics(samples, code)
        done[run["run"]] = {"problems": problems, "code": code, "scored": _json_data(scored)}
    Path(result_path).write_text(json.dumps(done), "utf-8")
    return exit_codes.OK


# ---- inside the grading process --------------------------------------------------------------


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
    return outcome if isinstance(outcome, tuple) and len(outcome) == 2 else None


@dataclass
class _Problem:
    sample: dict | None  # get_evaluation_sample(), None when rejected
    global_timeout: float  # check_correctness' join timeout
    rejected: dict | None = None  # judge.rejected's: what upstream raised, {type, message}


@dataclass
class _Running:
    number: int  # the sample's position in the stream
    problem: _Problem
    code: str
    pid: int
    pidfd: int
    result: int  # the read end of its result pipe
    deadline: float
    data: bytearray


class _Grader:
    """The grading process: reads problems and samples, forks a child per sample, answers in
    order."""

    def __init__(self, source: str, workers: int, timeout: int, incoming: int, outgoing: int):
        # before anything is imported here: the decoder imports the heavy benchmark module
        self.decoder = _Decoder(source, keep_open=(incoming, outgoing))
        self.upstream = Upstream(source)
        self.metrics = self.upstream.module("evaluation.compute_code_generation_metrics")
        self.testing_util = self.upstream.module("evaluation.testing_util")
        self.pass_k = self.upstream.module("evaluation.pass_k_utils")
        self._warm_up()
        # upstream's evaluate_generations_by_problem, given the child's outcome instead of a
        # Manager and a process (see the module docstring)
        self.metrics.check_correctness = self._delivered
        self.delivering: tuple[list, list] = ([], [])
        self.workers, self.timeout = workers, timeout
        self.incoming, self.outgoing = incoming, outgoing
        self.held = _HeldProblems()
        self.buffer = b""
        self.input_ended = False
        self.running: dict[int, _Running] = {}  # by pidfd
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
                elif key.data is not None:
                    self._on_child(key.data, key.fd)
            now = time.monotonic()
            for running in [r for r in self.running.values() if r.deadline <= now]:
                self._finish(running, killed=True)

    def _done(self) -> bool:
        return (
            self.input_ended
            and not self.buffer
            and not self.running
            and self.next_answer == self.next_number
            and not self.output
        )

    def _room(self) -> bool:
        return (
            len(self.running) < self.workers
            and self.next_number - self.next_answer < AHEAD_PER_WORKER * self.workers
            and len(self.output) < READ_CHUNK * 16
        )

    def _start_samples(self) -> None:
        while self._room():
            line, found, rest = self.buffer.partition(b"\n")
            if not found or (self.running and line.startswith(PROBLEM_MESSAGE)):
                return  # a row is decoded while no child runs: no deadline waits on it
            self.buffer = rest
            message = json.loads(line)
            if "problem" in message:
                self._hold(message["problem"], message["row"])
            else:
                self._start(message["sample"], message["code"])

    def _watch(self) -> None:
        wanted = {
            self.incoming: not self.input_ended and self._room() and b"\n" not in self.buffer,
            self.outgoing: bool(self.output),
        }
        for descriptor, want in wanted.items():
            registered = descriptor in self.selector.get_map()
            events = selectors.EVENT_WRITE if descriptor == self.outgoing else selectors.EVENT_READ
            if want and not registered:
                self.selector.register(descriptor, events)
            elif registered and not want:
                self.selector.unregister(descriptor)

    def _hold(self, problem_id: str, row: dict) -> None:
        decoded = self.decoder.decode(row)
        if "rejected" in decoded:  # upstream cannot read the row: no sample of it is graded
            self.held.hold(problem_id, _Problem(None, 0, decoded["rejected"]))
            return
        sample = decoded["sample"]
        tests = len(json.loads(sample["input_output"])["inputs"])
        self.held.hold(problem_id, _Problem(sample, (self.timeout + 1) * tests + 5))

    def _start(self, problem_id: str, code: str) -> None:
        self.held.use(problem_id)
        problem = self.held.held[problem_id]
        number = self.next_number
        self.next_number += 1
        if problem.sample is None:
            self._answer(number, {"rejected": problem.rejected})
            return
        reading, writing = os.pipe()
        pid = os.fork()
        if pid == 0:
            self._child(problem.sample, code, writing)
        os.close(writing)
        pidfd = os.pidfd_open(pid)
        running = _Running(number, problem, code, pid, pidfd, reading,
                           time.monotonic() + problem.global_timeout, bytearray())  # fmt: skip
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
            outcome = self.testing_util.run_test(
                sample, test=code, debug=False, timeout=self.timeout
            )
            data = pickle.dumps(outcome)
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
        os.waitpid(running.pid, 0)
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
        results, metadata = self.metrics.evaluate_generations_by_problem(
            ([running.code], running.problem.sample, False, self.timeout)
        )
        passed = self.pass_k.extract_instance_results({0: results})[0][0]
        self._answer(running.number, {
            "graded": _json_data(results[0]),
            "metadata": json.dumps(metadata[0]),  # as codegen_metrics' final_metadata
            "passed": bool(passed),
        })  # fmt: skip

    def _answer(self, number: int, answer: dict) -> None:
        self.finished[number] = json.dumps(answer).encode() + b"\n"
        while self.next_answer in self.finished:
            self.output += self.finished.pop(self.next_answer)
            self.next_answer += 1


class _Decoder:
    """A child forked before the grading process imports anything of lcb_runner: it imports
    benchmarks.code_generation (which imports the datasets library: seconds, and a hundred
    megabytes every fork would carry) and turns rows into evaluation samples with upstream's
    own CodeGenerationProblem(**row).get_evaluation_sample(), one JSON line each way."""

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
        self.answers = os.fdopen(self.samples, "rb")

    @staticmethod
    def _serve(source: str, rows_read: int, samples_written: int) -> None:
        status = exit_codes.SUITE_BROKEN  # lcb_runner's benchmark could not be imported
        try:
            benchmark = Upstream(source).module("benchmarks.code_generation")
            with os.fdopen(rows_read, "rb") as rows, os.fdopen(samples_written, "wb") as out:
                for line in rows:
                    try:
                        problem = benchmark.CodeGenerationProblem(**json.loads(line))
                        answer = {"sample": problem.get_evaluation_sample()}
                    except Exception as error:  # upstream cannot read the row
                        raised = implementation.raised(error)
                        answer = {"rejected": judge.rejected(raised)["rejected"]}
                    out.write(json.dumps(answer).encode() + b"\n")
                    out.flush()
            status = exit_codes.OK
        finally:
            os._exit(status)

    def decode(self, row: dict) -> dict:
        """{"sample": the evaluation sample} or {"rejected": why upstream cannot read it}."""
        data = json.dumps(row).encode() + b"\n"
        while data:
            data = data[os.write(self.rows, data) :]
        line = self.answers.readline()
        if not line:
            raise RuntimeError("the row decoder ended (it could not import lcb_runner?)")
        return json.loads(line)


def _json_data(value):
    return json.loads(json.dumps(value, default=plain))


def child_main(source: str, workers: str, timeout: str, incoming: str, outgoing: str) -> int:
    sandbox.block_internet()
    grader = _Grader(source, int(workers), int(timeout), int(incoming), int(outgoing))
    grader.serve()
    return exit_codes.OK


if __name__ == "__main__":
    # sandbox.run_child's REQUEST RESULT: the codegen_metrics child; else the grading process
    if len(sys.argv) == 3:
        sys.exit(codegen_child_main(*sys.argv[1:3]))
    sys.exit(child_main(*sys.argv[1:6]))
