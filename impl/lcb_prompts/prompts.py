"""LiveCodeBench code-generation prompts, byte-identical to lcb_runner's for every LMStyle that
builds one (lcb_runner at LiveCodeBench 28fef95).

lcb_runner's format_prompt_generation returns one of three shapes, and so does this module:
a prompt string (``format_lcb_prompt``), or the chat messages an API is sent
(``format_lcb_messages``: a message list, or Claude3's ``(system, messages)``).

The string constants below are upstream's facts (lcb_runner/prompts/code_generation.py, and
anthropic's HUMAN_PROMPT / AI_PROMPT, which lcb_runner imports); the code assembling them is
this project's own. The conformance suite holds every prompt to goldens produced by running
lcb_runner itself.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources

# format_lcb_prompt: the LMStyles that send one string.
#   generic         LLaMa3 (chat_template=True, Meta-Llama-3-8B-Instruct's template); without a
#                   template: OpenAIReasonPreview's / Grok's one user message
#   codeqwen        CodeQwenInstruct        deepseek        DeepSeekCodeInstruct
#   genericbase     GenericBase             qwq             QwQ
#   deepseekr1      DeepSeekR1              claude          Claude (anthropic completion)
#   gemini          Gemini                  geminithinking  GeminiThinking
PROMPT_STYLES = (
    "generic",
    "codeqwen",
    "deepseek",
    "genericbase",
    "qwq",
    "deepseekr1",
    "claude",
    "gemini",
    "geminithinking",
)
# format_lcb_messages: the LMStyles that send chat messages.
#   generic           [system, user]: OpenAIChat, DeepSeekAPI, TogetherAI, CohereCommand,
#                     MistralWeb
#   oaireasonpreview  [user]: OpenAIReasonPreview, Grok
#   oaireason         [user], the stdin format asking for main(): OpenAIReason
#   claude3           (system, [user]): Claude3, Claude3Thinking
MESSAGE_STYLES = ("generic", "oaireasonpreview", "oaireason", "claude3")
# Every style name; extract_code and extract_code_prefix take any of them.
STYLES = PROMPT_STYLES + tuple(s for s in MESSAGE_STYLES if s not in PROMPT_STYLES)

TASK_SENTENCE = (
    "You will be given a question (problem specification) and will generate a correct Python "
    "program that matches the specification and passes all tests."
)
SYSTEM_MESSAGE = "You are an expert Python programmer. " + TASK_SENTENCE
SYSTEM_MESSAGE_GEMINI = (
    SYSTEM_MESSAGE + " Do NOT use system calls like `exit` in the generated program. "
    "Ensure that the first code block contains the solution."
)
SYSTEM_MESSAGE_CODEQWEN = (
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user"
)
SYSTEM_MESSAGE_QWQ = (
    "<|im_start|>system\nYou are a helpful and harmless assistant. You are Qwen developed by "
    "Alibaba. You should think step-by-step.<|im_end|>\n<|im_start|>user"
)
SYSTEM_MESSAGE_DEEPSEEK = (
    "You are an AI programming assistant, utilizing the DeepSeek Coder model, developed by "
    "DeepSeek Company, and you answer questions related to computer science."
)
SYSTEM_MESSAGE_DEEPSEEK_R1 = (
    "<｜begin▁of▁sentence｜>A conversation between User and Assistant. The user asks a "
    "question, and the Assistant solves it. The assistant first thinks about the reasoning "
    "process in the mind and then provides the user with the answer. The reasoning process "
    "and answer are enclosed within <think> </think> and <answer> </answer> tags, "
    "respectively, i.e., <think> reasoning process here </think> <answer> answer here "
    "</answer>.<｜User｜>"
)
# anthropic's (pre-1.0) completion-API turn markers, which lcb_runner's Claude style imports.
HUMAN_PROMPT = "\n\nHuman:"
AI_PROMPT = "\n\nAssistant:"
# codeqwen and deepseek still carry the sentence upstream dropped from the generic system
# message in Dec 2024.
PROGRAM_ONLY_INSTRUCTION = TASK_SENTENCE + " You will NOT return anything except for the program."
FORMATTING_WITH_STARTER_CODE = (
    "You will use the following starter code to write the solution to the problem and enclose "
    "your code within delimiters."
)
# Self-repair's stdin format; code generation's adds a sentence (since Dec 2024).
FORMATTING_READ_STDIN = (
    "Read the inputs from stdin solve the problem and write the answer to stdout (do not directly "
    "test on the sample inputs). Enclose your code within delimiters as follows."
)
FORMATTING_WITHOUT_STARTER_CODE = (
    f"{FORMATTING_READ_STDIN} Ensure that when the python program runs, it reads the inputs, "
    "runs the algorithm and writes output to STDOUT."
)
# OpenAIReason's stdin format (upstream's spelling, "orchastrates", kept).
FORMATTING_MAIN_FUNCTION = (
    "Implement a function called `main()` which orchastrates the solution by reading inputs "
    "from stdin and writing the answer to stdout. Feel free to use additional functions as "
    "necessary. Next do NOT forget to call `main` function at the end of the program otherwise "
    "you will not be awarded any points."
)
ANSWER_CUE = "### Answer: (use the provided format with backticks)"
IM_END_OF_TURN = "<|im_end|>\n<|im_start|>assistant\n"
DEEPSEEK_R1_ASSISTANT = "<｜Assistant｜>"
STDIN_PLACEHOLDER = "# YOUR CODE HERE"


def format_lcb_prompt(
    row: Mapping[str, object],
    tokenizer=None,
    chat_template: bool = False,
    style: str = "generic",
    enable_thinking: bool | None = None,
) -> str:
    """The prompt string lcb_runner sends for a string LMStyle (PROMPT_STYLES): "generic"
    (LLaMa3, via chat template when chat_template=True; without one, the generic system
    message + "\\n\\n" + the question, OpenAIReasonPreview's user message), "codeqwen"
    (CodeQwenInstruct), "deepseek" (DeepSeekCodeInstruct), "genericbase" (GenericBase,
    one-shot), "qwq" (QwQ), "deepseekr1" (DeepSeekR1), "claude" (Claude), "gemini" (Gemini)
    or "geminithinking" (GeminiThinking). Only "generic" goes through a chat template.

    enable_thinking forwards to apply_chat_template (Qwen3-style reasoning toggle); left
    out of the call when None so non-reasoning templates are unaffected.

    Raises TypeError/ValueError, naming the argument, for an unknown style or a message
    style (use format_lcb_messages), a row that is not a mapping, a missing or non-str
    question_content, a starter_code that is neither str nor None, and chat_template=True
    without a tokenizer that has a chat template.
    """
    _check_style(style, PROMPT_STYLES, "format_lcb_messages")
    question, starter = _question_and_starter(row)
    if style == "generic":
        if not chat_template:
            return f"{SYSTEM_MESSAGE}\n\n{_generic_body(question, starter)}"
        return _render_chat(tokenizer, _generic_messages(question, starter), enable_thinking)
    return _RAW_PROMPTS[style](question, starter)


def format_lcb_messages(
    row: Mapping[str, object], style: str = "generic"
) -> list[dict[str, str]] | tuple[str, list[dict[str, str]]]:
    """The chat messages lcb_runner sends for a message LMStyle (MESSAGE_STYLES), in its
    shape: "generic" [system, user] (OpenAIChat, DeepSeekAPI, TogetherAI, CohereCommand,
    MistralWeb); "oaireasonpreview" [user] (OpenAIReasonPreview, Grok); "oaireason" [user]
    whose stdin format asks for main() (OpenAIReason); "claude3" (system, [user]) (Claude3,
    Claude3Thinking), the system text passed to the API apart from the messages.

    Raises like format_lcb_prompt; a string style names format_lcb_prompt."""
    _check_style(style, MESSAGE_STYLES, "format_lcb_prompt")
    question, starter = _question_and_starter(row)
    if style == "generic":
        return _generic_messages(question, starter)
    if style == "claude3":
        return SYSTEM_MESSAGE, [_user(_generic_body(question, starter).rstrip())]
    formatting = FORMATTING_MAIN_FUNCTION if style == "oaireason" else None
    return [_user(f"{SYSTEM_MESSAGE}\n\n{_generic_body(question, starter, formatting)}")]


def _check_style(style: object, accepted: tuple[str, ...] = STYLES, other: str = "") -> None:
    if style in accepted:
        return
    if other and style in STYLES:
        raise ValueError(
            f"style {style!r} is not sent this way by lcb_runner; use {other}(row, "
            f"style={style!r}) (styles here: {accepted})"
        )
    raise ValueError(f"style must be one of {accepted}; got {style!r}")


def _render_chat(tokenizer, messages: list[dict[str, str]], enable_thinking: bool | None) -> str:
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
    extra = {} if enable_thinking is None else {"enable_thinking": enable_thinking}
    return tokenizer.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=True, **extra
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


def _user(content: str) -> dict[str, str]:
    return {"role": "user", "content": content}


def _code_block(starter: str) -> str:
    """The fenced block every chat style shows: the starter code, or a stdin placeholder."""
    return f"```python\n{starter or STDIN_PLACEHOLDER}\n```\n\n"


def _formatting(starter: str, without_starter: str | None = None) -> str:
    if starter:
        return FORMATTING_WITH_STARTER_CODE
    return without_starter or FORMATTING_WITHOUT_STARTER_CODE


def _generic_body(question: str, starter: str, without_starter: str | None = None) -> str:
    return (
        f"### Question:\n{question}\n\n"
        f"### Format: {_formatting(starter, without_starter)}\n{_code_block(starter)}"
        f"{ANSWER_CUE}\n\n"
    )


def _generic_messages(question: str, starter: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": SYSTEM_MESSAGE},
        _user(_generic_body(question, starter)),
    ]


def _plain_question(instruction: str, question: str, starter: str) -> str:
    """The body codeqwen, qwq and deepseekr1 share: instruction, question, format, code."""
    return (
        f"{instruction}\n\nQuestion: {question}\n\n"
        f"{_formatting(starter)}\n{_code_block(starter)}"
    )


def _codeqwen(question: str, starter: str) -> str:
    body = _plain_question(PROGRAM_ONLY_INSTRUCTION, question, starter)
    return f"{SYSTEM_MESSAGE_CODEQWEN}\n\n{body}{IM_END_OF_TURN}"


def _qwq(question: str, starter: str) -> str:
    body = _plain_question(TASK_SENTENCE, question, starter)
    return f"{SYSTEM_MESSAGE_QWQ}\n\n{body}{IM_END_OF_TURN}"


def _deepseekr1(question: str, starter: str) -> str:
    body = _plain_question(TASK_SENTENCE, question, starter)
    return f"{SYSTEM_MESSAGE_DEEPSEEK_R1}{body}{DEEPSEEK_R1_ASSISTANT}"


def _deepseek(question: str, starter: str) -> str:
    return (
        f"{SYSTEM_MESSAGE_DEEPSEEK}\n\n"
        f"### Instruction: {PROGRAM_ONLY_INSTRUCTION}\n\nQuestion:\n{question}\n\n"
        f"### Instruction: {_formatting(starter)}\n{_code_block(starter)}### Response:\n\n"
    )


def _claude(question: str, starter: str) -> str:
    body = _generic_body(question, starter).rstrip()
    return f"{HUMAN_PROMPT}\n{SYSTEM_MESSAGE}\n\n{body}\n{AI_PROMPT}"


def _gemini(question: str, starter: str) -> str:
    return f"{SYSTEM_MESSAGE_GEMINI}\n{_generic_body(question, starter)}"


def _geminithinking(question: str, starter: str) -> str:
    # upstream's SYSTEM_MESSAGE_GEMINITHINK and its GeminiThinking question template have
    # the generic style's text; only the single "\n" after the system message differs.
    return f"{SYSTEM_MESSAGE}\n{_generic_body(question, starter)}"


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


_RAW_PROMPTS = {
    "codeqwen": _codeqwen,
    "deepseek": _deepseek,
    "genericbase": _genericbase_body,
    "qwq": _qwq,
    "deepseekr1": _deepseekr1,
    "claude": _claude,
    "gemini": _gemini,
    "geminithinking": _geminithinking,
}
