"""Golden family: each string LMStyle's prompt.

prompt/<variant>/<question_id>: the string prompt of each string LMStyle (and the
template-free generic prompt, OpenAIReasonPreview's one user message), as lcb_runner builds it."""

from __future__ import annotations

from lcb_conformance.suite import cases, goldens, index
from lcb_conformance.suite.families import Family
from lcb_conformance.suite.goldens import GoldenKey


def keys():
    return (
        GoldenKey(goldens.PROMPT, variant.name, question_id)
        for variant in cases.PROMPT_VARIANTS
        for question_id in cases.problems()
    )


def produce(source, key: GoldenKey) -> str:
    return source.upstream.prompt(cases.VARIANTS[key.group], cases.problems()[key.case])


def entry(key: GoldenKey) -> dict:
    variant = cases.VARIANTS[key.group]
    tokenizer = variant.tokenizer
    column = tokenizer or (index.NO_TEMPLATE if variant.style == "generic" else index.NO_TOKENIZER)
    return {
        "call": index.prompt_call(key.case, variant.style, tokenizer),
        "cell": [variant.style, column],
        "lmstyles": [variant.lmstyle],
        "upstream": f"format_prompt_generation(problem, LMStyle.{variant.lmstyle})",
    }


FAMILIES = (
    Family(
        goldens.PROMPT,
        "prompt",
        "upstream format_prompt_generation(problem, LMStyle) per string LMStyle (generic: "
        "OpenAIReasonPreview's one user message)",
        keys,
        produce,
        entry,
        fixtures=cases.FIXTURE_VALUES,
    ),
)
