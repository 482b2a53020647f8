"""The golden store: where each case's expected bytes live, and their integrity manifest.

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

from lcb_conformance.suite import cases, judge_cases, paths
from lcb_conformance.suite.audit import AUDIT_LINES, transformers_line

GOLDENS_DIR = paths.GOLDENS_DIR
MANIFEST_FILE = GOLDENS_DIR / "MANIFEST.sha256"
PROVENANCE_FILE = GOLDENS_DIR / "PROVENANCE.json"
DEVIATIONS_FILE = paths.DEVIATIONS_FILE
SUFFIX = ".txt"
JSON_SUFFIX = ".json"
REGEN_COMMAND = "tox -e regen -- --upstream PATH_TO_LIVECODEBENCH_CHECKOUT"

# Golden families. UPSTREAM_FAMILIES are produced from upstream lcb_runner; the
# reference-impl ones have no upstream twin and are produced by the reference lcb_prompts.
PROMPT = "prompt"
# the chat messages of a message LMStyle (list, or Claude3's {"system", "messages"}), as
# canonical JSON, one folder per LMStyle
MESSAGES = "messages"
EXTRACT = "extract"
# upstream's extract_code applied to the text after the last </think>: what lcb_prompts'
# think-aware extract_code must return where it deviates (see deviations.toml).
EXTRACT_AFTER_THINK = "extract-after-think"
# upstream's OpenAIChat messages rendered by each tokenizer family's own chat template
CHAT_PROMPT = "chat-prompt"
# token audits (audit.py) of upstream-built prompts, one folder per transformers line
TOKEN_AUDIT = "token-audit"
# the token ids (token_ids.py) of the audited prompts under the real tokenizers
# (real_vocab.py), one folder per transformers line, laid out like the token audits
TOKEN_IDS = "token-ids"
# the comparability matrix (matrix.py), one file per transformers line
COMPARABILITY = "comparability"
# every model of upstream's lm_styles.LanguageModelList resolved to an lcb_prompts style
# (resolver.py); one file, resolver/models
RESOLVER = "resolver"
RESOLVER_CASE = "models"
# upstream's LMStyle names and LanguageModelList as data (canonical JSON): what
# `lcb-conformance resolve` answers from by default, offline
LM_STYLES = "lm-styles"
LM_STYLES_CASE = "lm_styles"
# lcb_runner's judge verdict on a (problem, program) pair of fixtures/judge
# (suite/judge_cases.py), as canonical JSON
JUDGE = "judge"
REFERENCE_PREFIX = "reference-impl/extract_code_prefix"
REFERENCE_DECODE = "reference-impl/decode_context"
UPSTREAM_FAMILIES = (
    PROMPT,
    MESSAGES,
    EXTRACT,
    EXTRACT_AFTER_THINK,
    CHAT_PROMPT,
    TOKEN_AUDIT,
    TOKEN_IDS,
    COMPARABILITY,
    RESOLVER,
    LM_STYLES,
    JUDGE,
)
# Families whose drift is a list (of LMStyles, of models) rather than a prompt or extraction.
MODEL_LIST_FAMILIES = (RESOLVER, LM_STYLES)


@dataclass(frozen=True, order=True)
class GoldenKey:
    family: str
    group: str  # prompt variant, extraction style, ...; "" for families without one
    case: str  # question_id, output id or context id

    @property
    def suffix(self) -> str:
        return suffix_of(self.family)

    @property
    def relative(self) -> str:
        parts = [self.family, self.group] if self.group else [self.family]
        return "/".join([*parts, self.case + self.suffix])

    @property
    def path(self) -> Path:
        return GOLDENS_DIR / self.relative

    def __str__(self) -> str:
        return self.relative.removesuffix(self.suffix)


FAMILIES = (*UPSTREAM_FAMILIES, REFERENCE_PREFIX, REFERENCE_DECODE)


def key_of(name: str) -> GoldenKey:
    """The key of a golden's relative path or id ("prompt/generic/x.txt", "prompt/generic/x")."""
    family = max((f for f in FAMILIES if name.startswith(f + "/")), key=len, default=None)
    if family is None:
        raise ValueError(f"{name!r} is in no golden family ({', '.join(FAMILIES)})")
    group, _, case = name[len(family) + 1 :].rpartition("/")
    return GoldenKey(family, group, case.removesuffix(suffix_of(family)))


def suffix_of(family: str) -> str:
    return JSON_SUFFIX if family in (MESSAGES, LM_STYLES, JUDGE) else SUFFIX


def canonical_json(value) -> str:
    """The golden text of a message-shaped prompt: a list of messages as a JSON array,
    Claude3's (system, messages) tuple as {"messages": [...], "system": ...}; one key per
    line, sorted, non-ASCII kept, so a diff reads line by line."""
    if isinstance(value, tuple):
        system, messages = value
        value = {"system": system, "messages": messages}
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def in_this_environment(key: GoldenKey) -> bool:
    """False for the token audits, token ids and matrix recorded under another transformers
    line."""
    if key.family in (TOKEN_AUDIT, TOKEN_IDS):
        return parse_audit_key(key)[0] == transformers_line()
    if key.family == COMPARABILITY:
        return key.case == transformers_line()
    return True


def audit_case(style: str, question_id: str) -> str:
    return f"{style}__{question_id}"


def parse_audit_key(key: GoldenKey) -> tuple[str, str, str, str]:
    """(transformers line, tokenizer repo id, style, question_id) of a token-audit or
    token-ids key."""
    line, folder = key.group.split("/")
    style, question_id = key.case.split("__", 1)
    return line, folder.replace("__", "/", 1), style, question_id


THINK_CLOSE = "</think>"


def answer_after_think(output: str) -> str:
    """The text after the last </think> (the whole output when there is none)."""
    return output.rpartition(THINK_CLOSE)[2]


def expected_keys(family: str | None = None) -> list[GoldenKey]:
    """Every golden the current fixtures call for (of one family, if given)."""
    return [key for key in _all_expected_keys() if family is None or key.family == family]


@cache
def _all_expected_keys() -> tuple[GoldenKey, ...]:
    keys = [
        GoldenKey(PROMPT, variant.name, question_id)
        for variant in cases.PROMPT_VARIANTS
        for question_id in cases.problems()
    ]
    keys += [
        GoldenKey(MESSAGES, variant.name, question_id)
        for variant in cases.MESSAGE_VARIANTS
        for question_id in cases.problems()
    ]
    for style in cases.EXTRACTION_LMSTYLES:
        for output in cases.outputs().values():
            keys.append(GoldenKey(EXTRACT, style, output.id))
            if THINK_CLOSE in output.output:
                keys.append(GoldenKey(EXTRACT_AFTER_THINK, style, output.id))
            if style in cases.PREFIX_STYLES:
                keys.append(GoldenKey(REFERENCE_PREFIX, style, output.id))
    keys += [GoldenKey(REFERENCE_DECODE, "", context_id) for context_id in cases.contexts()]
    keys.append(GoldenKey(RESOLVER, "", RESOLVER_CASE))
    keys.append(GoldenKey(LM_STYLES, "", LM_STYLES_CASE))
    keys += [GoldenKey(JUDGE, "", case_id) for case_id in judge_cases.judge_cases()]
    keys += [
        GoldenKey(CHAT_PROMPT, rendering.name, question_id)
        for rendering in cases.CHAT_RENDERINGS
        for question_id in cases.problems()
    ]
    for line in AUDIT_LINES:
        keys.append(GoldenKey(COMPARABILITY, "", line))
        keys += [
            GoldenKey(family, f"{line}/{tokenizer.replace('/', '__')}", audit_case(style, qid))
            for family in (TOKEN_AUDIT, TOKEN_IDS)
            for tokenizer in cases.CHAT_TOKENIZERS
            for style in cases.AUDITED_STYLES
            for qid in cases.AUDITED_PROBLEMS
        ]
    return tuple(sorted(keys))


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
