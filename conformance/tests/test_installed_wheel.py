"""The gate as a user installs it: a wheel built from this checkout, installed in a fresh venv
outside the repository, run as `lcb-conformance` from another directory; the wheel holds the
gate, not the workshop; and installed into a host environment holding older pytest and
hypothesis, it leaves them as they are and runs there, its pytest plugin included.

Offline: the wheel is built without build isolation, and the venv gets exactly the
distributions lcb-conformance requires (its Requires-Dist, followed to the end), linked from
this environment; nothing else. A dependency the command needs but does not declare fails here.
The older test tools are wheels tox downloads before the tests run (LCB_OLDER_TEST_TOOLS).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import junit_record
import pytest
from packaging.requirements import Requirement

from lcb_conformance.common import paths
from lcb_conformance.suite import index
from lcb_conformance_dev import docs_figures

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
def wheel(tmp_path_factory) -> Path:
    """The wheel built from the checkout's files."""
    if paths.CHECKOUT is None or shutil.which("git") is None:
        pytest.skip("builds the wheel from a git checkout of the repository")
    work = tmp_path_factory.mktemp("wheel")
    source = tracked_copy(work / "source")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["--wheel-dir", str(work / "dist"), str(source)],
        check=True,
        capture_output=True,
    )
    return next((work / "dist").glob("lcb_conformance-*.whl"))


def venv_with(work: Path, linked: set[str]) -> tuple[Path, Path]:
    """A fresh venv (its bin/ and site-packages) with these distributions linked in."""
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site_packages = next(venv.glob("lib/python*/site-packages"))
    link_distributions(linked, work / "requirements")
    (site_packages / "requirements.pth").write_text(f"{work / 'requirements'}\n", "utf-8")
    return venv / "bin", site_packages


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """The bin/ folder of a fresh venv holding the wheel and only its requirements."""
    work = tmp_path_factory.mktemp("installed-wheel")
    bin_dir, _ = venv_with(work, requirement_closure(DISTRIBUTION) - {DISTRIBUTION})
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install"]
        + ["--no-deps", "--no-index", "-q", str(wheel)],
        check=True,
        capture_output=True,
    )
    return bin_dir


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
    probe = "from lcb_conformance.common import paths; print(paths.CHECKOUT, paths.ROOT)"
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


def test_the_wheel_holds_the_gate_not_the_workshop(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    data = [name for name in names if name.startswith("lcb_conformance/data/")]
    assert "lcb_conformance/data/conformance/goldens/INDEX.json" in data
    assert any(name.startswith("lcb_conformance/data/fixtures/tokenizers/") for name in data)
    ours = [Path(name).name for name in names if not name.endswith(".dist-info/RECORD")]
    test_modules = [n for n in ours if n.startswith("test_") and n.endswith(".py")]
    assert not test_modules and "conftest.py" not in ours
    assert not [name for name in data if name.endswith(".py")], "code in the data folder"
    # every fixture file a case refers to
    referred = {
        value["fixture"]
        for case in index.held_cases()
        for value in case["call"]["args"].values()
        if isinstance(value, dict)
    }
    missing = [f for f in referred if f"lcb_conformance/data/fixtures/{f}" not in data]
    assert not missing, f"pyproject.toml's package-data lacks the fixtures {sorted(missing)}"
    # the maintainers' tooling is a package of its own (dev/), never in the wheel
    assert not [name for name in names if name.startswith(("lcb_conformance_dev/", "dev/"))]
    assert not [name for name in names if name.startswith("lcb_conformance/tools/")]
    workshop = ("peers/", "conformance/tests/", "conformance/examples/", "pyproject.toml")
    assert not [name for name in data if name.removeprefix("lcb_conformance/data/").startswith(
        workshop
    )]


def test_the_install_page_gives_the_wheels_size_and_file_count(wheel):
    install_page = paths.CHECKOUT / "docs" / "install.md"
    built = docs_figures.wheel_figures(wheel)
    differing = docs_figures.differences(install_page, built, only_built=True)
    assert not differing, "\n".join(map(str, differing))
    assert {mark.spec for mark in docs_figures.marks(install_page)} >= set(built)


def test_a_project_whose_venv_holds_the_gate_runs_the_cases_beside_its_own(installed, tmp_path):
    """uv's layout: the gate installed in the project's own .venv, which pytest's collection
    skips; the plugin's cases still join the session, beside the project's test (no false
    green of a session that ran none of them)."""
    project = tmp_path / "project"
    venv = project / ".venv"
    shutil.copytree(installed.parent, venv, symlinks=True)
    link_distributions(requirement_closure("pytest"), tmp_path / "pytest-requirements")
    site_packages = next(venv.glob("lib/python*/site-packages"))
    (site_packages / "pytest.pth").write_text(f"{tmp_path / 'pytest-requirements'}\n", "utf-8")
    (project / "test_host.py").write_text("def test_own():\n    pass\n", "utf-8")
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HF_HOME")}
    hosted = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "lcb_conformance.plugin",
         "--lcb-impl", "lcb_prompts", "-k", "own or prompt/codeqwen/", "-p", "no:cacheprovider",
         "--junitxml=host.xml"],
        cwd=project, env=environment, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert hosted.returncode == 0, hosted.stdout[-3000:] + hosted.stderr[-3000:]
    found = junit_record.outcomes(project / "host.xml")
    assert junit_record.counts(found) == {junit_record.PASSED: len(found)}
    cases = [o for o in found if o.test.startswith("prompt/codeqwen/")]
    assert "test_own" in {o.test for o in found} and len(cases) > 10


def test_the_reference_passes(installed, tmp_path):
    run = lcb_conformance(
        installed, tmp_path, "--impl", "lcb_prompts", "--only", "prompt", "--json", "r.json"
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["exit_code"] == 0 and report["impl"]["name"] == "lcb_prompts"
    assert {c["status"] for c in report["cells"] if c["style"] == "codeqwen"} == {"pass"}
    assert "Traceback" not in run.stdout + run.stderr  # the console's contract: no traceback


def test_a_broken_adapter_fails(installed, tmp_path):
    (tmp_path / "broken_adapter.py").write_text(BROKEN_ADAPTER, "utf-8")
    run = lcb_conformance(
        installed,
        tmp_path,
        "--impl",
        "broken_adapter",
        "--impl-path",
        str(tmp_path),
        "--only",
        "extract",
        "--json",
        "r.json",
    )
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["exit_code"] == 1
    groups = [(g["family"], g["kind"]) for g in report["failure_groups"]]
    assert ("extract", "trailing newline missing") in groups  # and the API contract's cases
    assert "Traceback" not in run.stdout + run.stderr  # the console's contract: no traceback


def test_an_implementation_that_cannot_be_loaded_is_a_usage_error(installed, tmp_path):
    # tests the console's contract: an unusable adapter is named on stderr, no traceback
    run = lcb_conformance(installed, tmp_path, "--impl", "no_such_module_anywhere")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "no_such_module_anywhere" in run.stderr
    assert "Traceback" not in run.stdout + run.stderr


OLDER_TOOLS = {"pytest": "8.3.5", "hypothesis": "6.100.0"}


def versions(bin_dir: Path) -> dict[str, str]:
    probe = (
        "import importlib.metadata as m, json; "
        f"print(json.dumps({{n: m.version(n) for n in {sorted(OLDER_TOOLS)!r}}}))"
    )
    shown = subprocess.run([str(bin_dir / "python"), "-c", probe], capture_output=True, text=True)
    return json.loads(shown.stdout)


def test_a_host_keeps_its_older_pytest_and_hypothesis_and_runs_the_gate(wheel, tmp_path):
    wheelhouse = os.environ.get("LCB_OLDER_TEST_TOOLS")
    if not wheelhouse or not Path(wheelhouse).is_dir():
        pytest.skip("LCB_OLDER_TEST_TOOLS: a folder of older pytest/hypothesis wheels (tox -e "
                    "upstream downloads it)")  # fmt: skip
    # the host: the gate's requirements but hypothesis (and pytest, which it does not
    # require) linked, the older pytest and hypothesis installed from their wheels
    kept = requirement_closure(DISTRIBUTION) - {DISTRIBUTION} - requirement_closure("hypothesis")
    bin_dir, _ = venv_with(tmp_path / "host", kept)
    pip = [sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install", "-q"]
    offline = ["--no-index", "--find-links", wheelhouse]
    # the host's pip, without this repository's pinned constraints (tox sets PIP_CONSTRAINT)
    host = {k: v for k, v in os.environ.items() if k != "PIP_CONSTRAINT"}
    requested = [f"{name}=={version}" for name, version in OLDER_TOOLS.items()]
    subprocess.run([*pip, *offline, *requested], check=True, capture_output=True, env=host)
    assert versions(bin_dir) == OLDER_TOOLS
    # the gate, its requirements resolved against what the host has (no --no-deps)
    installed = subprocess.run(
        [*pip, *offline, str(wheel)], capture_output=True, text=True, env=host
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    assert versions(bin_dir) == OLDER_TOOLS
    run = lcb_conformance(bin_dir, tmp_path, "--only", "prompt")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    # the host project: its own test in its own folder (not beside the venv built above, whose
    # installed packages pytest would collect as well)
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_host.py").write_text("def test_own():\n    pass\n", "utf-8")
    hosted = subprocess.run(
        [str(bin_dir / "python"), "-m", "pytest", "-q", "-p", "lcb_conformance.plugin",
         "--lcb-impl", "lcb_prompts", "-k", "own or prompt/codeqwen/", "-p", "no:cacheprovider",
         "--junitxml=host.xml"],
        cwd=project, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert hosted.returncode == 0, hosted.stdout[-3000:] + hosted.stderr[-3000:]
    found = junit_record.outcomes(project / "host.xml")  # the host's own test and the cases
    assert junit_record.counts(found) == {junit_record.PASSED: len(found)}
    assert "test_own" in {o.test for o in found} and len(found) > 1
