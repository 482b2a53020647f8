"""The package's shape holds: docs/layout.md lists every module (and nothing that is gone),
each subpackage says its job, and no module imports from a layer above its own."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

import lcb_prompts
from lcb_conformance.common import paths
from lcb_conformance_dev import layout_table

# The suite checking itself, not the implementation: tox -e upstream runs it (selftest).
pytestmark = pytest.mark.selftest

PACKAGE = layout_table.PACKAGE
DEV = layout_table.DEV
IMPL = Path(lcb_prompts.__file__).parent
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
VIEWS = ["cli.py", "run_command.py", *(m for m in modules() if m.startswith("reports/"))]


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


# --- imports: no module cycle, none hidden in a function, no private name across packages ---

# Imports of the package's own modules inside a function: (module, the module it imports) ->
# why. Only an optional heavy dependency loaded where it is needed belongs here (a module
# whose import pulls in transformers, say); an import put in a function to dodge a cycle does
# not: move the shared piece down a layer instead.
LEAN = "the row decoder's child only: the grading process it forks from stays lean (cheap forks)"
FUNCTION_IMPORTS_ALLOWED: dict[tuple[str, str], str] = {
    ("upstream/grading_process.py", "lcb_conformance.adapters.implementation"): LEAN,
    ("upstream/grading_process.py", "lcb_conformance.upstream.judge"): LEAN,
}


def dotted(path: Path) -> str:
    """.../lcb_conformance/suite/cases.py -> 'lcb_conformance.suite.cases'; a package's
    __init__.py -> its name (the development package's likewise)."""
    root = PACKAGE.parent if path.is_relative_to(PACKAGE) else DEV.parent
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# the package's modules and the development package's (which may import the package, never
# the reverse): each checked for cycles, hidden imports and private names alike
SOURCES = {dotted(path): path for path in sorted([*PACKAGE.rglob("*.py"), *DEV.glob("*.py")])}
# every module an import may name: the package's and the reference implementation's
MODULES = {*SOURCES, *(f"lcb_prompts.{path.stem}" for path in IMPL.glob("*.py"))}


def imports(tree: ast.AST) -> list[tuple[ast.stmt, ast.alias, str, bool]]:
    """(statement, name, the lcb_conformance or lcb_prompts module it imports, inside a
    function?) for every name imported: `from a.b import c` imports module a.b.c when there is
    one, else a.b."""
    found = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and ast.unparse(child.test) == "TYPE_CHECKING":
                continue  # for type checkers only: never run
            nested = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.ImportFrom) and child.module and not child.level:
                for alias in child.names:
                    whole = f"{child.module}.{alias.name}"
                    target = whole if whole in MODULES else child.module
                    found.append((child, alias, target, nested))
            elif isinstance(child, ast.Import):
                found.extend((child, alias, alias.name, nested) for alias in child.names)
            visit(child, nested)

    visit(tree, False)
    own = ("lcb_conformance", "lcb_conformance_dev", "lcb_prompts")
    return [item for item in found if item[2].split(".")[0] in own]


def shown(name: str) -> str:
    """A module as the allow-list names it: 'suite/cases.py', 'lcb_conformance_dev/peers.py'."""
    path = SOURCES[name]
    return path.relative_to(PACKAGE if path.is_relative_to(PACKAGE) else DEV.parent).as_posix()


@functools.cache
def own_tree(name: str) -> ast.AST:
    return ast.parse(SOURCES[name].read_text("utf-8"))


def module_graph() -> dict[str, set[str]]:
    """Each module -> the package's modules it imports at module level."""
    return {
        name: {target for _, _, target, nested in imports(own_tree(name))
               if not nested and target in SOURCES and target != name}
        for name in SOURCES
    }  # fmt: skip


def cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of the graph (its modules, the first repeated at the end), or []."""
    done: set[str] = set()

    def walk(name: str, path: list[str]) -> list[str]:
        if name in path:
            return path[path.index(name) :] + [name]
        if name in done:
            return []
        for target in sorted(graph[name]):
            if found := walk(target, [*path, name]):
                return found
        done.add(name)
        return []

    for name in sorted(graph):
        if found := walk(name, []):
            return found
    return []


def test_no_module_level_import_cycle():
    found = cycle(module_graph())
    assert not found, "an import cycle: " + " -> ".join(found) + " (move the shared piece down)"


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_no_import_of_the_package_hides_in_a_function(name):
    hidden = sorted(
        f"line {node.lineno}: {target}"
        for node, _, target, nested in imports(own_tree(name))
        if nested and target.startswith("lcb_conformance")
        and (shown(name), target) not in FUNCTION_IMPORTS_ALLOWED
    )  # fmt: skip
    assert not hidden, f"{name} imports inside a function (put it at the top): {hidden}"


def test_the_function_import_allow_list_names_imports_that_exist():
    present = {
        (shown(name), target)
        for name in SOURCES
        for _, _, target, nested in imports(own_tree(name))
        if nested
    }
    assert set(FUNCTION_IMPORTS_ALLOWED) <= present


def package_of(module: str) -> str:
    """The (sub)package a module is in: 'lcb_conformance.suite.families.judge' ->
    'lcb_conformance.suite.families'; a package's own __init__ is in that package."""
    path = SOURCES.get(module)
    return module if path is not None and path.name == "__init__.py" else module.rpartition(".")[0]


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_no_private_name_is_imported_from_another_package(name):
    """A `_name` is its module's own business: another (sub)package reads a public name."""
    tree, own = own_tree(name), package_of(name)
    aliases: dict[str, str] = {}  # the name a module is bound to here -> that module
    private = []
    for node, alias, target, _ in imports(tree):
        if isinstance(node, ast.Import) or target == f"{node.module}.{alias.name}":
            aliases[alias.asname or alias.name] = target  # a module: its attributes read below
        elif alias.name.startswith("_") and package_of(target) != own:
            private.append(f"line {node.lineno}: from {node.module} import {alias.name}")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and (target := aliases.get(ast.unparse(node.value))) is not None
                and package_of(target) != own):  # fmt: skip
            private.append(f"line {node.lineno}: {ast.unparse(node)}")
    assert not private, f"{name} reads private names of another package: {private}"
