"""evalscope's LiveCodeBench benchmark (evalscope/benchmarks/live_code_bench/).

Calls the installed evalscope: the registered benchmark ``live_code_bench`` is built with
``evalscope.api.registry.get_benchmark`` (its BenchmarkMeta: system_prompt,
prompt_template), each row goes through the adapter's own ``record_to_sample`` and
``process_sample_messages_input`` (what evalscope does before inference, system message
included) and evalscope's ``openai_chat_messages`` (what it sends to an OpenAI-compatible
server). Extraction is the adapter's ``filter_prediction`` (configured filters, then
``extract_answer`` = extract_utils.extract_code_generation).

Judge: ``judge_program`` is what the adapter's ``match_score`` runs locally (evalscope's
default, no sandbox): the evaluation sample ``record_to_sample`` stores (load_utils.transform:
public and private tests, either private encoding) graded by evaluate_utils.``codegen_metrics``
with match_score's arguments (one program, k_list=[1], one process, debug off), the timeout
being the suite's in place of ``review_timeout``. Its per-test results and metadata are the
ones match_score stores (``eval_results``, ``final_metadata``). The suite calls it in a child
process.

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


def judge_program(row, program, timeout):
    """(per-test results, metadata) from evalscope's local judge for one program."""
    import json

    from evalscope.benchmarks.live_code_bench.evaluate_utils import codegen_metrics

    sample = benchmark().record_to_sample(dict(row))  # it adds fields to the record: a copy
    references = [{"input_output": sample.metadata["evaluation_sample"]}]
    _, results, metadata = codegen_metrics(
        references, [[program]], k_list=[1], num_process_evaluate=1, timeout=timeout, debug=False
    )
    return results[0][0], json.loads(metadata[0][0])


def extract_code(model_output, style=STYLE):
    check_style(style, STYLES)
    return benchmark().filter_prediction(model_output, task_state=None)
