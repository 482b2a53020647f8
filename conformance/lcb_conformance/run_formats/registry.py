"""Which format a run is in, for audit, score and regrade alike: every module of the package with
a `NAME` is one (detect, samples, model); the one-line error naming what a file is when none
reads it.

Which format a finished run is in: every module of this package that declares a ``NAME``
is a format (``detect(peek)``, ``samples(path)``, ``model(path)``, ``DESCRIBED``); adding a
format is one module and one fixture run. A module declaring ``SCENARIO`` holds another of
lcb_runner's scenarios than code generation: self-repair's programs, or predictions."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType

import lcb_conformance.run_formats as package
from lcb_conformance.common import json_stream
from lcb_conformance.run_formats import lcb_runner, lcb_runner_files
from lcb_conformance.run_formats.samples import LogError
from lcb_conformance.suite import cases


@cache
def formats() -> dict[str, ModuleType]:
    """name -> the format's module: lcb_runner's own first (the one the others are read
    against, first in messages and choices), then the others in module order."""
    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if hasattr(module, "NAME"):
            found[module.NAME] = module
    return {lcb_runner.NAME: found.pop(lcb_runner.NAME), **found}


def scenario(module: ModuleType) -> str:
    """The lcb_runner scenario whose samples the format holds (code generation unless the
    module says otherwise)."""
    return getattr(module, "SCENARIO", lcb_runner_files.CODE_GENERATION)


def programs(module: ModuleType) -> bool:
    """The format's samples are programs, graded by lcb_runner's judge as code generation's
    (code generation, self-repair); otherwise predictions, scored by the scenario's scorer."""
    return scenario(module) in lcb_runner_files.PROGRAM_SCENARIOS


def known() -> str:
    return ", ".join(module.DESCRIBED for module in formats().values())


@dataclass(frozen=True)
class Peek:
    """What detection reads of a file: its suffix, how it opens, its first element."""

    path: Path
    suffix: str
    opening: bytes = b""
    first: dict = field(default_factory=dict)


# what a file's suffix alone says it is, for the message naming no format that reads it
FILE_KINDS = {".parquet": "a parquet file, but ", ".jsonl": "JSON lines, but "}


def peek(path: Path) -> Peek:
    if not path.is_file():
        raise LogError(f"{path}: no such file")
    if path.suffix == ".parquet":
        return Peek(path, path.suffix)
    if path.suffix == ".jsonl":
        lines = cases.iter_jsonl(path, LogError)
        try:
            _, first = next(lines, (0, {}))
        finally:
            lines.close()
        return Peek(path, path.suffix, b"", first)
    with path.open("rb") as stream:
        opening = stream.read(4096).lstrip()[:1]
    try:
        if opening == b"{":
            members = json_stream.iter_object(path)
            try:
                _, _, first = next(members, (0, "", None))
            finally:
                members.close()
        else:
            elements = json_stream.iter_array(path)
            try:
                _, first = next(elements, (0, None))
            finally:
                elements.close()
    except json_stream.JsonStreamError as error:
        raise LogError(f"unknown format: {error}") from None
    return Peek(path, path.suffix, opening, first if isinstance(first, dict) else {})


def detect(path: Path) -> ModuleType:
    """The format module reading ``path``; LogError naming the formats known when none does."""
    found = peek(path)
    for module in formats().values():
        if module.detect(found):
            return module
    raise LogError(f"{path}: unknown format: {FILE_KINDS.get(path.suffix, '')}not {known()}")
