"""The package's shape holds: docs/layout.md lists every module (and nothing that is gone),
each subpackage says its job, and no module imports from a layer above its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from lcb_conformance.common import paths
from lcb_conformance_dev import layout_table

# The suite checking itself, not the implementation: tox -e upstream runs it (selftest).
pytestmark = pytest.mark.selftest

PACKAGE = layout_table.PACKAGE
LAYOUT = paths.ROOT / "docs" / "layout-modules.md"  # generated: layout_table.py
RANKS = layout_table.RANKS  # a module may import its own layer and those of a lower rank
modules = layout_table.modules
layer = layout_table.layer
TABLE = re.compile(r"<!-- figure: layout-modules -->\n(.*?)\n<!-- /figure -->", re.S)


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


def test_the_layout_page_holds_the_table_generated_from_the_tree():
    """A module added or removed, or whose docstring's first sentence changed, changes the
    generated table: the page must be rewritten (docs_figures --write)."""
    (on_page,) = TABLE.findall(LAYOUT.read_text("utf-8"))
    assert on_page == layout_table.table(), (
        "docs/layout.md's module table is not the tree's: run "
        "`python -m lcb_conformance_dev.docs_figures --write`"
    )


def test_the_generated_table_lists_every_module_and_no_other():
    listed = re.findall(r"^\| [a-z ]+ \| `([a-z_/]+\.py)` \|", layout_table.table(), re.M)
    assert sorted(listed) == sorted(modules() + layout_table.dev_modules())


@pytest.mark.parametrize(
    "package",
    sorted(p.parent.relative_to(PACKAGE).as_posix() for p in PACKAGE.glob("**/__init__.py")
           if p.parent != PACKAGE),
)
def test_every_subpackage_says_its_job(package):
    docstring = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text()))
    assert docstring, f"lcb_conformance/{package}/__init__.py: say what the subpackage is for"
    assert layer(package) in RANKS, f"{package}: give its layer a rank in layout_table.RANKS"


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
