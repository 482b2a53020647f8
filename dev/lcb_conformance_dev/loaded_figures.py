"""The loaded-machine regrade benchmark's figures, read from the record it wrote
(bench/regrade-loaded.json, by ``python bench/bench_regrade_loaded.py ... --json
bench/regrade-loaded.json``): lcb_runner's verdicts on a quiet machine against `regrade`'s
beside a CPU hog, without and with ``--recheck``, and what each near-limit program got. The
record holds its own date, command, machine and loads, so docs/performance-regrade-e2e.md
shows them dated."""

from __future__ import annotations

from lcb_conformance_dev.bench_figures import read_record

RECORD = "bench/regrade-loaded.json"


def record() -> dict:
    return read_record(RECORD)


def _runs() -> dict[str, str]:
    """Each loaded run's key in the record, and how the tables name it."""
    return {name: "default settings" if name == "default" else f"`--{name.replace('-', ' ')}`"
            for name in record()["loaded"]}  # fmt: skip


def _load(machine: dict) -> str:
    return f"{machine['load'][0]}"


def measured_on() -> str:
    """When, how and on which machine, and the loads the truth and each run were under."""
    data = record()
    machine, upstream, truth = data["machine"], data["upstream"], data["truth"]
    command = data["command"].replace(upstream.get("path") or "\0", "CHECKOUT_28fef95")
    version = (upstream.get("commit") or upstream.get("version", ""))[:7]
    quiet = truth["quiet"]
    waited = (
        f"reached after {quiet['waited_seconds']} s"
        if quiet["reached"]
        else f"**not reached** in {quiet['waited_seconds']} s"
    )
    runs = "; ".join(
        f"{words} from {_load(data['loaded'][name]['machine_before'])} to "
        f"{_load(data['loaded'][name]['machine_after'])}"
        for name, words in _runs().items()
    )
    return (
        f"Finished {data['date']} (its record's time), `{command}`: {machine['cpus']} CPUs "
        f"shared with other sessions' tests, CPython {machine['python']}, lcb_runner "
        f"{version}, per-test limit {data['timeout']} s, {data['hogs']} busy loops (each "
        f"bounded to {data['hog_seconds']:.0f} s). 1-minute load: the truth graded from "
        f"{_load(truth['machine_before'])} to {_load(truth['machine_after'])} (a load of at "
        f"most {quiet['load_at_most']} awaited first: {waited}); {runs}. `uptime` at the "
        f"start: `{machine['uptime_at_start']}`."
    )


def table() -> str:
    """One row per loaded run: what moved against lcb_runner's quiet-machine verdicts."""
    data = record()
    truth = data["truth"]
    lines = [
        f"| `regrade` on {truth['samples']} samples, {data['hogs']} busy loops beside it "
        "| wall | verdicts flipped | failure kind changed | starved, run again alone "
        "| rechecked | flipped in the band | pass@1: lcb_runner idle, `regrade` (band) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, words in _runs().items():
        f = data["loaded"][name]
        band = f["timing"]["band"]
        shown = f" ({band[0]:.2f}–{band[1]:.2f})" if band else ""
        lines.append(
            f"| {words} | {f['regrade_seconds']:.1f} s | {f['verdicts_flipped']} "
            f"| {f['failure_kind_changed']} | {f['starved_run_again']} | {f['rechecked']} "
            f"| {f['band_flipped']} | {f['truth_pass_at_1']:.2f}, {f['pass_at_1']:.2f}{shown} |"
        )
    return "\n".join(lines)


def _outcome(sample: dict) -> str:
    said = sample["regrade"]
    if "starved" in sample:
        said = f"{sample['starved']} starved, then {said} alone"
    if "rechecks" in sample:
        said += f"; rechecks: {', '.join(sample['rechecks'])}"
    return f"{said} (wall {sample['wall']:.1f} s, CPU {sample['cpu']:.1f} s)"


def near_limit() -> str:
    """One row per near-limit program: lcb_runner's verdict, then `regrade`'s in each run."""
    data = record()
    runs = _runs()
    lines = [
        "| correct program | lcb_runner idle | " + " | ".join(runs.values()) + " |",
        "|---|---|" + "---|" * len(runs),
    ]
    for number, program in enumerate(data["truth"]["near_limit"]):
        took = program["execution_seconds"]
        idle = program["lcb_runner_idle"] + (f", its test {took:.1f} s" if took else "")
        idle += f" (in the whole call: {program['lcb_runner_whole_run']})"
        cells = [_outcome(data["loaded"][name]["near_limit"][number]) for name in runs]
        lines.append(f"| `{program['sample']}`, {program['name']} | {idle} | "
                     + " | ".join(cells) + " |")  # fmt: skip
    return "\n".join(lines)


def flipped() -> str:
    """Every flipped sample of every run, with both outcomes ("none" when none flipped)."""
    said = [
        f"{words}: {sample['sample']} ({sample['lcb_runner_idle']} idle, {sample['regrade']})"
        for name, words in _runs().items()
        for sample in record()["loaded"][name]["flipped"]
    ]
    return "; ".join(said) or "none"


def flipped_against_whole_run() -> str:
    """Each run's samples whose pass/fail differs from the whole codegen_metrics call's."""
    return "; ".join(
        f"{words}: {', '.join(record()['loaded'][name]['flipped_against_whole_run']) or 'none'}"
        for name, words in _runs().items()
    )


FIGURES = {
    "regrade-loaded-measured": measured_on,
    "regrade-loaded-table": table,
    "regrade-loaded-near-limit": near_limit,
    "regrade-loaded-flipped": flipped,
    "regrade-loaded-flipped-whole-run": flipped_against_whole_run,
}
