"""LiveCodeBench's other three leaderboard scenarios -- self-repair, test output prediction and
code execution -- as lcb_runner (LiveCodeBench 28fef95) builds their prompts and extracts
their answers, byte for byte; the scorers are in lcb_prompts.scoring.

lcb_runner chooses these prompts by the model's LMStyle (its names, ``LMSTYLES``), in one
if-chain per scenario. Each chain still compares the LMStyle with members that commit 153931b
removed from the enum (LMStyle.MagiCoder first), so for every LMStyle the chain has not
matched by then lcb_runner raises AttributeError instead of building a prompt. For those
(scenario, LMStyle) pairs, and for self-repair inputs whose verdict metadata lcb_runner cannot
describe, these functions raise :class:`NoLcbRunnerPrompt` saying so.

The string constants are lcb_runner's (prompts/self_repair.py, test_output_prediction.py,
code_execution.py); the code assembling them is this project's own.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping

from .prompts import (
    AI_PROMPT,
    ANSWER_CUE,
    FORMATTING_READ_STDIN,
    HUMAN_PROMPT,
    PROGRAM_ONLY_INSTRUCTION,
    _code_block,
    _render_chat,
    _user,
)

# lcb_runner's LMStyle names at 28fef95, in its enum's order.
LMSTYLES = (
    "OpenAIChat",
    "OpenAIReasonPreview",
    "OpenAIReason",
    "Claude",
    "Claude3",
    "Claude3Thinking",
    "Gemini",
    "GeminiThinking",
    "Grok",
    "MistralWeb",
    "CohereCommand",
    "DataBricks",
    "DeepSeekAPI",
    "GenericBase",
    "DeepSeekCodeInstruct",
    "CodeLLaMaInstruct",
    "StarCoderInstruct",
    "CodeQwenInstruct",
    "QwQ",
    "LLaMa3",
    "DeepSeekR1",
    "TogetherAI",
)
# The scenarios by lcb-conformance's names of them (its declarations, suite/scenarios.py, which
# this package may not import: its test_scenarios.py holds these names and builders equal).
SELF_REPAIR, TEST_OUTPUT, CODE_EXECUTION = "self-repair", "test-output", "code-execution"
# The LMStyles each scenario's if-chain matches before it reaches LMStyle.MagiCoder.
_BEFORE_REMOVED = ("OpenAIChat", "LLaMa3", "Claude", "Claude3")
_RAW_STRING = ("Gemini", "StarCoderInstruct", "DeepSeekCodeInstruct", "CodeLLaMaInstruct")
SCENARIO_LMSTYLES = {
    SELF_REPAIR: (*_BEFORE_REMOVED, "MistralWeb", *_RAW_STRING),
    TEST_OUTPUT: (*_BEFORE_REMOVED, *_RAW_STRING),
    CODE_EXECUTION: (*_BEFORE_REMOVED, *_RAW_STRING),
}
UPSTREAM_BUILDERS = {  # lcb_runner's prompt builder of each
    SELF_REPAIR: "format_prompt_self_repair",
    TEST_OUTPUT: "format_prompt_test_output",
    CODE_EXECUTION: "format_prompt_execution",
}
EXPERT_ASSISTANT = "You are a helpful programming assistant and an expert Python programmer."
SYSTEM_MESSAGE_SELF_REPAIR = (
    f"{EXPERT_ASSISTANT} You are helping a user write a program to solve a problem. The user "
    "has written some code, but it has some errors and is not passing the tests. You will help "
    "the user by first giving a concise (at most 2-3 sentences) textual explanation of what is "
    "wrong with the code. After you have pointed out what is wrong with the code, you will then "
    "generate a fixed version of the program. You must put the entired fixed program within "
    "code delimiters only for once."
)
SYSTEM_MESSAGE_SELF_REPAIR_DEEPSEEK = (
    "You are an AI programming assistant, utilizing the DeepSeek Coder model, developed by "
    "DeepSeek Company, and you are helping a user correct a error program for code "
    "competition. The user has written some code, but it has some errors and is not passing "
    "the tests. You will help the user by first giving a concise (at most 2-3 sentences) "
    "textual explanation of what is wrong with the code. After you have pointed out what is "
    "wrong with the code, you will then generate a fixed version of the entire executable "
    "program. You must put the entire fixed executable program within code delimiters."
)
SELF_REPAIR_FORMATTING_REPEAT = (
    "First reason about the code providing a textual explanation of what is wrong with the "
    "code and then generate a fixed of the program enclosed code delimiters."
)
# What self-repair says about the previous program, by the judge's error_code.
CHECK_MESSAGES = {
    -1: "The above code is incorrect and got the following compilation error.\n{error}",
    -2: "The above code is incorrect and got a wrong answer.\nInput: {inputs}\n"
    "Generated Output: {output}\nExpected: {expected}",
    -3: "The above code is incorrect and got time limit exceeded.\n{error}\nInput: {inputs}\n"
    "Expected: {expected}",
    -4: "The above code is incorrect and got a runtime error.\nInput: {inputs}\n"
    "Expected: {expected}\n{error}",
}
TEST_CASE_HELPER = (
    f"{EXPERT_ASSISTANT} You are helping a user to write a test case to help to check the "
    "correctness of the function. The user has written a input for the testcase. You will "
    "calculate the output of the testcase and"
)
SYSTEM_MESSAGE_TEST_OUTPUT = (
    f"{TEST_CASE_HELPER} write the whole assertion statement in the markdown code block with "
    "the correct output."
)
# (two spaces after "and": upstream's line continuation)
SYSTEM_MESSAGE_TEST_OUTPUT_CODELLAMA = (
    f"{TEST_CASE_HELPER}  write out the complete assertion statement between [PYTHON] and "
    "[/PYTHON] tags."
)
SYSTEM_MESSAGE_EXECUTION = (
    "You are an expert at Python programming, code execution, test case generation, and fuzzing."
)
_EXECUTION_TASK = (
    "You are given a Python function and an assertion containing an input to the function. "
    "Complete the assertion with a literal (no unsimplified expressions, no function calls) "
    "containing the output when executing the provided code on the given input, even if the "
    "function is incorrect or incomplete. Do NOT output any extra information."
)
EXECUTION_COT_EXAMPLES = (
    f"{_EXECUTION_TASK} Execute the program step by step before arriving at an answer, and "
    "provide the full assertion with the correct output in [ANSWER] and [/ANSWER] tags, "
    "following the examples.\n\n"
    "[PYTHON]\n"
    "def performOperation(s):\n"
    "    s = s + s\n"
    '    return "b" + s + "a"\n'
    'assert performOperation(s = "hi") == ??\n'
    "[/PYTHON]\n"
    "[THOUGHT]\n"
    "Let's execute the code step by step:\n\n"
    "1. The function performOperation is defined, which takes a single argument s.\n"
    '2. The function is called with the argument "hi", so within the function, s is '
    'initially "hi".\n'
    '3. Inside the function, s is concatenated with itself, so s becomes "hihi".\n'
    '4. The function then returns a new string that starts with "b", followed by the value '
    'of s (which is now "hihi"), and ends with "a".\n'
    '5. The return value of the function is therefore "bhihia".\n'
    "[/THOUGHT]\n"
    "[ANSWER]\n"
    'assert performOperation(s = "hi") == "bhihia"\n'
    "[/ANSWER]\n\n"
)
EXECUTION_DIRECT_EXAMPLES = (
    f"{_EXECUTION_TASK} Provide the full assertion with the correct output in [ANSWER] and "
    "[/ANSWER] tags, following the examples.\n\n"
    "[PYTHON]\n"
    "def repeatNumber(number : int) -> int:\n"
    "    return number\n"
    "assert repeatNumber(number = 17) == ??\n"
    "[/PYTHON]\n"
    "[ANSWER]\n"
    "assert repeatNumber(number = 17) == 17\n"
    "[/ANSWER]\n\n"
    "[PYTHON]\n"
    "def addCharacterA(string : str) -> str:\n"
    '    return string + "a"\n'
    'assert addCharacterA(string = "x9j") == ??\n'
    "[/PYTHON]\n"
    "[ANSWER]\n"
    'assert addCharacterA(string = "x9j") == "x9ja"\n'
    "[/ANSWER]\n\n"
)
CODELLAMA_TAG = "PYTHON]"  # matches both [PYTHON] and [/PYTHON]
FENCE = "```"


class NoLcbRunnerPrompt(ValueError):
    """lcb_runner builds no prompt for this scenario, LMStyle and input: it raises instead."""


def format_self_repair_prompt(attempt: Mapping[str, object], lmstyle: str, tokenizer=None):
    """The self-repair prompt lcb_runner sends for one graded program of a code-generation run
    (``format_prompt_self_repair``): ``attempt`` holds the problem's ``question_content``, the
    program (``code``), its verdict (``graded``, True when it passed) and the judge's
    ``metadata`` JSON string, as one entry of lcb_runner's ``eval_all.json`` holds them.

    Returns "" for a program that passed (lcb_runner re-uses it, whatever the LMStyle); else a
    string, a message list, or Claude3's (system, messages), by LMStyle. LLaMa3 is rendered
    with ``tokenizer``'s chat template (lcb_runner: Meta-Llama-3-8B-Instruct's).

    Raises NoLcbRunnerPrompt where lcb_runner raises: an LMStyle its chain does not reach
    (SCENARIO_LMSTYLES), metadata whose error_code it has no message for (-5, the judge's
    TestRunnerError) or that lacks a field its message quotes (the judge's "Error during
    testing" -4 has no inputs); ValueError/TypeError for malformed arguments."""
    _check_lmstyle(lmstyle)
    if not isinstance(attempt, Mapping):
        raise TypeError(f"attempt must be a mapping; got {type(attempt).__name__}")
    question, code, graded, metadata = (
        _field(attempt, name, kind)
        for name, kind in (
            ("question_content", str),
            ("code", str),
            ("graded", bool),
            ("metadata", str),
        )
    )
    if graded:
        return ""
    _check_reached(SELF_REPAIR, lmstyle)
    check = _check_message(lmstyle, metadata)
    tail = f"### Format: {FORMATTING_READ_STDIN}\n{_code_block('')}{ANSWER_CUE}\n\n"
    program = f"```python\n{code}\n```\n\n"
    if lmstyle == "DeepSeekCodeInstruct":
        body = (
            f"### Instruction: {PROGRAM_ONLY_INSTRUCTION}\n\nQuestion:\n{question}\n\n"
            f"### Response:\n{program}{check}{tail}"
        )
        return f"{SYSTEM_MESSAGE_SELF_REPAIR_DEEPSEEK}\n\n{body}"
    if lmstyle == "CodeLLaMaInstruct":
        body = f"### Question\n{question}\n\n### Answer\n{program}{check}{tail}"
        return f"[INST] <<SYS>>\n{SYSTEM_MESSAGE_SELF_REPAIR}\n<</SYS>>\n\n{body}\n[/INST]"
    generic = f"### Question:\n{question}\n\n### Answer:\n{program}{check}\n{tail}"
    if lmstyle == "OpenAIChat":
        generic += f"\n\n{SELF_REPAIR_FORMATTING_REPEAT}"
    return _by_style(lmstyle, SYSTEM_MESSAGE_SELF_REPAIR, generic, tokenizer)


def format_test_output_prompt(row: Mapping[str, object], lmstyle: str, tokenizer=None):
    """The test output prediction prompt lcb_runner sends for a livecodebench/test_generation
    row (``format_prompt_test_output``): the problem, its starter function and an assertion
    of the row's first test input to complete. A string, a message list, or Claude3's
    (system, messages), by LMStyle; LLaMa3 through ``tokenizer``'s chat template.

    Raises NoLcbRunnerPrompt for an LMStyle lcb_runner builds no prompt for, ValueError for a
    row it cannot read (a malformed ``test``, a starter with several functions)."""
    _check_lmstyle(lmstyle)
    question = _field(row, "question_content", str)
    starter = _field(row, "starter_code", str)
    test_input = _first_test(row)["input"]
    _check_reached(TEST_OUTPUT, lmstyle)
    arguments = ", ".join(test_input.split("\n"))
    body = (
        f"Problem:\n{question}Function:\n```\n{starter}\n```\n"
        "Please complete the following test case:\n\n"
        f"```\nassert {_function_name(starter)}({arguments}) == # TODO\n```\n"
    )
    if lmstyle == "DeepSeekCodeInstruct":
        return f"### Instruction: {SYSTEM_MESSAGE_TEST_OUTPUT}\n\n{body}### Response:\n\n"
    if lmstyle == "CodeLLaMaInstruct":
        return (
            f"[INST] <<SYS>>\n{SYSTEM_MESSAGE_TEST_OUTPUT_CODELLAMA}\n<</SYS>>\n\n"
            f"### Question\n{body}### Answer\n\n[/INST]"
        )
    return _by_style(lmstyle, SYSTEM_MESSAGE_TEST_OUTPUT, body, tokenizer)


def format_code_execution_prompt(
    row: Mapping[str, object], lmstyle: str, cot: bool = False, tokenizer=None
):
    """The code execution prompt lcb_runner sends for a livecodebench/execution-v2 row
    (``format_prompt_execution``, or ``format_prompt_execution_cot`` with cot=True): few-shot
    examples, then the row's code and ``assert <input> == ??``. The prompt string itself for
    the string LMStyles, [system, user] messages for OpenAIChat, Claude3's (system, messages),
    LLaMa3 through ``tokenizer``'s chat template.

    Raises NoLcbRunnerPrompt for an LMStyle lcb_runner builds no prompt for."""
    _check_lmstyle(lmstyle)
    code = _field(row, "code", str)
    test_input = _field(row, "input", str)
    if not isinstance(cot, bool):
        raise TypeError(f"cot must be a bool; got {type(cot).__name__}")
    _check_reached(CODE_EXECUTION, lmstyle)
    examples = EXECUTION_COT_EXAMPLES if cot else EXECUTION_DIRECT_EXAMPLES
    closing = "[THOUGHT]\n" if cot else "[ANSWER]\n"
    prompt = f"{examples}[PYTHON]\n{code}\nassert {test_input} == ??\n[/PYTHON]\n{closing}"
    if lmstyle == "Claude3":  # the prompt as it is, not right-stripped
        return SYSTEM_MESSAGE_EXECUTION, [_user(prompt)]
    if lmstyle in ("OpenAIChat", "LLaMa3"):
        return _by_style(lmstyle, SYSTEM_MESSAGE_EXECUTION, prompt, tokenizer)
    return prompt


def extract_test_output(model_output: str, lmstyle: str | None = None) -> str:
    """The predicted test case lcb_runner takes from an answer (``extract_test_output_code``):
    the last line starting with "assert"; else the lines inside the first ```python (or
    ```Python) block, or, without one, the first ``` block; for CodeLLaMaInstruct the lines
    between the first two lines containing "PYTHON]". "" when there are fewer than two
    delimiting lines."""
    _check_output(model_output)
    if lmstyle is not None:
        _check_lmstyle(lmstyle)
    lines = model_output.split("\n")
    asserts = [line for line in lines if line.startswith("assert")]
    if asserts:
        return asserts[-1]
    if lmstyle == "CodeLLaMaInstruct":
        marks = [i for i, line in enumerate(lines) if CODELLAMA_TAG in line]
    else:
        marks = [i for i, line in enumerate(lines) if FENCE in line]
        opening = next(
            (i for i, line in enumerate(lines) if "```python" in line or "```Python" in line),
            None,
        )
        if opening is not None:
            marks = [opening, *(i for i in marks if i > opening)]
    if len(marks) < 2:
        return ""
    return "\n".join(lines[marks[0] + 1 : marks[1]])


def extract_execution_answer(
    model_output: str, lmstyle: str | None = None, cot: bool = False
) -> str:
    """The predicted output lcb_runner takes from a code execution answer
    (``extract_execution_code``, which ignores the LMStyle): with cot, the text after the first
    [ANSWER] (up to a second one); then the text between the first two "=="; then up to the
    first [/ANSWER], or without one the first line; stripped."""
    _check_output(model_output)
    if lmstyle is not None:
        _check_lmstyle(lmstyle)
    answer = model_output
    if cot and "[ANSWER]" in answer:
        answer = answer.split("[ANSWER]", 2)[1].strip()
    if "==" in answer:
        answer = answer.split("==", 2)[1].strip()
    if "[/ANSWER]" in answer:
        answer = answer.partition("[/ANSWER]")[0]
    else:
        answer = answer.partition("\n")[0]
    return answer.strip()


# ---- helpers ---------------------------------------------------------------------------------


def _check_lmstyle(lmstyle: object) -> None:
    if lmstyle not in LMSTYLES:
        raise ValueError(
            f"lmstyle must be one of lcb_runner's LMStyles {LMSTYLES}; got {lmstyle!r}"
        )


def _check_reached(scenario: str, lmstyle: str) -> None:
    if lmstyle not in SCENARIO_LMSTYLES[scenario]:
        raise NoLcbRunnerPrompt(
            f"lcb_runner (LiveCodeBench 28fef95) builds no {scenario} prompt for "
            f"LMStyle.{lmstyle}: its {UPSTREAM_BUILDERS[scenario]} compares the LMStyle with "
            "LMStyle.MagiCoder, removed from the enum in 153931b, and raises AttributeError "
            f"(it builds one for {', '.join(SCENARIO_LMSTYLES[scenario])})"
        )


def _check_output(model_output: object) -> None:
    if not isinstance(model_output, str):
        raise TypeError(f"model_output must be str; got {type(model_output).__name__}")


def _field(row: object, name: str, kind: type):
    if not isinstance(row, Mapping):
        raise TypeError(f"expected a mapping (a dataset row); got {type(row).__name__}")
    if name not in row:
        raise ValueError(f"the row has no {name!r}")
    if not isinstance(row[name], kind):
        raise TypeError(f"{name!r} must be {kind.__name__}; got {type(row[name]).__name__}")
    return row[name]


def _first_test(row: Mapping[str, object]) -> dict:
    try:
        tests = json.loads(_field(row, "test", str))
        first = tests[0]
        if not isinstance(first.get("input"), str):
            raise TypeError("input")
    except (ValueError, IndexError, KeyError, TypeError, AttributeError):
        raise ValueError(
            "row['test'] must be a JSON list of tests ({input, output, testtype}) with at least "
            "one, as livecodebench/test_generation holds it"
        ) from None
    return first


def _function_name(starter: str) -> str:
    """The one function the starter code defines (lcb_runner asserts there is at most one;
    none gives "None")."""
    try:
        tree = ast.parse(starter)
    except SyntaxError as error:
        raise ValueError(f"row['starter_code'] does not parse: {error}") from None
    names = [node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
    if len(names) > 1:
        raise ValueError(
            f"row['starter_code'] defines {len(names)} functions ({', '.join(names)}); "
            "lcb_runner's parse_function_name_from_starter_code accepts one"
        )
    return names[0] if names else "None"


def _check_message(lmstyle: str, metadata: str) -> str:
    """What the prompt says about the failed program, from the judge's metadata."""
    try:
        verdict = json.loads(metadata)
    except ValueError:
        raise ValueError(f"metadata must be a JSON object string; got {metadata!r:.200}") from None
    if not isinstance(verdict, dict):
        raise ValueError(f"metadata must be a JSON object string; got {metadata!r:.200}")
    if "error_code" not in verdict:
        return ""
    message = CHECK_MESSAGES.get(verdict["error_code"])
    if message is None:
        raise NoLcbRunnerPrompt(
            f"lcb_runner builds no self-repair prompt for LMStyle.{lmstyle} from metadata with "
            f"error_code {verdict['error_code']!r}: its get_check_prompt knows -1 to -4 only and "
            "raises NotImplementedError (the judge writes -5, TestRunnerError, when its global "
            "timeout ends a run)"
        )
    try:
        return message.format_map(verdict)
    except KeyError as missing:
        raise NoLcbRunnerPrompt(
            f"lcb_runner builds no self-repair prompt for LMStyle.{lmstyle} from metadata with "
            f"error_code {verdict['error_code']} but no {missing}: its get_check_prompt raises "
            "KeyError (the judge's 'Error during testing' metadata, for a program that does not "
            "compile, has no inputs)"
        ) from None


def _by_style(lmstyle: str, system: str, body: str, tokenizer):
    """The shapes the scenarios share: [system, user] messages (OpenAIChat, MistralWeb), the
    same through a chat template (LLaMa3), a completion framed by anthropic's markers
    (Claude), (system, [user]) (Claude3), or system and body joined by a newline."""
    messages = [{"role": "system", "content": system}, _user(body)]
    if lmstyle in ("OpenAIChat", "MistralWeb"):
        return messages
    if lmstyle == "LLaMa3":
        return _render_chat(tokenizer, messages, None)
    if lmstyle == "Claude":
        return f"{HUMAN_PROMPT}\n{system}\n\n{body.rstrip()}\n{AI_PROMPT}"
    if lmstyle == "Claude3":
        return system, [_user(body.rstrip())]
    return f"{system}\n{body}"
