"""Benchmark: the case runner against the pytest-driven verdict it replaced, side by side.

    python bench/bench_runner.py [--baseline COMMIT] [--repeat N] [--json FILE]

Times `lcb-conformance --impl lcb_prompts` (every case of the reference, reports included)
four ways in one run, on this machine as it is: the command of COMMIT (default: the last one
before the runner, which ran pytest in-process and read its outcomes back; exported with
`git archive`, run on this environment's packages), and this checkout's command in-process,
in two worker processes (--jobs 2), and over --impl-cmd (the generic JSON-lines server serving
lcb_prompts, one request per case). Each is a fresh process; wall time and the CPU time of
the process and its children are the median of N runs. The figures go to docs/performance.md
with the date and this command, not into an assertion.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from pathlib import Path

from bench_record import write_record

from lcb_conformance.adapters import jsonl_server

REPO = Path(__file__).resolve().parents[1]
# The last commit whose verdict was pytest's outcomes read back (before lcb_conformance.runner).
BASELINE = "120e1e5"


def baseline_python(commit: str, work: Path) -> Path:
    """A venv whose lcb_conformance and lcb_prompts are COMMIT's, with this environment's
    other packages (the editable install's finder is not processed there)."""
    tree = work / "baseline"
    tree.mkdir()
    archive = work / "baseline.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(REPO), "archive", commit], stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site_packages = next(venv.glob("lib/python*/site-packages"))
    paths = [tree / "conformance", tree / "impl", Path(sysconfig.get_paths()["purelib"])]
    (site_packages / "baseline.pth").write_text("".join(f"{p}\n" for p in paths), "utf-8")
    return venv / "bin" / "python"


def timed(command: list[str], cwd: Path) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return {"wall": wall, "cpu": cpu, "stdout": done.stdout}


def cases_in(report: Path) -> int:
    return json.loads(report.read_text("utf-8"))["totals"]["cases"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default=BASELINE, help="the commit to compare with")
    parser.add_argument("--repeat", type=int, default=3, help="runs per way (the median)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lcb-bench-runner-") as temporary:
        work = Path(temporary)
        old = baseline_python(options.baseline, work)
        command = [sys.executable, "-m", "lcb_conformance.cli", "--impl", "lcb_prompts"]
        ways = {
            f"pytest-driven verdict ({options.baseline})": [str(old), *command[1:]],
            "runner, in-process": command,
            "runner, --jobs 2": [*command, "--jobs", "2"],
            "runner, --impl-cmd (JSON lines)": [*command, "--impl-cmd", f"{sys.executable} "
                                                f"{jsonl_server.PATH} lcb_prompts"],
        }  # fmt: skip
        figures = {}
        for name, argv in ways.items():
            runs, report = [], work / "report.json"
            for _ in range(options.repeat):
                runs.append(timed([*argv, "--json", str(report)], cwd=work))
            figures[name] = {
                "wall_seconds": round(statistics.median(r["wall"] for r in runs), 2),
                "cpu_seconds": round(statistics.median(r["cpu"] for r in runs), 2),
                "cases": cases_in(report),
                "runs": options.repeat,
            }
            print(f"{name}: {figures[name]}", flush=True)
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "command": "python bench/bench_runner.py " + " ".join(sys.argv[1:]),
        "machine": {"cpus": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2),
                    "python": platform.python_version()},
        "figures": figures,
    }  # fmt: skip
    if options.json:
        write_record(options.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
