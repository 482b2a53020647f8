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
# A module may import its own layer and those with a lower rank; tools only the suite.
RANKS = {
    "suite": 0,
    "adapters": 1,
    "upstream": 2,
    "tokenizer_checks": 2,
    "reports": 3,
    "run_audit": 4,
    "cli": 5,
    "tools": 1,
}
TOOLS_MAY_IMPORT = {"suite", "tools"}


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


def test_the_layout_page_lists_every_module_and_no_other():
    listed = set(re.findall(r"`((?:[a-z_]+/)?[a-z_]+\.py)`", LAYOUT.read_text("utf-8")))
    assert listed == set(modules())


@pytest.mark.parametrize("package", sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py")))
def test_every_subpackage_says_its_job(package):
    docstring = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text()))
    assert docstring, f"lcb_conformance/{package}/__init__.py: say what the subpackage is for"
    assert package in RANKS, f"{package}: give it a layer in this test and in docs/layout.md"


@pytest.mark.parametrize("module", modules())
def test_no_module_imports_from_a_layer_above(module):
    own = layer(module)
    imported = imported_layers(PACKAGE / module)
    if own == "tools":
        assert imported <= TOOLS_MAY_IMPORT, f"{module} imports {imported - TOOLS_MAY_IMPORT}"
        return
    above = {other for other in imported if RANKS[other] > RANKS[own] or other == "tools"}
    assert not above, f"{module} ({own}) imports from {sorted(above)}"
