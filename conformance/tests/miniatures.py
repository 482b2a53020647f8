"""Miniature implementations (as Bowtie's tests have): adapters that are identical, differ in
one known way, return what is not text, raise, or cannot be imported, so every outcome of the
runner, the verdict and the command is pinned to a test. `--impl miniatures:NAME` with
`--impl-path conformance/tests` runs one through the command.
"""

from __future__ import annotations

import types

import lcb_prompts
from lcb_conformance.adapters.implementation import NotProvided

# What an implementation can return: lone surrogates, NUL, C0/C1 controls, an ANSI escape.
HOSTILE = "lone \ud800 and \udfff, NUL \x00, bell \x07, esc \x1b[31m, del \x7f, c1 \x85, end"


def _adapter(**functions) -> types.SimpleNamespace:
    return types.SimpleNamespace(DEVIATIONS=lcb_prompts.DEVIATIONS, **functions)


# lcb_prompts itself, every function
reference = _adapter(
    format_lcb_prompt=lcb_prompts.format_lcb_prompt,
    format_lcb_messages=lcb_prompts.format_lcb_messages,
    extract_code=lcb_prompts.extract_code,
    extract_code_prefix=lcb_prompts.extract_code_prefix,
    decode_context=lcb_prompts.decode_context,
)

# its extraction with a newline more at the end: differs in whitespace only
trailing_newline = _adapter(
    extract_code=lambda model_output, style="generic": (
        lcb_prompts.extract_code(model_output, style) + "\n"
    )
)

# an extraction returning a lone surrogate, NUL and an escape sequence
hostile = _adapter(extract_code=lambda model_output, style="generic": HOSTILE)

# an extraction returning a list: not the text its golden holds
not_text = _adapter(extract_code=lambda model_output, style="generic": [model_output])


def _raise(*args, **kwargs):
    raise RuntimeError(f"the model server is down {HOSTILE}")


raises = _adapter(extract_code=_raise)


# only decode_context: credited with its cases, nothing else
decode_only = types.SimpleNamespace(decode_context=lcb_prompts.decode_context)

# a chat harness: messages only; its generic prompts are its messages rendered by the suite
messages_only = _adapter(format_lcb_messages=lcb_prompts.format_lcb_messages)


def _wrong_message_style(row, style="generic"):
    """Every message style answers with generic's messages (a harness sending one shape)."""
    return lcb_prompts.format_lcb_messages(row, style="generic")


# one messages shape for every style: wrong for the styles whose messages differ
one_messages_shape = _adapter(format_lcb_messages=_wrong_message_style)


def _prompt_reading_private_tests(row, *args, **kwargs):
    row["private_test_cases"]  # noqa: B018 - the harness's habit: a KeyError on minimal rows
    return lcb_prompts.format_lcb_prompt(row, *args, **kwargs)


# identical on every golden case, but its prompt reads a field bad-input rows lack
reads_private_tests = _adapter(format_lcb_prompt=_prompt_reading_private_tests)


def _extract_stripped(model_output, style="generic"):
    return lcb_prompts.extract_code(model_output, style).strip()


# identical on the fixtures' outputs that have no edge whitespace, wrong on others
strips_code = _adapter(extract_code=_extract_stripped)


def _score_not_provided(row, generations):
    raise NotProvided("this harness does not score test output prediction")


# a scorer raising the suite's NotProvided from inside the sandboxed child: not provided
scorer_not_provided = _adapter(score_test_output=_score_not_provided)


def _score_saying_does_not_provide(row, generations):
    raise ValueError("the harness does not provide a grader for this row")


# a scorer's ValueError whose message holds "does not provide": an error, never not provided
scorer_says_does_not_provide = _adapter(score_test_output=_score_saying_does_not_provide)


def _first_block(model_output: str) -> str:
    """The first fenced block (lcb_runner takes the last): the same answer on an output with
    one block."""
    lines = model_output.split("\n")
    fences = [number for number, line in enumerate(lines) if "```" in line]
    return "\n".join(lines[fences[0] + 1 : fences[1]]) if len(fences) >= 2 else ""


def _fences(model_output: str) -> int:
    return sum("```" in line for line in model_output.split("\n"))


def _declines_more_than_one_block(model_output, style="generic"):
    if _fences(model_output) > 2:
        raise NotProvided("this harness does not extract from an answer with several blocks")
    return _first_block(model_output)


# a provided extract_code declining the inputs it would get wrong with the suite's NotProvided:
# a difference of its own kind (declined), never a case skipped
declines_inputs = types.SimpleNamespace(
    STYLES=("generic",), extract_code=_declines_more_than_one_block
)



class _EndsAfter:
    """lcb_prompts' extract_code for ``calls`` calls, then ``end()``: a harness that ends the
    process calling it."""

    def __init__(self, calls: int, end):
        self.left, self.end = calls, end

    def extract_code(self, model_output, style="generic"):
        self.left -= 1
        if self.left < 0:
            self.end()
        return lcb_prompts.extract_code(model_output, style)


def _os_exit_0():
    import os

    os._exit(0)


def _sys_exit_0():
    import sys

    sys.exit(0)


# faithful for 40 calls, then os._exit(0) / sys.exit(0): the run cannot finish, never a green
os_exits_after_40 = _EndsAfter(40, _os_exit_0)
sys_exits_after_40 = _EndsAfter(40, _sys_exit_0)


def _slow_decode(context):
    import time

    time.sleep(3)
    return lcb_prompts.decode_context(context)


# 3 s a call (decode_context: 13 golden cases): over a one-second --case-timeout every case is
# timed-out
slow = _adapter(decode_context=_slow_decode)
