"""Golden family: OpenAIChat messages through each family's chat template.

chat-prompt/<tokenizer>[+thinking=on|off]/<question_id>: upstream's OpenAIChat messages
rendered by each tokenizer family's own chat template (what lcb_runner does with
Meta-Llama-3-8B-Instruct's for LLaMa3), Qwen3 with enable_thinking None / True / False."""

from __future__ import annotations

from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.suite import cases, goldens, index
from lcb_conformance.suite.families import Family
from lcb_conformance.suite.goldens import GoldenKey


def keys():
    return (
        GoldenKey(goldens.CHAT_PROMPT, rendering.name, question_id)
        for rendering in cases.CHAT_RENDERINGS
        for question_id in cases.problems()
    )


def produce(source, key: GoldenKey) -> str:
    rendering = cases.RENDERINGS[key.group]
    thinking = (
        {} if rendering.enable_thinking is None else {"enable_thinking": rendering.enable_thinking}
    )
    return hf_cache.load_tokenizer(rendering.tokenizer).apply_chat_template(
        source.upstream.chat_messages(cases.problems()[key.case]),
        tokenize=False,
        add_generation_prompt=True,
        **thinking,
    )


def entry(key: GoldenKey) -> dict:
    rendering = cases.RENDERINGS[key.group]
    return {
        "call": index.prompt_call(
            key.case, "generic", rendering.tokenizer, rendering.enable_thinking
        ),
        "cell": ["generic", index.rendering_label(rendering)],
        "lmstyles": ["LLaMa3"] if rendering.tokenizer == cases.LLAMA3_TOKENIZER else [],
        "upstream": "LMStyle.OpenAIChat messages through the tokenizer's chat template",
    }


FAMILIES = (
    Family(
        goldens.CHAT_PROMPT,
        "chat-prompt",
        "upstream OpenAIChat messages rendered by each snapshot's chat template "
        "(apply_chat_template, add_generation_prompt=True)",
        keys,
        produce,
        entry,
        fixtures=cases.FIXTURE_VALUES,
    ),
)
