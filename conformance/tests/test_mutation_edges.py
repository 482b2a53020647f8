"""Inputs that mutation testing (tox -e mutation) showed no other test reaches, held to the
plain statement of the extraction rules (lcb_conformance.suite.extraction_rule).

Past 16 fence lines the reference counts the remaining ones in C; the 17- and 18-line outputs
reach that path.

The reference extractor looks for a marker through its first character and, after 8 such
candidates that are not the marker, hands over to str.find / str.rfind; these outputs put
more than 8 stray backticks before, between or after real fences, so the hand-over path
decides the result. Random text rarely holds 9 stray backticks on one answer line.
"""

from __future__ import annotations

import pytest

from lcb_conformance.suite.extraction_rule import extract_code_rule, prefix_rule

STRAY = "` " * 9  # nine backticks that are not a fence

OUTPUTS = {
    # one fence line after the strays: there is no block (no earlier fence in range)
    "strays-then-one-fence": f"{STRAY}\n```",
    # the only other fence is in the thinking, before the answer starts
    "fence-in-thinking-only": f"<think>```\n</think>{STRAY}\n```",
    # two fence lines after the strays: a closed block, nothing open
    "strays-then-closed-block": f"{STRAY}```python\nx\n```\nz",
    # three fence lines: the block after the last one is open
    "strays-then-open-block": f"{STRAY}```python\nx\n```\n```\ny",
    "strays-inside-a-block": f"```python\n{STRAY}\n```\n{STRAY}",
    "strays-after-think": f"<think>a</think>{STRAY}```\nq = 1\n```",
    # More than 16 fence lines: the rest are counted in C, which must count from where the
    # line-by-line scan stopped, not from the start (a fence in the thinking, or two ``` on
    # one of the first lines, would change the parity).
    "17-fence-lines-after-a-thinking-fence": "<think>```\n</think>" + "```\nx\n" * 17,
    "17-fence-lines-first-has-two": "``` ```\n" + "```\nx\n" * 16,
    "18-fence-lines": "```\nx\n" * 18,
}


@pytest.mark.parametrize("output", OUTPUTS.values(), ids=OUTPUTS.keys())
@pytest.mark.parametrize("style", ["generic", "codeqwen", "deepseek", "genericbase"])
def test_extract_code_past_the_candidate_limit(impl_function, output, style):
    assert impl_function("extract_code")(output, style=style) == extract_code_rule(output, style)


@pytest.mark.parametrize("output", OUTPUTS.values(), ids=OUTPUTS.keys())
@pytest.mark.parametrize("style", ["generic", "codeqwen", "deepseek", "genericbase"])
def test_extract_code_prefix_past_the_candidate_limit(impl_function, output, style):
    assert impl_function("extract_code_prefix")(output, style=style) == prefix_rule(output, style)
