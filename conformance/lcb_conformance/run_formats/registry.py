"""Which format a run is in and what file it is, for audit, score and regrade alike: every module
of the package with a `NAME` is a format (detect, samples, model); `recognise` names every file
lcb_runner writes, and what a command cannot take, in one line.

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


# What a file is (Recognised.kind): lcb_runner writes the first four (runner/main.py: the
# generations, _eval.json, _eval_all.json; runner/custom_evaluator.py: the same three names
# with _<scenario>_output), a clone without Git LFS holds the fifth
GENERATIONS = "generations"  # lcb_runner's results without graded_list
EVAL_ALL = "eval_all"  # lcb_runner's results with graded_list (whole or trimmed)
METRICS = "metrics"  # lcb_runner's _eval.json: the metrics, no sample
CUSTOM_EVALUATOR = "custom_evaluator"  # custom_evaluator's results: code as output_list
LFS_POINTER = "lfs_pointer"
HARNESS_LOG = "harness_log"  # another harness's log (its format module reads it)
UNKNOWN = "unknown"
# the commands reading a run, for :func:`refusal`
AUDIT, SCORE, REGRADE = "audit", "score", "regrade"
# the text a Git LFS pointer file starts with (git-lfs' spec/v1)
LFS_OPENING = b"version https://git-lfs.github.com/spec/v1"
CUSTOM_WORDS = (
    "lcb_runner's custom_evaluator output (runner/custom_evaluator.py writes the code it is "
    "given as both output_list and code_list: no raw output)"
)


@dataclass(frozen=True)
class Recognised:
    """What a run file is, read from its name and first element, for every command alike."""

    path: Path
    kind: str
    scenario: str | None = None  # lcb_runner's Scenario, for its results
    module: ModuleType | None = None  # the format module reading it, when one does
    graded: bool = False  # its rows carry graded_list (lcb_runner's verdicts)

    @property
    def what(self) -> str:
        """The file in words, as a message names it."""
        words = lcb_runner_files.SCENARIO_WORDS.get(self.scenario, "")
        other = self.scenario not in (None, lcb_runner_files.CODE_GENERATION)
        scenario = f" ({words})" if other else ""
        return {
            GENERATIONS: f"lcb_runner's generations file{scenario} (no graded_list)",
            EVAL_ALL: f"lcb_runner's _eval_all file{scenario}",
            METRICS: (
                "lcb_runner's _eval.json (metrics only, no sample)"
                if self.path.name.endswith(METRICS_SUFFIX)
                else "a metrics-only file (pass@1, no sample)"
            ),
            CUSTOM_EVALUATOR: CUSTOM_WORDS,
            LFS_POINTER: "a Git LFS pointer, not the file",
            HARNESS_LOG: f"{self.module.NAME if self.module else ''}'s log",
        }.get(self.kind, "a file of no format known")

    def as_json(self) -> dict:
        return {
            "kind": self.kind, "what": self.what, "scenario": self.scenario, "graded": self.graded,
        }  # fmt: skip


METRICS_SUFFIX = "_eval.json"


def _metrics(found: Peek) -> bool:
    """lcb_runner's metrics: its _eval.json (by name: main() writes ``{}`` there when it has
    none), or an array whose first element is a metrics dict (pass@k, no problem)."""
    first = found.first
    named = found.path.name.endswith(METRICS_SUFFIX)
    by_content = (
        found.opening == b"["
        and not {"question_id", "id", "output_list"} & set(first)
        and any(str(key).startswith("pass@") for key in first)
    )
    return named or by_content


def _custom_evaluator(first: dict) -> bool:
    """The first row's code_list is its output_list, not all empty: custom_evaluator's
    (insert_output(custom_output, custom_output)). lcb_runner's extract_code drops the fence
    lines, so main() writes so only for GenericBase, whose extraction is the output stripped:
    the audit, which knows the LMStyle, checks that."""
    outputs, codes = first.get("output_list"), first.get("code_list")
    return isinstance(outputs, list) and outputs == codes and any(outputs)


# the run files the commands take, named when a folder is given instead
RUN_FILES = (
    "lcb_runner's Scenario.<scenario>_<n>_<temperature>.json or its _eval_all.json, evalscope's "
    "reviews/…jsonl, OpenCompass's predictions/…json, lm-eval's samples_…jsonl, lighteval's "
    "details_…parquet"
)


def check_exists(path: Path) -> None:
    """LogError when ``path`` is no file: a folder (with the files wanted named), or nothing."""
    if path.is_dir():
        raise LogError(f"{path}: a folder; pass the results file in it ({RUN_FILES})")
    if not path.is_file():
        raise LogError(f"{path}: no such file")


def recognise(path: Path) -> Recognised:
    """What ``path`` is; LogError when it cannot be read at all."""
    check_exists(path)
    with path.open("rb") as stream:
        if stream.read(len(LFS_OPENING)) == LFS_OPENING:
            return Recognised(path, LFS_POINTER)
    found = peek(path)
    if _metrics(found):
        return Recognised(path, METRICS)
    module = _format_of(found)
    if module is None:
        # a trimmed eval_all (the verdicts without the outputs) is read by score alone
        graded = found.opening == b"[" and "graded_list" in found.first
        return Recognised(path, EVAL_ALL if graded else UNKNOWN, graded=graded)
    if not module.NAME.startswith(lcb_runner.NAME):
        return Recognised(path, HARNESS_LOG, module=module)
    graded = "graded_list" in found.first
    kind = EVAL_ALL if graded else GENERATIONS
    if _custom_evaluator(found.first):
        kind = CUSTOM_EVALUATOR
    return Recognised(path, kind, scenario(module), module, graded)


def _sibling(path: Path, suffix: str) -> str:
    """lcb_runner's name of the file beside ``path`` (main(): output_path.replace(".json",
    suffix)), from its results' or its metrics' name."""
    stem = path.name.removesuffix(METRICS_SUFFIX).removesuffix(".json")
    return stem + suffix


def refusal(found: Recognised, command: str) -> str:
    """The one line refusing ``found`` for ``command`` (audit, score, regrade), naming what it
    is and what to pass instead; "" when the command takes it."""
    path, what = found.path, found.what
    if found.kind == LFS_POINTER:
        return f"{path} is {what}: git lfs pull (in its clone), then pass the file"
    if found.kind == METRICS:
        eval_all = _sibling(path, "_eval_all.json") if path.name.endswith(METRICS_SUFFIX) else ""
        instead = f"its {eval_all}" if eval_all else "the run's _eval_all.json"
        if command != SCORE and eval_all:
            instead = f"its {_sibling(path, '.json')} or {eval_all}"
        return f"{path} is {what}: pass {instead}"
    if command == SCORE and found.kind in (GENERATIONS, CUSTOM_EVALUATOR) and not found.graded:
        what += " without graded_list" if found.kind == CUSTOM_EVALUATOR else ""
        return f"{path} is {what}: pass its {_sibling(path, '_eval_all.json')}"
    if command == SCORE and found.scenario not in (None, *lcb_runner_files.PROGRAM_SCENARIOS):
        return (
            f"{path} is {what}: score aggregates code generation and self-repair runs (their "
            "problems are the releases'); `lcb-conformance regrade RUN --dataset ROWS` "
            "re-scores this scenario with lcb_runner's own metrics (docs/regrade.md)"
        )
    if command == REGRADE and found.kind == CUSTOM_EVALUATOR:
        return (
            f"{path} is {what}: no raw output to re-extract; `lcb-conformance score` scores its "
            "verdicts (its _eval_all.json), `lcb-conformance audit` checks what can be checked"
        )
    return ""


def taken(path: Path, command: str) -> Recognised:
    """What ``path`` is, when ``command`` takes it; LogError with :func:`refusal`'s line when
    it does not."""
    found = recognise(path)
    refused = refusal(found, command)
    if refused:
        raise LogError(refused)
    return found


def _format_of(found: Peek) -> ModuleType | None:
    return next((module for module in formats().values() if module.detect(found)), None)


def detect(path: Path) -> ModuleType:
    """The format module reading ``path``; LogError naming what the file is when none does (an
    LFS pointer, lcb_runner's metrics, or the formats known)."""
    recognised = recognise(path)
    if recognised.module is not None:
        return recognised.module
    if recognised.kind in (LFS_POINTER, METRICS):
        raise LogError(refusal(recognised, AUDIT))
    raise LogError(f"{path}: unknown format: {FILE_KINDS.get(path.suffix, '')}not {known()}")
