"""Benchmark: the whole `lcb-conformance regrade` command against lcb_runner's codegen_metrics on
the same samples, idle and beside a CPU hog.

    python bench/bench_regrade_e2e.py [--upstream installed|CHECKOUT] [--per-problem 10]
                                      [--problems 26] [--scales 1,10] [--hogs 2] [--json FILE]

The run is in lcb_runner's shape (an ``eval_all`` file of raw outputs, each a fenced block):
the judge corpus's programs (fixtures/judge/) whose verdict lcb_runner reaches without a time
limit (huge output and deep recursion included, as a real run has them), ``--per-problem``
outputs on each of the first ``--problems`` problems, repeated ``--scales`` times (10: 2,600
samples). Both sides are separate processes on the same outputs and rows:

- lcb_runner: grading.codegen_metrics' contained child (every output through lcb_runner's own
  ``extract_code``, then ``codegen_metrics`` with its defaults), timed around the process and
  inside it around the call; its graded lists are the run file's ``graded_list``;
- regrade: ``python -c CLI_CHILD regrade RUN --dataset DIR --not-a-release --results FILE``,
  the entry point's own ``cli.main`` (the child writes its contained children's cgroup CPU,
  which wait() does not pass up, when it ends). Timed: wall; CPU of the whole tree; the first
  verdict (the results file's first sample line, polled every 10 ms); the peak memory of the
  process tree (every descendant's proportional set size summed, polled every 50 ms; the
  bwrap trees are descendants too).

Every regraded list and metadata string is compared with lcb_runner's (normalised as the judge
goldens are): the bench counts and names those that differ. Then the loaded machine:
``--hogs`` busy-loop processes started beside the 1x run's regrade, killed when it ends, on
the default settings and with ``--recheck 2``: how many verdicts differ from lcb_runner's idle
ones, how many were run again alone as starved, and how many the timing band names as flipped.
Figures for docs/performance-regrade-e2e.md (dev/lcb_conformance_dev/end_to_end_figures.py),
not assertions; not in any default tox env (it measures the machine).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_record import children_cpu, record_head, write_record

from lcb_conformance.suite import goldens, judge_cases
from lcb_conformance.upstream import Upstream, grading, judge

STYLE = "OpenAIChat"
RUN_NAME = "Scenario.codegeneration_10_0.2_eval_all.json"
# not graded at once though no time limit is reached: a loop at import that compile_code's
# alarm stops (a -4 after the whole timeout)
WAITING_CATEGORIES = ("timeout",)
# the entry point's own main, in a process that writes, when it ends, what only it can see:
# the CPU of the sandboxes it stopped (their cgroups'), and when each phase before the first
# verdict ended (the imports; the checks, up to grade's call; grade's first verdict)
CLI_CHILD = """
import json, sys, time
phases = {}
from lcb_conformance import cli
from lcb_conformance.upstream import grading
phases["imports"] = time.time()
grade = grading.grade
def timed_grade(*args, **kwargs):
    phases.setdefault("checks", time.time())
    for graded in grade(*args, **kwargs):
        phases.setdefault("grading_start", time.time())
        yield graded
grading.grade = timed_grade
code = cli.main(sys.argv[2:])
from lcb_conformance.adapters import untrusted
with open(sys.argv[1], "w") as out:
    json.dump({"contained_cpu": untrusted.contained_cpu_seconds(), "phases": phases}, out)
sys.exit(code)
"""
# a busy loop that ends itself after argv[1] seconds (bounded even if the bench dies)
HOG = (
    "import sys, time\nend = time.monotonic() + float(sys.argv[1])\n"
    "while time.monotonic() < end: pass"
)
HOG_SECONDS = 600
SCRIPT = "bench_regrade_e2e.py"
DATE_FORMAT = "%Y-%m-%d %H:%M UTC"
SHARED = "with other sessions' tests, as it runs"


def programs_by_problem(problems: int) -> dict[str, list[str]]:
    """The first ``problems`` problems (sorted) with corpus programs lcb_runner grades without
    a time limit, and those programs."""
    found: dict[str, list[str]] = {}
    for case in judge_cases.judge_cases().values():
        verdict = json.loads(goldens.read(goldens.GoldenKey(goldens.JUDGE, "", case.id)))
        if "rejected" in verdict or case.category in WAITING_CATEGORIES:
            continue
        if -3 in verdict["results"] or verdict["metadata"].get("error_code") == -5:
            continue
        found.setdefault(case.problem, []).append(case.program)
    return {problem: found[problem] for problem in sorted(found)[:problems]}


def outputs(problems: int, per_problem: int, scale: int) -> dict[str, list[str]]:
    """problem id -> the raw outputs: each problem's programs in turn, fenced, repeated."""
    return {
        problem: [
            f"```python\n{code.rstrip(chr(10))}\n```\n"
            for code in itertools.islice(itertools.cycle(programs), per_problem * scale)
        ]
        for problem, programs in programs_by_problem(problems).items()
    }


# ---- lcb_runner's side ------------------------------------------------------------------------


def run_codegen_metrics(upstream: Upstream, raw: dict[str, list[str]]) -> dict:
    """codegen_metrics on the raw outputs in its contained child, lcb_runner's extract_code
    first. The installed stand-in computes its metrics otherwise (grading.STAND_IN_GAPS), which
    the gate refuses; its graded lists are what this bench reads, so it is called as it is."""
    rows = judge.problems()
    run = {"name": "e2e", "scenario": "codegeneration", "lmstyle": STYLE, "outputs": raw,
           "rows": {problem: rows[problem] for problem in raw}}  # fmt: skip
    start, cpu = time.perf_counter(), children_cpu()
    answer = grading._codegen_metrics_by(grading._source(upstream), json.dumps([run]))["e2e"]
    wall, cpu = time.perf_counter() - start, children_cpu() - cpu
    _, results, metadata = answer["scored"]
    problems = answer["problems"]
    return {
        "wall": wall,
        "cpu": cpu,
        "call": answer["seconds"],
        "graded": {p: results[str(i)] for i, p in enumerate(problems)},
        "code": {p: answer["code"][i] for i, p in enumerate(problems)},
        "metadata": {p: metadata[i] for i, p in enumerate(problems)},
    }


# ---- the whole command ----------------------------------------------------------------------


def write_inputs(folder: Path, raw: dict[str, list[str]], lcb_runner: dict) -> list[str]:
    """The dataset folder and the eval_all run (lcb_runner's own extraction and verdicts as its
    code_list and graded_list):
    the command's arguments but for --results."""
    rows = judge.problems()
    dataset = folder / "dataset"
    dataset.mkdir(parents=True, exist_ok=True)
    (dataset / "data.jsonl").write_text(
        "".join(json.dumps(rows[problem]) + "\n" for problem in raw), "utf-8"
    )
    table = [
        {
            "question_id": problem, "contest_date": rows[problem]["contest_date"],
            "difficulty": rows[problem]["difficulty"], "platform": rows[problem]["platform"],
            "output_list": raw[problem], "code_list": lcb_runner["code"][problem],
            "graded_list": [all(r is True for r in graded)
                            for graded in lcb_runner["graded"][problem]],
        }
        for problem in raw
    ]  # fmt: skip
    run = folder / RUN_NAME
    run.write_text(json.dumps(table), "utf-8")
    return [str(run), "--dataset", str(dataset), "--not-a-release", "--style", STYLE]


def tree_pss_kib(root: int) -> tuple[int, int]:
    """The proportional set size of ``root`` and every descendant, summed (from /proc: the
    pages a fork shares with its parent counted once, not per process as RSS would), and the
    largest one process's."""
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rpartition(")")[2].split()[1])
    sizes = []
    for pid in parents:
        ancestor = pid
        while ancestor not in (0, 1, root):
            ancestor = parents.get(ancestor, 0)
        if ancestor == root:
            sizes.append(_pss_kib(pid))
    return sum(sizes), max(sizes, default=0)


def _pss_kib(pid: int) -> int:
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    return sum(int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:"))


def first_sample_line(results: Path) -> bool:
    try:
        with results.open("rb") as handle:
            return any(line.startswith(b'{"sample"') for line in handle)
    except OSError:
        return False


def watch(process: subprocess.Popen, results: Path, start: float, seen: dict) -> None:
    """Until the process ends: when the first verdict reached the results file, and the peak
    memory of its tree."""
    last_sampled = 0.0
    while process.poll() is None:
        now = time.perf_counter()
        if "first_verdict" not in seen and first_sample_line(results):
            seen["first_verdict"] = now - start
        if now - last_sampled >= 0.05:
            total, largest = tree_pss_kib(process.pid)
            seen["peak_pss_kib"] = max(seen.get("peak_pss_kib", 0), total)
            seen["largest_pss_kib"] = max(seen.get("largest_pss_kib", 0), largest)
            last_sampled = now
        time.sleep(0.01)


def run_command(upstream_arg: str, arguments: list[str], results: Path, extra=()) -> dict:
    """The whole regrade command as a process: wall, CPU of its tree, first verdict, peak PSS."""
    accept = ["--accept-judge-differences"] if upstream_arg == "installed" else []
    with tempfile.NamedTemporaryFile(suffix=".json") as told:
        argv = [sys.executable, "-c", CLI_CHILD, told.name, "regrade", *arguments,
                "--upstream", upstream_arg, *accept, "--results", str(results), *extra]  # fmt: skip
        results.unlink(missing_ok=True)
        seen: dict = {}
        start, cpu, epoch = time.perf_counter(), children_cpu(), time.time()
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        watcher = threading.Thread(target=watch, args=(process, results, start, seen))
        watcher.start()
        stdout, stderr = process.communicate()
        wall = time.perf_counter() - start
        watcher.join()
        child = json.loads(Path(told.name).read_text() or "{}")
    if process.returncode not in (0, 1):
        raise SystemExit(f"regrade exited {process.returncode}: {stderr.decode()[-2000:]}")
    return {
        "exit_code": process.returncode,
        "headline": ([""] + stdout.decode().strip().splitlines())[-1],  # the console's last line
        "wall": wall,
        "cpu": children_cpu() - cpu + child.get("contained_cpu", 0.0),
        "phases": phase_seconds(epoch, child.get("phases", {})),
        "first_verdict": seen.get("first_verdict", wall),
        "peak_pss_kib": seen.get("peak_pss_kib", 0),
        "largest_pss_kib": seen.get("largest_pss_kib", 0),
    }


def phase_seconds(epoch: float, ends: dict[str, float]) -> dict[str, float]:
    """Each phase's seconds from its end and the one before (the first from the start)."""
    seconds, before = {}, epoch
    for name in ("imports", "checks", "grading_start"):
        if name in ends:
            seconds[name], before = round(ends[name] - before, 2), ends[name]
    return seconds


def regraded(results: Path) -> list[dict]:
    lines = [json.loads(line) for line in results.read_text("ascii").splitlines()]
    return [line["sample"] for line in lines if "sample" in line]


def differences(samples: list[dict], lcb_runner: dict) -> tuple[list[dict], list[dict]]:
    """The samples whose pass/fail differs from lcb_runner's verdict, and those whose graded
    list or metadata differs though pass/fail does not (a failure of another kind)."""
    flipped, changed = [], []
    for sample in samples:
        problem, index = sample["question_id"], sample["index"]
        theirs = lcb_runner["graded"][problem][index]
        same_kind = sample["regrade"]["graded"] == theirs and grading.comparable_metadata(
            sample["regrade"]["metadata"]
        ) == grading.comparable_metadata(lcb_runner["metadata"][problem][index])
        if sample["regrade"]["passed"] != all(r is True for r in theirs):
            flipped.append(sample)
        elif not same_kind:
            changed.append(sample)
    return flipped, changed


def comparison(samples: list[dict], lcb_runner: dict) -> dict:
    """Against lcb_runner's idle verdicts: samples whose pass/fail differs, whose graded list
    or metadata differs, the starved ones run again alone, and those the band names."""
    flipped, changed = differences(samples, lcb_runner)
    rechecked = [s for s in samples if s.get("rechecks")]
    return {
        "samples": len(samples),
        "verdicts_flipped": len(flipped),
        "failure_kind_changed": len(changed),
        "named": [f"{s['question_id']}[{s['index']}]" for s in flipped + changed][:5],
        "starved_run_again": sum(1 for s in samples if s.get("starved")),
        "rechecked": len(rechecked),
        "band_flipped": sum(
            1 for s in rechecked
            if any(r["passed"] != s["regrade"]["passed"] for r in s["rechecks"])
        ),  # fmt: skip
    }


def with_hogs(count: int, action, *arguments, bound: float = HOG_SECONDS):
    """``action(*arguments)`` with ``count`` busy loops beside it, killed after (each ends
    itself after ``bound`` seconds)."""
    hogs = [subprocess.Popen([sys.executable, "-c", HOG, str(bound)]) for _ in range(count)]
    try:
        time.sleep(0.5)  # let them take the cores
        return action(*arguments)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def side_by_side(options, upstream: Upstream, folder: Path, scale: int) -> tuple[dict, dict]:
    raw = outputs(options.problems, options.per_problem, scale)
    lcb_runner = run_codegen_metrics(upstream, raw)
    arguments = write_inputs(folder / f"{scale}x", raw, lcb_runner)
    results = folder / f"{scale}x.jsonl"
    mine = run_command(options.upstream, arguments, results)
    figures = {
        "problems": len(raw),
        **comparison(regraded(results), lcb_runner),
        "codegen_metrics_process_seconds": round(lcb_runner["wall"], 2),
        "codegen_metrics_call_seconds": round(lcb_runner["call"], 2),
        "codegen_metrics_cpu_seconds": round(lcb_runner["cpu"], 2),
        "regrade_seconds": round(mine["wall"], 2),
        "regrade_cpu_seconds": round(mine["cpu"], 2),
        "regrade_first_verdict_seconds": round(mine["first_verdict"], 2),
        "regrade_phases_seconds": mine["phases"],
        "regrade_peak_pss_mib": round(mine["peak_pss_kib"] / 1024, 1),
        "regrade_largest_process_pss_mib": round(mine["largest_pss_kib"] / 1024, 1),
        "regrade_exit_code": mine["exit_code"],
        "speedup": round(lcb_runner["wall"] / mine["wall"], 2),
        "cpu_ratio": round(lcb_runner["cpu"] / mine["cpu"], 2),
        "load_1min_after": round(os.getloadavg()[0], 2),
    }
    return figures, {"arguments": arguments, "lcb_runner": lcb_runner}


def loaded(options, inputs: dict, folder: Path) -> dict:
    """The 1x run beside --hogs busy loops: default settings, then --recheck 2."""
    found = {}
    for name, extra in (("default", ()), ("recheck-2", ("--recheck", "2"))):
        results = folder / f"loaded-{name}.jsonl"
        mine = with_hogs(
            options.hogs, run_command, options.upstream, inputs["arguments"], results, extra
        )
        found[name] = {
            **comparison(regraded(results), inputs["lcb_runner"]),
            "regrade_seconds": round(mine["wall"], 2),
            "headline": mine["headline"],
        }
        print(f"loaded, {name}: {found[name]}", flush=True)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", default="installed", help="installed, or a checkout")
    parser.add_argument("--problems", type=int, default=26)
    parser.add_argument("--per-problem", type=int, default=10)
    parser.add_argument("--scales", default="1,10", help="runs at these multiples")
    parser.add_argument("--hogs", type=int, default=2, help="busy loops beside the loaded run")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    options = parser.parse_args()
    upstream = Upstream(options.upstream)
    load_at_start = os.getloadavg()
    figures, loaded_figures = {}, {}
    with tempfile.TemporaryDirectory(prefix="lcb-bench-e2e-") as temporary:
        folder = Path(temporary)
        for scale in map(int, options.scales.split(",")):
            figures[f"{scale}x"], inputs = side_by_side(options, upstream, folder, scale)
            print(f"{scale}x: {figures[f'{scale}x']}", flush=True)
            if scale == 1 and options.hogs:
                loaded_figures = loaded(options, inputs, folder)
    result = {
        **record_head(SCRIPT, load_at_start, upstream, DATE_FORMAT, shared=SHARED),
        "hogs": options.hogs,
        "figures": figures,
        "loaded": loaded_figures,
    }
    if options.json:
        write_record(options.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
