"""Golden family: what each tokenizer makes of upstream's prompts, per transformers line.

token-audit/<transformers line>/<tokenizer>/<style>__<question_id>: the tokenization goldens,
what each tokenizer makes of upstream's prompt (BOS counts, markers as special tokens or text),
per transformers line; the implementation's prompt is tokenized the same way. The folder keeps
its first name, ``token-audit`` (goldens.TOKENIZATION): renaming it is a regeneration on every
transformers line."""

from __future__ import annotations

from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.suite import cases, goldens, index, tokenization
from lcb_conformance.suite.families import TOKENIZATION, Family, as_text
from lcb_conformance.suite.goldens import GoldenKey


def tokenization_keys(family: str):
    """The keys of a family laid out like the tokenizations (the token ids share it)."""
    return (
        GoldenKey(
            family, f"{line}/{tokenizer.replace('/', '__')}", goldens.tokenized_case(style, qid)
        )
        for line in tokenization.TRANSFORMERS_LINES
        for tokenizer in cases.CHAT_TOKENIZERS
        for style in cases.TOKENIZED_STYLES
        for qid in cases.TOKENIZED_PROBLEMS
    )


def line_of(key: GoldenKey) -> str:
    return goldens.parse_tokenized_key(key)[0]


def tokenized_prompt(source, style: str, tokenizer: str, question_id: str) -> str:
    """The prompt a tokenization case tokenizes: generic rendered by the tokenizer's own
    template, the raw styles as lcb_runner builds them."""
    if style == "generic":
        rendering = cases.ChatRendering(tokenizer)
        return source(GoldenKey(goldens.CHAT_PROMPT, rendering.name, question_id))
    return source(GoldenKey(goldens.PROMPT, style, question_id))


def produce(source, key: GoldenKey) -> str:
    line, tokenizer, style, question_id = goldens.parse_tokenized_key(key)
    source.check_line(line)
    prompt = tokenized_prompt(source, style, tokenizer, question_id)
    return tokenization.render(tokenization.record(hf_cache.load_tokenizer(tokenizer), prompt))


def entry(key: GoldenKey) -> dict:
    line, tokenizer, style, question_id = goldens.parse_tokenized_key(key)
    call = index.prompt_call(question_id, style, tokenizer if style == "generic" else None)
    call["args"]["tokenizer"] = tokenizer  # the raw styles are tokenized under it too
    return {
        "call": call,
        "cell": [style, tokenizer],
        "upstream": "token audit of upstream's prompt",
        "transformers_line": line,
    }


def render(value: object, arguments: dict) -> str:
    """The tokenization of the returned prompt under the call's tokenizer."""
    prompt = as_text(value, arguments)
    tokenizer = arguments["tokenizer"]
    if isinstance(tokenizer, str):
        tokenizer = hf_cache.load_tokenizer(tokenizer)
    return tokenization.render(tokenization.record(tokenizer, prompt))


FAMILIES = (
    Family(
        goldens.TOKENIZATION,
        "token-audit",
        "tokenization.py over upstream-built prompts, per transformers line",
        lambda: tokenization_keys(goldens.TOKENIZATION),
        produce,
        entry,
        render,
        compare=TOKENIZATION,
        line_of=line_of,
        in_history=False,
        fixtures=cases.FIXTURE_VALUES,
    ),
)
