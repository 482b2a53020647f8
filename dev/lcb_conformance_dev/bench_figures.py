"""The regrade benchmark's figures, read from the record it wrote (bench/regrade.json, by
``python bench/bench_regrade.py ... --json bench/regrade.json``): the side-by-side table of
docs/performance-regrade.md, the line saying when and how it was measured, and single figures for
the page's prose. The record holds its own date, command and machine, so a page showing them
through docs_figures is as dated as a measured block, and cannot drift from the record."""

from __future__ import annotations

import json
from functools import cache

from lcb_conformance.common import paths

RECORD = "bench/regrade.json"
# the sets bench_regrade.py measures, in the table's order, and how the table names them
SETS = {
    "instant": "instant",
    "instant-one-per-problem": "instant, one sample per problem",
    "mix": "mix",
}


@cache
def read_record(relative: str) -> dict:
    """A benchmark's record in the checkout (verdict_bench_figures reads its own here too)."""
    if paths.CHECKOUT is None:
        raise KeyError(f"{relative} is the repository's: run this in a checkout")
    return json.loads((paths.CHECKOUT / relative).read_text("utf-8"))


def record() -> dict:
    return read_record(RECORD)


def _seconds(value: float) -> str:
    return f"{value:.1f} s"


def measured_on() -> str:
    """When, where and how the record was measured, and what its verdicts were."""
    data = record()
    machine = data["machine"]
    figures = data["figures"].values()
    starved = sum(f["time_limit_under_load"] for f in figures)
    # the checkout's path on the measuring machine says nothing to a reader
    command = data["command"].replace(data["upstream"]["path"], "CHECKOUT_28fef95")
    return (
        f"Measured on {data['date']} with `{command}`: {machine['cpus']} CPUs, "
        f"1-minute load {machine['load_1min_at_start']} at the start and "
        f"{machine['load_1min_at_end']} at the end, CPython {machine['python']}, lcb_runner "
        f"{data['upstream']['commit'][:7]}, `grade` with {data['grade_workers']} workers; "
        f"{sum(f['identical_verdicts'] for f in figures):,} verdicts identical on both sides"
        + (f", {starved} differing only by a time limit under load." if starved else ".")
    )


def table() -> str:
    """One row per sample set: both sides' wall time and CPU, and the ratios."""
    lines = [
        "| samples | lcb_runner `codegen_metrics` | `grade` | wall ratio "
        "| CPU of each process tree (a sample) | CPU ratio |",
        "|---|---|---|---|---|---|",
    ]
    for name, words in SETS.items():
        if name not in record()["figures"]:
            continue
        f = record()["figures"][name]
        lines.append(
            f"| {words}, {f['samples']:,} ({f['problems']:,} problems) "
            f"| {_seconds(f['codegen_metrics_process_seconds'])} "
            f"({_seconds(f['codegen_metrics_call_seconds'])} in the call) "
            f"| {_seconds(f['grade_seconds'])} | **{f['speedup_vs_process']:.1f}×** "
            f"| {_seconds(f['codegen_metrics_cpu_seconds'])} / {_seconds(f['grade_cpu_seconds'])} "
            f"({f['codegen_metrics_cpu_ms_per_sample']:.1f} / "
            f"{f['grade_cpu_ms_per_sample']:.1f} ms) | {f['cpu_ratio']:.1f}× |"
        )
    return "\n".join(lines)


def memory() -> str:
    """Peak resident sizes of grade alone at each scale measured."""
    parts = [
        f"{scale} ({run['samples']:,} samples): the caller {run['caller_kib'] / 1024:.1f} MB, "
        f"the largest process of the grading tree {run['grading_tree_kib'] / 1024:.1f} MB"
        for scale, run in record()["memory"].items()
    ]
    return "; ".join(parts)


def containment() -> str:
    """What the containment costs grade, per set: contained against the same run uncontained."""
    rows = [
        "| samples | `grade` contained | uncontained | wall cost | CPU cost |",
        "|---|---|---|---|---|",
    ]
    for name, words in SETS.items():
        f = record()["figures"].get(name, {})
        if "uncontained_grade_seconds" in f:
            rows.append(
                f"| {words}, {f['samples']:,} | {_seconds(f['grade_seconds'])} "
                f"| {_seconds(f['uncontained_grade_seconds'])} "
                f"| {f['containment_cost_wall_percent']:+.1f} % "
                f"| {f['containment_cost_cpu_percent']:+.1f} % |"
            )
    return "\n".join(rows)


def figure(sample_set: str, field: str) -> str:
    """One figure of a set, as the table shows it (a ratio, seconds or milliseconds)."""
    value = record()["figures"][sample_set][field]
    if field.endswith("ratio") or field.startswith("speedup"):
        return f"{value:.1f}×"
    if field.endswith("ms_per_sample"):
        return f"{value:.1f} ms"
    if field.endswith("seconds"):
        return _seconds(value)
    return f"{value:,}"


FIGURES = {
    "regrade-bench-measured": measured_on,
    "regrade-bench-table": table,
    "regrade-bench-memory": memory,
    "regrade-bench-containment": containment,
    "regrade-bench": figure,
}
