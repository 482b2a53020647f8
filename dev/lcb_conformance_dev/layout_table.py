"""docs/layout-modules.md's table, generated from the tree: a row per module of the package and
of the development package (its layer, its path, its job: the first sentence of its docstring).

docs_figures writes it into the page (the figure ``layout-modules``, ``--write``), and
test_layout.py fails when the page's table is not this one: a module added, removed, or whose
docstring says another job.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import lcb_conformance
import lcb_conformance_dev

PACKAGE = Path(lcb_conformance.__file__).parent
DEV = Path(lcb_conformance_dev.__file__).parent
# The layers in the page's order, each with its rank: a module imports only its own layer and
# those of a lower rank (test_layout.py). The development package (dev/, not in the wheel) may
# read every layer; no layer imports it.
RANKS = {
    "common": 0,
    "releases": 1,
    "statements": 1,
    "offline_tokenizers": 1,
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
    "dev": 9,
}
# the package's top-level modules: the command layer
COMMAND_MODULES = ("cli", "plugin", "run_command")
SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)[.?!](?=\s|$)")


def modules() -> list[str]:
    """Every module of the package but its __init__.py files, as 'suite/cases.py'."""
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
    if name.startswith("lcb_conformance_dev"):
        return "dev"
    parts = name.removeprefix("lcb_conformance.").replace(".", "/").split("/")
    first = parts[0].removesuffix(".py")
    return "cli" if first in COMMAND_MODULES else first


def job(module: str) -> str:
    """The first sentence of the module's docstring, as a Markdown table cell."""
    path = DEV.parent / module if layer(module) == "dev" else PACKAGE / module
    docstring = ast.get_docstring(ast.parse(path.read_text("utf-8"))) or ""
    paragraph = " ".join(docstring.split("\n\n")[0].split())
    end = SENTENCE_END.search(paragraph)
    sentence = paragraph[: end.end()] if end else paragraph
    if not sentence:
        raise ValueError(f"{module}: no docstring saying its job")
    return sentence.removesuffix(".").replace("``", "`").replace("|", "\\|")


def label(name: str) -> str:
    return "command" if name == "cli" else name.replace("_", " ")


def table() -> str:
    """The table: the layers in RANKS' order, each layer's modules by path."""
    order = list(RANKS)
    every = modules() + dev_modules()
    unranked = sorted({layer(module) for module in every} - set(order))
    if unranked:
        raise ValueError(f"layers without a rank in layout_table.RANKS: {unranked}")
    rows = sorted(every, key=lambda module: (order.index(layer(module)), module))
    lines = ["| layer | module | job |", "|---|---|---|"]
    lines += [f"| {label(layer(module))} | `{module}` | {job(module)} |" for module in rows]
    return "\n".join(lines)
