"""Benchmark: a third party's time to a first verdict, from a fresh clone, environment included.

    python bench/bench_time_to_verdict.py [--tox PATH] [--json FILE] [REPOSITORY]

The path the README gives a newcomer with an in-process adapter: clone the repository, then
`tox -e report -- --impl my_adapter:adapter --impl-path DIR` (tox creates the env and installs
the suite, then the suite runs). The adapter is written to a temporary folder the way a user
would write one (wrapping lcb_prompts, so the verdict is a pass). Each phase is timed: clone,
environment creation, the run itself. pip's cache is whatever this machine has (warm once the
packages were downloaded); the figure goes to docs/performance.md, not into an assertion.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ADAPTER = '''\
import lcb_prompts


class Adapter:
    """A harness that reuses lcb_prompts' functions (its own would go here)."""

    STYLES = ("generic", "codeqwen")
    DEVIATIONS = ("think",)
    format_lcb_prompt = staticmethod(lcb_prompts.format_lcb_prompt)
    extract_code = staticmethod(lcb_prompts.extract_code)


adapter = Adapter()
'''


def timed(command: list[str], cwd: Path, env: dict) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repository", nargs="?", default=str(REPO), help="what to clone")
    parser.add_argument("--tox", default=shutil.which("tox"), help="the tox to run")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    options = parser.parse_args()
    if not options.tox:
        print("bench_time_to_verdict: no tox: pip install tox, or --tox PATH", file=sys.stderr)
        return 2
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOX_", "VIRTUAL_ENV"))}
    with tempfile.TemporaryDirectory(prefix="lcb-verdict-") as temporary:
        root = Path(temporary)
        adapter_dir = root / "adapter"
        adapter_dir.mkdir()
        (adapter_dir / "my_adapter.py").write_text(ADAPTER, "utf-8")
        phases: dict[str, float] = {}
        phases["clone"], done = timed(
            ["git", "clone", "--quiet", options.repository, str(root / "clone")], root, env
        )
        if done.returncode:
            print(done.stderr, file=sys.stderr)
            return 1
        clone = root / "clone"
        report = ["-e", "report"]
        phases["environment"], done = timed([options.tox, *report, "--notest"], clone, env)
        if done.returncode:
            print(done.stdout[-3000:], done.stderr[-3000:], file=sys.stderr)
            return 1
        verdict_command = [
            *report,
            "--",
            "--impl",
            "my_adapter:adapter",
            "--impl-path",
            str(adapter_dir),
            "--json",
            str(root / "report.json"),
        ]
        phases["run"], done = timed([options.tox, *verdict_command], clone, env)
        headline = json.loads((root / "report.json").read_text("utf-8"))["headline"]
    total = sum(phases.values())
    figures = {
        "phases_s": {name: round(seconds, 1) for name, seconds in phases.items()},
        "total_s": round(total, 1),
        "exit_code": done.returncode,
        "headline": headline,
        "cpus": os.cpu_count(),
        "command": "tox " + " ".join(re.sub(r"^/.*/", "DIR/", part) for part in verdict_command),
    }
    for name, seconds in phases.items():
        print(f"{name:>11}: {seconds:6.1f} s")
    print(f"{'total':>11}: {total:6.1f} s ({os.cpu_count()} CPUs); exit {done.returncode}")
    print(headline)
    if options.json:
        options.json.write_text(json.dumps(figures, indent=2) + "\n", "utf-8")
    return 0 if done.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
