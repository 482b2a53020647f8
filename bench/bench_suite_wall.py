"""Benchmark: the default conformance run's wall time, for several checkouts side by side.

    python bench/bench_suite_wall.py [--repeats 3] [--args "..."] CHECKOUT [CHECKOUT ...]

Each CHECKOUT is a tree of this repository (e.g. `git worktree add --detach /tmp/base COMMIT`);
its tests run with this interpreter (the tox env's) and the checkout's own code first on
PYTHONPATH, in the checkout's directory, with the command of `tox -e conformance` (or --args).
The runs alternate between checkouts, so load on the machine hits them alike; the best and
the median of the repeats are printed per checkout. Figures for docs/performance.md, not
assertions.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_ARGS = (
    '-n 2 -m "not upstream and not selftest and not realvocab" -q -p no:cacheprovider'
)


def run_once(checkout: Path, args: list[str]) -> tuple[float, int]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(checkout / "impl"), str(checkout / "conformance"), env.get("PYTHONPATH", "")]
    )
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - start, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkouts", nargs="+", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--args", default=DEFAULT_ARGS, help="pytest arguments")
    options = parser.parse_args()
    args = shlex.split(options.args)
    walls: dict[Path, list[float]] = {checkout: [] for checkout in options.checkouts}
    for _ in range(options.repeats):
        for checkout in options.checkouts:
            wall, code = run_once(checkout, args)
            if code != 0:
                print(f"{checkout}: pytest exited {code}", file=sys.stderr)
                return 1
            walls[checkout].append(wall)
    print(f"pytest {options.args}; {options.repeats} runs each, alternating; {os.cpu_count()} CPUs")
    for checkout, times in walls.items():
        print(
            f"{checkout}: best {min(times):.1f} s, median {statistics.median(times):.1f} s "
            f"({', '.join(f'{t:.1f}' for t in times)})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
