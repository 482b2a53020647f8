"""Benchmark: lcb_runner's own codegen_metrics against upstream/grading.py's grade, side by side.

    python bench/bench_regrade.py --upstream CHECKOUT [--programs 30] [--memory-scale 10]
                                  [--sets instant,mix] [--json FILE]

The samples are the judge corpus's programs (fixtures/judge/), --programs per problem (each
problem's programs in turn, repeated), over the problems whose rows lcb_runner reads. Two
sets: "instant" (the programs whose golden verdict is reached at once: no -3 time limit, no
-5 runner error, not the huge-output and deep-recursion ones) and "mix" (every program of the
problem in turn: runtime errors, exit(), programs that loop or sleep until a time limit). Both
sides get the same samples and lcb_runner's default timeout (6 s), on this machine as it is:

- lcb_runner: ``codegen_metrics(samples, generations)`` with its defaults (16 processes, a
  Manager and a process per sample), in a child under the supervisor (the programs are
  untrusted), timed inside the child around the call and outside around the whole process;
- grade: ``grading.grade(problems, samples, upstream=..., workers=cores)`` from this process,
  timed from the call to its last verdict (the grading process's start and imports included).

Wall time, and the CPU time (user + system) of each side's whole process tree: on a machine
others share, 16 processes take a larger share of the cores than 2 do, so the CPU ratio is
the steadier figure there.

Every graded list and metadata string must be identical (metadata with its "execution time"
dropped and memory addresses blanked, as the judge goldens normalise); the bench stops
otherwise. Memory: grade alone over the instant set at 1x
and at --memory-scale times, each in a fresh process reading the peak resident size of the
caller and of the largest process of the grading tree (getrusage of the reaped children).
Figures for docs/performance.md, not assertions.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lcb_conformance.adapters import sandbox
from lcb_conformance.adapters.untrusted import Contained
from lcb_conformance.suite import goldens, judge_cases
from lcb_conformance.upstream import Upstream, grading, judge

TIMEOUT = grading.TIMEOUT
INSTANT, MIX = "instant", "mix"
# not instant though no time limit is reached: megabytes printed, 50000 frames deep
SLOW_CATEGORIES = ("huge-output", "recursion")


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
    samples = []
    for problem, programs in sorted(programs_by_problem(kind).items()):
        cycle = itertools.islice(itertools.cycle(programs), per_problem * scale)
        samples += [grading.Sample(problem, index, code) for index, code in enumerate(cycle)]
    return samples


# ---- lcb_runner's side: a child running codegen_metrics ------------------------------------


def upstream_child(request_path: str, result_path: str) -> int:
    """In the child: codegen_metrics on the request's problems and generations."""
    sandbox.block_internet()
    request = json.loads(Path(request_path).read_text("utf-8"))
    upstream = Upstream(request["upstream"])
    benchmark = upstream.module("benchmarks.code_generation")
    metrics = upstream.module("evaluation.compute_code_generation_metrics")
    rows = judge.problems()
    problems = list(request["generations"])
    evaluation = [
        benchmark.CodeGenerationProblem(**rows[p]).get_evaluation_sample() for p in problems
    ]
    generations = [request["generations"][p] for p in problems]
    start = time.perf_counter()
    _, results, metadata = metrics.codegen_metrics(evaluation, generations)
    seconds = time.perf_counter() - start
    answer = {
        "seconds": seconds,
        "graded": {p: grading._json_data(results[i]) for i, p in enumerate(problems)},
        "metadata": {p: metadata[i] for i, p in enumerate(problems)},
    }
    Path(result_path).write_text(json.dumps(answer), "utf-8")
    return 0


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run_upstream(source: str, samples: list[grading.Sample], work: Path) -> dict:
    generations: dict[str, list[str]] = {}
    for sample in samples:
        generations.setdefault(sample.problem_id, []).append(sample.code)
    request, result = work / "request.json", work / "result.json"
    request.write_text(json.dumps({"upstream": source, "generations": generations}), "utf-8")
    start, cpu = time.perf_counter(), children_cpu()
    with open(work / "upstream-stderr.txt", "wb") as err:
        process = Contained(
            [sys.executable, __file__, "--upstream-child", str(request), str(result)],
            memory_limit=judge.MEMORY_LIMIT_BYTES,
            cwd=work,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=sandbox.child_environment(),
        )
    try:
        process.wait()
    finally:
        process.stop()
    wall, cpu = time.perf_counter() - start, children_cpu() - cpu
    if not result.is_file():
        stderr = (work / "upstream-stderr.txt").read_text("utf-8", errors="replace")
        raise SystemExit(f"codegen_metrics wrote nothing: {stderr[-2000:]}")
    answer = json.loads(result.read_text("utf-8"))
    return {"wall": wall, "cpu": cpu, **answer}


# ---- grade's side --------------------------------------------------------------------------


def run_grade(upstream: Upstream, samples: list[grading.Sample], workers: int) -> dict:
    rows = judge.problems()
    start, cpu = time.perf_counter(), children_cpu()
    graded = list(grading.grade(rows, samples, upstream=upstream, workers=workers))
    return {
        "wall": time.perf_counter() - start,
        "cpu": children_cpu() - cpu,  # the grading tree (this process's own part is small)
        "graded": graded,
    }


def check_identical(samples, upstream_answer: dict, graded: list[grading.Graded]) -> int:
    """The samples whose verdict differs (stops the bench when any does)."""
    differing = []
    for sample, mine in zip(samples, graded, strict=True):
        theirs = upstream_answer["graded"][sample.problem_id][sample.sample_index]
        their_metadata = upstream_answer["metadata"][sample.problem_id][sample.sample_index]
        if mine.graded != theirs or grading.comparable_metadata(
            mine.metadata
        ) != grading.comparable_metadata(their_metadata):
            differing.append((sample, mine, theirs, their_metadata))
    for sample, mine, theirs, their_metadata in differing[:5]:
        print(f"DIFFERS {sample.problem_id}#{sample.sample_index}: {mine.graded} "
              f"{mine.metadata} vs {theirs} {their_metadata}", file=sys.stderr)  # fmt: skip
    if differing:
        raise SystemExit(f"{len(differing)} of {len(samples)} verdicts differ")
    return len(samples)


def memory_child(source: str, per_problem: int, scale: int, workers: int) -> int:
    """In a fresh process: grade the instant set at ``scale``, samples made lazily; print the
    peak resident sizes (KiB) of this process and of the largest process it reaped."""
    samples = (
        grading.Sample(problem, index, code)
        for problem, programs in sorted(programs_by_problem(INSTANT).items())
        for index, code in enumerate(
            itertools.islice(itertools.cycle(programs), per_problem * scale)
        )
    )
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


def main() -> int:
    if sys.argv[1:2] == ["--upstream-child"]:
        return upstream_child(*sys.argv[2:4])
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
    parser.add_argument("--json", type=Path, help="also write the figures here")
    options = parser.parse_args()
    upstream = Upstream(options.upstream)
    source = str(upstream.checkout)
    workers = grading.WORKERS
    load_at_start = os.getloadavg()
    figures: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="lcb-bench-regrade-") as temporary:
        for kind in options.sets.split(","):
            samples = sample_set(kind, options.programs)
            theirs = run_upstream(source, samples, Path(temporary))
            mine = run_grade(upstream, samples, workers)
            identical = check_identical(samples, theirs, mine["graded"])
            figures[kind] = {
                "samples": len(samples),
                "problems": len({s.problem_id for s in samples}),
                "identical_verdicts": identical,
                "codegen_metrics_call_seconds": round(theirs["seconds"], 2),
                "codegen_metrics_process_seconds": round(theirs["wall"], 2),
                "grade_seconds": round(mine["wall"], 2),
                "speedup_vs_call": round(theirs["seconds"] / mine["wall"], 2),
                "speedup_vs_process": round(theirs["wall"] / mine["wall"], 2),
                "grade_ms_per_sample": round(1000 * mine["wall"] / len(samples), 2),
                "codegen_metrics_cpu_seconds": round(theirs["cpu"], 2),
                "grade_cpu_seconds": round(mine["cpu"], 2),
                "cpu_ratio": round(theirs["cpu"] / mine["cpu"], 2),
            }
            print(f"{kind}: {figures[kind]}", flush=True)
    memory = {
        f"{scale}x": measure_memory(source, options.programs, scale, workers)
        for scale in ((1, options.memory_scale) if options.memory_scale else ())
    }
    print(f"memory: {memory}", flush=True)
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "command": "python bench/bench_regrade.py " + " ".join(sys.argv[1:]),
        "machine": {"cpus": os.cpu_count(), "load_1min_at_start": round(load_at_start[0], 2),
                    "load_1min_at_end": round(os.getloadavg()[0], 2),
                    "python": platform.python_version()},
        "upstream": upstream.provenance(),
        "grade_workers": workers,
        "figures": figures,
        "memory": memory,
    }  # fmt: skip
    if options.json:
        options.json.write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
