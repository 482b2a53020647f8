"""The gate as a user installs it: a wheel built from this checkout, installed in a fresh venv
outside the repository, run as `lcb-conformance` from another directory.

Offline and fast: the wheel is built without build isolation, and the venv gets exactly the
distributions lcb-conformance requires (its Requires-Dist, followed to the end), linked from
this environment; nothing else. A dependency the command needs but does not declare fails here.
The runs are restricted with `-- -k` (a full `lcb-conformance --impl lcb_prompts` in such a venv
exits 0 in about 65 s, docs/install.md). Costs 27 s on 2 idle cores, 115 s on busy ones.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from lcb_conformance.suite import paths

pytestmark = pytest.mark.selftest

DISTRIBUTION = "lcb-conformance"
BROKEN_ADAPTER = """
from lcb_prompts import DEVIATIONS, extract_code as _extract

def extract_code(model_output, style="generic"):
    return _extract(model_output, style=style).rstrip()  # drops the program's last newline
"""


def requirement_closure(name: str) -> set[str]:
    """The distributions installing `name` installs (no extras), `name` included."""
    found: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        key = current.lower().replace("_", "-")
        if key in found:
            continue
        found.add(key)
        for line in importlib.metadata.requires(current) or ():
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return found


def link_distributions(names: set[str], into: Path) -> None:
    """Each distribution's top-level files (packages, modules, .dist-info) linked into `into`."""
    into.mkdir()
    for name in names:
        distribution = importlib.metadata.distribution(name)
        tops = {Path(file).parts[0] for file in distribution.files or ()}
        for top in tops - {"..", "__pycache__"}:
            if not (into / top).exists():
                (into / top).symlink_to(distribution.locate_file(top))


def tracked_copy(into: Path) -> Path:
    """The checkout's files that git knows (tracked, or new and not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=paths.CHECKOUT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (entry.decode() for entry in listed)):
        source = paths.CHECKOUT / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    return into


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The bin/ folder of a fresh venv holding the wheel and only its requirements."""
    if paths.CHECKOUT is None or shutil.which("git") is None:
        pytest.skip("builds the wheel from a git checkout of the repository")
    work = tmp_path_factory.mktemp("installed-wheel")
    source = tracked_copy(work / "source")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["--wheel-dir", str(work / "dist"), str(source)],
        check=True,
        capture_output=True,
    )
    wheel = next((work / "dist").glob("lcb_conformance-*.whl"))
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site_packages = next(venv.glob("lib/python*/site-packages"))
    requirements = requirement_closure(DISTRIBUTION) - {DISTRIBUTION}
    link_distributions(requirements, work / "requirements")
    (site_packages / "requirements.pth").write_text(f"{work / 'requirements'}\n", "utf-8")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install"]
        + ["--no-deps", "--no-index", "-q", str(wheel)],
        check=True,
        capture_output=True,
    )
    return venv / "bin"


def lcb_conformance(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HF_HOME")}
    return subprocess.run(
        [str(bin_dir / "lcb-conformance"), "--color=never", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_installed_suite_is_the_wheels(installed, tmp_path):
    probe = "from lcb_conformance.suite import paths; print(paths.CHECKOUT, paths.ROOT)"
    shown = subprocess.run(
        [str(installed / "python"), "-c", probe], cwd=tmp_path, capture_output=True, text=True
    )
    checkout, root = shown.stdout.split()
    assert checkout == "None"
    assert root.endswith("site-packages/lcb_conformance/data"), shown.stdout + shown.stderr
    version = subprocess.run(
        [str(installed / "lcb-conformance"), "--version"], cwd=tmp_path, capture_output=True
    )
    assert version.returncode == 0 and version.stdout.decode().endswith(f"{root} (installed)\n")


def test_the_reference_passes(installed, tmp_path):
    run = lcb_conformance(installed, tmp_path, "--impl", "lcb_prompts", "--", "-k", "codeqwen")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "codeqwen" in run.stdout and "Traceback" not in run.stdout + run.stderr


def test_a_broken_adapter_fails(installed, tmp_path):
    (tmp_path / "broken_adapter.py").write_text(BROKEN_ADAPTER, "utf-8")
    run = lcb_conformance(
        installed,
        tmp_path,
        "--impl",
        "broken_adapter",
        "--impl-path",
        str(tmp_path),
        "--",
        "-k",
        "test_extract_code and qwq",
    )
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    assert "first failure in qwq" in run.stdout
    assert "Traceback" not in run.stdout + run.stderr


def test_an_implementation_that_cannot_be_loaded_is_a_usage_error(installed, tmp_path):
    run = lcb_conformance(installed, tmp_path, "--impl", "no_such_module_anywhere")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "no_such_module_anywhere" in run.stderr
    assert "Traceback" not in run.stdout + run.stderr
