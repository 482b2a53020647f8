"""The comparability matrix: for each (style, tokenizer family, enable_thinking), is the prompt
the one lcb_runner sends for that style, and how does the family's tokenizer take it?

lcb_runner's generic style is LMStyle.LLaMa3: the Meta-Llama-3-8B-Instruct template for every
model. Rendering the same messages with a model's own template (Llama-3.1, Qwen, DeepSeek) is
a different prompt, so not leaderboard-identical. Built from upstream only (goldens of the
chat-prompt, prompt and tokenization families), checked in as a golden per transformers line.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from lcb_conformance.common import showdiff
from lcb_conformance.suite import cases
from lcb_conformance.suite.goldens import (
    CHAT_PROMPT,
    PROMPT,
    TOKENIZATION,
    GoldenKey,
    tokenized_case,
)

# lcb_runner's prompt for each style, as a prompt-golden variant
LEADERBOARD_VARIANT = {
    style: "generic-llama3" if style == "generic" else style for style in cases.TOKENIZED_STYLES
}
BOS_PROBLEM = cases.TOKENIZED_PROBLEMS[0]  # the plain tokenized problem


def build(produce: Callable[[GoldenKey], str], line: str) -> str:
    """The matrix text for one transformers line; ``produce`` gives any golden's text."""
    rows = []
    for style, variant in LEADERBOARD_VARIANT.items():
        for rendering in cases.CHAT_RENDERINGS:
            if style != "generic" and rendering.enable_thinking is not None:
                continue  # the raw styles never pass through a template
            rows.append(_row(produce, line, style, variant, rendering))
    header = (
        "style",
        "tokenizer",
        "thinking",
        "identical",
        "BOS +spec/-spec",
        "markers split",
        "first difference",
    )
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header) - 1)]
    lines = [
        f"Comparability with lcb_runner ({line}). 'identical' counts problems whose prompt is",
        "byte-identical to lcb_runner's for the style (generic: LMStyle.LLaMa3, the",
        "Meta-Llama-3-8B-Instruct template); the other styles are raw strings, the",
        "same for every tokenizer. 'BOS +spec/-spec': BOS tokens when the rendered prompt is",
        "tokenized with add_special_tokens=True / False (2 = a doubled BOS, as a server",
        "re-tokenizing a string prompt gets it). 'markers split': the style's markers that",
        "this tokenizer splits into ordinary pieces.",
        "",
    ]
    for row in [header, *rows]:
        cells = [str(cell).ljust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append("  ".join([*cells, str(row[-1])]).rstrip())
    return "\n".join(lines) + "\n"


def _row(produce, line, style, variant, rendering) -> tuple:
    identical, first = 0, ""
    for question_id in cases.problems():
        upstream_prompt = produce(GoldenKey(PROMPT, variant, question_id))
        if style == "generic":
            prompt = produce(GoldenKey(CHAT_PROMPT, rendering.name, question_id))
        else:
            prompt = upstream_prompt
        if prompt == upstream_prompt:
            identical += 1
        elif not first:
            offset = showdiff.first_difference(prompt, upstream_prompt)
            first = (
                f"{question_id} @ {offset}: "
                f'"{showdiff.visible(prompt, max(0, offset - 12), offset + 28)}" vs lcb_runner '
                f'"{showdiff.visible(upstream_prompt, max(0, offset - 12), offset + 28)}"'
            )
    folder = rendering.tokenizer.replace("/", "__")
    record = json.loads(
        produce(GoldenKey(TOKENIZATION, f"{line}/{folder}", tokenized_case(style, BOS_PROBLEM)))
    )
    bos = record["bos_count"]
    not_special = [
        marker
        for marker, status in record["markers_in_prompt"].items()
        if status.startswith("text")
    ]
    thinking = {None: "-", True: "on", False: "off"}[rendering.enable_thinking]
    return (
        style,
        rendering.tokenizer,
        thinking,
        f"{identical}/{len(cases.problems())}",
        f"{bos['add_special_tokens=True']}/{bos['add_special_tokens=False']}",
        " ".join(not_special) or "-",
        first or "-",
    )
