"""The end-to-end regrade benchmark's figures, read from the record it wrote
(bench/regrade-e2e.json, by ``python bench/bench_regrade_e2e.py ... --json
bench/regrade-e2e.json``): the whole command against codegen_metrics at each scale, the
loaded-machine run, and which of the issue's goals the record meets. The record holds its own
date, command, machine and load, so docs/performance-regrade-e2e.md shows them dated."""

from __future__ import annotations

from lcb_conformance_dev.bench_figures import read_record

RECORD = "bench/regrade-e2e.json"
# the goals the benchmark is held to: speedup at a scale, and memory flat across them
SPEEDUP_GOALS = {"1x": 3.0, "10x": 4.0}
LOADED_RUNS = {"default": "default settings", "recheck-2": "`--recheck 2`"}
FIRST_VERDICT_GOAL_SECONDS = 2.0
FLAT_MEMORY = 1.10  # the 10x run's peak within 10 % of the 1x run's


def record() -> dict:
    return read_record(RECORD)


def measured_on() -> str:
    data = record()
    machine, upstream = data["machine"], data["upstream"]
    command = data["command"].replace(upstream.get("path") or "\0", "CHECKOUT_28fef95")
    version = (upstream.get("commit") or upstream.get("version", ""))[:7]
    return (
        f"Finished {data['date']} (its record's time), `{command}`: {machine['cpus']} CPUs "
        f"shared with other sessions' tests, 1-minute load {machine['load_1min_at_start']} "
        f"at the start and {machine['load_1min_at_end']} at the end, CPython "
        f"{machine['python']}, lcb_runner {version}."
    )


def table() -> str:
    """One row per scale: both processes' wall and CPU, the first verdict, the peak memory."""
    lines = [
        "| samples | `codegen_metrics` process (call) | `regrade` command | wall ratio "
        "| CPU, each tree | first verdict | `regrade` peak PSS | verdicts as lcb_runner's |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for f in record()["figures"].values():
        same = f["samples"] - f["verdicts_flipped"] - f["failure_kind_changed"]
        lines.append(
            f"| {f['samples']:,} ({f['problems']} problems) "
            f"| {f['codegen_metrics_process_seconds']:.1f} s "
            f"({f['codegen_metrics_call_seconds']:.1f} s) | {f['regrade_seconds']:.1f} s "
            f"| **{f['speedup']:.1f}×** | {f['codegen_metrics_cpu_seconds']:.1f} s / "
            f"{f['regrade_cpu_seconds']:.1f} s ({f['cpu_ratio']:.1f}×) "
            f"| {f['regrade_first_verdict_seconds']:.1f} s | {f['regrade_peak_pss_mib']:.0f} MiB "
            f"| {same:,} |"
        )
    return "\n".join(lines)


def loaded() -> str:
    """The 1x run beside the busy loops: what moved against lcb_runner's idle verdicts."""
    data = record()
    lines = [
        f"| `regrade`, {data['hogs']} busy loops beside it | wall | verdicts flipped "
        "| failure kind changed | starved, run again alone | rechecked | flipped in the band |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, f in data["loaded"].items():
        lines.append(
            f"| {LOADED_RUNS.get(name, name)} | {f['regrade_seconds']:.1f} s "
            f"| {f['verdicts_flipped']} | {f['failure_kind_changed']} "
            f"| {f['starved_run_again']} | {f['rechecked']} | {f['band_flipped']} |"
        )
    return "\n".join(lines)


def goals() -> str:
    """Each goal, met or not, by the record's figures."""
    figures = record()["figures"]
    said = []
    for scale, goal in SPEEDUP_GOALS.items():
        if scale in figures:
            f = figures[scale]
            met = "met" if f["speedup"] >= goal else "**not met**"
            said.append(f"≥ {goal:.0f}× at {f['samples']:,} samples: {f['speedup']:.1f}×, {met}")
    first = figures["1x"]["regrade_first_verdict_seconds"]
    met = "met" if first <= FIRST_VERDICT_GOAL_SECONDS else "**not met**"
    said.append(f"first verdict within ~{FIRST_VERDICT_GOAL_SECONDS:.0f} s: {first:.1f} s, {met}")
    if "10x" in figures:
        low, high = (figures[s]["regrade_peak_pss_mib"] for s in ("1x", "10x"))
        one, ten = (figures[s]["regrade_largest_process_pss_mib"] for s in ("1x", "10x"))
        met = "met" if high <= FLAT_MEMORY * low else "**not met**"
        said.append(
            f"memory flat from 1× to 10×: the tree's peak {low:.0f} and {high:.0f} MiB, {met} "
            f"(its largest one process {one:.0f} and {ten:.0f} MiB)"
        )
    return "; ".join(said) + "."


PHASES = {
    "imports": "the interpreter and the imports",
    "checks": "the run, dataset, upstream tree and judge checks, up to grading's call",
    "grading_start": "the grading process's start to its first verdict",
}


def phases() -> str:
    """What the 1x run's command did before its first verdict, phase by phase."""
    found = record()["figures"]["1x"]["regrade_phases_seconds"]
    return "; ".join(f"{words} {found[name]:.2f} s" for name, words in PHASES.items())


def cores(scale: str) -> str:
    """The cores each side's tree had on average (its CPU over its wall time) at a scale."""
    f = record()["figures"][scale]
    mine = f["regrade_cpu_seconds"] / f["regrade_seconds"]
    theirs = f["codegen_metrics_cpu_seconds"] / f["codegen_metrics_process_seconds"]
    total = record()["machine"]["cpus"]
    return f"`regrade` {mine:.2f} of the {total} cores, `codegen_metrics` {theirs:.2f}"


def figure(scale: str, field: str) -> str:
    """One figure of a scale's run (``1x``, ``10x``; ``loaded:NAME`` for a loaded run), as the
    tables show it: a ratio, seconds, MiB or a count."""
    group, _, name = scale.partition(":")
    found = record()["loaded"][name] if group == "loaded" else record()["figures"][scale]
    value = found[field]
    if field in ("speedup", "cpu_ratio"):
        return f"{value:.1f}×"
    if field.endswith("seconds"):
        return f"{value:.1f} s"
    if field.endswith("mib"):
        return f"{value:.0f} MiB"
    return f"{value:,}"


FIGURES = {
    "regrade-e2e-measured": measured_on,
    "regrade-e2e-table": table,
    "regrade-e2e-loaded": loaded,
    "regrade-e2e-goals": goals,
    "regrade-e2e-phases": phases,
    "regrade-e2e-cores": cores,
    "regrade-e2e": figure,
}
