"""lcb_runner's judge, fast: samples streamed to one contained grading process
(grading_process.py), verdicts back in order, each checked; the judge check refusing a stand-in;
codegen_metrics for the regrade goldens and the regrade bench.

lcb_runner's own grading of code-generation samples, fast: the judge of ``regrade``.

Interface (agreed with ``regrade``)::

    grade(problems: Mapping[str, dict], samples: Iterable[Sample], *,
          upstream: Upstream, workers: int | None = None, timeout: int = TIMEOUT,
          rerun_starved: bool = True, rechecks: int = 0) -> Iterator[Graded]

- ``problems``: problem id -> the dataset row (code_generation_lite schema, as
  ``CodeGenerationProblem(**row)`` takes it). Only the rows of problems samples name are read,
  when a sample of a problem the grading process does not hold arrives (it holds the
  PROBLEMS_HELD last used: group a run's samples by problem).
- ``samples``: ``Sample(problem_id, sample_index, code, recheck=True)``, already extracted code
  (regrade runs lcb_runner's extraction before). Consumed lazily: memory stays flat in their
  number. ``recheck``: whether its verdict is rechecked when timing-sensitive.
- yields one ``Graded(problem_id, sample_index, graded, metadata, passed, touched, timing,
  starved, rechecks)`` per
  sample, in the order the samples came: ``graded`` is lcb_runner's graded list for the sample (what
  ``codegen_metrics`` returns in ``results[problem][i]``: True/False/-1..-4 per test, or -2
  for a sample upstream's judge could not run), ``metadata`` its metadata string (what
  ``codegen_metrics`` returns in ``final_metadata[problem][i]``: ``json.dumps`` of the dict),
  ``passed`` lcb_runner's pass rule on it (pass_k_utils.extract_instance_results),
  ``touched`` what the program did to the judge running it (upstream/judge_aware.py's
  summary, {kind: [count, first detail]}; {} for nothing), named and never a verdict;
  ``timing`` the child's (upstream/timing.py: wall and CPU seconds, the judge's execution
  time, the global timeout); ``starved`` the first outcome ({graded, metadata, passed, timing})
  when it was a starved time limit (``rerun_starved``: the sample was run again alone, that
  outcome the one above), else None; ``rechecks`` the outcomes of ``rechecks`` more runs alone
  of a timing-sensitive verdict, else None.
- ``upstream``: an :class:`lcb_conformance.upstream.source.Upstream` (a checkout or the
  installed stand-in); :func:`check_judge` first (below) says whether its judge is 28fef95's.
- ``workers``: how many samples run at once; None (the default): as many as lcb_runner's
  ``codegen_metrics`` runs with its defaults (its ``num_process_evaluate``, read from
  upstream's signature), so a program near its time limit shares the machine's cores as it
  does under lcb_runner on the same machine (and a program sleeping until its limit holds no
  more of the run than there).
- ``timeout``: lcb_runner's per-test timeout (codegen_metrics' default, 6 s).
- raises :class:`GradingFailed` when the grading process dies (the message says how),
  :class:`ProblemRejected` when upstream cannot read a problem's row (codegen_metrics would
  crash on it), KeyError for a sample naming a problem not in ``problems``.

``check_judge(upstream) -> list[str]``: the judge corpus cases (conformance/goldens/judge) on
which this judge, run with ``upstream``, differs from the goldens (28fef95's verdicts);
:func:`require_pinned_judge` raises :class:`JudgeDiffers` naming them (PyPI's
nvidia-livecodebench 26.3 predates 16de2a1's stdin fix: it differs on the stdin-buffer cases).

How it runs. ``grade`` starts one grading process (upstream/grading_process.py) under the
containment every untrusted run uses (adapters/untrusted.py's Contained: bubblewrap, the
judge's address-space limit, limits for the whole tree, nothing it starts outlives it, no
network, a fresh temporary working directory) and streams samples to it and verdicts back
over two pipes, each answer checked to be one the judge can give (:func:`_checked`). That process
imports little beside lcb_runner's judge (compute_code_generation_metrics, which imports
testing_util and numpy), does once what every child would do first (its ``_Grader._warm_up``),
then forks one child per sample, up to ``workers`` at a time, stdin /dev/null. Rows become
evaluation samples by upstream's CodeGenerationProblem in a decoder child forked before any
lcb_runner import, so the forking parent stays lean, while no sample runs.
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
nothing, as an unpicklable one does upstream). The grading process times each child (its wall
clock, its resource usage: upstream/timing.py) and, before answering, runs alone again a
sample whose time limit was starved and, ``rechecks`` times, one whose verdict is
timing-sensitive (docs/regrade-timing.md).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from lcb_conformance.adapters import sandbox
from lcb_conformance.adapters.untrusted import Contained
from lcb_conformance.common import exit_codes
from lcb_conformance.suite import goldens
from lcb_conformance.suite.families import regrade as regrade_family
from lcb_conformance.upstream import grading_process, judge, judge_aware, timing
from lcb_conformance.upstream.grading_process import HeldProblems, json_data
from lcb_conformance.upstream.source import PINNED_COMMIT, Upstream, UpstreamMissing

# codegen_metrics' default per-test timeout (seconds): the leaderboard's.
TIMEOUT = judge.DEFAULT_TIMEOUT
# the judge check's parallelism: one program per core, as the judge goldens were made alone
WORKERS = len(os.sched_getaffinity(0))
EXIT_GRACE_SECONDS = 10  # for the grading process to exit after its last answer


@dataclass(frozen=True)
class Sample:
    problem_id: str
    sample_index: int
    code: str
    recheck: bool = True  # rechecked when its verdict is timing-sensitive (grade's rechecks)


@dataclass(frozen=True)
class Graded:
    problem_id: str
    sample_index: int
    graded: list  # codegen_metrics' results[problem][i]
    metadata: str  # codegen_metrics' final_metadata[problem][i]: json.dumps of a dict
    passed: bool  # pass_k_utils.extract_instance_results
    # what the program did to the judge running it (judge_aware's summary; {} for nothing):
    # named, the verdict stays lcb_runner's
    touched: dict
    timing: dict  # upstream/timing.py's measured: the final outcome's
    starved: dict | None = None  # the starved first outcome, when it was run again alone
    rechecks: list[dict] | None = None  # a timing-sensitive verdict's runs alone


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
    workers: int | None = None,
    timeout: int = TIMEOUT,
    rerun_starved: bool = True,
    rechecks: int = 0,
) -> Iterator[Graded]:
    """lcb_runner's verdict on each sample, in their order (see the module docstring)."""
    runs = _Runs(workers, timeout, rerun_starved, rechecks)
    for sample, answer in _outcomes(problems, samples, upstream, runs):
        if "rejected" in answer:
            raise ProblemRejected(sample.problem_id, answer["rejected"])
        yield Graded(
            sample.problem_id, sample.sample_index, answer["graded"], answer["metadata"],
            answer["passed"], answer["touched"], answer["timing"], answer.get("starved"),
            answer.get("rechecks"),
        )  # fmt: skip


@dataclass(frozen=True)
class _Runs:
    """How the grading process runs samples: at once, per-test timeout, and alone again."""

    workers: int | None
    timeout: int
    rerun_starved: bool = True
    rechecks: int = 0


def _source(upstream: Upstream) -> str:
    return str(upstream.checkout or upstream.source)


def _outcomes(problems, samples, upstream, runs: _Runs) -> Iterator[tuple[Sample, dict]]:
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
                    sys.executable, "-m", grading_process.__spec__.name, _source(upstream),
                    str(runs.workers or grading_process.AS_LCB_RUNNER), str(runs.timeout),
                    str(child_reads), str(child_writes), str(int(runs.rerun_starved)),
                    str(runs.rechecks),
                ],
                memory_limit=judge.MEMORY_LIMIT_BYTES,
                read_only=[_source(upstream)],
                writable=[work],
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
            yield from _converse(problems, iter(samples), runs, (to_child, from_child), still_open)
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


def _converse(problems, samples: Iterator[Sample], runs: _Runs, pipes: tuple[int, int],
              still_open):  # fmt: skip
    """Send samples (and rows the grading process lacks) as JSON lines while reading its
    answers, never blocking on one pipe while the other waits."""
    to_child, from_child = pipes
    os.set_blocking(to_child, False)
    held = HeldProblems()
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
                chunk = os.read(from_child, grading_process.READ_CHUNK)
                if not chunk:
                    raise _Ended
                received += chunk
                *lines, received = received.split(b"\n")
                for line in lines:
                    if not sent:
                        raise GradingFailed("refused the grading process's answers: one more "
                                            "answer than samples sent")  # fmt: skip
                    sample = sent.popleft()
                    yield sample, _checked(sample, line, runs)
    if received:
        raise GradingFailed("refused the grading process's answers: more after the last")


def _checked(sample: Sample, line: bytes, runs: _Runs = _Runs(None, TIMEOUT)) -> dict:
    """The grading process's answer for ``sample``, once it is one it could have given: a
    row upstream rejected, or a graded list, its metadata, ``passed`` as lcb_runner's
    pass_k_utils.extract_instance_results derives it (all(g > 0)), what the program did to
    the judge (``touched``, a summary judge_aware.checked admits), its timing, and the runs
    alone its timing asks for (:func:`_runs_alone_agree`). Nothing a program under test can
    reach writes this pipe (grading_process: not dumpable); this is the second wall."""
    try:
        answer = json.loads(line)
    except ValueError:
        answer = None
    if isinstance(answer, dict) and set(answer) == {"rejected"}:
        return answer
    consistent = (
        isinstance(answer, dict)
        and {"graded", "metadata", "passed", "touched", "timing"} <= set(answer)
        and set(answer)
        <= {"graded", "metadata", "passed", "touched", "timing", "starved", "rechecks"}  # fmt: skip
        and _outcome_agrees(answer)
        and judge_aware.checked(answer["touched"])
        and _runs_alone_agree(sample, answer, runs)
    )
    if not consistent:
        raise GradingFailed(
            f"refused the grading process's answer for {sample.problem_id}[{sample.sample_index}]"
            f": not an answer lcb_runner's judge gives ({line[:120]!r})"
        )
    return answer


def _outcome_agrees(outcome) -> bool:
    """A graded list, its metadata, passed by lcb_runner's rule, and a timing that fits."""
    graded = outcome.get("graded") if isinstance(outcome, dict) else None
    return (
        isinstance(graded, list)
        and all(isinstance(grade, int) for grade in graded)  # True, False, -1 ... -5
        and isinstance(outcome.get("metadata"), str)
        and outcome.get("passed") is all(grade > 0 for grade in graded)
        and timing.well_formed(outcome.get("timing"))
        and _is_json_object(outcome["metadata"])
        and timing.agrees(graded, outcome["metadata"], outcome["timing"])
    )


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def _runs_alone_agree(sample: Sample, answer: dict, runs: _Runs) -> bool:
    """A starved first outcome kept exactly when it was starved and re-running was asked; the
    rechecks exactly when the final verdict is timing-sensitive and they were asked, as many."""
    first = answer.get("starved")
    if first is not None and not (
        runs.rerun_starved
        and set(first) == set(grading_process.RECHECKED)
        and _outcome_agrees(first)
        and timing.starved(first["metadata"], first["timing"], runs.timeout)
    ):
        return False
    starved = timing.starved(answer["metadata"], answer["timing"], runs.timeout)
    if first is None and runs.rerun_starved and starved:
        return False
    wanted = (
        sample.recheck
        and runs.rechecks
        and timing.sensitive(answer["passed"], answer["metadata"], answer["timing"], runs.timeout)
    )
    rechecks = answer.get("rechecks")
    if not wanted:
        return rechecks is None
    return (
        isinstance(rechecks, list)
        and len(rechecks) == runs.rechecks
        and all(
            isinstance(outcome, dict)
            and set(outcome) == set(grading_process.RECHECKED)
            and _outcome_agrees(outcome)
            for outcome in rechecks
        )
    )


def _encode(problems, held: HeldProblems, sample: Sample) -> bytes:
    lines = []
    if not held.use(sample.problem_id):
        row = problems[sample.problem_id]
        held.hold(sample.problem_id)
        lines.append({"problem": sample.problem_id, "row": row})
    lines.append({"sample": sample.problem_id, "code": sample.code, "recheck": sample.recheck})
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


# ---- the judge check -------------------------------------------------------------------------


def check_judge(upstream: Upstream, workers: int = WORKERS) -> list[str]:
    """The judge corpus cases on which grading with ``upstream`` differs from the judge
    goldens (28fef95's verdicts), in corpus order; [] when it agrees on all of them."""
    return differing_cases(judge_verdicts(upstream, workers))


def judge_verdicts(upstream: Upstream, workers: int = WORKERS) -> dict[str, str]:
    """Every judge corpus case's verdict graded with ``upstream``, canonical as its golden is
    (judge.canonical), by case id in corpus order."""
    cases = list(judge.judge_cases().values())
    rows = judge.problems()
    by_timeout: dict[int, list] = {}
    for case in cases:
        by_timeout.setdefault(case.timeout, []).append(case)
    verdicts = {}
    for timeout, group in by_timeout.items():
        samples = (Sample(case.problem, number, case.program) for number, case in enumerate(group))
        answers = _outcomes(rows, samples, upstream, _Runs(workers, timeout))
        for case, (_, answer) in zip(group, answers, strict=True):
            if "rejected" in answer:
                verdict = {"rejected": answer["rejected"]}
            else:
                verdict = judge.normalise(
                    answer["graded"], json.loads(answer["metadata"]), answer["passed"]
                )
            verdicts[case.id] = judge.canonical(verdict)
    return {case.id: verdicts[case.id] for case in cases}


def differing_cases(verdicts: Mapping[str, str]) -> list[str]:
    """The corpus cases whose verdict is not their golden's, in corpus order (a case with no
    verdict among them)."""
    return [
        case_id
        for case_id in judge.judge_cases()
        if verdicts.get(case_id) != goldens.read(goldens.GoldenKey(goldens.JUDGE, "", case_id))
    ]


def _known_differences(upstream: Upstream) -> tuple[list[str], str]:
    """The judge cases an installed stand-in is known to grade differently, and why (judge.py's
    STAND_IN_GAPS: the commits it lacks; test_grading checks check_judge finds exactly these):
    it is refused without grading the corpus first."""
    if upstream.checkout is not None:
        return [], ""
    gaps = judge.STAND_IN_GAPS.get(upstream.version(), {})
    return judge.stand_in_differing(upstream.version()), "; ".join(
        f"it lacks lcb_runner {commit}: it {why}" for commit, why in gaps.items()
    )


NOT_PINNED_JUDGE = "its judge is not 28fef95's"


def require_pinned_judge(upstream: Upstream, workers: int = WORKERS) -> None:
    """Refuse an upstream whose judge differs from 28fef95's: JudgeDiffers naming the cases.
    A tree whose lcb_runner files are 28fef95's (a checkout or an exported tree: its files,
    not git, say so) is the pinned commit itself and is not re-checked."""
    if upstream.has_pinned_files():
        return
    differing, why = _known_differences(upstream)
    if not differing:
        differing, why = check_judge(upstream, workers), NOT_PINNED_JUDGE
    refuse_differing(upstream, differing, why)


def refuse_differing(upstream: Upstream, differing: list[str], why: str = NOT_PINNED_JUDGE):
    """JudgeDiffers naming the judge cases ``upstream`` grades unlike 28fef95, if any."""
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
    ``extract_code(output, LMStyle)`` (a self-repair run's through scenario_router's
    combine_results for Scenario.selfrepair; a run giving ``code``, question_id -> code list,
    instead of ``outputs`` and ``lmstyle`` is graded as it is: the regrade bench's), then
    ``codegen_metrics(samples, code lists)`` with its defaults (16 processes, timeout 6 s), as
    lcb_runner's runner/main does for both scenarios. Per run, by its ``name``: the problems in
    order, the code, codegen_metrics' [metrics, results, metadata] as JSON data (metadata as
    its JSON strings), and the seconds the call took. UpstreamMissing for a stand-in known to
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
        for problem, generations in run.get("code", run.get("outputs")).items()
        for _ in generations
    )
    wall_limit = (TIMEOUT + 1) * tests + 5 * len(runs) + CODEGEN_CHILD_OVERHEAD_SECONDS
    request = {"upstream": source, "runs": runs}
    return sandbox.run_child(__spec__.name, request, wall_limit)


def regrade_golden(upstream: Upstream, key) -> dict:
    """The regrade golden of a fixture run (suite/families/regrade.py): codegen_metrics of
    every fixture run (once per source), this one's as the golden records it."""
    runs = regrade_family.runs()
    answer = codegen_metrics(upstream, list(runs.values()))[runs[key]["name"]]
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


def _repaired_code(upstream: Upstream, run: dict, problems: list[str]) -> list[list[str]]:
    """A self-repair run's code lists as lcb_runner's runner/scenario_router.combine_results
    makes them for Scenario.selfrepair (``output[0]`` of a list, then extract_code for the
    model's LMStyle; it reads only the model's ``model_style``)."""
    router = upstream.module("runner.scenario_router")
    scenario = upstream.module("utils.scenarios").Scenario.selfrepair
    model = types.SimpleNamespace(model_style=upstream.lmstyle(run["lmstyle"]))
    outputs = [run["outputs"][p] for p in problems]
    return [code for _, code in router.combine_results(scenario, outputs, model, False)]


def codegen_child_main(request_path: str, result_path: str) -> int:
    """In the child: codegen_metrics on every run of the request."""
    request = json.loads(Path(request_path).read_text("utf-8"))
    upstream = Upstream(request["upstream"])
    benchmark = upstream.module("benchmarks.code_generation")
    metrics = upstream.module("evaluation.compute_code_generation_metrics")
    done = {}
    for run in request["runs"]:
        problems = sorted(run.get("code", run.get("outputs")))
        samples = [
            benchmark.CodeGenerationProblem(**run["rows"][p]).get_evaluation_sample()
            for p in problems
        ]
        if "code" in run:
            code = [run["code"][p] for p in problems]
        elif run["scenario"] == regrade_family.SELF_REPAIR:
            code = _repaired_code(upstream, run, problems)
        else:
            code = [
                [upstream.extract_as(run["lmstyle"], o) for o in run["outputs"][p]]
                for p in problems
            ]
        start = time.perf_counter()
        scored = metrics.codegen_metrics(samples, code)
        done[run["name"]] = {
            "problems": problems,
            "code": code,
            "scored": json_data(scored),
            "seconds": time.perf_counter() - start,
        }
    Path(result_path).write_text(json.dumps(done), "utf-8")
    return exit_codes.OK


if __name__ == "__main__":
    sys.exit(codegen_child_main(*sys.argv[1:3]))  # sandbox.run_child's REQUEST RESULT
