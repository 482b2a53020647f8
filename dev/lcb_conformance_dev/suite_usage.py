"""A bad option to the repository's own pytest session is one stderr line and exit 2, as on
every route of the gate, not pytest's usage block and its exit 4 (which the gate's table reads
as a run that did not finish): an unknown option, or a bad value of an option the suite's
conftest adds (``tox -e conformance -- --bogus``, ``-- --case-timeout x``).

Only this repository's config loads it (pyproject.toml's addopts: ``-p
lcb_conformance_dev.suite_usage``): the pytest plugin (lcb_conformance.plugin), a guest in
other projects' sessions, leaves their pytest as it is.

pytest rejects unknown options once the conftests have added theirs (after
``pytest_load_initial_conftests``), so the options are checked here, just after those load. A
bad value of an option of pytest's or of an installed plugin's (``-n x``) is rejected before
this hook and stays pytest's usage error.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

import pytest

from lcb_conformance.common import exit_codes, showdiff

WHERE_LISTED = "(the suite's options: pytest --help)"


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config, parser: pytest.Parser, args: list[str]):
    loaded = yield
    try:
        known, unknown = parser.parse_known_and_unknown_args(args)
    except pytest.UsageError as error:  # a value argparse refused, for an option it knows
        _refuse(_said(error))
    if unknown and not known.help:  # --help wins, as in the commands' parsers
        _refuse(f"unrecognized arguments: {' '.join(unknown)}")
    return loaded


def _said(error: pytest.UsageError) -> str:
    """What argparse said was wrong (pytest's message wraps it in the usage block)."""
    refused = error.__context__
    said = str(refused) if isinstance(refused, argparse.ArgumentError) else str(error)
    return " ".join(said.split())


def _refuse(what: str) -> NoReturn:
    showdiff.write(f"pytest: {what} {WHERE_LISTED}", sys.stderr)
    raise SystemExit(exit_codes.UNUSABLE)
