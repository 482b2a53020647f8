"""Golden family: the token ids under the real tokenizers, per transformers line.

token-ids/<transformers line>/<tokenizer>/<style>__<question_id>: the token ids the audited
prompts reach a model as, under the real tokenizers (real_vocab.py), per transformers line.
No implementation is held to them here (the real vocabularies are not in the offline
snapshots); the realvocab envs hold the tokenizers to them (test_token_ids.py)."""

from __future__ import annotations

from lcb_conformance.offline_tokenizers import token_ids
from lcb_conformance.suite import cases, goldens
from lcb_conformance.suite.families import Family
from lcb_conformance.suite.families.token_audit import audit_keys, audited_prompt, line_of
from lcb_conformance.suite.goldens import GoldenKey


def produce(source, key: GoldenKey) -> str:
    """The string with and without special tokens, and for generic also upstream's OpenAIChat
    messages through the template with tokenize=True."""
    line, tokenizer, style, question_id = goldens.parse_audit_key(key)
    source.check_line(line)
    real = source.real_tokenizer(tokenizer)
    prompt = audited_prompt(source, style, tokenizer, question_id)
    messages = (
        source.upstream.chat_messages(cases.problems()[question_id])
        if style == "generic"
        else None
    )
    return token_ids.render(prompt, token_ids.sequences(real, prompt, messages))


FAMILIES = (
    Family(
        goldens.TOKEN_IDS,
        "token-ids",
        "token_ids.py: the token-audited upstream prompts (generic also as upstream's "
        "OpenAIChat messages through the template, tokenize=True) tokenized by the real "
        "tokenizers (real_vocab.py, from real_vocabularies), per transformers line",
        lambda: audit_keys(goldens.TOKEN_IDS),
        produce,
        entry=lambda key: {
            "upstream": "upstream's prompt tokenized by the real tokenizer",
            "transformers_line": line_of(key),
        },
        line_of=line_of,
        in_history=False,
    ),
)
