"""nvidia-livecodebench's own CLI path: LMStyle.GenericOAIServer.

``python -m livecodebench.runner.main`` builds every model as LMStyle.GenericOAIServer and
posts its messages to an OpenAI-compatible server. This adapter calls the installed package:
``format_prompt_generation(problem, LMStyle.GenericOAIServer)`` for the messages (one user
message, the generic template ``.rstrip()``-ed, no system message) and
``extract_code(output, LMStyle.GenericOAIServer)`` for extraction (the first ```python block,
stripped; the whole output stripped when there is none).

``judge_program`` grades with the installed package's own judge, the path its
``codegen_metrics`` takes for one program: ``evaluate_generations_by_problem`` (check_correctness
around run_test) on ``CodeGenerationProblem(**row).get_evaluation_sample()``. The suite calls it
in a child process only (lcb_conformance.upstream.judge).

Held to lcb_runner's generic style (OpenAIChat; LLaMa3 through a chat template), which is the
style GenericOAIServer stands in for. Messages become one string as described in
lcb_conformance.adapters.rendering; the server would render them with the model's chat template.
"""

from __future__ import annotations

from functools import cache

from lcb_conformance.adapters.rendering import render_messages
from peers._render import STYLE, check_style

PEER = "nvidia-livecodebench (GenericOAIServer)"
DISTRIBUTION = "nvidia-livecodebench"
STYLES = (STYLE,)
FOLLOWS = (
    "generic: LMStyle.GenericOAIServer's messages in place of OpenAIChat's; "
    "extract_code(..., LMStyle.GenericOAIServer) in place of LLaMa3's"
)


@cache
def _livecodebench():
    from livecodebench.benchmarks.code_generation import CodeGenerationProblem
    from livecodebench.lm_styles import LMStyle
    from livecodebench.prompts.code_generation import format_prompt_generation
    from livecodebench.utils.extraction_utils import extract_code as lcb_extract_code

    return (
        CodeGenerationProblem,
        LMStyle.GenericOAIServer,
        format_prompt_generation,
        lcb_extract_code,
    )


@cache
def _judge_modules():
    from livecodebench.benchmarks import code_generation
    from livecodebench.evaluation import compute_code_generation_metrics

    return code_generation.CodeGenerationProblem, compute_code_generation_metrics


def judge_program(row, program, timeout):
    """(per-test results, metadata) from nvidia-livecodebench's judge for one program."""
    problem_class, metrics = _judge_modules()
    sample = problem_class(**row).get_evaluation_sample()
    results, metadata = metrics.evaluate_generations_by_problem(([program], sample, False, timeout))
    return results[0], metadata[0]


def messages(row) -> list[dict[str, str]]:
    """The messages GenericOAIServerRunner posts for this row."""
    problem_class, lmstyle, format_prompt_generation, _ = _livecodebench()
    return format_prompt_generation(problem_class(**row), lmstyle)


def format_lcb_prompt(row, tokenizer=None, chat_template=False, style=STYLE, enable_thinking=None):
    check_style(style, STYLES)
    return render_messages(messages(row), tokenizer, chat_template, enable_thinking)


def extract_code(model_output, style=STYLE):
    check_style(style, STYLES)
    _, lmstyle, _, lcb_extract_code = _livecodebench()
    return lcb_extract_code(model_output, lmstyle)
