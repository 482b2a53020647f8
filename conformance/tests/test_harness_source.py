"""lcb_conformance.adapters.harness_source: a harness's installed code, compiled from its files
without importing its package (peers/ and docs/harness-code.md use it)."""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import re
import subprocess
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


def _fake_harness(tmp_path, monkeypatch) -> object:
    """A harness package whose __init__ imports a sibling that imports an outside module
    (and one not installed), and a judge module handing its own function to a process pool."""
    package = tmp_path / "lcb_fake_judge_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from .sibling import VALUE\n", "utf-8")
    (package / "sibling.py").write_text(
        "import lcb_fake_outside_lib\ntry:\n    import torch_is_not_installed\n"
        "except ImportError:\n    pass\nVALUE = 1\n",
        "utf-8",
    )
    (package / "metrics.py").write_text(
        "from concurrent.futures import ProcessPoolExecutor\n\n"
        "def by_problem(program):\n    return len(program)\n\n"
        "def judge(programs):\n"
        "    with ProcessPoolExecutor(max_workers=1) as pool:\n"
        "        return list(pool.map(by_problem, programs))\n",
        "utf-8",
    )
    (tmp_path / "lcb_fake_outside_lib.py").write_text("LOADED = True\n", "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return package


def test_a_loaded_file_is_importable_by_name_so_a_process_pool_can_pickle_it(
    tmp_path, monkeypatch
):
    """lcb_runner's codegen_metrics hands evaluate_generations_by_problem to a
    ProcessPoolExecutor, which pickles it by module name: the module must be in sys.modules."""
    package = _fake_harness(tmp_path, monkeypatch)
    try:
        metrics = harness_source.load_module_file("lcb_fake_metrics", package / "metrics.py")
        assert sys.modules["lcb_fake_metrics"] is metrics
        assert metrics.judge(["ab", "abc"]) == [2, 3]
    finally:
        for name in ("lcb_fake_metrics", "lcb_fake_outside_lib"):
            sys.modules.pop(name, None)


def test_what_the_bypassed_package_imports_is_imported_first(tmp_path, monkeypatch):
    """Its __init__ is skipped, but the outside modules it would have imported (through its
    own sibling module) are imported, as they are when the harness runs as installed, so a
    sandbox that nulls os.putenv before importing them lazily finds them loaded; one not
    installed here is left out. The package itself is never imported."""
    package = _fake_harness(tmp_path, monkeypatch)
    try:
        imported = harness_source.package_imports(package / "metrics.py")
        assert "lcb_fake_outside_lib" in imported and "torch_is_not_installed" not in imported
        assert "lcb_fake_outside_lib" in sys.modules
        assert package.name not in sys.modules
    finally:
        sys.modules.pop("lcb_fake_outside_lib", None)


NVIDIA_METRICS_JUDGE = """
from livecodebench.benchmarks.code_generation import CodeGenerationProblem

from lcb_conformance.adapters import harness_source

metrics = harness_source.load_module_file(
    "nvidia_codegen_metrics",
    harness_source.installed_file(
        "nvidia-livecodebench", "livecodebench/evaluation/compute_code_generation_metrics.py"
    ),
)


def judge_program(row, program, timeout):
    sample = CodeGenerationProblem(**row).get_evaluation_sample()
    # codegen_metrics' own path to the judge: its ProcessPoolExecutor
    results, metadata = metrics.evaluate_generations(
        [sample], [[program]], num_process_evaluate=1, timeout=timeout
    )
    return results[0][0], metadata[0][0]
"""


# the suite's own session where the stand-in is hidden, as in an env without it
WITHOUT_STAND_IN = f"""
import importlib.metadata, sys
found = importlib.metadata.distribution
def hidden(name):
    if name == {INSTALLED_DISTRIBUTION!r}:
        raise importlib.metadata.PackageNotFoundError(name)
    return found(name)
importlib.metadata.distribution = hidden
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""


@pytest.mark.parametrize("hide", [False, True], ids=["as-installed", "stand-in-hidden"])
def test_the_sessions_header_says_of_upstream_what_its_skips_say(hide):
    # the header is one source of truth with the skips: "installed" named what was asked for
    as_is = "import sys, pytest; sys.exit(pytest.main(sys.argv[1:]))"
    program = WITHOUT_STAND_IN if hide else as_is
    test = "test_a_real_harness_function_runs_as_installed_without_its_package"
    done = subprocess.run(
        [sys.executable, "-c", program, f"{__file__}::{test}", "-p", "no:randomly", "-n", "0",
         "-rs", "-p", "no:cacheprovider", "--upstream", "installed"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    [header] = [line for line in done.stdout.splitlines() if line.startswith("upstream: ")]
    skipped = f"{INSTALLED_DISTRIBUTION} is not installed" in done.stdout
    assert done.returncode == 0, done.stdout[-3000:]
    try:
        absent = hide or not importlib.metadata.distribution(INSTALLED_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:  # this env has no stand-in (tox -e conformance)
        absent = True
    assert skipped == absent == header.endswith(" (not installed)"), done.stdout[-3000:]
    assert header.startswith(f"upstream: {INSTALLED_DISTRIBUTION} ")


@pytest.mark.upstream
@pytest.mark.transformers_independent  # the judge runs programs
def test_a_real_lcb_runner_derived_judge_loaded_through_the_toolkit_judges_the_corpus(tmp_path):
    """nvidia-livecodebench's compute_code_generation_metrics.py, loaded with
    load_module_file, judges every case of the judge corpus through its own
    ProcessPoolExecutor: no case is an error (before, all but one were PicklingError)."""
    (tmp_path / "nvidia_metrics_judge.py").write_text(NVIDIA_METRICS_JUDGE, "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "lcb_conformance.cli", "--impl", "nvidia_metrics_judge",
         "--impl-path", str(tmp_path), "--only", "judge", "--no-contract",
         "--json", str(tmp_path / "r.json")],
        cwd=tmp_path, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["totals"]["error"] == 0, [f["reason"] for f in report["failures"]][:3]
    assert report["totals"]["identical"] + report["totals"]["differs"] == report["totals"]["cases"]
    assert "Pickling" not in done.stdout + done.stderr
