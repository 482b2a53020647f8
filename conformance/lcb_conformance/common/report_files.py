"""Every command's report files: written whole or not at all, as the umask says; one stderr line
and exit 6 when one cannot be written.

:func:`write_atomically` writes to a temporary file beside the report (``.NAME.*.partial``),
created with mode 0666 less the umask as any new file is, then renames it over the report: a
report is whole or absent, and a failed write leaves nothing new behind (a previous report at
that path stays as it was). :func:`write_reports` writes each report a command was asked for;
one that cannot be written is one line on stderr, the others are still written, and the
command exits :data:`REPORT_NOT_WRITTEN`. Standard library only (every layer writes reports).
"""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Callable
from pathlib import Path

from lcb_conformance.common import showdiff
from lcb_conformance.common.exit_codes import REPORT_NOT_WRITTEN  # noqa: F401 (callers' name)


class ReportNotWritten(Exception):
    """A report could not be rendered or written; nothing was left at its path."""


def write_atomically(path: Path | str, data: bytes | str) -> None:
    """``data`` (text is written as UTF-8) at ``path``, whole or not at all."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        candidate = path.parent / f".{path.name}.{secrets.token_hex(4)}.partial"
        # a new file's mode: 0666 less the umask, applied by the kernel
        descriptor = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        temporary = candidate
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except OSError as error:
        if temporary is not None:
            temporary.unlink(missing_ok=True)
        raise ReportNotWritten(f"cannot write {path}: {error.strerror or error}") from error


def write_reports(
    command: str, wanted: dict[str, tuple[Path | str | None, Callable[[], bytes | str]]]
) -> bool:
    """Each report asked for (kind -> (path, or None when not asked for; its renderer)).
    Every one is tried; each written one is named on stdout, each one not written is one line
    on stderr (``COMMAND: KIND report not written: why``). False when one was not written."""
    all_written = True
    for kind, (path, render) in wanted.items():
        if path is None:
            continue
        try:
            data = render()
        except Exception as error:  # a rendering bug must not pass for the command's verdict
            showdiff.write(
                f"{command}: {kind} report not written to {path}: rendering failed "
                f"({type(error).__name__}: {error})",
                sys.stderr,
            )
            all_written = False
            continue
        try:
            write_atomically(path, data)
        except ReportNotWritten as error:
            showdiff.write(f"{command}: {kind} report not written: {error}", sys.stderr)
            all_written = False
        else:
            showdiff.write(f"{kind} report: {path}")
    return all_written
