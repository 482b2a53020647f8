"""The package's shape holds: docs/layout.md lists every module (and nothing that is gone),
each subpackage says its job, and no module imports from a layer above its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import lcb_conformance
from lcb_conformance.common import paths

# The suite checking itself, not the implementation: tox -e upstream runs it (selftest).
pytestmark = pytest.mark.selftest

PACKAGE = Path(lcb_conformance.__file__).parent
LAYOUT = paths.ROOT / "docs" / "layout.md"
DEV = paths.ROOT / "dev" / "lcb_conformance_dev"
# A module may import its own layer and those with a lower rank. The development package
# (dev/lcb_conformance_dev) may read every layer; no module of the gate imports it (the wheel
# does not ship it).
RANKS = {
    "common": 0,
    "offline_tokenizers": 1,
    "releases": 1,
    "suite": 2,
    "adapters": 3,
    "upstream": 4,
    "tokenizer_checks": 4,
    "runner": 5,
    "run_formats": 5,
    "reports": 6,
    "run_audit": 7,
    "regrade": 7,
    "cli": 8,
}


def modules() -> list[str]:
    return sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if path.name != "__init__.py"
    )


def dev_modules() -> list[str]:
    """The development package's modules, as 'lcb_conformance_dev/peers.py'."""
    return sorted(
        path.relative_to(DEV.parent).as_posix()
        for path in DEV.glob("*.py")
        if path.name != "__init__.py"
    )


def layer(name: str) -> str:
    """'suite/cases.py' -> 'suite'; 'lcb_conformance.upstream.source' -> 'upstream'."""
    parts = name.removeprefix("lcb_conformance.").replace(".", "/").split("/")
    return (
        "cli" if parts[0] in ("cli", "cli.py", "plugin", "plugin.py")
        else parts[0].removesuffix(".py")
    )


def imported_layers(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name.startswith("lcb_conformance.") or name == "lcb_conformance.cli":
                found.add(layer(name))
    return found


def test_the_layout_page_lists_every_module_and_no_other():
    table = re.findall(r"^\| ([a-z ]+) \| `([a-z_/]+\.py)` \|", LAYOUT.read_text("utf-8"), re.M)
    assert {path for layer_name, path in table if layer_name != "dev"} == set(modules())
    assert {path for layer_name, path in table if layer_name == "dev"} == set(dev_modules())


@pytest.mark.parametrize(
    "package",
    sorted(p.parent.relative_to(PACKAGE).as_posix() for p in PACKAGE.glob("**/__init__.py")
           if p.parent != PACKAGE),
)
def test_every_subpackage_says_its_job(package):
    docstring = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text()))
    assert docstring, f"lcb_conformance/{package}/__init__.py: say what the subpackage is for"
    assert layer(package) in RANKS, f"{package}: give it a layer in this test and in docs/layout.md"


@pytest.mark.parametrize("module", modules())
def test_no_module_imports_from_a_layer_above(module):
    own = layer(module)
    imported = imported_layers(PACKAGE / module)
    above = {other for other in imported if RANKS[other] > RANKS[own]}
    assert not above, f"{module} ({own}) imports from {sorted(above)}"


@pytest.mark.parametrize("module", modules())
def test_no_module_imports_the_development_package(module):
    tree = ast.parse((PACKAGE / module).read_text("utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not {name for name in imported if name.startswith("lcb_conformance_dev")}, module


# What a view must not read: a test runner's text (node ids, failure and skip reports) or a
# phrase in a message. Results are data (lcb_conformance.runner.results).
RUNNER_TEXT = {"nodeid", "longrepr", "longreprtext", "wasxfail", "parse_nodeid", "when"}
VIEWS = ["cli.py", *(m for m in modules() if m.startswith("reports/"))]


@pytest.mark.parametrize("module", VIEWS)
def test_no_view_reads_a_test_runners_text(module):
    tree = ast.parse((PACKAGE / module).read_text("utf-8"))
    read = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert not read & RUNNER_TEXT, f"{module} reads {sorted(read & RUNNER_TEXT)}"
    texts = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    assert not [t for t in texts if "::" in t or "Skipped: " in t or "AssertionError: " in t]
    phrase_tests = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
        and any(isinstance(side, ast.Name | ast.Attribute) and "NOT_PROVIDED" in ast.unparse(side)
                for side in [node.left])
    ]  # fmt: skip
    assert not phrase_tests, f"{module} looks for the not-provided phrase in a message"
