"""The implementation under test vs the plain line-splitting statement of the extraction
rules (lcb_conformance.suite.extraction_rule), on text dense in what could trip a fast scanner:
fences split, doubled or run together, "\\n" next to look-alike line breaks ("\\r",
U+2028, U+0085, which upstream does not split on), and <think>/</think> in every order.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from lcb_conformance.suite.extraction_rule import extract_code_rule, prefix_rule

BUDGET = settings.default.max_examples  # the Hypothesis profile's: 100 in "ci"

STYLES = ("generic", "codeqwen", "deepseek", "genericbase")

tricky = st.sampled_from(
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
        "\n\n",
        "\r",
        "\r\n",
        "\u2028",
        "\x85",
        "<think>",
        "</think>",
        "<think",
        "</think",
        "think>",
        "<",
        "/",
        " ",
        "x",
        "def f():\n    return 1\n",
    ]
)
texts = st.lists(st.one_of(tricky, tricky, st.text(max_size=4)), max_size=60).map("".join)
# Many near-misses of a marker ("`", "``", "<", "</think") before or between the real ones:
# a scanner that looks at the markers' first characters must not lose count.
near_miss = st.sampled_from(
    ["`", "``", "` `", "<", ">", "</think", "<thin", "think>", "a < b", "-> x", "\n", "x"]
)
real = st.sampled_from(["```", "<think>", "</think>", "\n```\n"])
near_misses = st.lists(st.one_of(near_miss, near_miss, near_miss, real), max_size=100).map("".join)
styles = st.sampled_from(STYLES)


@settings(max_examples=BUDGET, deadline=None)
@given(output=texts, style=styles)
def test_extract_code_is_the_line_splitting_rule(impl_function, output, style):
    extract_code = impl_function("extract_code")
    assert extract_code(output, style=style) == extract_code_rule(output, style)


@settings(max_examples=BUDGET, deadline=None)
@given(output=texts, style=styles)
def test_extract_code_prefix_is_the_line_splitting_rule(impl_function, output, style):
    extract_code_prefix = impl_function("extract_code_prefix")
    assert extract_code_prefix(output, style=style) == prefix_rule(output, style)


line = st.sampled_from(["", "x", "```", "a```b", "``` ```", "``````", "`````", "``", "</think>"])
fence_dense_line = st.sampled_from(["x", "```", "a```b", "``` ```", "``````", "`````"])


@settings(max_examples=BUDGET, deadline=None)
@given(
    lines=st.one_of(st.lists(line), st.lists(fence_dense_line, min_size=40, max_size=120)),
    style=styles,
)
@example(lines=["```"] * 17 + ["x"], style="generic")  # prefix "x"
@example(lines=["```"] * 16 + ["``` ```", "x"], style="generic")  # prefix "x"
@example(lines=["x", "``` ```"] * 20 + ["```", "x"], style="generic")  # prefix "x"
def test_fence_line_counting_on_whole_lines(impl_function, lines, style):
    """Several ``` on a line make one fence line: parity is per line, not per fence. Also
    with dozens of fence lines, past any "first few" fast path."""
    output = "\n".join(lines)
    assert impl_function("extract_code")(output, style=style) == extract_code_rule(output, style)
    prefix = impl_function("extract_code_prefix")(output, style=style)
    assert prefix == prefix_rule(output, style)


@settings(max_examples=BUDGET, deadline=None)
@given(output=near_misses, style=styles)
@example(output="` " * 20 + "```\nx", style="generic")  # prefix "x"
@example(output="< " * 20 + "<think>```\nx", style="generic")  # prefix ""
@example(output="```\na\n```\n" + "`\n" * 20, style="generic")  # code "a"
@example(output="```\nno\n```</think>```\nyes\n```" + " <>" * 20, style="generic")  # "yes"
def test_near_misses_of_markers(impl_function, output, style):
    assert impl_function("extract_code")(output, style=style) == extract_code_rule(output, style)
    prefix = impl_function("extract_code_prefix")(output, style=style)
    assert prefix == prefix_rule(output, style)
