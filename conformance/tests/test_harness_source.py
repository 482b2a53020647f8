"""lcb_conformance.adapters.harness_source: a harness's installed code, compiled from its files
without importing its package (peers/ and docs/implementations.md use it)."""

from __future__ import annotations

import importlib
import re
import sys
import textwrap

import pytest

from lcb_conformance.adapters import harness_source
from lcb_conformance.suite import cases
from lcb_conformance.upstream import INSTALLED_DISTRIBUTION

HARNESS_FILE = """
from .sibling_config import datasets  # noqa

template = "### Question:\\n{q}\\n\\n" + "### Answer:\\n\\n"
computed = str(1)


class Loader:
    default: str | None = None

    @staticmethod
    def load(path, version="v1", *, mode="chat"):
        def transform(item: UndefinedType) -> dict:
            item["format"] = PREFIX + item["q"]
            return item

        return transform
"""


def test_the_files_own_definitions_run(tmp_path):
    path = tmp_path / "harness_module.py"
    path.write_text(textwrap.dedent(HARNESS_FILE), "utf-8")
    transform = harness_source.load_function(path, "Loader.load.transform", {"PREFIX": ">"})
    assert transform({"q": "x"}) == {"q": "x", "format": ">x"}  # annotations not evaluated
    assert transform.__code__.co_filename == str(path)  # tracebacks name the harness's file
    template = "### Question:\n{q}\n\n### Answer:\n\n"
    assert harness_source.constant_value(path, "template") == template
    assert harness_source.constant_value(path, "Loader.default") is None
    assert harness_source.argument_default(path, "Loader.load", "version") == "v1"
    assert harness_source.argument_default(path, "Loader.load", "mode") == "chat"
    assert harness_source.relative_import(path) == "sibling_config.py"
    with pytest.raises(harness_source.HarnessSourceError, match="literals only"):
        harness_source.constant_value(path, "computed")
    with pytest.raises(harness_source.HarnessSourceError, match="defines no Loader.missing"):
        harness_source.load_function(path, "Loader.missing")
    with pytest.raises(harness_source.HarnessSourceError, match="is not installed"):
        harness_source.installed_file("no-such-distribution-lcb", "x.py")


def test_package_without_init_imports_submodules_only(tmp_path, monkeypatch):
    """A harness package whose __init__ pulls in what is not installed (OpenCompass's): its
    submodules still import, from the installed files, and the __init__ never runs."""

    package = tmp_path / "lcb_fake_harness_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("import torch_is_not_installed\n", "utf-8")
    (package / "util.py").write_text("VALUE = 42\n", "utf-8")
    monkeypatch.setattr(harness_source, "installed_file", lambda _, path: tmp_path / path)
    name = package.name
    try:
        harness_source.package_without_init("fake-harness", name)
        assert importlib.import_module(f"{name}.util").VALUE == 42
        assert importlib.import_module(name).__path__ == [str(package)]
    finally:
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]


def test_a_real_harness_function_runs_as_installed_without_its_package():
    """nvidia-livecodebench's extract_code, compiled from its installed file with its one
    import (LMStyle, from lm_styles.py, a standard-library-only file) supplied: it extracts
    what the package's own function, imported as usual, extracts."""
    try:
        extraction = harness_source.installed_file(
            INSTALLED_DISTRIBUTION, "livecodebench/utils/extraction_utils.py"
        )
    except harness_source.HarnessSourceError as missing:
        pytest.skip(f"{missing} (tox -e upstream installs it)")
    lm_styles = harness_source.load_module_file(
        "harness_lm_styles", harness_source.installed_file(
            INSTALLED_DISTRIBUTION, "livecodebench/lm_styles.py"
        )
    )
    extract = harness_source.load_function(
        extraction, "extract_code", {"LMStyle": lm_styles.LMStyle, "re": re}
    )
    from livecodebench.lm_styles import LMStyle
    from livecodebench.utils.extraction_utils import extract_code

    for output in cases.outputs().values():
        for style in ("GenericOAIServer", "DeepSeekCodeInstruct", "CodeLLaMaInstruct"):
            assert extract(output.output, lm_styles.LMStyle[style]) == extract_code(
                output.output, LMStyle[style]
            )
