"""OpenCompass's LiveCodeBench code generation (opencompass/datasets/livecodebench/ and
configs/datasets/livecodebench/livecodebench_gen.py).

OpenCompass's packages import torch, mmengine and every dataset, so nothing is imported:
each piece is the peer's installed code, loaded by lcb_conformance.adapters.harness_source:

- the default config: livecodebench_gen.py reads its datasets from the file it imports
  (livecodebench_gen_a4f90b.py); its ``prompt_template`` string is one HUMAN round, and no
  system message is sent (the config defines SYSTEM_MESSAGE_GENERIC but never uses it);
- ``LCBCodeGenerationDataset.load.transform`` (the row -> ``format_prompt`` mapping) with
  the package's own prompts.py constants;
- ``utils.prompt.safe_format``, which PromptList.format uses to fill the template;
- extraction: LCBCodeGenerationEvaluator's default ``extractor_version`` picks
  extract_utils.extract_code_generation ("v1") or extract_code_generation_v2 ("v2").

Judge: ``judge_program`` grades as LCBCodeGenerationEvaluator.score does for one program:
the row's ``evaluation_sample`` from the same ``transform`` (public and private tests, either
private encoding), then evaluator.py's ``evaluate_generations_by_problem`` (its
``codegen_check_correctness``, a forked process around testing_util's ``run_test``, with the
evaluator's default 4 GiB memory limit) -- what each worker of its ProcessPoolExecutor runs.
testing_util.py and its one OpenCompass import (utils/code_execution.py) are imported as
installed, their packages' __init__ skipped (harness_source.package_without_init); the two
functions are compiled from evaluator.py, whose own imports need mmengine, with its logger
replaced by the standard library's (it logs only when debug is on, which the evaluator leaves
off). The suite calls it in a child process.

The HUMAN round reaches an OpenAI-compatible server as a user message (OpenAI API model,
``_preprocess_messages``: HUMAN -> user). OpenCompass's prompts.py is lcb_runner's, so it is
held to lcb_runner's generic style.
"""

from __future__ import annotations

import base64
import json
import logging
import multiprocessing
import pickle
import zlib
from functools import cache

from lcb_conformance.adapters import harness_source
from lcb_conformance.adapters.rendering import render_messages
from peers._render import STYLE, check_style

PEER = "OpenCompass"
DISTRIBUTION = "opencompass"
STYLES = (STYLE,)
FOLLOWS = (
    "generic: livecodebench_gen's one HUMAN round (as a user message) in place of "
    "OpenAIChat's messages; the evaluator's default extractor in place of "
    "extract_code(..., LLaMa3)"
)
CONFIG = "configs/datasets/livecodebench/livecodebench_gen.py"


def _file(relative: str):
    return harness_source.installed_file(DISTRIBUTION, f"opencompass/{relative}")


@cache
def _pieces():
    package = "datasets/livecodebench"
    prompts = harness_source.load_module_file(
        "peer_opencompass_lcb_prompts", _file(f"{package}/prompts.py")
    )
    transform = harness_source.load_function(
        _file(f"{package}/livecodebench.py"),
        "LCBCodeGenerationDataset.load.transform",
        {
            "CodeGenerationPromptConstants": prompts.CodeGenerationPromptConstants,
            "json": json,
            "pickle": pickle,
            "zlib": zlib,
            "base64": base64,
        },
    )
    config = _file(CONFIG)
    config = config.with_name(harness_source.relative_import(config))
    template = harness_source.constant_value(config, "prompt_template")
    safe_format = harness_source.load_function(_file("utils/prompt.py"), "safe_format")
    extract_utils = harness_source.load_module_file(
        "peer_opencompass_lcb_extract_utils", _file(f"{package}/extract_utils.py")
    )
    version = harness_source.argument_default(
        _file(f"{package}/evaluator.py"),
        "LCBCodeGenerationEvaluator.__init__",
        "extractor_version",
    )
    extractor = {
        "v1": extract_utils.extract_code_generation,
        "v2": extract_utils.extract_code_generation_v2,
    }[version]
    return transform, template, safe_format, extractor


JUDGE_PACKAGE = "opencompass.datasets.livecodebench"


@cache
def _judge():
    """evaluator.py's evaluate_generations_by_problem and its default memory limit."""
    import numpy

    for package in ("opencompass.utils", "opencompass.datasets", JUDGE_PACKAGE):
        harness_source.package_without_init(DISTRIBUTION, package)
    evaluator = _file("datasets/livecodebench/evaluator.py")
    memory_limit = harness_source.constant_value(evaluator, "DEFAULT_MEMORY_LIMIT_BYTES")
    namespace = {
        # codegen_check_correctness's `from .testing_util import run_test` resolves here
        "__package__": JUDGE_PACKAGE,
        "json": json,
        "multiprocessing": multiprocessing,
        "np": numpy,
        "get_logger": lambda: logging.getLogger("OpenCompass"),
        "DEFAULT_MEMORY_LIMIT_BYTES": memory_limit,
    }
    namespace["codegen_check_correctness"] = harness_source.load_function(
        evaluator, "codegen_check_correctness", namespace
    )
    by_problem = harness_source.load_function(
        evaluator, "evaluate_generations_by_problem", namespace
    )
    return by_problem, memory_limit


def judge_program(row, program, timeout):
    """(per-test results, metadata) from OpenCompass's judge for one program."""
    transform = _pieces()[0]
    by_problem, memory_limit = _judge()
    sample = {"input_output": transform(dict(row))["evaluation_sample"]}
    results, metadata = by_problem([program], sample, False, timeout, memory_limit)
    return results[0], metadata[0]


def messages(row) -> list[dict[str, str]]:
    transform, template, safe_format, _ = _pieces()
    item = transform(dict(row))  # it adds fields to the record: a copy
    prompt = safe_format(
        template, question_content=item["question_content"], format_prompt=item["format_prompt"]
    )
    return [{"role": "user", "content": prompt}]


def format_lcb_prompt(row, tokenizer=None, chat_template=False, style=STYLE, enable_thinking=None):
    check_style(style, STYLES)
    return render_messages(messages(row), tokenizer, chat_template, enable_thinking)


def extract_code(model_output, style=STYLE):
    check_style(style, STYLES)
    return _pieces()[3](model_output)


def pass_at_k(results, k_list=(1, 5)):
    """OpenCompass's pass@k from per-test grades: its livecodebench/pass_k_utils.py
    ``compute_metrics_from_results`` (what LCBCodeGenerationEvaluator.score reports pass@1
    from), loaded from the installed file. It reports percent under "details"; the adapter
    gives lcb_runner's fractions under "detail", nothing else changed."""
    module = harness_source.load_module_file(
        "peer_opencompass_lcb_pass_k", _file("datasets/livecodebench/pass_k_utils.py")
    )
    metrics = module.compute_metrics_from_results(results, k_list=list(k_list))
    detail = metrics.pop("details")
    as_fraction = {name: value / 100 for name, value in metrics.items()}
    as_fraction["detail"] = {
        name: {task: value / 100 for task, value in per_task.items()}
        for name, per_task in detail.items()
    }
    return as_fraction
