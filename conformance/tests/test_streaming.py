"""lcb_prompts.PrefixExtractor, the reference implementation's streaming prefix extractor
(not part of the API an --impl module is asked for): after every chunk it answers exactly
what extract_code_prefix answers for the text so far, wherever the chunks are cut, in
particular inside a fence, a "\\r\\n", a <think> or a </think>.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lcb_prompts import PrefixExtractor, extract_code_prefix

pytestmark = pytest.mark.transformers_independent  # extraction is string work

BUDGET = settings.default.max_examples  # the Hypothesis profile's: 100 in "ci"

STYLES = ("generic", "codeqwen", "deepseek", "genericbase")

pieces = st.sampled_from(
    [
        "```",
        "```",
        "```python\n",
        "\n```\n",
        "````",
        "``",
        "`",
        "\n",
        "\n",
        "\r\n",
        "\r",
        "\u2028",
        "<think>",
        "</think>",
        "<think>\n",
        "\n</think>\n\n",
        "<think",
        "/think>",
        "<",
        " ",
        "x",
        "    return 1\n",
    ]
)
texts = st.lists(st.one_of(pieces, pieces, st.text(max_size=3)), max_size=50).map("".join)
styles = st.sampled_from(STYLES)


def chunked(text: str, sizes: list[int]) -> list[str]:
    """text cut into consecutive chunks of the given sizes (cycled), last one the rest."""
    chunks, at = [], 0
    for size in sizes * (len(text) + 1):
        if at >= len(text):
            break
        chunks.append(text[at : at + size])
        at += size
    if at < len(text):
        chunks.append(text[at:])
    return chunks


@settings(max_examples=2 * BUDGET, deadline=None)
@given(
    text=texts,
    sizes=st.lists(st.integers(min_value=0, max_value=9), min_size=1, max_size=12),
    style=styles,
)
def test_every_step_answers_like_extract_code_prefix(text, sizes, style):
    extractor = PrefixExtractor(style)
    so_far = ""
    for chunk in chunked(text, sizes):
        so_far += chunk
        assert extractor.feed(chunk) == extract_code_prefix(so_far, style), (so_far, chunk)
        assert extractor.prefix == extract_code_prefix(so_far, style)


@settings(max_examples=BUDGET, deadline=None)
@given(text=texts, style=styles)
def test_one_character_at_a_time(text, style):
    extractor = PrefixExtractor(style)
    for end in range(1, len(text) + 1):
        assert extractor.feed(text[end - 1]) == extract_code_prefix(text[:end], style)


@pytest.mark.parametrize("style", STYLES)
def test_markers_split_at_every_position(style):
    text = "<think>\n```\nno\n```\n</think>\nsee:\n```python\nx = 1\r\ny = 2\n"
    for cut_a in range(len(text) + 1):
        for cut_b in range(cut_a, len(text) + 1):
            extractor = PrefixExtractor(style)
            for end, chunk in (
                (cut_a, text[:cut_a]),
                (cut_b, text[cut_a:cut_b]),
                (len(text), text[cut_b:]),
            ):
                assert extractor.feed(chunk) == extract_code_prefix(text[:end], style)
    whole = "see:\n```python\nx = 1\r\ny = 2" if style == "genericbase" else "x = 1\r\ny = 2\n"
    assert extractor.prefix == whole


def test_bad_input_raises():
    with pytest.raises(ValueError):
        PrefixExtractor("llama")
    with pytest.raises(TypeError):
        PrefixExtractor().feed(b"```")
