"""Benchmark: verdicts near their time limits, lcb_runner's on an idle machine against
`regrade`'s on the default settings beside a bounded CPU hog, without and with --recheck.

    python bench/bench_regrade_loaded.py [--upstream installed|CHECKOUT] [--problems 26]
                                         [--per-problem 10] [--hogs 2] [--hog-seconds 300]
                                         [--recheck 3] [--json FILE]

The run is bench_regrade_e2e.py's (lcb_runner's shape: an ``eval_all`` file of fenced raw
outputs; the judge corpus's programs that reach their verdict without a time limit, 200,000
lines printed and 50,000 frames deep included), with the last outputs of one problem
(NEAR_PROBLEM, one test) replaced by correct programs near its limits: spinning ``SHARES`` of
the per-test limit in its one test (the 6 s codegen_metrics and regrade default, calibrated
here in loop iterations per CPU second), and one spinning ``GLOBAL_SHARE`` of the limit both
when its module is run (compile_code's alarm) and in its test, which brings it nearest the
sample's global limit ((6 + 1) x 1 + 5 s) that a program can come without passing a
per-test one.

- truth: lcb_runner 28fef95's own ``extract_code`` and ``codegen_metrics`` (defaults: 16
  processes, 6 s) on the outputs, in their contained child, with nothing of this bench
  running beside it, once the 1-minute load is ``--quiet-load`` or less (waiting
  ``--quiet-wait`` seconds at most); then each near-limit program alone, in a call of its
  own: that is its verdict in the truth (the whole call grades 16 samples at once, the
  near-limit ones together, and its verdicts on them are recorded beside). The machine is
  shared with other sessions: their load is recorded (the 1-minute load and the running
  processes at each phase's start and end, and ``uptime``), not removed;
- then the whole ``regrade`` command on the default settings, ``--hogs`` busy loops beside
  it (each ends itself after ``--hog-seconds``, and is killed when the command ends), once
  without ``--recheck`` and once with ``--recheck N``.

For each: the verdicts whose pass/fail differs from the truth (named, both outcomes), those
failing another way, those whose pass/fail differs from the whole call's, the starved
verdicts graded again alone, the rechecked and the flipped, and the number with its timing
band from the JSON report (``--json``), beside the truth's number (the run's own
graded_list). Figures for docs/performance-regrade-e2e.md
(dev/lcb_conformance_dev/loaded_figures.py), not assertions; not in any default tox env.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_regrade_e2e as e2e
from bench_record import record_head, write_record

from lcb_conformance.upstream import Upstream, grading, timing

SCRIPT = "bench_regrade_loaded.py"
NEAR_PROBLEM = "lc_grid_sum"  # one test ([[1, 2], [3, 4]] -> [3, 7]), call-based
SHARES = (0.40, 0.65, 0.90)  # of the per-test limit, in the one test
GLOBAL_SHARE = 0.80  # of the per-test limit, at the module's run and in the test
BURN = "def burn(n):\n    x = 0\n    for i in range(n):\n        x ^= i\n    return x\n"
CALIBRATION_ITERATIONS = 2_000_000
SOLUTION = (
    "class Solution:\n    def rowSums(self, grid):\n        burn({})\n"
    "        return [sum(row) for row in grid]\n"
)


def iterations_per_cpu_second() -> float:
    """How fast BURN spins here, in CPU time (the load others put on the machine moves wall
    time, far less CPU time): the best of three."""
    namespace: dict = {}
    exec(BURN, namespace)  # noqa: S102 (the bench's own program text)
    rates = []
    for _ in range(3):
        start = time.process_time()
        namespace["burn"](CALIBRATION_ITERATIONS)
        rates.append(CALIBRATION_ITERATIONS / (time.process_time() - start))
    return max(rates)


def near_limit_programs(rate: float, timeout: int) -> list[dict]:
    """The correct programs near NEAR_PROBLEM's limits, each with what it spins."""

    def spins(share: float) -> int:
        return int(share * timeout * rate)

    programs = [
        {"name": f"{round(100 * share)}% of the test's limit", "share": share,
         "code": BURN + "\n\n" + SOLUTION.format(spins(share))}
        for share in SHARES
    ]  # fmt: skip
    near_global = spins(GLOBAL_SHARE)
    global_limit = (timeout + 1) * 1 + 5  # check_correctness' join, one test
    programs.append({
        "name": f"{round(100 * GLOBAL_SHARE)}% at the module's run and in the test "
                f"({round(100 * 2 * GLOBAL_SHARE * timeout / global_limit)}% of the global limit)",
        "share": GLOBAL_SHARE,
        "code": BURN + f"\n\nburn({near_global})\n\n" + SOLUTION.format(near_global),
    })  # fmt: skip
    return programs


def run_outputs(problems: int, per_problem: int, near: list[dict]) -> dict[str, list[str]]:
    """bench_regrade_e2e's outputs, NEAR_PROBLEM's last ones the near-limit programs."""
    raw = e2e.outputs(problems, per_problem, 1)
    if NEAR_PROBLEM not in raw or per_problem < len(near):
        raise SystemExit(f"--problems must take {NEAR_PROBLEM}, --per-problem {len(near)} or more")
    fenced = [f"```python\n{program['code'].rstrip()}\n```\n" for program in near]
    raw[NEAR_PROBLEM][-len(near) :] = fenced
    return raw


def machine_now() -> dict:
    """The machine's load as it is: 1-, 5- and 15-minute load, running processes."""
    running = Path("/proc/loadavg").read_text().split()[3]
    return {"load": [round(value, 2) for value in os.getloadavg()], "running": running}


def wait_for_quiet(load: float, seconds: float) -> dict:
    """Wait (at most ``seconds``) until the 1-minute load is at most ``load``: the truth is
    lcb_runner's on a machine as idle as the other sessions leave it."""
    start = time.monotonic()
    while os.getloadavg()[0] > load and time.monotonic() - start < seconds:
        time.sleep(5)
    return {"load_at_most": load, "waited_seconds": round(time.monotonic() - start),
            "reached": os.getloadavg()[0] <= load}  # fmt: skip


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def outcome(graded: list, metadata: str, passed: bool) -> str:
    """A verdict in words ("pass", "time limit", "global time limit", ...)."""
    verdict = {"results": graded, "passed": passed, "metadata": json.loads(metadata)}
    return timing.verdict_outcome(verdict)


def truth_of(lcb_runner: dict, problem: str, index: int) -> str:
    graded = lcb_runner["graded"][problem][index]
    passed = all(result is True for result in graded)
    return outcome(graded, lcb_runner["metadata"][problem][index], passed)


def described(sample: dict, lcb_runner: dict, near_names: dict[int, str]) -> dict:
    """A regraded sample against the truth: both outcomes, what it took, its re-runs."""
    problem, index = sample["question_id"], sample["index"]
    verdict = sample["regrade"]
    found = {
        "sample": f"{problem}[{index}]",
        "program": near_names.get(index) if problem == NEAR_PROBLEM else None,
        "lcb_runner_idle": truth_of(lcb_runner, problem, index),
        "regrade": outcome(verdict["graded"], verdict["metadata"], verdict["passed"]),
        "wall": sample["timing"]["wall"],
        "cpu": sample["timing"]["cpu"],
    }
    if "starved" in sample:
        starved = sample["starved"]
        found["starved"] = outcome(starved["graded"], starved["metadata"], starved["passed"])
    if "rechecks" in sample:
        found["rechecks"] = [outcome(r["graded"], r["metadata"], r["passed"])
                             for r in sample["rechecks"]]  # fmt: skip
    return found


def graded_beside_hogs(options, inputs: dict, folder: Path, name: str, extra) -> dict:
    """The regrade command beside the hogs: what moved against the truth, and the report's
    number, band, flipped and starved samples."""
    results, report = folder / f"{name}.jsonl", folder / f"{name}.report.json"
    before = machine_now()
    mine = e2e.with_hogs(options.hogs, e2e.run_command, options.upstream, inputs["arguments"],
                         results, (*extra, "--json", str(report)),
                         bound=options.hog_seconds)  # fmt: skip
    samples = e2e.regraded(results)
    found = json.loads(report.read_text("utf-8"))
    flipped, changed = e2e.differences(samples, inputs["lcb_runner"])
    near_names = inputs["near_names"]
    return {
        **e2e.comparison(samples, inputs["lcb_runner"]),
        "flipped": [described(s, inputs["lcb_runner"], near_names) for s in flipped],
        "kind_changed": [described(s, inputs["lcb_runner"], near_names) for s in changed],
        "near_limit": [
            described(s, inputs["lcb_runner"], near_names)
            for s in samples
            if s["question_id"] == NEAR_PROBLEM and s["index"] in near_names
        ],
        "flipped_against_whole_run": [
            f"{s['question_id']}[{s['index']}]"
            for s in e2e.differences(samples, inputs["whole_run"])[0]
        ],
        "pass_at_1": found["regrade"]["lcb_runner"]["pass@1"]["all"],
        "truth_pass_at_1": found["harness"]["lcb_runner"]["pass@1"]["all"],
        "timing": found["timing"],
        "regrade_seconds": round(mine["wall"], 2),
        "regrade_cpu_seconds": round(mine["cpu"], 2),
        "exit_code": mine["exit_code"],
        "machine_before": before,
        "machine_after": machine_now(),
    }


def truth(upstream: Upstream, raw: dict, near: list[dict]) -> tuple[dict, dict, dict]:
    """lcb_runner's verdicts with nothing of the bench beside them: the whole run in one
    codegen_metrics call, then each near-limit program in a call of its own (alone: in the
    whole call its 16 processes grade them at once, on this machine's cores), which is the
    truth's verdict for it; and what its own metadata says each took."""
    before = machine_now()
    whole = e2e.run_codegen_metrics(upstream, raw)
    after_whole = machine_now()
    lcb_runner = {key: {p: list(found) for p, found in whole[key].items()}
                  for key in ("graded", "metadata", "code")}  # fmt: skip
    first = len(raw[NEAR_PROBLEM]) - len(near)
    programs = []
    for offset, program in enumerate(near):
        index, load = first + offset, machine_now()["load"][0]
        alone = e2e.run_codegen_metrics(upstream, {NEAR_PROBLEM: [raw[NEAR_PROBLEM][index]]})
        for key in lcb_runner:
            lcb_runner[key][NEAR_PROBLEM][index] = alone[key][NEAR_PROBLEM][0]
        metadata = json.loads(alone["metadata"][NEAR_PROBLEM][0])
        programs.append({
            "sample": f"{NEAR_PROBLEM}[{index}]", "name": program["name"],
            "share": program["share"], "lcb_runner_idle": truth_of(lcb_runner, NEAR_PROBLEM, index),
            "execution_seconds": metadata.get("execution time"), "load_1min": load,
            "lcb_runner_whole_run": truth_of(whole, NEAR_PROBLEM, index),
        })  # fmt: skip
    figures = {
        "samples": sum(len(outputs) for outputs in raw.values()),
        "problems": len(raw),
        "passed": sum(
            all(r is True for r in g) for gs in lcb_runner["graded"].values() for g in gs
        ),
        "codegen_metrics_seconds": round(whole["wall"], 2),
        "codegen_metrics_cpu_seconds": round(whole["cpu"], 2),
        "near_limit": programs,
        "machine_before": before,
        "machine_after_whole_run": after_whole,
        "machine_after": machine_now(),
    }
    return lcb_runner, whole, figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", default="installed", help="installed, or a checkout")
    parser.add_argument("--problems", type=int, default=26)
    parser.add_argument("--per-problem", type=int, default=10)
    parser.add_argument("--hogs", type=int, default=2, help="busy loops beside each regrade")
    parser.add_argument("--hog-seconds", type=float, default=300, help="each hog's bound")
    parser.add_argument("--recheck", type=int, default=3, help="the second regrade's --recheck")
    parser.add_argument(
        "--quiet-load",
        type=float,
        default=1.5,
        help="grade the truth once the 1-minute load is at most this",
    )
    parser.add_argument(
        "--quiet-wait", type=float, default=300, help="seconds to wait for it at the most"
    )
    parser.add_argument("--json", type=Path, help="also write the record here")
    options = parser.parse_args()
    upstream = Upstream(options.upstream)
    load_at_start, uptime_at_start = os.getloadavg(), uptime()
    rate = iterations_per_cpu_second()
    near = near_limit_programs(rate, grading.TIMEOUT)
    raw = run_outputs(options.problems, options.per_problem, near)
    quiet = wait_for_quiet(options.quiet_load, options.quiet_wait)
    lcb_runner, whole_run, truth_figures = truth(upstream, raw, near)
    truth_figures["quiet"] = quiet
    print(f"truth: {truth_figures}", flush=True)
    first = len(raw[NEAR_PROBLEM]) - len(near)
    loaded = {}
    with tempfile.TemporaryDirectory(prefix="lcb-bench-loaded-") as temporary:
        folder = Path(temporary)
        inputs = {
            "arguments": e2e.write_inputs(folder / "run", raw, lcb_runner),
            "lcb_runner": lcb_runner,
            "whole_run": whole_run,
            "near_names": {first + i: program["name"] for i, program in enumerate(near)},
        }
        runs = (
            ("default", ()),
            (f"recheck-{options.recheck}", ("--recheck", str(options.recheck))),
        )
        for name, extra in runs:
            loaded[name] = graded_beside_hogs(options, inputs, folder, name, extra)
            print(f"{name}: {loaded[name]}", flush=True)
    result = {
        **record_head(SCRIPT, load_at_start, upstream, e2e.DATE_FORMAT, shared=e2e.SHARED,
                      uptime_at_start=uptime_at_start, uptime_at_end=uptime()),
        "timeout": grading.TIMEOUT,
        "hogs": options.hogs,
        "hog_seconds": options.hog_seconds,
        "iterations_per_cpu_second": round(rate),
        "truth": truth_figures,
        "loaded": loaded,
    }  # fmt: skip
    if options.json:
        write_record(options.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
