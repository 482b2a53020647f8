"""evalscope's LiveCodeBench benchmark (evalscope/benchmarks/live_code_bench/).

Calls the installed evalscope: the registered benchmark ``live_code_bench`` is built with
``evalscope.api.registry.get_benchmark`` (its BenchmarkMeta: system_prompt,
prompt_template), each row goes through the adapter's own ``record_to_sample`` and
``process_sample_messages_input`` (what evalscope does before inference, system message
included) and evalscope's ``openai_chat_messages`` (what it sends to an OpenAI-compatible
server). Extraction is the adapter's ``filter_prediction`` (configured filters, then
``extract_answer`` = extract_utils.extract_code_generation).

evalscope's README says its prompts follow the official runner's generic system message plus
the ### Question / ### Format user message, so it is held to lcb_runner's generic style.
"""

from __future__ import annotations

from functools import cache

from lcb_conformance.adapters.rendering import render_messages
from peers._render import STYLE, check_style

PEER = "evalscope"
DISTRIBUTION = "evalscope"
STYLES = (STYLE,)
FOLLOWS = (
    "generic: benchmark live_code_bench's [system, user] messages in place of OpenAIChat's; "
    "its filter_prediction in place of extract_code(..., LLaMa3)"
)
SUBSET = "release_latest"


@cache
def benchmark():
    """evalscope's live_code_bench data adapter with its registered defaults."""
    from evalscope.api.registry import get_benchmark

    return get_benchmark("live_code_bench")


def messages(row) -> list[dict[str, str]]:
    """The chat messages evalscope sends for this row."""
    from evalscope.models.utils.openai import openai_chat_messages

    adapter = benchmark()
    sample = adapter.record_to_sample(dict(row))  # it adds fields to the record: a copy
    return [
        dict(message)
        for message in openai_chat_messages(adapter.process_sample_messages_input(sample, SUBSET))
    ]


def format_lcb_prompt(row, tokenizer=None, chat_template=False, style=STYLE, enable_thinking=None):
    check_style(style, STYLES)
    return render_messages(messages(row), tokenizer, chat_template, enable_thinking)


def extract_code(model_output, style=STYLE):
    check_style(style, STYLES)
    return benchmark().filter_prediction(model_output, task_state=None)
