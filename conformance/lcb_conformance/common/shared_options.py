"""The options several commands share, declared once: ``--upstream``, ``--results FILE``,
``--json FILE``, ``--html FILE``. Each command adds the ones it takes with :func:`add`, in its
own words where what the option holds is its own (which results, which JSON); the flag, the
value it takes and how it is read are the same everywhere. The implementation's options
(``--impl``, ``--impl-path``, ``--impl-cmd``) are adapters/impl_options.py's.

Every command's parser is a :class:`CommandParser`: a usage error (an unknown option, a missing
or malformed value) is one stderr line and exit 2, as every other refusal is.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import NoReturn

from lcb_conformance.common import exit_codes, showdiff

INSTALLED = "installed"  # --upstream's word for the installed stand-in (upstream/source.py)

DECLARED = {
    "upstream": dict(
        default=INSTALLED,
        metavar=f"{INSTALLED}|PATH",
        help=f"the lcb_runner to run: '{INSTALLED}' (nvidia-livecodebench, the offline "
        "stand-in) or a LiveCodeBench checkout (default: %(default)s)",
    ),
    "results": dict(
        type=Path, metavar="FILE", help="stream the results here as JSON lines, as they come"
    ),
    "json": dict(type=Path, metavar="FILE", help="write the JSON report here"),
    "html": dict(type=Path, metavar="FILE", help="write the HTML report here"),
}


class CommandParser(argparse.ArgumentParser):
    """argparse's parser, with its usage errors as one line naming the command and its --help
    (argparse prints the usage block first, and its exit 2 is not read from the table), the
    arguments it quotes terminal-safe (showdiff.printable)."""

    def error(self, message: str) -> NoReturn:
        said = showdiff.printable(" ".join(message.split()))
        self.exit(exit_codes.UNUSABLE, f"{self.prog}: {said} ({self.prog} --help)\n")


def add(parser: argparse.ArgumentParser | argparse._ArgumentGroup, name: str, **own) -> None:
    """``--name`` as declared, with the command's ``own`` words (help, default, required)."""
    parser.add_argument(f"--{name}", **(DECLARED[name] | own))


def add_reports(parser: argparse.ArgumentParser, **own_help: str) -> None:
    """--json FILE and --html FILE; ``own_help`` by name where the command says more."""
    for name in ("json", "html"):
        add(parser, name, **({"help": own_help[name]} if name in own_help else {}))
