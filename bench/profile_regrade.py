"""Where a sample's CPU time goes, on each side of bench_regrade.py, one sample at a time.

    python bench/profile_regrade.py --upstream CHECKOUT [--programs 4] [--sets instant,mix]
                                    [--functions 12]

- grade's side: a process set up as the grading process is (grading_process.py: lcb_runner's
  judge imported, its warm-up done, gc frozen) forks a child per sample that calls
  ``run_test`` as grading_process's child does (its judge-aware recorder included);
  measured: the parent's CPU in ``fork``, the
  child's CPU up to the end of ``run_test`` (its page faults included) and in all (its exit).
- lcb_runner's side: ``evaluate_generations_by_problem`` on one sample at a time, in a process
  that imported what codegen_metrics' caller imports (the benchmark and its ``datasets``), as
  a pool worker runs it: its own CPU, its children's (the ``Manager`` server and the
  ``Process``), and the ``Process``'s CPU up to the end of ``run_test``.
- ``--functions N``: the N functions taking most CPU inside ``run_test`` (cProfile in grade's
  children, which slows them: the breakdown above is measured without it).

Serial, so nothing competes within a side; figures for docs/performance.md, not assertions.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pickle
import pstats
import resource
import sys
import tempfile
import time
from pathlib import Path

from bench_regrade import INSTANT, MIX, sample_set

from lcb_conformance.upstream import Upstream, grading, grading_process, judge, judge_aware


def cpu(who: int = resource.RUSAGE_SELF) -> float:
    used = resource.getrusage(who)
    return used.ru_utime + used.ru_stime


def evaluation_samples(upstream: Upstream, samples) -> dict[str, dict]:
    """problem id -> its evaluation sample, decoded in grading_process's decoder child (this
    process imports no ``datasets``, as the grading process does not)."""
    decoder = grading_process._Decoder(str(upstream.checkout), keep_open=())
    rows = judge.problems()
    decoded = {
        problem: decoder.decode(rows[problem])["sample"]
        for problem in {sample.problem_id for sample in samples}
    }
    os.close(decoder.rows)  # the decoder ends
    os.waitpid(decoder.pid, 0)
    return decoded


def in_child(testing_util, lcb_judge, sample: dict, code: str, profile_to: Path | None) -> tuple:
    """What grading_process's child does, then its CPU so far and its page faults."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(devnull, descriptor)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 (as grading_process's child)
    profiler = cProfile.Profile(time.process_time) if profile_to else None
    if profiler:
        profiler.enable()
    try:
        recorder = judge_aware.Recorder(lcb_judge)  # as grading_process's child
        testing_util.run_test(sample, test=code, debug=False, timeout=grading.TIMEOUT)
        recorder.summary()
    except BaseException:  # noqa: S110 (the program's exit or crash, as grading's child)
        pass
    if profiler:
        profiler.disable()
        profiler.dump_stats(profile_to)
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime, used.ru_minflt


def grade_side(upstream: Upstream, samples, profile_dir: Path | None) -> dict:
    evaluation = evaluation_samples(upstream, samples)
    testing_util = upstream.module("evaluation.testing_util")
    grader = grading_process._Grader.__new__(grading_process._Grader)
    grader.testing_util = testing_util
    lcb_judge = judge_aware.judge_for(testing_util)
    grader._warm_up()
    fork = run_test = child = faults = 0.0
    for number, sample in enumerate(samples):
        reading, writing = os.pipe()
        before, children_before = cpu(), cpu(resource.RUSAGE_CHILDREN)
        pid = os.fork()
        if pid == 0:
            profile_to = profile_dir / f"{number}.pstats" if profile_dir else None
            outcome = in_child(
                testing_util, lcb_judge, evaluation[sample.problem_id], sample.code, profile_to
            )
            os.write(writing, pickle.dumps(outcome))
            os._exit(0)
        fork += cpu() - before
        os.close(writing)
        with os.fdopen(reading, "rb") as answer:
            child_run_test, child_faults = pickle.loads(answer.read())
        os.waitpid(pid, 0)
        run_test += child_run_test
        faults += child_faults
        child += cpu(resource.RUSAGE_CHILDREN) - children_before
    count = len(samples)
    return {
        "parent_fork_ms": 1000 * fork / count,
        "child_to_end_of_run_test_ms": 1000 * run_test / count,
        "child_exit_ms": 1000 * (child - run_test) / count,
        "child_page_faults_to_end_of_run_test": faults / count,
    }


def upstream_side(upstream: Upstream, samples) -> dict:
    evaluation = evaluation_samples(upstream, samples)
    metrics = upstream.module("evaluation.compute_code_generation_metrics")
    run_test_cpu = tempfile.TemporaryFile()
    original = metrics._temp_run

    def timed_run(*args):  # in check_correctness' Process: its CPU at the end of run_test
        original(*args)
        run_test_cpu.write(f"{cpu()}\n".encode())
        run_test_cpu.flush()

    metrics._temp_run = timed_run
    before, children_before = cpu(), cpu(resource.RUSAGE_CHILDREN)
    for sample in samples:
        metrics.evaluate_generations_by_problem(
            ([sample.code], evaluation[sample.problem_id], False, grading.TIMEOUT)
        )
    worker, children = cpu() - before, cpu(resource.RUSAGE_CHILDREN) - children_before
    run_test_cpu.seek(0)
    run_test = sum(float(line) for line in run_test_cpu.read().split())
    count = len(samples)
    return {
        "worker_ms": 1000 * worker / count,
        "process_to_end_of_run_test_ms": 1000 * run_test / count,
        "manager_and_process_rest_ms": 1000 * (children - run_test) / count,
    }


def top_functions(profile_dir: Path, count: int, how_many: int) -> None:
    stats = pstats.Stats(*sorted(str(path) for path in profile_dir.glob("*.pstats")))
    stats.files = []  # not one line per sample
    print(f"CPU inside run_test over {count} samples (cProfile, slowed by it):")
    stats.sort_stats("cumulative").print_stats(how_many)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", required=True, help="a LiveCodeBench checkout (28fef95)")
    parser.add_argument("--programs", type=int, default=4, help="samples per problem")
    parser.add_argument("--sets", default=f"{INSTANT},{MIX}", help="which sample sets")
    parser.add_argument("--functions", type=int, default=0, help="top functions to print")
    options = parser.parse_args()
    upstream = Upstream(options.upstream)
    sets = {kind: sample_set(kind, options.programs) for kind in options.sets.split(",")}
    # the programs run here as under the judge: in a temporary directory, with its limit
    resource.setrlimit(resource.RLIMIT_AS, (judge.MEMORY_LIMIT_BYTES, judge.MEMORY_LIMIT_BYTES))
    with tempfile.TemporaryDirectory(prefix="lcb-profile-work-") as work:
        os.chdir(work)
        profile(upstream, sets, options.functions)
    return 0


def profile(upstream: Upstream, sets: dict, functions: int) -> None:
    gc.collect()
    for kind, samples in sets.items():  # grade's side first: lcb_runner's imports datasets
        mine = grade_side(upstream, samples, None)
        print(f"{kind} ({len(samples)} samples), grade: {rounded(mine)}", flush=True)
        if functions:
            with tempfile.TemporaryDirectory(prefix="lcb-profile-") as directory:
                grade_side(upstream, samples, Path(directory))
                top_functions(Path(directory), len(samples), functions)
    upstream.module("benchmarks.code_generation")  # as codegen_metrics' caller has
    for kind, samples in sets.items():
        theirs = upstream_side(upstream, samples)
        print(f"{kind} ({len(samples)} samples), codegen_metrics: {rounded(theirs)}", flush=True)


def rounded(figures: dict) -> dict:
    return {key: round(value, 2) for key, value in figures.items()}


if __name__ == "__main__":
    sys.exit(main())
