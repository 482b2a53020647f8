"""The false-green table: inputs and fakes on which a command must NOT exit 0.

A conformance gate is worth exactly as much as its green (docs/exit-0.md, "Every path to
exit 0"). Each module of this package holds the rows of one topic as ``CASES``, a list of
``FalseGreen``; test_false_greens.py runs every row through the command's own ``main`` and
fails when the exit code is not the row's (never 0). A row is data: the command, its
arguments (``{tmp}`` is the row's scratch folder, ``{fixtures}`` the checkout's fixtures/,
``{tests}`` conformance/tests), an optional ``prepare`` that writes its inputs there first, and
why a 0 would be a lie.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lcb_conformance.cli import SUBCOMMANDS

# The maintainers' commands outside `lcb-conformance` (dev/, not in the wheel): name -> module
# whose main(argv) runs it.
DEV_COMMANDS = {"peers": "lcb_conformance_dev.peers"}
CLONE = "LiveCodeBench"  # where a row needing "checkout" finds its clone, under {tmp}


@dataclass(frozen=True)
class FalseGreen:
    id: str
    # the subcommand, as `lcb-conformance COMMAND`; the plugin: "pytest-plugin"; a
    # maintainers' command: its DEV_COMMANDS name
    command: str
    argv: tuple[str, ...]
    expect: int  # the exit code this input must give (common/exit_codes.py); never 0
    why: str  # the false claim an exit 0 would make
    prepare: Callable[[Path], None] | None = None
    # "upstream": runs in the upstream env; "checkout": a clone of --upstream's at 28fef95 is
    # made at {tmp}/LiveCodeBench before ``prepare`` (skipped without one), and the command
    # runs in its own interpreter (it imports that tree's lcb_runner)
    needs: tuple[str, ...] = field(default=())
    # substrings the command's stderr or stdout must hold (the one line naming the cause)
    says: tuple[str, ...] = field(default=())


def commands(rows: list[FalseGreen]) -> list[str]:
    """The commands the rows attack (a row typing a command that does not exist attacks the
    dispatcher, not a command)."""
    return sorted({row.command for row in rows} & {*SUBCOMMANDS, *DEV_COMMANDS, "pytest-plugin"})


def all_cases() -> list[FalseGreen]:
    """Every row of every module of this package, in module order."""
    found = []
    for module in pkgutil.iter_modules(__path__):
        found += importlib.import_module(f"{__name__}.{module.name}").CASES
    return found
