"""OpenCompass's other three LiveCodeBench scenarios (opencompass/datasets/livecodebench/ and
configs/datasets/livecodebench/livecodebench_gen.py), held to lcb_runner's OpenAIChat
(an API model: OpenCompass's SYSTEM and HUMAN roles reach it as system and user messages).

Each piece is the peer's installed code, loaded by lcb_conformance.adapters.harness_source
without importing the package (its __init__ pulls in torch and mmengine):

- code execution: ``LCBCodeExecutionDataset.load.transform`` (its ``prompt``, from
  prompts.py's make_code_execution_prompt) under the config's SYSTEM message; extraction by
  extract_utils.extract_code_execution as LCBCodeExecutionEvaluator.score calls it (without
  ``cot``, whatever the dataset's); scoring by evaluator.py's ``code_execution_metrics``
  (its own evaluate_score, type-aware equality and execute_utils' child process).
- test output prediction: ``LCBTestOutputPredictionDataset.load.transform``'s ``prompt`` as
  the one HUMAN round (the config's system message is commented out); extraction by
  extract_test_output_code; scoring by evaluator.py's ``test_output_metrics`` with
  LCBTestOutputEvaluator's k_list [1] and the package's pass_k_utils.
- self-repair: no OpenCompass config runs it (``LCBSelfRepairDataset.load.transform`` returns
  None, so no prompt reaches the dataset); its prompt builder,
  prompts.get_generic_question_template_answer_self_repair, as the one HUMAN round, is what
  it would send. Its answers are extracted like code generation's (lcb_runner: extract_code
  with the model's LMStyle): ``extract_code`` is peers.opencompass_lcb's, held to the generic
  style's extraction cases (OpenAIChat's); the judge is code generation's too (that peer's).

Only OpenAIChat is provided: the cases of other LMStyles are reported as not provided.
"""

from __future__ import annotations

import ast
import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from functools import cache

from lcb_conformance.adapters import harness_source
from lcb_conformance.adapters.implementation import NOT_PROVIDED, NotProvided
from peers import opencompass_lcb
from peers._render import STYLE

PEER = "OpenCompass (scenarios)"
DISTRIBUTION = "opencompass"
LMSTYLE = "OpenAIChat"
STYLES = (STYLE,)  # self-repair's extraction: code generation's generic extract_code
FOLLOWS = (
    "OpenAIChat: livecodebench_gen's code execution (SYSTEM + HUMAN) and test output (HUMAN "
    "only) prompts, its self-repair prompt builder (unused by its configs) as one user "
    "message, its evaluators' extractors and metrics; self-repair answers extracted by its "
    "code generation extractor"
)
CONFIG = "configs/datasets/livecodebench/livecodebench_gen.py"
PACKAGE = "opencompass.datasets.livecodebench"
EXECUTION_CONFIG = "lcb_code_execution_infer_cfg"


def _file(relative: str):
    return harness_source.installed_file(DISTRIBUTION, f"opencompass/{relative}")


def _check(lmstyle: object, function: str) -> None:
    if lmstyle != LMSTYLE:
        raise NotProvided(f"{PEER} {NOT_PROVIDED} {function} for LMStyle {lmstyle!r}")


@cache
def _prompts():
    return harness_source.load_module_file(
        "peer_opencompass_lcb_prompts", _file("datasets/livecodebench/prompts.py")
    )


@cache
def _transform(dataset: str, cot: bool = False):
    prompts = _prompts()
    return harness_source.load_function(
        _file("datasets/livecodebench/livecodebench.py"),
        f"{dataset}.load.transform",
        {
            "json": json,
            "cot": cot,
            "make_code_execution_prompt": prompts.make_code_execution_prompt,
            "get_generic_question_template_test_completion": (
                prompts.get_generic_question_template_test_completion
            ),
        },
    )


@cache
def _execution_system_message() -> str:
    """The SYSTEM prompt of the config's code execution template (a dict(role='SYSTEM', ...)
    inside lcb_code_execution_infer_cfg, which is not made of literals only)."""
    config = _file(CONFIG)
    config = config.with_name(harness_source.relative_import(config))
    for node in ast.walk(ast.parse(config.read_text("utf-8"))):
        if isinstance(node, ast.Assign) and any(
            getattr(target, "id", None) == EXECUTION_CONFIG for target in node.targets
        ):
            for call in ast.walk(node.value):
                keywords = {k.arg: k.value for k in getattr(call, "keywords", [])}
                role = keywords.get("role")
                if isinstance(role, ast.Constant) and role.value == "SYSTEM":
                    return ast.literal_eval(keywords["prompt"])
    raise harness_source.HarnessSourceError(f"{config}: no SYSTEM round in {EXECUTION_CONFIG}")


@cache
def _package():
    """OpenCompass's livecodebench modules, imported as installed with their packages'
    __init__ skipped."""
    import importlib

    for package in ("opencompass", "opencompass.utils", "opencompass.datasets", PACKAGE):
        harness_source.package_without_init(DISTRIBUTION, package)
    return {
        name: importlib.import_module(f"{PACKAGE}.{name}")
        for name in ("execute_utils", "extract_utils", "pass_k_utils")
    } | {"code_execution": importlib.import_module("opencompass.utils.code_execution")}


def _user(content: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": content}]


def format_self_repair_prompt(attempt, lmstyle, tokenizer=None):
    _check(lmstyle, "format_self_repair_prompt")
    prompt = _prompts().get_generic_question_template_answer_self_repair(
        question=attempt["question_content"], code=attempt["code"], metadata=attempt["metadata"]
    )
    return _user(prompt)


def format_test_output_prompt(row, lmstyle, tokenizer=None):
    _check(lmstyle, "format_test_output_prompt")
    return _user(_transform("LCBTestOutputPredictionDataset")(dict(row))["prompt"])


def format_code_execution_prompt(row, lmstyle, cot=False, tokenizer=None):
    _check(lmstyle, "format_code_execution_prompt")
    prompt = _transform("LCBCodeExecutionDataset", cot)(dict(row))["prompt"]
    return [{"role": "system", "content": _execution_system_message()}, *_user(prompt)]


extract_code = opencompass_lcb.extract_code


def extract_test_output(model_output, lmstyle=None):
    _check(lmstyle, "extract_test_output")
    return _package()["extract_utils"].extract_test_output_code(model_output)


def extract_execution_answer(model_output, lmstyle=None, cot=False):
    _check(lmstyle, "extract_execution_answer")
    return _package()["extract_utils"].extract_code_execution(model_output)


@cache
def _evaluator():
    """evaluator.py's scoring functions, compiled from the installed file (its own imports
    need mmengine) with the names they use."""
    import numpy
    from tqdm import tqdm

    modules = _package()
    evaluator = _file("datasets/livecodebench/evaluator.py")
    namespace = {
        "ast": ast,
        "json": json,
        "np": numpy,
        "tqdm": tqdm,
        "ProcessPoolExecutor": ProcessPoolExecutor,
        "BASE_IMPORTS": modules["execute_utils"].BASE_IMPORTS,
        "codeexecute_check_correctness": modules["execute_utils"].codeexecute_check_correctness,
        "TYPE_AWARE_EQUAL_NAME": modules["code_execution"].TYPE_AWARE_EQUAL_NAME,
        "compute_metrics_from_results": modules["pass_k_utils"].compute_metrics_from_results,
        "multiprocessing": multiprocessing,
    }
    for name in ("evaluate_score", "parse_assert_statement", "check_testcase_output"):
        namespace[name] = harness_source.load_function(evaluator, name, namespace)
    # its ProcessPoolExecutor pickles evaluate_score by reference: make it this module's
    score = namespace["evaluate_score"]
    score.__module__, score.__qualname__ = __name__, "_opencompass_evaluate_score"
    globals()["_opencompass_evaluate_score"] = score
    return {
        name: harness_source.load_function(evaluator, name, namespace)
        for name in ("code_execution_metrics", "test_output_metrics")
    }


def score_code_execution(row, generations):
    """LCBCodeExecutionEvaluator.score's metrics and results for one row."""
    sample = json.loads(_transform("LCBCodeExecutionDataset")(dict(row))["evaluation_sample"])
    return _evaluator()["code_execution_metrics"]([sample], [list(generations)])


def score_test_output(row, generations):
    """LCBTestOutputEvaluator.score's metrics (k_list [1]) and results for one row."""
    item = _transform("LCBTestOutputPredictionDataset")(dict(row))
    sample = json.loads(item["evaluation_sample"])
    return _evaluator()["test_output_metrics"]([sample], [list(generations)], k_list=[1])
