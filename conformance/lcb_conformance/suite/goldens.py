"""The golden store: keys, files, canonical JSON, the integrity manifest, provenance.

Goldens are raw UTF-8 files, compared byte for byte: text (.txt) for strings, canonical JSON
(.json, :func:`canonical_json`) for message-shaped prompts. Only the regeneration command
(lcb_conformance.upstream.regen) writes them; tests read them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from lcb_conformance.common import paths

GOLDENS_DIR = paths.GOLDENS_DIR
MANIFEST_FILE = GOLDENS_DIR / "MANIFEST.sha256"
PROVENANCE_FILE = GOLDENS_DIR / "PROVENANCE.json"
DEVIATIONS_FILE = paths.DEVIATIONS_FILE
SUFFIX = ".txt"
JSON_SUFFIX = ".json"
REGEN_COMMAND = "tox -e regen -- --upstream PATH_TO_LIVECODEBENCH_CHECKOUT"

# The names of the golden families other modules refer to; each family is defined by its
# module in suite/families/ (a new family needs no name here).
PROMPT = "prompt"
MESSAGES = "messages"
EXTRACT = "extract"
EXTRACT_AFTER_THINK = "extract-after-think"
CHAT_PROMPT = "chat-prompt"
# the tokenization family's folder keeps its first name (renaming it is a regeneration on
# every transformers line)
TOKENIZATION = "token-audit"
TOKEN_IDS = "token-ids"
COMPARABILITY = "comparability"
RESOLVER = "resolver"
RESOLVER_CASE = "models"
LM_STYLES = "lm-styles"
LM_STYLES_CASE = "lm_styles"
JUDGE = "judge"
REFERENCE_PREFIX = "reference-impl/extract_code_prefix"
REFERENCE_DECODE = "reference-impl/decode_context"


@dataclass(frozen=True, order=True)
class GoldenKey:
    family: str
    group: str  # prompt variant, extraction style, ...; "" for families without one
    case: str  # question_id, output id or context id

    @property
    def suffix(self) -> str:
        from lcb_conformance.suite import families

        return families.suffix_of(self.family)

    @property
    def relative(self) -> str:
        parts = [self.family, self.group] if self.group else [self.family]
        return "/".join([*parts, self.case + self.suffix])

    @property
    def path(self) -> Path:
        return GOLDENS_DIR / self.relative

    def __str__(self) -> str:
        return self.relative.removesuffix(self.suffix)


def canonical_json(value) -> str:
    """The golden text of a message-shaped prompt: a list of messages as a JSON array,
    Claude3's (system, messages) tuple as {"messages": [...], "system": ...}; one key per
    line, sorted, non-ASCII kept, so a diff reads line by line."""
    if isinstance(value, tuple):
        system, messages = value
        value = {"system": system, "messages": messages}
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def tokenized_case(style: str, question_id: str) -> str:
    return f"{style}__{question_id}"


def parse_tokenized_key(key: GoldenKey) -> tuple[str, str, str, str]:
    """(transformers line, tokenizer repo id, style, question_id) of a tokenization or
    token-ids key."""
    line, folder = key.group.split("/")
    style, question_id = key.case.split("__", 1)
    return line, folder.replace("__", "/", 1), style, question_id


THINK_CLOSE = "</think>"


def answer_after_think(output: str) -> str:
    """The text after the last </think> (the whole output when there is none)."""
    return output.rpartition(THINK_CLOSE)[2]


def golden_files() -> list[Path]:
    """Every golden file (the manifest and provenance at the top are not goldens)."""
    return sorted(
        path
        for path in GOLDENS_DIR.rglob("*")
        if path.is_file() and path.parent != GOLDENS_DIR and path.suffix in (SUFFIX, JSON_SUFFIX)
    )


def read(key: GoldenKey) -> str | None:
    """The golden text, or None when the file does not exist."""
    try:
        return key.path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None


def write(key: GoldenKey, text: str) -> None:
    key.path.parent.mkdir(parents=True, exist_ok=True)
    key.path.write_bytes(text.encode("utf-8"))


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def manifest_lines() -> list[str]:
    """sha256sum-format lines for every golden file on disk."""
    return [
        f"{sha256_of(path)}  {path.relative_to(GOLDENS_DIR).as_posix()}" for path in golden_files()
    ]


@cache
def recorded_manifest() -> dict[str, str]:
    """relative path -> sha256, as the last regeneration recorded it."""
    if not MANIFEST_FILE.is_file():
        return {}
    recorded = {}
    for line in MANIFEST_FILE.read_text("utf-8").splitlines():
        digest, _, relative = line.partition("  ")
        recorded[relative] = digest
    return recorded


def provenance() -> dict:
    if not PROVENANCE_FILE.is_file():
        return {}
    return json.loads(PROVENANCE_FILE.read_text("utf-8"))
