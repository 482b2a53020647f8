"""The time-to-first-verdict benchmark's figures, read from the record it wrote
(bench/time-to-verdict.json, by ``python bench/bench_time_to_verdict.py --json
bench/time-to-verdict.json``): the README's one line and the performance page's paragraph. The
record holds its own date, command, machine and load, so the pages show them dated and cannot
drift from it."""

from __future__ import annotations

from lcb_conformance_dev.bench_figures import read_record

RECORD = "bench/time-to-verdict.json"


def record() -> dict:
    return read_record(RECORD)


def _phases(kind: str) -> str:
    return ", ".join(
        f"{name} {phase[kind]:.1f} s" for name, phase in record()["phases"].items()
    )


def summary() -> str:
    """Clone to headline in CPU and wall seconds, with the date, the load and the command."""
    return "{total_cpu}{wall} (measured {date}, `{command}`)".format(
        total_cpu=f"**{record()['total_cpu_s']:.1f} s** of CPU to the headline",
        wall=f", {record()['total_wall_s']:.1f} s wall on {load()}",
        date=record()["date"],
        command=record()["command"],
    )


def load() -> str:
    machine = record()["machine"]
    return f"{machine['cpus']} CPUs under a 1-minute load of {machine['load_1min_at_start']}"


def measured_on() -> str:
    """The paragraph: each phase in wall and CPU seconds, how the caches were, what it said."""
    data = record()
    machine = data["machine"]
    return (
        f"Measured on {data['date']} with `{data['command']}`: {machine['cpus']} CPUs, "
        f"1-minute load {machine['load_1min_at_start']} at the start and "
        f"{machine['load_1min_at_end']} at the end, CPython {machine['python']}, caches "
        f"{data['caches']}, uv {data['uv']}. `git clone` to the headline: "
        f"**{data['total_cpu_s']:.1f} s of CPU** ({_phases('cpu_s')}) and "
        f"{data['total_wall_s']:.1f} s wall ({_phases('wall_s')}); exit {data['exit_code']}, "
        f"the headline: “{data['headline']}”"
    )


FIGURES = {
    "time-to-verdict-summary": summary,
    "time-to-verdict-measured": measured_on,
}
