"""The suite as a package: its files are found through lcb_conformance.common.paths, and the
commands that write into them (or need the repository's other folders) refuse an installed
copy in one line. test_installed_wheel.py installs a built wheel and runs it."""

from __future__ import annotations

import importlib.metadata

import pytest

from lcb_conformance import cli
from lcb_conformance.common import paths
from lcb_conformance.runner.contract import contract_cases
from lcb_conformance.suite import goldens, index
from lcb_conformance.upstream import PINNED_COMMIT, regen, source
from lcb_conformance_dev import mutation, peers

pytestmark = pytest.mark.transformers_independent  # where the files are

SUITE_FILES = (
    paths.GOLDENS_DIR / "INDEX.json",
    paths.GOLDENS_DIR / "PROVENANCE.json",
    paths.GOLDENS_DIR / "MANIFEST.sha256",
    paths.CASE_INDEX_SCHEMA,
    paths.DEVIATIONS_FILE,
    paths.TOKENIZERS_DIR / "families.json",
    paths.ADAPTER_PROTOCOL_SCHEMA,
    paths.REPORT_SCHEMA,
    paths.RESULTS_SCHEMA,
    paths.REGRADE_SCHEMA,
)


@pytest.mark.parametrize("path", SUITE_FILES, ids=lambda path: path.name)
def test_the_suite_files_are_where_paths_says(path):
    assert path.is_file(), f"{path} missing (pyproject.toml's package-data must list it)"
    assert path.is_relative_to(paths.ROOT)


def test_the_root_is_the_checkout_or_the_installed_packages_data():
    if paths.CHECKOUT is not None:  # tox, an editable install: the repository itself
        assert paths.ROOT == paths.CHECKOUT
        assert (paths.ROOT / "conformance" / paths.PACKAGE).resolve() == paths.PACKAGE_DIR
    else:  # a wheel: lcb_conformance/data/
        assert paths.ROOT == paths.PACKAGE_DIR / "data"


@pytest.mark.parametrize(
    ("command", "main", "argv"),
    [
        ("lcb-conformance regen", regen.main, ["--upstream=installed"]),
        ("python -m lcb_conformance_dev.peers", peers.main, ["render"]),
        ("mutation testing", mutation.main, []),
    ],
)
def test_an_installed_copy_refuses_to_write_in_one_line(
    command, main, argv, monkeypatch, capsys
):
    # tests the console's contract: a refusal is one line on stderr
    before = goldens.manifest_lines()
    monkeypatch.setattr(paths, "CHECKOUT", None)
    assert main(argv) == 2
    out, error = capsys.readouterr()
    assert not out
    assert error.count("\n") == 1, error
    assert error.startswith(f"{command}: works on a checkout of the lcb-conformance repository")
    assert str(paths.ROOT) in error
    assert goldens.manifest_lines() == before



def test_version_names_the_suite_the_goldens_upstream_and_the_cases(capsys):
    # tests the console's contract: --version's lines are the console's own
    assert cli.main(["--version"]) == 0
    version, origin, counted, held, data = capsys.readouterr().out.splitlines()
    assert version.startswith("lcb-conformance ") and "unknown" not in version
    assert origin == f"goldens: from lcb_runner {PINNED_COMMIT} (checkout)"
    assert counted.startswith(f"goldens: {len(index.by_id())} (chat-prompt ")
    assert held == (
        f"cases an implementation is held to: {len(index.held_cases())} golden (every "
        f"transformers line), {len(contract_cases())} API contract"
    )
    assert data.startswith(f"suite data: {paths.ROOT}")


def test_a_missing_upstream_stand_in_names_what_to_install(monkeypatch):
    def not_installed(name, *args):
        raise ModuleNotFoundError(f"No module named {name!r}", name=name.split(".")[0])

    def no_metadata(distribution):
        raise importlib.metadata.PackageNotFoundError(distribution)

    monkeypatch.setattr(source.importlib, "import_module", not_installed)
    monkeypatch.setattr(source.importlib.metadata, "version", no_metadata)
    with pytest.raises(source.UpstreamSourceError) as raised:
        source.Upstream(source.INSTALLED).lm_styles()
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("cannot import lm_styles from nvidia-livecodebench (not installed)")
    assert "pip install --no-deps nvidia-livecodebench==26.3" in message
    assert "pip install 'lcb-conformance[upstream]'" in message


def test_every_subpackage_is_in_the_distribution():
    """pyproject.toml lists the packages (the data package maps the repository root), so a
    new subpackage must be listed there, or the wheel lacks it."""
    import tomllib

    listed = set(tomllib.loads((paths.CHECKOUT / "pyproject.toml").read_text("utf-8"))["tool"][
        "setuptools"]["packages"])  # fmt: skip
    found = {
        ".".join(("lcb_conformance", *init.parent.relative_to(paths.PACKAGE_DIR).parts))
        for init in paths.PACKAGE_DIR.rglob("__init__.py")
    }
    assert found <= listed, f"add to pyproject.toml's packages: {sorted(found - listed)}"
