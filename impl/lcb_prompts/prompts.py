"""LiveCodeBench code-generation prompts, byte-identical to lcb_runner's for four LMStyles.

The string constants below are upstream's facts (lcb_runner/prompts/code_generation.py);
the code assembling them is this project's own. The conformance suite holds every prompt
to goldens produced by running lcb_runner itself.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources

STYLES = ("generic", "codeqwen", "deepseek", "genericbase")

TASK_SENTENCE = (
    "You will be given a question (problem specification) and will generate a correct Python "
    "program that matches the specification and passes all tests."
)
SYSTEM_MESSAGE = "You are an expert Python programmer. " + TASK_SENTENCE
SYSTEM_MESSAGE_CODEQWEN = (
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user"
)
SYSTEM_MESSAGE_DEEPSEEK = (
    "You are an AI programming assistant, utilizing the DeepSeek Coder model, developed by "
    "DeepSeek Company, and you answer questions related to computer science."
)
# codeqwen and deepseek still carry the sentence upstream dropped from the generic system
# message in Dec 2024.
PROGRAM_ONLY_INSTRUCTION = TASK_SENTENCE + " You will NOT return anything except for the program."
FORMATTING_WITH_STARTER_CODE = (
    "You will use the following starter code to write the solution to the problem and enclose "
    "your code within delimiters."
)
FORMATTING_WITHOUT_STARTER_CODE = (
    "Read the inputs from stdin solve the problem and write the answer to stdout (do not directly "
    "test on the sample inputs). Enclose your code within delimiters as follows. Ensure that when "
    "the python program runs, it reads the inputs, runs the algorithm and writes output to STDOUT."
)
ANSWER_CUE = "### Answer: (use the provided format with backticks)"
CODEQWEN_END_OF_TURN = "<|im_end|>\n<|im_start|>assistant\n"
STDIN_PLACEHOLDER = "# YOUR CODE HERE"


def format_lcb_prompt(
    row: Mapping[str, object],
    tokenizer=None,
    chat_template: bool = False,
    style: str = "generic",
    enable_thinking: bool | None = None,
) -> str:
    """Prompt for an lcb_runner LMStyle: "generic" (LLaMa3, via chat template when
    chat_template=True; OpenAIChat's system + "\\n\\n" + user otherwise), "codeqwen"
    (CodeQwenInstruct, raw <|im_*|> string), "deepseek" (DeepSeekCodeInstruct, raw
    ### Instruction/Response string) or "genericbase" (GenericBase, one-shot).

    enable_thinking forwards to apply_chat_template (Qwen3-style reasoning toggle); left
    out of the call when None so non-reasoning templates are unaffected.

    Raises TypeError/ValueError, naming the argument, for an unknown style, a row that is
    not a mapping, a missing or non-str question_content, a starter_code that is neither
    str nor None, and chat_template=True without a tokenizer that has a chat template.
    """
    _check_style(style)
    question, starter = _question_and_starter(row)
    if style == "codeqwen":
        return f"{SYSTEM_MESSAGE_CODEQWEN}\n\n{_codeqwen_body(question, starter)}"
    if style == "deepseek":
        return f"{SYSTEM_MESSAGE_DEEPSEEK}\n\n{_deepseek_body(question, starter)}"
    if style == "genericbase":
        return _genericbase_body(question, starter)
    body = _generic_body(question, starter)
    if not chat_template:
        return f"{SYSTEM_MESSAGE}\n\n{body}"
    _check_chat_tokenizer(tokenizer)
    messages = [
        {"role": "system", "content": SYSTEM_MESSAGE},
        {"role": "user", "content": body},
    ]
    extra = {} if enable_thinking is None else {"enable_thinking": enable_thinking}
    return tokenizer.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=True, **extra
    )


def _check_style(style: object) -> None:
    if style not in STYLES:
        raise ValueError(f"style must be one of {STYLES}; got {style!r}")


def _check_chat_tokenizer(tokenizer) -> None:
    if tokenizer is None:
        raise ValueError(
            "chat_template=True needs a tokenizer (lcb_runner renders the generic style with "
            "the Meta-Llama-3-8B-Instruct chat template); got tokenizer=None"
        )
    if getattr(tokenizer, "chat_template", None) is None:
        raise ValueError(
            f"tokenizer {getattr(tokenizer, 'name_or_path', type(tokenizer).__name__)!r} "
            "has no chat_template; pass chat_template=False or a chat tokenizer"
        )


def _question_and_starter(row: object) -> tuple[str, str]:
    if not isinstance(row, Mapping):
        raise TypeError(f"row must be a mapping (an LCB dataset row); got {type(row).__name__}")
    if "question_content" not in row:
        raise ValueError("row has no 'question_content' (lcb_runner's problem class requires it)")
    question = row["question_content"]
    if not isinstance(question, str):
        raise TypeError(f"row['question_content'] must be str; got {type(question).__name__}")
    starter = row.get("starter_code")
    if starter is None:
        return question, ""
    if not isinstance(starter, str):
        raise TypeError(f"row['starter_code'] must be str or None; got {type(starter).__name__}")
    return question, starter


def _code_block(starter: str) -> str:
    """The fenced block every chat style shows: the starter code, or a stdin placeholder."""
    return f"```python\n{starter or STDIN_PLACEHOLDER}\n```\n\n"


def _formatting(starter: str) -> str:
    return FORMATTING_WITH_STARTER_CODE if starter else FORMATTING_WITHOUT_STARTER_CODE


def _generic_body(question: str, starter: str) -> str:
    return (
        f"### Question:\n{question}\n\n"
        f"### Format: {_formatting(starter)}\n{_code_block(starter)}"
        f"{ANSWER_CUE}\n\n"
    )


def _codeqwen_body(question: str, starter: str) -> str:
    return (
        f"{PROGRAM_ONLY_INSTRUCTION}\n\nQuestion: {question}\n\n"
        f"{_formatting(starter)}\n{_code_block(starter)}{CODEQWEN_END_OF_TURN}"
    )


def _deepseek_body(question: str, starter: str) -> str:
    return (
        f"### Instruction: {PROGRAM_ONLY_INSTRUCTION}\n\nQuestion:\n{question}\n\n"
        f"### Instruction: {_formatting(starter)}\n{_code_block(starter)}### Response:\n\n"
    )


@cache
def one_shot_examples(kind: str) -> tuple[Mapping[str, str], ...]:
    """lcb_runner's few-shot examples ("func" for starter-code problems, "stdin" otherwise),
    shipped as package data identical to upstream's JSON files."""
    text = resources.files(__package__).joinpath("one_shot", f"{kind}.json").read_text("utf-8")
    return tuple(json.loads(text))


def _genericbase_body(question: str, starter: str) -> str:
    example = one_shot_examples("func" if starter else "stdin")[0]

    def shot(question_text: str, sample_code: str, answer: str) -> str:
        text = f"### Question\n{question_text}\n\n"
        if starter:  # the *asked* problem decides whether both shots show starter code
            text += f"### Starter Code\n{sample_code}\n\n"
        text += f"### Answer\n\n{answer}"
        return text + "\n\n" if answer else text

    return shot(example["question"], example.get("sample_code", ""), example["answer"]) + shot(
        question, starter, ""
    )
