"""Golden family: each message LMStyle's chat messages, canonical JSON.

messages/<LMStyle>/<question_id>: the chat messages of each message LMStyle, in lcb_runner's
shape (a list, or Claude3's (system, messages)), as canonical JSON."""

from __future__ import annotations

from lcb_conformance.suite import cases, goldens, index
from lcb_conformance.suite.families import CANONICAL_JSON, Family, NotText
from lcb_conformance.suite.goldens import JSON_SUFFIX, GoldenKey


def keys():
    return (
        GoldenKey(goldens.MESSAGES, variant.name, question_id)
        for variant in cases.MESSAGE_VARIANTS
        for question_id in cases.problems()
    )


def produce(source, key: GoldenKey) -> str:
    return goldens.canonical_json(source.upstream.messages(key.group, cases.problems()[key.case]))


def entry(key: GoldenKey) -> dict:
    variant = cases.MESSAGE_VARIANTS_BY_NAME[key.group]
    return {
        "call": {
            "function": "format_lcb_messages",
            "args": {
                "row": index.fixture(cases.PROBLEMS_FILE.name, key.case),
                "style": variant.style,
            },
        },
        "cell": [variant.style, index.MESSAGES_COLUMN],
        "lmstyles": [variant.lmstyle],
        "upstream": f"format_prompt_generation(problem, LMStyle.{variant.lmstyle})",
    }


def render(value: object, arguments: dict) -> str:
    """Messages as canonical JSON: a list of {"role", "content"} dicts, or a (system, list)
    pair (Claude3)."""
    messages = value[1] if isinstance(value, tuple) and len(value) == 2 else value
    if isinstance(value, tuple) and not isinstance(value[0], str):
        raise NotText(f"returned a tuple whose system part is {type(value[0]).__name__}")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise NotText(
            f"returned {type(value).__name__} {value!r:.200}, not chat messages (a list of "
            "dicts, or Claude3's (system, messages))"
        )
    try:
        return goldens.canonical_json(value)
    except (TypeError, ValueError) as error:
        raise NotText(f"returned messages that are not JSON data ({error})") from None


FAMILIES = (
    Family(
        goldens.MESSAGES,
        "messages",
        "upstream format_prompt_generation(problem, LMStyle) per message LMStyle, as "
        "canonical JSON",
        keys,
        produce,
        entry,
        render,
        suffix=JSON_SUFFIX,
        compare=CANONICAL_JSON,
        fixtures=cases.FIXTURE_VALUES,
    ),
)
