"""Contract properties (Hypothesis, derandomized) and mutation-testing edges.

Contract properties: the extraction and decoding rules held for arbitrary text (Hypothesis),
not just the fixtures, and the inputs mutation testing showed no other case reaches.

The oracle is the plain statement of the rules (lcb_conformance.runner.extraction_rule):
lcb_runner's extraction on the whole output, or on the answer after the last </think> for an
implementation declaring the "think" deviation; extract_code_prefix (no upstream twin) is the
reference's rule. Examples are drawn derandomized and without a database, and nothing is
written; a failure's reason is its own falsifying example. Derandomized is not fixed: Hypothesis
mixes constants from the locally imported modules into what it draws, so the drawn inputs
vary with what a process has imported (the command, the plugin, a worker); the explicit
examples, the edges a wrong extractor trips on first, are the same everywhere.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lcb_conformance.runner.contract_case import (
    FENCE_STYLES,
    SEED_STYLES,
    ContractCase,
    equal,
)
from lcb_conformance.runner.extraction_rule import after_think, extract_code_rule, prefix_rule

GROUP = "property"
EDGES = "edge"
# Examples per property in a verdict run; the repository's own tests draw their Hypothesis
# profile's (100, or 2000 with HYPOTHESIS_PROFILE=long), through Runner(examples=...).
BUDGET = 50
SETTINGS = settings(
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    suppress_health_check=list(HealthCheck),
)

# Text built from the pieces that matter to extraction, plus arbitrary unicode.
pieces = st.sampled_from(
    ["```", "```python", "```\n", "\n", "\r\n", "\r", "\u2028", "\x85", "<think>", "</think>",
     "code", " ", "\t", "~~~", "`", "é", "😀", "x = 1\n"]
)  # fmt: skip
outputs = st.lists(st.one_of(pieces, st.text(max_size=8)), max_size=40).map("".join)
# Fences split, doubled or run together, "\n" next to look-alike line breaks.
tricky = st.sampled_from(
    ["```", "```", "```python\n", "\n```\n", "````", "``", "`", "\n", "\n", "\n\n", "\r", "\r\n",
     "\u2028", "\x85", "<think>", "</think>", "<think", "</think", "think>", "<", "/", " ", "x",
     "def f():\n    return 1\n"]
)  # fmt: skip
texts = st.lists(st.one_of(tricky, tricky, st.text(max_size=4)), max_size=60).map("".join)
# Many near-misses of a marker before or between the real ones: a scanner looking at the
# markers' first characters must not lose count.
near_miss = st.sampled_from(
    ["`", "``", "` `", "<", ">", "</think", "<thin", "think>", "a < b", "-> x", "\n", "x"]
)
real = st.sampled_from(["```", "<think>", "</think>", "\n```\n"])
near_misses = st.lists(st.one_of(near_miss, near_miss, near_miss, real), max_size=100).map("".join)
line = st.sampled_from(["", "x", "```", "a```b", "``` ```", "``````", "`````", "``", "</think>"])
fence_dense_line = st.sampled_from(["x", "```", "a```b", "``` ```", "``````", "`````"])
fence_styles = st.sampled_from(FENCE_STYLES)
seed_styles = st.sampled_from(SEED_STYLES)


def _think(fn) -> bool:
    return "think" in fn.deviations


def _extraction_matches_the_rule(fn, output: str, style: str) -> None:
    equal(
        fn("extract_code")(output, style=style),
        extract_code_rule(output, style, _think(fn)),
        f"extract_code({output!r:.200}, style={style!r}) returned",
    )


def _prefix_matches_the_rule(fn, output: str, style: str) -> None:
    equal(
        fn("extract_code_prefix")(output, style=style),
        prefix_rule(output, style),
        f"extract_code_prefix({output!r:.200}, style={style!r}) returned",
    )


def extract_code_is_the_rule(fn):
    @settings(SETTINGS, max_examples=fn.examples)
    @given(output=st.one_of(outputs, texts), style=fence_styles)
    @example(output="```python\n    return 1  \n```", style="generic")  # edge whitespace kept
    @example(output="```\r\nx = 1\r\n```\r\n", style="codeqwen")  # "\r" is no line break
    @example(output="<think>```\n</think>\n```\nx\n```", style="deepseek")
    def holds(output, style):
        _extraction_matches_the_rule(fn, output, style)

    holds()


def genericbase_extracts_the_whole_stripped_answer(fn):
    @settings(SETTINGS, max_examples=fn.examples)
    @given(output=outputs)
    def holds(output):
        answer = after_think(output) if _think(fn) else output
        equal(fn("extract_code")(output, style="genericbase"), answer.strip())

    holds()


def prefix_is_the_rule(fn):
    @settings(SETTINGS, max_examples=fn.examples)
    @given(output=texts, style=seed_styles)
    def holds(output, style):
        _prefix_matches_the_rule(fn, output, style)

    holds()


def prefix_is_consistent_with_extract_code_at_completion(fn):
    """What the prefix extractor reports as the code being written is exactly what
    extract_code returns once that block is closed."""

    @settings(SETTINGS, max_examples=fn.examples)
    @given(output=outputs, style=fence_styles)
    def holds(output, style):
        prefix = fn("extract_code_prefix")(output, style=style)
        if prefix:
            equal(fn("extract_code")(output + "\n```", style=style), prefix)

    holds()


def prefix_defers_unless_a_block_is_open(fn):
    @settings(SETTINGS, max_examples=fn.examples)
    @given(output=outputs, style=fence_styles)
    def holds(output, style):
        answer = after_think(output)
        fence_lines = sum("```" in line for line in answer.split("\n"))
        if fence_lines % 2 == 0 or "<think>" in answer:
            equal(fn("extract_code_prefix")(output, style=style), "")

    holds()


def fences_inside_thinking_never_reach_the_prefix(fn):
    """While a <think> is open the model is reasoning: nothing is code yet."""

    @settings(SETTINGS, max_examples=fn.examples)
    @given(reasoning=outputs, answer=outputs, style=fence_styles)
    def holds(reasoning, answer, style):
        if "</think>" not in reasoning + answer:
            equal(fn("extract_code_prefix")("<think>" + reasoning + answer, style=style), "")

    holds()


def fence_lines_are_counted_on_whole_lines(fn):
    """Several ``` on a line make one fence line: parity is per line, not per fence. Also
    with dozens of fence lines, past any "first few" fast path."""

    @settings(SETTINGS, max_examples=fn.examples)
    @given(
        lines=st.one_of(st.lists(line), st.lists(fence_dense_line, min_size=40, max_size=120)),
        style=seed_styles,
    )
    @example(lines=["```"] * 17 + ["x"], style="generic")
    @example(lines=["```"] * 16 + ["``` ```", "x"], style="generic")
    @example(lines=["x", "``` ```"] * 20 + ["```", "x"], style="generic")
    def holds(lines, style):
        output = "\n".join(lines)
        _extraction_matches_the_rule(fn, output, style)
        _prefix_matches_the_rule(fn, output, style)

    holds()


def near_misses_of_markers(fn):
    @settings(SETTINGS, max_examples=fn.examples)
    @given(output=near_misses, style=seed_styles)
    @example(output="` " * 20 + "```\nx", style="generic")
    @example(output="< " * 20 + "<think>```\nx", style="generic")
    @example(output="```\na\n```\n" + "`\n" * 20, style="generic")
    @example(output="```\nno\n```</think>```\nyes\n```" + " <>" * 20, style="generic")
    def holds(output, style):
        _extraction_matches_the_rule(fn, output, style)
        _prefix_matches_the_rule(fn, output, style)

    holds()


def decode_context_joins_byte_tokens_before_decoding(fn):
    """Split anywhere, even inside a multi-byte character, the tokens decode to the text."""

    @settings(SETTINGS, max_examples=fn.examples)
    @given(text=st.text(), cuts=st.lists(st.integers(min_value=0, max_value=64), max_size=8))
    def holds(text, cuts):
        decode_context = fn("decode_context")
        data = text.encode("utf-8", errors="ignore")
        clean = data.decode("utf-8")
        bounds = sorted({0, len(data), *(cut % (len(data) + 1) for cut in cuts)})
        tokens = [data[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
        equal(decode_context(tokens), clean)
        equal(decode_context(list(data)), clean)
        equal(decode_context(data), clean)

    holds()


def _no_output_means_no_code(fn, style):
    equal(fn("extract_code")("", style=style), "")
    equal(fn("extract_code_prefix")("", style=style), "")


# Inputs mutation testing (tox -e mutation) showed no other case reaches. Past 16 fence lines
# the reference counts the remaining ones in C; after 8 stray-backtick candidates that are not
# a fence it hands over to str.find / str.rfind.
STRAY = "` " * 9
EDGE_OUTPUTS = {
    "strays-then-one-fence": f"{STRAY}\n```",
    "fence-in-thinking-only": f"<think>```\n</think>{STRAY}\n```",
    "strays-then-closed-block": f"{STRAY}```python\nx\n```\nz",
    "strays-then-open-block": f"{STRAY}```python\nx\n```\n```\ny",
    "strays-inside-a-block": f"```python\n{STRAY}\n```\n{STRAY}",
    "strays-after-think": f"<think>a</think>{STRAY}```\nq = 1\n```",
    "17-fence-lines-after-a-thinking-fence": "<think>```\n</think>" + "```\nx\n" * 17,
    "17-fence-lines-first-has-two": "``` ```\n" + "```\nx\n" * 16,
    "18-fence-lines": "```\nx\n" * 18,
}


def _cases() -> list[ContractCase]:
    found = [
        ContractCase(f"contract/{GROUP}/{check.__name__.replace('_', '-')}", GROUP, functions,
                     check)
        for check, functions in (
            (extract_code_is_the_rule, ("extract_code",)),
            (genericbase_extracts_the_whole_stripped_answer, ("extract_code",)),
            (prefix_is_the_rule, ("extract_code_prefix",)),
            (prefix_is_consistent_with_extract_code_at_completion,
             ("extract_code_prefix", "extract_code")),
            (prefix_defers_unless_a_block_is_open, ("extract_code_prefix",)),
            (fences_inside_thinking_never_reach_the_prefix, ("extract_code_prefix",)),
            (fence_lines_are_counted_on_whole_lines, ("extract_code", "extract_code_prefix")),
            (near_misses_of_markers, ("extract_code", "extract_code_prefix")),
            (decode_context_joins_byte_tokens_before_decoding, ("decode_context",)),
        )
    ]  # fmt: skip
    found += [
        ContractCase(
            f"contract/{GROUP}/no-output-means-no-code[{style}]",
            GROUP,
            ("extract_code", "extract_code_prefix"),
            lambda fn, style=style: _no_output_means_no_code(fn, style),
        )
        for style in SEED_STYLES
    ]
    for name, output in EDGE_OUTPUTS.items():
        for style in SEED_STYLES:
            found.append(
                ContractCase(
                    f"contract/{EDGES}/extract-code[{name}-{style}]",
                    EDGES,
                    ("extract_code",),
                    lambda fn, o=output, s=style: _extraction_matches_the_rule(fn, o, s),
                )
            )
            found.append(
                ContractCase(
                    f"contract/{EDGES}/extract-code-prefix[{name}-{style}]",
                    EDGES,
                    ("extract_code_prefix",),
                    lambda fn, o=output, s=style: _prefix_matches_the_rule(fn, o, s),
                )
            )
    return found


CASES = _cases()
