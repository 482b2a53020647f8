"""docs/layout-modules.md's table, generated from the tree: a row per module of the package (its
layer, its path, its job: the first sentence of its docstring).

docs_figures writes it into the page (the figure ``layout-modules``, ``--write``), and
test_layout.py fails when the page's table is not this one: a module added, removed, or whose
docstring says another job.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import lcb_conformance

PACKAGE = Path(lcb_conformance.__file__).parent
# The layers in the page's order, each with its rank: a module imports only its own layer and
# those of a lower rank (test_layout.py). Tools are the developer's commands, imported by no
# layer: they may read every layer.
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
COMMAND_MODULES = ("cli", "plugin")  # the package's top-level modules: the command layer
SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)[.?!](?=\s|$)")


def modules() -> list[str]:
    """Every module of the package but its __init__.py files, as 'suite/cases.py'."""
    return sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if path.name != "__init__.py"
    )


def layer(name: str) -> str:
    """'suite/cases.py' -> 'suite'; 'lcb_conformance.upstream.source' -> 'upstream'."""
    parts = name.removeprefix("lcb_conformance.").replace(".", "/").split("/")
    return "cli" if parts[0].removesuffix(".py") in COMMAND_MODULES else parts[0]


def job(module: str) -> str:
    """The first sentence of the module's docstring, as a Markdown table cell."""
    docstring = ast.get_docstring(ast.parse((PACKAGE / module).read_text("utf-8"))) or ""
    paragraph = " ".join(docstring.split("\n\n")[0].split())
    end = SENTENCE_END.search(paragraph)
    sentence = paragraph[: end.end()] if end else paragraph
    if not sentence:
        raise ValueError(f"lcb_conformance/{module}: no docstring saying its job")
    return sentence.removesuffix(".").replace("``", "`").replace("|", "\\|")


def label(name: str) -> str:
    return "command" if name == "cli" else name.replace("_", " ")


def table() -> str:
    """The table: the layers in RANKS' order, each layer's modules by path."""
    order = list(RANKS)
    unranked = sorted({layer(module) for module in modules()} - set(order))
    if unranked:
        raise ValueError(f"layers without a rank in layout_table.RANKS: {unranked}")
    rows = sorted(modules(), key=lambda module: (order.index(layer(module)), module))
    lines = ["| layer | module | job |", "|---|---|---|"]
    lines += [f"| {label(layer(module))} | `{module}` | {job(module)} |" for module in rows]
    return "\n".join(lines)
