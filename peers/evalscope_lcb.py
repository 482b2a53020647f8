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


def pass_at_k(results, k_list=(1, 5)):
    """evalscope's pass@k from per-test grades, as its benchmark aggregates them: each
    generation scored as ``match_score`` scores it (``acc`` = its pass_k_utils pass@1 > 0),
    the samples grouped by problem and aggregated by its ``mean_and_pass_at_k`` aggregator
    (MeanPassAtK: pass@k for every k up to the fewest attempts of any problem); "detail" is
    evalscope's ``calculate_pass_at_k`` of each problem that aggregator averages."""
    from evalscope.api.metric import SampleScore, Score
    from evalscope.benchmarks.live_code_bench.pass_k_utils import compute_metrics_from_results
    from evalscope.metrics.aggregators.aggregators import MeanPassAtK
    from evalscope.metrics.utils.functions import calculate_pass_at_k

    scores, correct = [], {}
    for task, generations in results.items():
        for index, grades in enumerate(generations):
            rate = compute_metrics_from_results({0: [grades]}, k_list=[1])["pass@1"] / 100
            acc = float(rate > 0)
            correct[task] = correct.get(task, 0) + int(acc)
            scores.append(
                SampleScore(
                    score=Score(value={"acc": acc}),
                    sample_id=f"{task}/{index}",
                    group_id=task,
                    generation_index=index,
                )
            )
    metrics = {
        f"pass@{found.dimensions['k']}": found.score
        for found in MeanPassAtK()(scores)
        if found.aggregation == "pass_at_k" and found.dimensions["k"] in k_list
    }
    detail = {}
    for name in metrics:
        k = int(name.removeprefix("pass@"))
        detail[name] = {
            task: float(calculate_pass_at_k([len(generations)], [correct[task]], k)[0])
            for task, generations in results.items()
            if len(generations) >= k  # the problems MeanPassAtK averages for this k
        }
    metrics["detail"] = detail
    return metrics
