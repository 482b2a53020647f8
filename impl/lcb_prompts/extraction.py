"""Code extraction from a model's answer, as lcb_runner's extract_code does it.

A fence line is any line (split on "\\n" only, as upstream does) that contains "```"
anywhere. The solution is the lines strictly between the last two fence lines.
"""

from __future__ import annotations

from .prompts import _check_style

FENCE = "```"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


def extract_code(model_output: str, style: str = "generic") -> str:
    """Code between the last two ``` fence lines (last block if 3+); "" if fewer than two.
    style="genericbase" = whole stripped output. Matches lcb_runner extract_code, except
    that everything up to the last </think> is dropped first, so a fence inside a reasoning
    model's thinking can't be mistaken for the solution (no </think>: output unchanged)."""
    _check_output(model_output)
    _check_style(style)
    answer = _after_thinking(model_output)
    if style == "genericbase":
        return answer.strip()
    lines = answer.split("\n")
    fences = [i for i, line in enumerate(lines) if FENCE in line]
    if len(fences) < 2:
        return ""
    return "\n".join(lines[fences[-2] + 1 : fences[-1]])


def extract_code_prefix(model_output: str, style: str = "generic") -> str:
    """Code being written, for prefix scoring: text after the last open fence, or "" when no
    block is open. Deferring on a closed block (a later block could supersede it) keeps the
    prefix consistent with extract_code at complete: whenever this returns p != "",
    extract_code(model_output + "\\n```") == p. style="genericbase" = whole stripped output.

    Reasoning: like extract_code, only the text after the last </think> counts; while a
    <think> is still open (one after the last </think>) the model is reasoning, not
    answering, and the result is "" (defer)."""
    _check_output(model_output)
    _check_style(style)
    answer = _after_thinking(model_output)
    if THINK_OPEN in answer:
        return ""
    if style == "genericbase":
        return answer.strip()
    lines = answer.split("\n")
    fences = [i for i, line in enumerate(lines) if FENCE in line]
    if len(fences) % 2 == 1:  # a block is open: the text after its fence is the code so far
        return "\n".join(lines[fences[-1] + 1 :])
    return ""


def _after_thinking(model_output: str) -> str:
    _, closed, answer = model_output.rpartition(THINK_CLOSE)
    return answer if closed else model_output


def _check_output(model_output: object) -> None:
    if not isinstance(model_output, str):
        raise TypeError(
            f"model_output must be str; got {type(model_output).__name__}"
            + (
                " (decode it first, e.g. with decode_context)"
                if isinstance(model_output, bytes | bytearray)
                else ""
            )
        )
