"""Benchmark: lcb_runner's own codegen_metrics against upstream/grading.py's grade, side by side.

    python bench/bench_regrade.py --upstream CHECKOUT [--programs 30] [--scales 1,10]
                                  [--memory-scale 10] [--sets instant,mix] [--json FILE]

The samples are the judge corpus's programs (fixtures/judge/), --programs per problem (each
problem's programs in turn, repeated), over the problems whose rows lcb_runner reads. Two
sets: "instant" (the programs whose golden verdict is reached at once: no -3 time limit, no
-5 runner error, none of the huge-output, deep-recursion and timeout categories) and "mix"
(every program of the problem in turn: runtime errors, exit(), programs that loop or sleep
until a time limit), and "instant-one-per-problem" (the instant samples, each under a
problem of its own with that problem's row: a run of n=1, where every sample brings a new
row). Both sides get the same samples and lcb_runner's default timeout (6 s),
on this machine as it is:

- lcb_runner: ``codegen_metrics(samples, generations)`` with its defaults (16 processes, a
  Manager and a process per sample), in the contained child that the regrade
  goldens come from (grading.codegen_metrics), timed inside the child around the call and
  outside around the whole process;
- grade: ``grading.grade(problems, samples, upstream=...)`` from this process, its default
  workers (as many samples at once as codegen_metrics runs: its num_process_evaluate) or
  ``--workers N``, timed from the call to its last verdict (the grading process's start and
  imports included);
- grade uncontained: the same, its grading process started as a plain child (:class:`Bare`:
  the same command, address-space limit and process group, no bubblewrap), for what the
  containment costs (adapters/untrusted.py; its verdicts must be the same).

Wall time, and the CPU time (user + system) of each side's whole process tree: on a machine
others share, 16 processes take a larger share of the cores than 2 do, so the CPU ratio is
the steadier figure there.

Every graded list and metadata string must be identical (metadata with its "execution time"
dropped and memory addresses blanked, as the judge goldens normalise); the bench stops
otherwise, save for one difference it counts and names: a time limit one side reached (-3,
or check_correctness' global timeout: -5) where the other gave the judge golden's verdict
(lcb_runner's own, on a machine not starved), as a program recursing 50,000 deep can on a
loaded machine.

Memory: grade alone over the instant set at 1x and at --memory-scale times, each in a fresh
process reading the peak resident size of the caller and of the largest process of the
grading tree (getrusage of the reaped children; its grading process uncontained, Bare).
Figures for docs/performance.md, not assertions.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

from bench_record import children_cpu, record_head, write_record

from lcb_conformance.suite import goldens, judge_cases
from lcb_conformance.upstream import Upstream, grading, grading_process, judge

TIMEOUT = grading.TIMEOUT
INSTANT, MIX, ONE_PER_PROBLEM = "instant", "mix", "instant-one-per-problem"
COPY = "/"  # problem id of a copy (one-per-problem set): the corpus problem, COPY, a number
# not instant though no time limit is reached: megabytes printed, 50000 frames deep, a loop
# at import that compile_code's alarm stops (a -4, not a -3)
SLOW_CATEGORIES = ("huge-output", "recursion", "timeout")


def golden(case_id: str) -> dict:
    return json.loads(goldens.read(goldens.GoldenKey(goldens.JUDGE, "", case_id)))


def programs_by_problem(kind: str) -> dict[str, list[str]]:
    """problem id -> its corpus programs of the kind, for problems lcb_runner can read."""
    found: dict[str, list[str]] = {}
    for case in judge_cases.judge_cases().values():
        verdict = golden(case.id)
        if "rejected" in verdict:
            continue
        waits = -3 in verdict["results"] or verdict["metadata"].get("error_code") == -5
        if kind == MIX or not (waits or case.category in SLOW_CATEGORIES):
            found.setdefault(case.problem, []).append(case.program)
    return found


def sample_set(kind: str, per_problem: int, scale: int = 1) -> list[grading.Sample]:
    if kind == ONE_PER_PROBLEM:
        return [
            grading.Sample(f"{sample.problem_id}{COPY}{number}", 0, sample.code)
            for number, sample in enumerate(sample_set(INSTANT, per_problem, scale))
        ]
    samples = []
    for problem, programs in sorted(programs_by_problem(kind).items()):
        cycle = itertools.islice(itertools.cycle(programs), per_problem * scale)
        samples += [grading.Sample(problem, index, code) for index, code in enumerate(cycle)]
    return samples


def corpus_problem(problem_id: str) -> str:
    return problem_id.partition(COPY)[0]


def rows_of(samples: list[grading.Sample]) -> dict[str, dict]:
    """problem id -> the corpus row, for every problem of the samples (copies included)."""
    rows = judge.problems()
    return {s.problem_id: rows[corpus_problem(s.problem_id)] for s in samples}


# ---- lcb_runner's side: grading's codegen_metrics child (the regrade goldens' own) ----------


def run_upstream(upstream: Upstream, samples: list[grading.Sample]) -> dict:
    """codegen_metrics with its defaults on the samples, in the sandboxed child the regrade
    goldens come from (grading.codegen_metrics), timed there around the call and here around
    the whole process."""
    code: dict[str, list[str]] = {}
    for sample in samples:
        code.setdefault(sample.problem_id, []).append(sample.code)
    run = {"name": "bench", "code": code, "rows": rows_of(samples)}
    start, cpu = time.perf_counter(), children_cpu()
    answer = grading.codegen_metrics(upstream, [run])["bench"]
    wall, cpu = time.perf_counter() - start, children_cpu() - cpu
    _, results, metadata = answer["scored"]
    problems = answer["problems"]
    return {
        "wall": wall,
        "cpu": cpu,
        "seconds": answer["seconds"],
        "graded": {problem: results[str(i)] for i, problem in enumerate(problems)},
        "metadata": {problem: metadata[i] for i, problem in enumerate(problems)},
    }


# ---- grade's side --------------------------------------------------------------------------


def run_grade(upstream: Upstream, samples: list[grading.Sample], workers: int) -> dict:
    start, cpu = time.perf_counter(), children_cpu()
    graded = list(grading.grade(rows_of(samples), samples, upstream=upstream, workers=workers))
    return {
        "wall": time.perf_counter() - start,
        "cpu": children_cpu() - cpu,  # the grading tree (this process's own part is small)
        "graded": graded,
    }


class Bare(subprocess.Popen):
    """The grading process without its sandbox: untrusted.Contained's interface, a plain child
    under the same address-space limit, killed with its process group (the bench's baseline,
    never a route of the gate's)."""

    def __init__(self, argv, *, memory_limit=None, read_only=(), writable=(), **popen):
        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

        super().__init__(argv, preexec_fn=limit, start_new_session=True, **popen)  # noqa: PLW1509

    def stop(self) -> None:
        if self.poll() is None:
            os.killpg(self.pid, signal.SIGKILL)
            self.wait()


def run_grade_uncontained(upstream: Upstream, samples, workers: int) -> dict:
    with mock.patch.object(grading, "Contained", Bare):
        return run_grade(upstream, samples, workers)


def golden_verdicts() -> dict[tuple[str, str], tuple[list, dict]]:
    """(problem, program) -> the judge golden's graded list and normalised metadata:
    lcb_runner's verdict on it."""
    verdicts = {}
    for case in judge_cases.judge_cases().values():
        verdict = golden(case.id)
        if "rejected" not in verdict:
            verdicts[(case.problem, case.program)] = (verdict["results"], verdict["metadata"])
    return verdicts


def starved_of_time(one: tuple[list, str], other: tuple[list, str], reference) -> bool:
    """Whether the verdict ``one`` (graded list, metadata string) is a time limit (-3, or
    check_correctness' global timeout: the child killed, a -5 TestRunnerError) where
    ``other`` is lcb_runner's own verdict, ``reference`` (the judge golden's)."""
    (results, metadata), (other_results, other_metadata) = one, other
    timed_out = -3 in results or json.loads(metadata).get("error_code") == -5
    other_is_reference = (other_results, grading.comparable_metadata(other_metadata)) == reference
    return timed_out and other_is_reference


def check_identical(samples, upstream_answer: dict, graded: list[grading.Graded]) -> dict:
    """How many verdicts are identical, and how many differ only by a time limit one side
    reached on a machine others share while the other side gave lcb_runner's own verdict (the
    judge golden's: :func:`starved_of_time`); the bench stops on any other difference."""
    reference = golden_verdicts()
    differing, starved = [], 0
    for sample, mine in zip(samples, graded, strict=True):
        theirs = upstream_answer["graded"][sample.problem_id][sample.sample_index]
        their_metadata = upstream_answer["metadata"][sample.problem_id][sample.sample_index]
        if mine.graded == theirs and grading.comparable_metadata(
            mine.metadata
        ) == grading.comparable_metadata(their_metadata):
            continue
        verdicts = (mine.graded, mine.metadata), (theirs, their_metadata)
        expected = reference[(corpus_problem(sample.problem_id), sample.code)]
        if starved_of_time(*verdicts, expected) or starved_of_time(*verdicts[::-1], expected):
            starved += 1
            print(f"TIME LIMIT UNDER LOAD {sample.problem_id}#{sample.sample_index}: grade "
                  f"{mine.graded}, codegen_metrics {theirs}", file=sys.stderr)  # fmt: skip
            continue
        differing.append((sample, mine, theirs, their_metadata))
    for sample, mine, theirs, their_metadata in differing[:5]:
        print(f"DIFFERS {sample.problem_id}#{sample.sample_index}: {mine.graded} "
              f"{mine.metadata} vs {theirs} {their_metadata}", file=sys.stderr)  # fmt: skip
    if differing:
        raise SystemExit(f"{len(differing)} of {len(samples)} verdicts differ")
    return {"identical_verdicts": len(samples) - starved, "time_limit_under_load": starved}


def memory_child(source: str, per_problem: int, scale: int, workers: int) -> int:
    """In a fresh process: grade the instant set at ``scale``, samples made lazily; print the
    peak resident sizes (KiB) of this process and of the largest process it reaped. The
    grading process runs uncontained (:class:`Bare`) here: a sandbox's init passes no resource
    usage of its children up, and bubblewrap's own processes hold no samples."""
    samples = (
        grading.Sample(problem, index, code)
        for problem, programs in sorted(programs_by_problem(INSTANT).items())
        for index, code in enumerate(
            itertools.islice(itertools.cycle(programs), per_problem * scale)
        )
    )
    with mock.patch.object(grading, "Contained", Bare):
        count = sum(1 for _ in grading.grade(
            judge.problems(), samples, upstream=Upstream(source), workers=workers
        ))  # fmt: skip
    print(json.dumps({
        "samples": count,
        "caller_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "grading_tree_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    }))  # fmt: skip
    return 0


def measure_memory(source: str, per_problem: int, scale: int, workers: int) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--memory-child", source, str(per_problem), str(scale),
         str(workers)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)


def compared(samples, theirs: dict, mine: dict, bare: dict) -> dict:
    """One set's figures, every side on the same samples."""
    check_identical(samples, theirs, bare["graded"])  # the baseline's verdicts are lcb_runner's too
    return {
        "samples": len(samples),
        "problems": len({s.problem_id for s in samples}),
        **check_identical(samples, theirs, mine["graded"]),
        "codegen_metrics_call_seconds": round(theirs["seconds"], 2),
        "codegen_metrics_process_seconds": round(theirs["wall"], 2),
        "grade_seconds": round(mine["wall"], 2),
        "speedup_vs_call": round(theirs["seconds"] / mine["wall"], 2),
        "speedup_vs_process": round(theirs["wall"] / mine["wall"], 2),
        "grade_ms_per_sample": round(1000 * mine["wall"] / len(samples), 2),
        "codegen_metrics_cpu_seconds": round(theirs["cpu"], 2),
        "grade_cpu_seconds": round(mine["cpu"], 2),
        "codegen_metrics_cpu_ms_per_sample": round(1000 * theirs["cpu"] / len(samples), 2),
        "grade_cpu_ms_per_sample": round(1000 * mine["cpu"] / len(samples), 2),
        "cpu_ratio": round(theirs["cpu"] / mine["cpu"], 2),
        "uncontained_grade_seconds": round(bare["wall"], 2),
        "uncontained_grade_cpu_seconds": round(bare["cpu"], 2),
        "containment_cost_wall_percent": round(100 * (mine["wall"] / bare["wall"] - 1), 1),
        "containment_cost_cpu_percent": round(100 * (mine["cpu"] / bare["cpu"] - 1), 1),
    }


def main() -> int:
    if sys.argv[1:2] == ["--memory-child"]:
        source, per_problem, scale, workers = sys.argv[2:6]
        return memory_child(source, int(per_problem), int(scale), int(workers))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", required=True, help="a LiveCodeBench checkout (28fef95)")
    parser.add_argument("--programs", type=int, default=30, help="samples per problem")
    parser.add_argument(
        "--memory-scale", type=int, default=10, help="the larger memory run (0: no memory runs)"
    )
    parser.add_argument("--sets", default=f"{INSTANT},{MIX}", help="which sample sets")
    parser.add_argument(
        "--scales", default="1", help="side-by-side runs at these multiples of --programs"
    )
    parser.add_argument("--workers", type=int, help="grade's workers (default: grade's own)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    options = parser.parse_args()
    upstream = Upstream(options.upstream)
    source = str(upstream.checkout)
    workers = options.workers or grading_process.lcb_runner_workers(
        upstream.module("evaluation.compute_code_generation_metrics")
    )
    load_at_start = os.getloadavg()
    figures: dict[str, dict] = {}
    for kind in options.sets.split(","):
        for scale in map(int, options.scales.split(",")):
            samples = sample_set(kind, options.programs, scale)
            theirs = run_upstream(upstream, samples)
            mine = run_grade(upstream, samples, workers)
            bare = run_grade_uncontained(upstream, samples, workers)
            name = kind if scale == 1 else f"{kind} {scale}x"
            figures[name] = compared(samples, theirs, mine, bare)
            print(f"{name}: {figures[name]}", flush=True)
    memory = {
        f"{scale}x": measure_memory(source, options.programs, scale, workers)
        for scale in ((1, options.memory_scale) if options.memory_scale else ())
    }
    print(f"memory: {memory}", flush=True)
    result = {
        **record_head("bench_regrade.py", load_at_start, upstream, "%Y-%m-%d"),
        "grade_workers": workers,
        "figures": figures,
        "memory": memory,
    }
    if options.json:
        write_record(options.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
