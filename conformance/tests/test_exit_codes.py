"""One exit-code table (common/exit_codes.py) for every command: no module of the package returns,
``sys.exit``\\s or raises ``SystemExit`` with a bare number, and none exits with a message
(``sys.exit("...")`` exits 1 whatever the cause)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

import lcb_conformance

pytestmark = pytest.mark.selftest

PACKAGE = Path(lcb_conformance.__file__).parent
EXITS = {"sys.exit", "exit", "quit", "os._exit", "SystemExit"}
# Modules run by path in a harness's own Python, without this package (the table cannot be
# imported there): their status is read by the supervisor that started them, never a user.
RUN_BY_PATH = {"adapters/jsonl_server.py", "adapters/untrusted.py"}
# Functions returning a literal number that is not an exit code, with what it is.
NOT_EXIT_CODES = {("reports/verdict.py", "_priority"): "a sort rank"}


def _number(node: ast.expr | None) -> bool:
    """A literal int (not a bool), negated or not, or a choice or tuple holding one."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.UnaryOp):
        return _number(node.operand)
    if isinstance(node, ast.IfExp):
        return _number(node.body) or _number(node.orelse)
    if isinstance(node, ast.Tuple):
        return any(_number(element) for element in node.elts)
    return False


def bare_exits(source: str) -> list[str]:
    """Each place a module gives an exit status not from the table: ``line: code``."""
    found = []
    tree = ast.parse(source)
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for function in functions:
        for node in ast.walk(function):
            if isinstance(node, ast.Return) and _number(node.value):
                found.append((function.name, node))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) in EXITS and node.args:
            argument = node.args[0]
            if isinstance(argument, ast.Constant | ast.JoinedStr | ast.UnaryOp):
                found.append((None, node))
    found.sort(key=lambda pair: pair[1].lineno)
    return [(name, f"{node.lineno}: {ast.unparse(node)}") for name, node in found]


def test_the_check_finds_every_kind_of_bare_exit():
    source = textwrap.dedent(
        """
        def main():
            if a:
                return 2
            if b:
                return (1, "line")
            sys.exit(3)
            raise SystemExit("usage: ...")
            return 0 if c else exit_codes.DIFFERS

        def fine():
            sys.exit(main())
            return exit_codes.OK if c else exit_codes.DIFFERS
        """
    )
    assert [where.split(":")[0] for _, where in bare_exits(source)] == ["4", "6", "7", "8", "9"]


@pytest.mark.parametrize(
    "module", sorted(path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py"))
)
def test_exit_codes_come_from_the_table(module):
    if module in RUN_BY_PATH:
        pytest.skip("run by path without this package: the table cannot be imported there")
    found = [
        where
        for name, where in bare_exits((PACKAGE / module).read_text("utf-8"))
        if (module, name) not in NOT_EXIT_CODES
    ]
    assert not found, (
        f"{module} gives exit statuses by hand: {found}; use lcb_conformance.common.exit_codes "
        "(one meaning each, docs/verdict.md), or list a number that is no exit code in "
        "NOT_EXIT_CODES with what it is"
    )
