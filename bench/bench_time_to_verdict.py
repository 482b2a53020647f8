"""Benchmark: a newcomer's time to the first verdict, from `git clone` to the headline, with no
package cache.

    python bench/bench_time_to_verdict.py [--json FILE] [--keep-uv] [REPOSITORY]

Clones REPOSITORY (default: this checkout) into a temporary folder and runs the README's first
command there as written, `python3 dev/first_verdict.py`, with a fresh empty PIP_CACHE_DIR and
UV_CACHE_DIR (the registry reachable, nothing downloaded before) and without any uv on PATH
(--keep-uv: the one there), so the uv, the gate's dependencies and tox all come from the
registry. Each phase is timed, wall and CPU (this process's children: every process the
phase waited for): clone, environment (.venv built, first_verdict's own record), verdict;
the 1-minute load at the start and the end says what else the machine was doing. The headline
is the one the run wrote (--json of lcb-conformance). `--json bench/time-to-verdict.json` writes
the record that docs_figures shows (README.md, docs/install.md, docs/performance.md). Not in
any tox env: it needs the network and measures the machine, it asserts nothing.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIRST_COMMAND = ["python3", "dev/first_verdict.py"]
RECORD_COMMAND = "python bench/bench_time_to_verdict.py --json bench/time-to-verdict.json"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], cwd: Path, env: dict) -> tuple[dict, int]:
    wall, cpu = time.perf_counter(), children_cpu()
    code = subprocess.run(command, cwd=cwd, env=env).returncode
    return {"wall_s": time.perf_counter() - wall, "cpu_s": children_cpu() - cpu}, code


def fresh_environment(root: Path, keep_uv: bool) -> dict:
    """This environment without a virtualenv, tox or PYTHONPATH of its own, with empty caches;
    PATH without uv unless kept."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("TOX_", "VIRTUAL_ENV", "UV_", "PYTHONPATH"))
    }
    entries = env.get("PATH", "").split(os.pathsep)
    if not keep_uv:
        entries = [entry for entry in entries if not (Path(entry) / "uv").exists()]
    env["PATH"] = os.pathsep.join(entries)
    for cache in ("PIP_CACHE_DIR", "UV_CACHE_DIR"):
        env[cache] = str(root / cache.lower())
    env["LCB_FIRST_VERDICT_PHASES"] = str(root / "phases.json")
    return env


def rounded(phase: dict) -> dict:
    return {name: round(seconds, 1) for name, seconds in phase.items()}


def measure(repository: str, keep_uv: bool) -> dict:
    load_at_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="lcb-first-verdict-") as temporary:
        root = Path(temporary)
        env = fresh_environment(root, keep_uv)
        clone = root / "clone"
        clone_phase, code = timed(["git", "clone", "--quiet", repository, str(clone)], root, env)
        if code:
            raise SystemExit(f"bench_time_to_verdict: git clone {repository} failed")
        report = root / "report.json"
        run_phase, code = timed([*FIRST_COMMAND, "--json", str(report)], clone, env)
        if not report.exists():
            raise SystemExit(f"bench_time_to_verdict: no verdict written (exit {code})")
        phases = json.loads((root / "phases.json").read_text("utf-8"))
        headline = json.loads(report.read_text("utf-8"))["headline"]
    phases = {"clone": clone_phase, **phases}
    return {
        "date": datetime.date.today().isoformat(),
        "command": RECORD_COMMAND,
        "first_command": " ".join(FIRST_COMMAND),
        "caches": "cold: empty PIP_CACHE_DIR and UV_CACHE_DIR, the registry reachable",
        "uv": "on PATH" if keep_uv and shutil.which("uv") else "from PyPI (pip)",
        "machine": {
            "cpus": os.cpu_count(),
            "load_1min_at_start": round(load_at_start, 2),
            "load_1min_at_end": round(os.getloadavg()[0], 2),
            "python": platform.python_version(),
        },
        "phases": {name: rounded(phase) for name, phase in phases.items()},
        "total_wall_s": round(clone_phase["wall_s"] + run_phase["wall_s"], 1),
        "total_cpu_s": round(clone_phase["cpu_s"] + run_phase["cpu_s"], 1),
        "exit_code": code,
        "headline": headline,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repository", nargs="?", default=str(REPO), help="what to clone")
    parser.add_argument("--json", type=Path, help="also write the record here")
    parser.add_argument("--keep-uv", action="store_true", help="leave a uv on PATH in use")
    options = parser.parse_args()
    figures = measure(options.repository, options.keep_uv)
    for name, phase in figures["phases"].items():
        print(f"{name:>11}: {phase['wall_s']:6.1f} s wall, {phase['cpu_s']:6.1f} s CPU")
    print(
        f"{'total':>11}: {figures['total_wall_s']:6.1f} s wall, {figures['total_cpu_s']:6.1f} s "
        f"CPU ({figures['machine']['cpus']} CPUs, 1-minute load "
        f"{figures['machine']['load_1min_at_start']} at the start); exit {figures['exit_code']}"
    )
    print(figures["headline"])
    if options.json:
        options.json.write_text(json.dumps(figures, indent=2) + "\n", "utf-8")
    return 0 if figures["exit_code"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
