"""The implementation options, declared once: ``--impl``, ``--impl-path``, ``--impl-cmd`` and the
program's limits, for every command that loads an implementation (``run``, ``diff``, the judge
report) and the pytest plugin (as ``--lcb-NAME``, runner/options.py); and the implementation
they name, loaded.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from lcb_conformance.adapters import implementation, process

# (name, keyword arguments): types and actions both argparse and pytest's addoption accept.
OPTIONS = (
    (
        "impl",
        dict(
            default=None,
            metavar="MODULE[:ATTR]",
            help="the implementation under test: a module, or MODULE:ATTR naming the adapter "
            f"object in it that holds the functions (default: {implementation.REFERENCE})",
        ),
    ),
    (
        "impl-path",
        dict(
            action="append",
            default=[],
            metavar="DIR",
            help="a folder to import the implementation from (before PYTHONPATH; repeatable)",
        ),
    ),
    (
        "impl-cmd",
        dict(
            default=None,
            metavar="CMD",
            help="the implementation under test is this program (any language, any "
            "environment), speaking the JSON-lines adapter protocol on stdin/stdout "
            "(lcb_conformance.adapters.process), instead of an importable module",
        ),
    ),
    (
        "impl-timeout",
        dict(
            type=float,
            default=process.DEFAULT_TIMEOUT,
            metavar="SECONDS",
            help="the program's time limit per request (default: %(default)s)",
        ),
    ),
    (
        "impl-memory-mb",
        dict(
            type=int,
            default=process.DEFAULT_MEMORY_MB,
            metavar="MB",
            help="the program's address-space limit (default: %(default)s)",
        ),
    ),
)


def add(parser: argparse.ArgumentParser) -> None:
    for name, arguments in OPTIONS:
        parser.add_argument(f"--{name}", **arguments)


def missing_folder(impl_path, flag: Callable[[str], str] = lambda name: f"--{name}") -> str | None:
    """Which --impl-path folder (its flag spelt by ``flag``) is no folder, or None: a typo must
    not import the adapter from elsewhere."""
    for folder in impl_path:
        if not Path(folder).is_dir():
            return f"{flag('impl-path')} {folder}: no such folder"
    return None


def load(get: Callable[[str], object]) -> implementation.Implementation:
    """The implementation the options ``get(name)`` returns name (ImportError, one line, when
    it cannot be loaded)."""
    impl_path = [str(folder) for folder in get("impl-path") or ()]
    if (missing := missing_folder(impl_path)) is not None:
        raise ImportError(missing)
    for folder in reversed(impl_path):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    if get("impl-cmd") is not None:  # given empty, refused: not the default run instead
        return process.load_command(get("impl-cmd"), get("impl-timeout"), get("impl-memory-mb"))
    impl = get("impl")
    return implementation.load(implementation.REFERENCE if impl is None else impl)


def loads_tokenizer_here(impl: implementation.Implementation, function: str) -> bool:
    """Whether a call's tokenizer is passed loaded: in process always; over --impl-cmd the
    program loads it from its repo id, except where the suite renders the program's messages
    itself (it provides format_lcb_messages, no format_lcb_prompt)."""
    over_process = isinstance(impl.module, process.ProcessAdapter)
    rendered_here = function == "format_lcb_prompt" and impl.renders_messages()
    return not over_process or rendered_here
