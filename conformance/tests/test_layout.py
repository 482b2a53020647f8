"""The package's shape holds: docs/layout.md lists every module (and nothing that is gone),
each subpackage says its job, and no module imports from a layer above its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import lcb_conformance
from lcb_conformance.suite import paths

# The suite checking itself, not the implementation: tox -e upstream runs it (selftest).
pytestmark = pytest.mark.selftest

PACKAGE = Path(lcb_conformance.__file__).parent
LAYOUT = paths.ROOT / "docs" / "layout.md"
# A module may import its own layer and those with a lower rank. Tools are the developer's
# commands, imported by no layer: they may read every layer (docs_figures counts the contract's
# cases, the judge's limits, the report's and `--version`'s figures for the docs).
RANKS = {
    "suite": 0,
    "adapters": 1,
    "upstream": 2,
    "tokenizer_checks": 2,
    "runner": 3,
    "run_formats": 3,
    "reports": 4,
    "run_audit": 5,
    "regrade": 5,
    "cli": 6,
    "tools": 7,
}


def modules() -> list[str]:
    return sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if path.name != "__init__.py"
    )


def layer(name: str) -> str:
    """'suite/cases.py' -> 'suite'; 'lcb_conformance.upstream.source' -> 'upstream'."""
    parts = name.removeprefix("lcb_conformance.").replace(".", "/").split("/")
    return "cli" if parts[0] in ("cli", "cli.py", "plugin", "plugin.py") else parts[0]


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


def listed_modules() -> set[str]:
    """The modules the layout page's table names; a row `folder/*.py` names every module of
    that folder (the golden families: one module each, found by name)."""
    row = re.compile(r"^\| [a-z ]+ \| `([a-z_/]+(?:/\*)?\.py)` \|", re.M)
    table = row.findall(LAYOUT.read_text("utf-8"))
    folders = {row.removesuffix("/*.py") for row in table if row.endswith("/*.py")}
    return {row for row in table if not row.endswith("/*.py")} | {
        module for module in modules() if module.rpartition("/")[0] in folders
    }


def test_the_layout_page_lists_every_module_and_no_other():
    assert listed_modules() == set(modules())


@pytest.mark.parametrize("module", [m for m in modules() if m.startswith("suite/families/")])
def test_every_family_module_says_which_goldens_it_holds(module):
    assert ast.get_docstring(ast.parse((PACKAGE / module).read_text("utf-8"))), module


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
