"""Property tests for the rules the seed states, run against the implementation under test.

The oracle is the plain statement of lcb_runner's extraction rule
(lcb_conformance.suite.extraction_rule), so a faster implementation can be held to it for any
input, not just the fixtures; test_extraction_equivalence.py fuzzes it harder.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lcb_conformance.suite.extraction_rule import after_think, upstream_rule

FENCE_STYLES = ("generic", "codeqwen", "deepseek")

# Text built from the pieces that matter to extraction, plus arbitrary unicode.
pieces = st.sampled_from(
    [
        "```",
        "```python",
        "```\n",
        "\n",
        "\r\n",
        "\r",
        "\u2028",
        "\x85",
        "<think>",
        "</think>",
        "code",
        " ",
        "\t",
        "~~~",
        "`",
        "é",
        "😀",
        "x = 1\n",
    ]
)
outputs = st.lists(st.one_of(pieces, st.text(max_size=8)), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(output=outputs, style=st.sampled_from(FENCE_STYLES))
def test_extract_code_is_upstream_rule_on_the_answer(impl_function, output, style):
    extract_code = impl_function("extract_code")
    assert extract_code(output, style=style) == upstream_rule(after_think(output))


@settings(max_examples=300, deadline=None)
@given(output=outputs)
def test_genericbase_extracts_the_whole_stripped_answer(impl_function, output):
    extract_code = impl_function("extract_code")
    assert extract_code(output, style="genericbase") == after_think(output).strip()


@settings(max_examples=300, deadline=None)
@given(output=outputs, style=st.sampled_from(FENCE_STYLES))
def test_prefix_is_consistent_with_extract_code_at_completion(impl_function, output, style):
    """Whatever the prefix extractor reports as the code being written is exactly what
    extract_code returns once that block is closed."""
    extract_code_prefix = impl_function("extract_code_prefix")
    extract_code = impl_function("extract_code")
    prefix = extract_code_prefix(output, style=style)
    if prefix:
        assert extract_code(output + "\n```", style=style) == prefix


@settings(max_examples=300, deadline=None)
@given(output=outputs, style=st.sampled_from(FENCE_STYLES))
def test_prefix_defers_unless_a_block_is_open(impl_function, output, style):
    extract_code_prefix = impl_function("extract_code_prefix")
    answer = after_think(output)
    fence_lines = sum("```" in line for line in answer.split("\n"))
    if fence_lines % 2 == 0 or "<think>" in answer:
        assert extract_code_prefix(output, style=style) == ""


@settings(max_examples=200, deadline=None)
@given(reasoning=outputs, answer=outputs, style=st.sampled_from(FENCE_STYLES))
def test_fences_inside_thinking_never_reach_the_prefix(impl_function, reasoning, answer, style):
    """While a <think> is open the model is reasoning: nothing is code yet."""
    extract_code_prefix = impl_function("extract_code_prefix")
    if "</think>" not in reasoning + answer:
        assert extract_code_prefix("<think>" + reasoning + answer, style=style) == ""


@settings(max_examples=300, deadline=None)
@given(text=st.text(), cuts=st.lists(st.integers(min_value=0, max_value=64), max_size=8))
def test_decode_context_joins_byte_tokens_before_decoding(impl_function, text, cuts):
    """Split anywhere, even inside a multi-byte character, the tokens decode to the text."""
    decode_context = impl_function("decode_context")
    data = text.encode("utf-8", errors="ignore")
    clean = data.decode("utf-8")
    bounds = sorted({0, len(data), *(cut % (len(data) + 1) for cut in cuts)})
    tokens = [data[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    assert decode_context(tokens) == clean
    assert decode_context(list(data)) == clean
    assert decode_context(data) == clean


@pytest.mark.parametrize("style", FENCE_STYLES + ("genericbase",))
def test_no_output_means_no_code(impl_function, style):
    assert impl_function("extract_code")("", style=style) == ""
    assert impl_function("extract_code_prefix")("", style=style) == ""
