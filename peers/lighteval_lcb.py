"""lighteval's LiveCodeBench task (src/lighteval/tasks/tasks/lcb/).

Prompt: lcb/main.py's ``prepare_prompt(line)`` gives the query of the task's Doc, and
lighteval's own ``PromptManager`` turns the Doc into the model's prompt, exactly as its model
classes do (``PromptManager(use_chat_template, tokenizer, config.system_prompt)``): with a
chat template, one user message rendered by the tokenizer passed in; without, the query as
is. The system prompt is ModelConfig's default (None). lcb/main.py imports lighteval's metric
registry, which needs torch, so ``prepare_prompt`` is compiled from the installed main.py by
lcb_conformance.adapters.harness_source instead of importing the module (its code, unchanged).
The Doc is built with the fields lcb_codegeneration_prompt_fn sets that PromptManager reads
(that function also decodes the private tests, which the suite's fixture rows do not encode).

Extraction: lcb/codegen_metrics.py's ``extract_code`` on ``ModelResponse.final_text``, i.e.
after the pipeline's default ``remove_reasoning_tags`` (PipelineParameters' defaults, read
from the installed pipeline.py).

Judge: ``judge_program`` decodes the row's tests with main.py's own
``lcb_codegeneration_prompt_fn`` (compiled from the installed file, as above: public tests as
JSON, private tests through ``translate_private_test_cases``, which knows only the
base64/zlib/pickle form) and grades with codegen_metrics.py's ``evaluate_generations_by_problem``
on the evaluation sample ``CodegenMetric.compute`` builds from the Doc. lighteval's judge
returns per-test results only, so the metadata is empty. The suite calls it in a child process.

lighteval's comment points at lcb_runner's code_generation.py and it renders through the
model's chat template, so it is held to lcb_runner's generic style.
"""

from __future__ import annotations

import ast
from functools import cache

from lcb_conformance.adapters import harness_source
from peers._render import STYLE, check_style

PEER = "lighteval"
DISTRIBUTION = "lighteval"
STYLES = (STYLE,)
FOLLOWS = (
    "generic: lcb prepare_prompt through lighteval's PromptManager (the tokenizer's chat "
    "template when chat_template=True) in place of OpenAIChat/LLaMa3; lcb extract_code after "
    "remove_reasoning_tags in place of extract_code(..., LLaMa3)"
)
TASK_NAME = "lcb:codegeneration"


def _file(relative: str):
    return harness_source.installed_file(DISTRIBUTION, f"lighteval/{relative}")


@cache
def prepare_prompt():
    """lighteval's lcb/main.py::prepare_prompt, compiled from the installed file."""
    return harness_source.load_function(_file("tasks/tasks/lcb/main.py"), "prepare_prompt")


@cache
def _defaults() -> dict:
    model = _file("models/abstract_model.py")
    pipeline = _file("pipeline.py")
    tags = harness_source.constant_value(pipeline, "PipelineParameters.reasoning_tags")
    return {
        "system_prompt": harness_source.constant_value(model, "ModelConfig.system_prompt"),
        "remove_reasoning_tags": harness_source.constant_value(
            pipeline, "PipelineParameters.remove_reasoning_tags"
        ),
        # PipelineParameters.__post_init__ parses the string the same way
        "reasoning_tags": tags if isinstance(tags, list) else ast.literal_eval(tags),
    }


@cache
def _judge():
    import json

    from lighteval.tasks.requests import Doc
    from lighteval.tasks.tasks.lcb import codegen_metrics

    prompt_fn = harness_source.load_function(
        _file("tasks/tasks/lcb/main.py"),
        "lcb_codegeneration_prompt_fn",
        {
            "json": json,
            "Doc": Doc,
            "prepare_prompt": prepare_prompt(),
            "translate_private_test_cases": codegen_metrics.translate_private_test_cases,
        },
    )
    return prompt_fn, codegen_metrics


def judge_program(row, program, timeout):
    """(per-test results, {}) from lighteval's judge for one program."""
    import json

    prompt_fn, codegen_metrics = _judge()
    specific = prompt_fn(row).specific
    # the sample CodegenMetric.compute passes to codegen_metrics
    sample = {
        "input_output": json.dumps(
            {key: specific[key] for key in ("inputs", "outputs", "fn_name")}
        )
    }
    (results,) = codegen_metrics.evaluate_generations_by_problem([[program], sample, timeout])
    return results, {}


def doc(row):
    from lighteval.tasks.requests import Doc

    return Doc(task_name=TASK_NAME, query=prepare_prompt()(row), choices=[""], gold_index=0)


def format_lcb_prompt(row, tokenizer=None, chat_template=False, style=STYLE, enable_thinking=None):
    """enable_thinking is ignored: lighteval's PromptManager never passes it to the template."""
    from lighteval.tasks.prompt_manager import PromptManager

    check_style(style, STYLES)
    if chat_template and tokenizer is None:
        raise ValueError("chat_template=True needs a tokenizer")
    manager = PromptManager(
        use_chat_template=chat_template,
        tokenizer=tokenizer,
        system_prompt=_defaults()["system_prompt"],
    )
    return manager.prepare_prompt(doc(row))


def extract_code(model_output, style=STYLE):
    from lighteval.tasks.tasks.lcb.codegen_metrics import extract_code as lcb_extract_code
    from lighteval.utils.utils import remove_reasoning_tags

    check_style(style, STYLES)
    defaults = _defaults()
    if defaults["remove_reasoning_tags"]:
        model_output = remove_reasoning_tags(model_output, tag_pairs=defaults["reasoning_tags"])
    return lcb_extract_code(model_output)
