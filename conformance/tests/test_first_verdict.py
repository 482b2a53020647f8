"""The README's first command, dev/first_verdict.py, offline: its exit code is lcb-conformance's
own (a differing verdict is never turned into a pass), a step of building .venv that fails is
one line naming it and exit 2, and the options given reach lcb-conformance as given; with
--runs, .venv gets the install audit, score and regrade share (runs_install), and nothing more
without it.

The registry is not reachable here, so a stand-in uv on PATH plays uv: it makes .venv with a
`lcb-conformance` that exits as FAKE_VERDICT_EXIT says and records its arguments
(bench/bench_time_to_verdict.py runs the real one, uv and all, from a clone).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lcb_conformance.common import exit_codes, paths, runs_install

# The repository's own entry point, not the gate's: tox -e upstream runs it with the self-tests.
pytestmark = pytest.mark.selftest

FAKE_UV = """#!/bin/sh
# a stand-in uv: `uv venv ... DIR` and `uv pip install ...`
set -e
printf '%s\n' "$*" >> "$(dirname "$0")/commands"
# FAKE_UV_FAILS: a word of the command lines that fail (venv, pip, --no-deps)
case " $* " in
    *" ${FAKE_UV_FAILS:-(none)} "*) echo "uv: $FAKE_UV_FAILS went wrong" >&2; exit 7;;
esac
if [ "$1" = venv ]; then
    for last in "$@"; do :; done
    mkdir -p "$last/bin"; ln -s "$(command -v python3)" "$last/bin/python"
    cat > "$last/bin/lcb-conformance" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" > "$(dirname "$0")/arguments"
echo "lcb_prompts: a headline"
exit "${FAKE_VERDICT_EXIT:-0}"
EOF
    chmod +x "$last/bin/lcb-conformance"
fi
"""


@pytest.fixture
def checkout(tmp_path) -> Path:
    """The script, the exit-code table it imports and the constraints, as in a clone."""
    root = tmp_path / "clone"
    for relative in (
        "dev/first_verdict.py",
        "conformance/lcb_conformance/__init__.py",
        "conformance/lcb_conformance/common/__init__.py",
        "conformance/lcb_conformance/common/exit_codes.py",
        "conformance/lcb_conformance/common/paths.py",
        "conformance/lcb_conformance/common/runs_install.py",
        "constraints/transformers-5.23.txt",
        "constraints/test-tools.txt",
    ):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(paths.ROOT / relative, root / relative)
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "uv").write_text(FAKE_UV, "utf-8")
    (tools / "uv").chmod(0o755)
    return root


def first_verdict(root: Path, *arguments: str, **env: str) -> subprocess.CompletedProcess:
    path = os.pathsep.join([str(root.parent / "tools"), os.environ.get("PATH", "")])
    return subprocess.run(
        [sys.executable, str(root / "dev" / "first_verdict.py"), *arguments],
        cwd=root, env={**os.environ, "PATH": path, **env}, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip


@pytest.mark.parametrize("verdict_exit", [exit_codes.OK, exit_codes.DIFFERS, exit_codes.UNUSABLE])
def test_the_exit_code_is_lcb_conformances_own(checkout: Path, verdict_exit: int):
    done = first_verdict(checkout, FAKE_VERDICT_EXIT=str(verdict_exit))
    assert done.returncode == verdict_exit, done.stderr
    assert "lcb_prompts: a headline" in done.stdout


def test_the_options_reach_lcb_conformance_as_given(checkout: Path):
    done = first_verdict(checkout, "--impl", "my_adapter:adapter", "--impl-path", "a dir")
    assert done.returncode == exit_codes.OK, done.stderr
    recorded = (checkout / ".venv" / "bin" / "arguments").read_text("utf-8")
    assert recorded.splitlines() == ["--impl", "my_adapter:adapter", "--impl-path", "a dir"]


@pytest.mark.parametrize("failing", ["venv", "pip"])
def test_a_failing_step_is_one_line_and_exit_2(checkout: Path, failing: str):
    done = first_verdict(checkout, FAKE_UV_FAILS=failing)
    assert done.returncode == exit_codes.UNUSABLE
    assert "Traceback" not in done.stderr
    ours = [line for line in done.stderr.splitlines() if line.startswith("first_verdict:")]
    assert ours[-1].endswith("failed (its output is above): " + str(checkout.parent / "tools/uv"))
    assert f"uv: {failing} went wrong" in done.stderr  # uv's own words come first
    assert not (checkout / ".venv" / "bin" / "arguments").exists()  # no verdict was run


def uv_commands(root: Path) -> list[str]:
    """What the stand-in uv was asked to do, one command line each, the clone's path as ROOT."""
    lines = (root.parent / "tools" / "commands").read_text("utf-8").splitlines()
    return [line.replace(str(root), "ROOT") for line in lines]


CONSTRAINED = "-c ROOT/constraints/transformers-5.23.txt -c ROOT/constraints/test-tools.txt"
PIP = "pip install --quiet --python ROOT/.venv/bin/python"


def test_the_first_verdict_installs_no_extra(checkout: Path):
    assert first_verdict(checkout).returncode == exit_codes.OK
    assert uv_commands(checkout)[1:] == [f"{PIP} {CONSTRAINED} -e ROOT tox"]


def test_runs_adds_the_upstream_extra_and_the_stand_in_without_its_requirements(checkout: Path):
    done = first_verdict(checkout, runs_install.FIRST_VERDICT_OPTION)
    assert done.returncode == exit_codes.OK, done.stderr
    assert uv_commands(checkout)[1:] == [
        f"{PIP} {CONSTRAINED} -e ROOT[upstream] tox",
        f"{PIP} --no-deps nvidia-livecodebench==26.3",
    ]
    assert not (checkout / ".venv" / "bin" / "arguments").exists()  # no verdict was run
    last = done.stderr.splitlines()[-1]
    assert last.endswith(f"for audit, score and regrade: {checkout}/.venv/bin/lcb-conformance "
                         "audit|score|regrade RUN ...")  # fmt: skip


def test_runs_then_the_command_given(checkout: Path):
    done = first_verdict(checkout, runs_install.FIRST_VERDICT_OPTION, "audit", "a run.json")
    assert done.returncode == exit_codes.OK, done.stderr
    recorded = (checkout / ".venv" / "bin" / "arguments").read_text("utf-8")
    assert recorded.splitlines() == ["audit", "a run.json"]


def test_a_failing_stand_in_install_is_one_line_and_exit_2(checkout: Path):
    done = first_verdict(checkout, runs_install.FIRST_VERDICT_OPTION, FAKE_UV_FAILS="--no-deps")
    assert done.returncode == exit_codes.UNUSABLE
    assert "Traceback" not in done.stderr
    ours = [line for line in done.stderr.splitlines() if line.startswith("first_verdict:")]
    assert ours[-1].startswith("first_verdict: installing the stand-in failed (its output is")
