"""Fixture inputs and the case tables: prompt and message variants (from the style table), chat
renderings, audited problems.

The conformance cases: fixture inputs (problem rows, model outputs, contexts) and the
style matrix that maps each implementation style onto an lcb_runner LMStyle.

Fixture files are JSON lines written with ensure_ascii=True, so every CR, U+2028 or emoji
in a case is an escape in the file and no editor or git setting can alter it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from lcb_conformance.common import paths
from lcb_conformance.suite import styles
from lcb_conformance.suite.styles import LLAMA3_TOKENIZER

FIXTURES_DIR = paths.FIXTURES_DIR
PROBLEMS_FILE = FIXTURES_DIR / "problems.jsonl"
OUTPUTS_FILE = FIXTURES_DIR / "outputs.jsonl"
CONTEXTS_FILE = FIXTURES_DIR / "contexts.jsonl"

CASE_ID = re.compile(r"^[a-z0-9][a-z0-9_]*$")

# The LiveCodeBench code_generation_lite row schema, so dataset rows drop in unchanged.
PROBLEM_FIELDS = {
    "question_title": str,
    "question_content": str,
    "platform": str,
    "question_id": str,
    "contest_id": str,
    "contest_date": str,
    "starter_code": (str, type(None)),
    "difficulty": str,
    "public_test_cases": str,
    "private_test_cases": str,
    "metadata": str,
}

@dataclass(frozen=True)
class PromptVariant:
    """One way of calling format_lcb_prompt, and the lcb_runner LMStyle that defines it."""

    name: str  # golden folder
    style: str  # format_lcb_prompt(style=...)
    lmstyle: str  # upstream LMStyle member
    tokenizer: str | None = None  # chat_template=True with this tokenizer when set

    @property
    def chat_template(self) -> bool:
        return self.tokenizer is not None


# Every string LMStyle of the style table, and the template-free generic prompt (its golden
# is OpenAIReasonPreview's one user message).
_GENERIC_PROMPT = styles.MAPPINGS[styles.GENERIC_PROMPT_LMSTYLE].user_message_prompt
PROMPT_VARIANTS = (
    *(
        PromptVariant(
            mapping.prompt_folder or mapping.style, mapping.style, lmstyle, mapping.tokenizer
        )
        for lmstyle, mapping in styles.MAPPINGS.items()
        if mapping.style and not mapping.messages
    ),
    PromptVariant(_GENERIC_PROMPT, _GENERIC_PROMPT, styles.GENERIC_PROMPT_LMSTYLE),
)
VARIANTS = {variant.name: variant for variant in PROMPT_VARIANTS}


@dataclass(frozen=True)
class MessageVariant:
    """An LMStyle whose prompt is chat messages, and the format_lcb_messages style giving
    them; its golden folder is the LMStyle's name."""

    lmstyle: str
    style: str

    @property
    def name(self) -> str:
        return self.lmstyle


MESSAGE_VARIANTS = tuple(
    MessageVariant(lmstyle, mapping.style)
    for lmstyle, mapping in styles.MAPPINGS.items()
    if mapping.style and mapping.messages
)
MESSAGE_VARIANTS_BY_NAME = {variant.name: variant for variant in MESSAGE_VARIANTS}


@dataclass(frozen=True)
class ChatRendering:
    """The generic style rendered by one model family's own chat template: what
    format_lcb_prompt(..., chat_template=True, tokenizer=that family) must return."""

    tokenizer: str  # repo id of a snapshot in fixtures/tokenizers
    enable_thinking: bool | None = None

    @property
    def name(self) -> str:  # golden folder
        folder = self.tokenizer.replace("/", "__")
        if self.enable_thinking is None:
            return folder
        return f"{folder}+thinking={'on' if self.enable_thinking else 'off'}"


CHAT_TOKENIZERS = (
    LLAMA3_TOKENIZER,
    "meta-llama/Llama-3.1-8B-Instruct",
    "Qwen/Qwen2.5-Coder-7B-Instruct",
    "Qwen/Qwen3-8B",
    "deepseek-ai/deepseek-coder-6.7b-instruct",
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
)
# Qwen3's template has a reasoning toggle; the others ignore enable_thinking.
CHAT_RENDERINGS = tuple(
    ChatRendering(tokenizer, thinking)
    for tokenizer in CHAT_TOKENIZERS
    for thinking in ((None, True, False) if tokenizer == "Qwen/Qwen3-8B" else (None,))
)
RENDERINGS = {rendering.name: rendering for rendering in CHAT_RENDERINGS}

# Problems whose prompts are tokenized (the tokenization and token-ids goldens): a plain one,
# and two whose statements carry other models' special-token text (tokenized as real special
# tokens, they inject turns).
TOKENIZED_PROBLEMS = (
    "atc_stamp_card_rally",
    "lc_special_tokens_chat_log",
    "lc_special_tokens_deepseek_think",
)
# The styles whose prompt a tokenizer sees as a string (the style table's): generic (rendered
# by each family's template) and the raw strings of open-weight models; tokenized under every
# family.
# (claude, gemini and geminithinking are sent to an API, which tokenizes them its own way.)
TOKENIZED_STYLES = styles.TOKENIZED_STYLES
# The markers the styles and templates rely on; the tokenization says which are one special token.
STYLE_MARKERS = (
    "<|begin_of_text|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eot_id|>",
    "<|im_start|>",
    "<|im_end|>",
    "<｜begin▁of▁sentence｜>",
    "<｜User｜>",
    "<｜Assistant｜>",
    "<|EOT|>",
    "<think>",
    "</think>",
)

# extract_code(output, style) <-> lcb_runner extract_code(output, LMStyle): every lcb_prompts
# style, with the LMStyle its extraction goldens are produced from (the style table's).
EXTRACTION_LMSTYLES = styles.EXTRACTION_LMSTYLES
# extract_code_prefix has no upstream twin; its reference-impl goldens cover the seed's styles
# (the style table's; every other style extracts by the generic rule).
PREFIX_STYLES = styles.SEED_STYLES


class FixtureError(ValueError):
    """A fixture file holds a case the suite cannot use; the message names file, line, field."""


def iter_jsonl(path: Path, error: type[ValueError] = FixtureError) -> Iterator[tuple[int, dict]]:
    """(line number, object) for each non-blank line of a JSON lines file, streamed; lines
    split on "\n" only. A line that is not a JSON object raises ``error`` naming file and line."""
    with Path(path).open("rb") as lines:
        for number, raw in enumerate(lines, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as problem:
                raise error(f"{path}:{number}: not UTF-8 ({problem.reason})") from None
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as problem:
                raise error(f"{path}:{number}: not valid JSON ({problem})") from None
            if not isinstance(entry, dict):
                raise error(f"{path}:{number}: expected a JSON object")
            yield number, entry


def check_problem_row(
    path: Path, number: int, row: dict, error: type[ValueError] = FixtureError
) -> None:
    """Raise ``error`` unless the row has every field of the dataset's schema, typed right."""
    for field, kind in PROBLEM_FIELDS.items():
        if field not in row:
            raise error(f"{path}:{number}: row lacks {field!r}")
        if not isinstance(row[field], kind):
            raise error(f"{path}:{number}: {field!r} is {type(row[field]).__name__}")


def _read_jsonl(path: Path) -> list[tuple[int, dict]]:
    if not path.is_file():
        raise FixtureError(f"{path}: missing fixture file")
    return list(iter_jsonl(path))


def _check_id(path: Path, number: int, value: object, seen: set[str]) -> str:
    if not isinstance(value, str) or not CASE_ID.match(value):
        raise FixtureError(f"{path}:{number}: id {value!r} must match {CASE_ID.pattern}")
    if value in seen:
        raise FixtureError(f"{path}:{number}: duplicate id {value!r}")
    seen.add(value)
    return value


@cache
def problems() -> dict[str, dict]:
    """question_id -> LCB row, in file order."""
    rows: dict[str, dict] = {}
    for number, row in _read_jsonl(PROBLEMS_FILE):
        check_problem_row(PROBLEMS_FILE, number, row)
        _check_id(PROBLEMS_FILE, number, row["question_id"], set(rows))
        rows[row["question_id"]] = row
    return rows


@dataclass(frozen=True)
class ModelOutput:
    id: str
    output: str
    covers: str


@cache
def outputs() -> dict[str, ModelOutput]:
    return read_outputs(OUTPUTS_FILE)


def read_outputs(path: Path) -> dict[str, ModelOutput]:
    """id -> model output of an outputs file ({"id", "output", "covers"} a line), in order."""
    found: dict[str, ModelOutput] = {}
    for number, entry in _read_jsonl(path):
        output_id = _check_id(path, number, entry.get("id"), set(found))
        if not isinstance(entry.get("output"), str):
            raise FixtureError(f"{path}:{number}: 'output' must be a string")
        found[output_id] = ModelOutput(output_id, entry["output"], entry.get("covers", ""))
    return found


@cache
def contexts() -> dict[str, object]:
    """context id -> a decode_context argument. JSON has no bytes, so the file spells them:
    {"str": s}, {"hex": "..."} (bytes), {"byte_ids": [..]} or {"tokens": [piece, ...]} where
    a piece is an int, {"hex": ...} or {"str": ...}."""
    found: dict[str, object] = {}
    for number, entry in _read_jsonl(CONTEXTS_FILE):
        context_id = _check_id(CONTEXTS_FILE, number, entry.get("id"), set(found))
        try:
            found[context_id] = _context_value(entry["context"])
        except (KeyError, TypeError, ValueError) as error:
            raise FixtureError(f"{CONTEXTS_FILE}:{number}: bad context ({error})") from None
    return found


def _context_value(spec: object) -> object:
    if isinstance(spec, int) and not isinstance(spec, bool):
        return spec
    if not isinstance(spec, dict) or len(spec) != 1:
        raise ValueError(f"expected a one-key object, got {spec!r}")
    ((kind, value),) = spec.items()
    if kind == "str":
        return value
    if kind == "hex":
        return bytes.fromhex(value)
    if kind == "byte_ids":
        return list(value)
    if kind == "tokens":
        return [_context_value(piece) for piece in value]
    raise ValueError(f"unknown context kind {kind!r}")


# fixture file (relative to fixtures/) -> the value one of its entries stands for in a call
FIXTURE_VALUES = {
    PROBLEMS_FILE.name: lambda entry_id: problems()[entry_id],
    OUTPUTS_FILE.name: lambda entry_id: outputs()[entry_id].output,
    CONTEXTS_FILE.name: lambda entry_id: contexts()[entry_id],
}
