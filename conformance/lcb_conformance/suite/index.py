"""The case index: every golden case as data, with the call that is held to it, its golden
file, its cell of the verdict matrix and where the golden comes from.

Regeneration writes it beside the goldens (conformance/goldens/INDEX.json, described by
conformance/case-index.schema.json); the conformance tests are parametrized from it and the
verdict reads each case's cell from it, so a runner in any language can run the suite from
the index and the fixture files alone. A case's id is its golden key, which is also the id
of the test that checks it.
"""

from __future__ import annotations

import json
from functools import cache

from lcb_conformance.common import paths
from lcb_conformance.suite import cases, families, goldens
from lcb_conformance.suite.goldens import GoldenKey

SCHEMA = "lcb-conformance-case-index/2"
INDEX_NAME = "INDEX.json"
SCHEMA_FILE = paths.CASE_INDEX_SCHEMA

# The tokenizer axis of the verdict matrix, besides the tokenizer families.
NO_TOKENIZER = "-"
NO_TEMPLATE = "no template"
MESSAGES_COLUMN = "messages"

def rendering_label(rendering: cases.ChatRendering) -> str:
    if rendering.enable_thinking is None:
        return rendering.tokenizer
    return f"{rendering.tokenizer} thinking={'on' if rendering.enable_thinking else 'off'}"


def fixture(file: str, entry_id: str) -> dict:
    """A pointer to one entry of a fixture file (relative to fixtures/), which a family's
    ``fixtures`` turns into the value it stands for."""
    return {"fixture": file, "id": entry_id}


def prompt_call(question_id: str, style: str, tokenizer=None, thinking=None) -> dict:
    return {
        "function": "format_lcb_prompt",
        "args": {
            "row": fixture(cases.PROBLEMS_FILE.name, question_id),
            "style": style,
            "chat_template": tokenizer is not None,
            "tokenizer": tokenizer,
            "enable_thinking": thinking,
        },
    }


def entry(key: GoldenKey) -> dict:
    """The index entry of one golden (its family's fields over these defaults)."""
    family = families.get(key.family)
    return {
        "id": str(key),
        "family": key.family,
        "golden": key.relative,
        "compare": family.compare,
        "call": None,  # None: a golden no implementation is held to (upstream-only)
        "cell": None,
        # None: produced by the reference lcb_prompts (no upstream twin)
        "upstream": "upstream only (drift run)" if family.upstream else None,
    } | family.entry(key)


# Two goldens are one case when these fields and their bytes are the same.
SAME_CASE_FIELDS = ("call", "compare", "deviation", "transformers_line")


def _share_goldens(entries: list[dict]) -> None:
    """One case for goldens that hold the same call to the same bytes (the five LMStyles
    sending format_lcb_messages(style="generic")'s messages; LLaMa3's prompt, which is also
    the Llama-3 chat rendering): the first lists them all, the others point at it."""
    first_of: dict[str, dict] = {}
    for found in entries:
        if found["call"] is None:
            continue
        golden = goldens.GOLDENS_DIR / found["golden"]
        content = golden.read_bytes() if golden.is_file() else found["id"].encode()
        identity = json.dumps([found.get(name) for name in SAME_CASE_FIELDS])
        first = first_of.setdefault(identity + content.hex(), found)
        if first is found:
            continue
        first.setdefault("shared_with", []).append(found["id"])
        lmstyles = first.get("lmstyles", []) + found.get("lmstyles", [])
        first["lmstyles"] = list(dict.fromkeys(lmstyles))
        found["same_as"] = first["id"]


def build() -> dict:
    """The index of the current fixtures, case tables and goldens."""
    entries = [entry(key) for key in families.expected_keys()]
    _share_goldens(entries)
    return {
        "schema": SCHEMA,
        "fixtures": "fixtures/",
        "goldens": "conformance/goldens/",
        "cases": entries,
    }


def render(index: dict) -> str:
    """One case a line, so a changed case is a one-line diff."""
    head = json.dumps({k: v for k, v in index.items() if k != "cases"}, sort_keys=True)
    rows = ",\n".join("  " + json.dumps(case, sort_keys=True, ensure_ascii=False)
                      for case in index["cases"])
    return f'{head[:-1]}, "cases": [\n{rows}\n]}}\n'


def index_file():
    return goldens.GOLDENS_DIR / INDEX_NAME


def read() -> dict | None:
    if not index_file().is_file():
        return None
    return json.loads(index_file().read_text("utf-8"))


@cache
def by_id() -> dict[str, dict]:
    """Case id -> entry, as the checked-in index records it."""
    index = read()
    if index is None:
        raise FileNotFoundError(f"{index_file()}: no case index; {goldens.REGEN_COMMAND}")
    return {case["id"]: case for case in index["cases"]}


def held_cases(family: str | None = None) -> list[dict]:
    """The cases an implementation is held to (of one family, if given), in index order: a
    golden shared with an earlier case is that case's."""
    return [
        case
        for case in by_id().values()
        if case["call"] and "same_as" not in case and family in (None, case["family"])
    ]


@cache
def functions() -> tuple[str, ...]:
    """The adapter functions the cases call, in index order."""
    return tuple(dict.fromkeys(case["call"]["function"] for case in held_cases()))


def golden_held_to(case: dict, declared_deviations) -> str:
    """The golden file (relative path) a case holds an implementation to: the case's listed
    deviation's golden when the implementation declares that deviation (its DEVIATIONS), and
    otherwise lcb_runner's own, which the case id names."""
    if case.get("deviation") and case["deviation"] not in declared_deviations:
        return families.key_of(case["id"]).relative
    return case["golden"]


def arguments(call: dict) -> dict:
    """A call's arguments with fixture pointers replaced by the fixture values (a
    tokenizer stays its repo id; enable_thinking=None is left out of the call)."""
    resolved = {}
    for name, value in call["args"].items():
        if name == "enable_thinking" and value is None:
            continue
        resolved[name] = families.fixture_value(value) if isinstance(value, dict) else value
    return resolved
