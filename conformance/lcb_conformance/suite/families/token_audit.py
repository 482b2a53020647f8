"""Golden family: token audits of upstream's prompts, per transformers line.

token-audit/<transformers line>/<tokenizer>/<style>__<question_id>: what each tokenizer makes
of upstream's prompt (BOS counts, markers as special tokens or text), per transformers line;
the implementation's prompt is audited the same way."""

from __future__ import annotations

from lcb_conformance.suite import audit, cases, goldens, index
from lcb_conformance.suite.families import TOKEN_AUDIT, Family, as_text
from lcb_conformance.suite.goldens import GoldenKey


def audit_keys(family: str):
    """The keys of a family laid out like the token audits (the token ids share it)."""
    return (
        GoldenKey(family, f"{line}/{tokenizer.replace('/', '__')}", goldens.audit_case(style, qid))
        for line in audit.AUDIT_LINES
        for tokenizer in cases.CHAT_TOKENIZERS
        for style in cases.AUDITED_STYLES
        for qid in cases.AUDITED_PROBLEMS
    )


def line_of(key: GoldenKey) -> str:
    return goldens.parse_audit_key(key)[0]


def audited_prompt(source, style: str, tokenizer: str, question_id: str) -> str:
    """The prompt an audit looks at: generic rendered by the tokenizer's own template, the
    raw styles as lcb_runner builds them."""
    if style == "generic":
        rendering = cases.ChatRendering(tokenizer)
        return source(GoldenKey(goldens.CHAT_PROMPT, rendering.name, question_id))
    return source(GoldenKey(goldens.PROMPT, style, question_id))


def produce(source, key: GoldenKey) -> str:
    line, tokenizer, style, question_id = goldens.parse_audit_key(key)
    source.check_line(line)
    prompt = audited_prompt(source, style, tokenizer, question_id)
    return audit.render(audit.audit(audit.load_tokenizer(tokenizer), prompt))


def entry(key: GoldenKey) -> dict:
    line, tokenizer, style, question_id = goldens.parse_audit_key(key)
    call = index.prompt_call(question_id, style, tokenizer if style == "generic" else None)
    call["args"]["tokenizer"] = tokenizer  # the raw styles are audited under it too
    return {
        "call": call,
        "cell": [style, tokenizer],
        "upstream": "token audit of upstream's prompt",
        "transformers_line": line,
    }


def render(value: object, arguments: dict) -> str:
    """The audit of the returned prompt under the call's tokenizer."""
    prompt = as_text(value, arguments)
    tokenizer = arguments["tokenizer"]
    if isinstance(tokenizer, str):
        tokenizer = audit.load_tokenizer(tokenizer)
    return audit.render(audit.audit(tokenizer, prompt))


FAMILIES = (
    Family(
        goldens.TOKEN_AUDIT,
        "token-audit",
        "audit.py over upstream-built prompts, per transformers line",
        lambda: audit_keys(goldens.TOKEN_AUDIT),
        produce,
        entry,
        render,
        compare=TOKEN_AUDIT,
        line_of=line_of,
        in_history=False,
        fixtures=cases.FIXTURE_VALUES,
    ),
)
