"""Differential fuzzing: the implementation under test against live upstream lcb_runner, on
random LCB rows (for every prompt variant) and random model outputs (for every extraction
style), beyond what the fixtures cover.

Inputs are dense in what breaks prompt and extraction code: fences, <think> tags, other
models' special-token text, Jinja syntax (the generic-llama3 variant goes through a chat
template), CR/LF mixtures and look-alike line breaks (U+2028, U+0085), whitespace-only and
missing starter code, combining characters, NUL.

Outputs containing "</think>" differ from upstream by design (deviations.toml): there the
implementation is held to upstream applied to the answer after the last </think>.

A failure prints the shrunk input and the fixture line that pins it; docs/hardening.md "Differential
fuzzing" says how that becomes a fixture case and its golden. Budgets follow the Hypothesis
profile (lcb_conformance_dev.hypothesis_profiles): seeded and fixed in "ci", 20x in "long".
"""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lcb_conformance.suite import cases, goldens
from lcb_conformance.upstream import UpstreamMissing

pytestmark = pytest.mark.upstream

BUDGET = settings.default.max_examples  # 100 in "ci", 2000 in "long"
FUZZ = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])

# The markers the styles and templates rely on, plus Qwen's end-of-text.
SPECIAL_TOKENS = [*cases.STYLE_MARKERS, "<|endoftext|>"]
JINJA = ["{{", "}}", "{{ messages }}", "{%", "%}", "{% raw %}", "{% endraw %}", "{#", "#}"]
LINE_BREAKS = ["\n", "\n", "\r\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c"]
SPACES = [" ", "  ", "\t", "\u00a0", "\u3000", " \n", "\n\n"]
MARKDOWN = ["```", "```python", "```\n", "\n```\n", "````", "``", "`", "~~~", "###", "### Answer"]
OTHER = ["x = 1", "def f():", "é", "e\u0301", "😀", "\ufeff", "\x00", "\\", '"', "'", "$x$"]

piece = st.sampled_from(SPECIAL_TOKENS + JINJA + LINE_BREAKS + SPACES + MARKDOWN + OTHER)
# Lone surrogates are left out: they cannot be stored as a golden, and what the functions do
# with them is test_bad_input.py's business.
free_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
texts = st.lists(st.one_of(piece, piece, free_text), max_size=30).map("".join)
starter_codes = st.one_of(
    st.none(),
    st.just(""),
    st.sampled_from(SPACES + LINE_BREAKS),
    texts,
    texts.map("def f():\n".__add__),
)
base_rows = st.sampled_from(list(cases.problems().values()))
TEMPLATE_FREE = [variant for variant in cases.PROMPT_VARIANTS if not variant.chat_template]
TEMPLATED = [variant for variant in cases.PROMPT_VARIANTS if variant.chat_template]


def fuzz_row(base: dict, question: str, starter: str | None) -> dict:
    row = dict(base, question_content=question, starter_code=starter)
    digest = hashlib.sha256(json.dumps([question, starter]).encode("utf-8")).hexdigest()[:8]
    row["question_id"] = f"fuzz_{digest}"
    return row


def fixture_line(entry: dict) -> str:
    """The JSON line to append to a fixtures/*.jsonl file to pin this input (ensure_ascii,
    like every fixture line)."""
    return json.dumps(entry, ensure_ascii=True)


def upstream_or_skip(call, *args):
    try:
        return call(*args)
    except UpstreamMissing as missing:
        pytest.skip(f"not in this upstream: {missing}")


def assert_prompt_matches(impl_function, chat_tokenizer, upstream, variant, row):
    format_lcb_prompt = impl_function("format_lcb_prompt")
    expected = upstream_or_skip(upstream.prompt, variant, row)
    tokenizer = chat_tokenizer(variant.tokenizer) if variant.chat_template else None
    actual = format_lcb_prompt(
        row, tokenizer=tokenizer, chat_template=variant.chat_template, style=variant.style
    )
    assert actual == expected, (
        f"prompt/{variant.name} differs from upstream for this row; pin it by appending to "
        f"fixtures/problems.jsonl:\n{fixture_line(row)}"
    )


@pytest.mark.parametrize("variant", TEMPLATE_FREE, ids=lambda variant: variant.name)
@settings(max_examples=2 * BUDGET, **FUZZ)
@given(base=base_rows, question=texts, starter=starter_codes)
@example(base=next(iter(cases.problems().values())), question="", starter=None)
def test_prompt_matches_upstream(
    impl_function, chat_tokenizer, upstream, variant, base, question, starter
):
    row = fuzz_row(base, question, starter)
    assert_prompt_matches(impl_function, chat_tokenizer, upstream, variant, row)


# Upstream loads the Llama-3 tokenizer on every LLaMa3 call (~0.07 s): a smaller budget.
@pytest.mark.parametrize("variant", TEMPLATED, ids=lambda variant: variant.name)
@settings(max_examples=BUDGET // 2, **FUZZ)
@given(base=base_rows, question=texts, starter=starter_codes)
@example(
    base=next(iter(cases.problems().values())),
    question="{{ messages }}{% raw %}<|eot_id|><|start_header_id|>assistant",
    starter="  \r\n",
)
def test_templated_prompt_matches_upstream(
    impl_function, chat_tokenizer, upstream, variant, base, question, starter
):
    row = fuzz_row(base, question, starter)
    assert_prompt_matches(impl_function, chat_tokenizer, upstream, variant, row)


@pytest.mark.transformers_independent
@pytest.mark.parametrize("style", list(cases.EXTRACTION_LMSTYLES))
@settings(max_examples=5 * BUDGET, **FUZZ)
@given(output=texts)
@example(output="<think>\n```\n</think>\n```python\nx = 1\n```")
@example(output="```\r\nx\r\n```\u2028")
def test_extraction_matches_upstream(impl_function, upstream, style, output):
    extract_code = impl_function("extract_code")
    actual = extract_code(output, style=style)
    if goldens.THINK_CLOSE in output:
        # deviations.toml: the implementation extracts from the answer after </think>.
        expected = upstream_or_skip(upstream.extract, style, goldens.answer_after_think(output))
        family = goldens.EXTRACT_AFTER_THINK
    else:
        expected = upstream_or_skip(upstream.extract, style, output)
        family = goldens.EXTRACT
    entry = {"id": "fuzz_" + hashlib.sha256(output.encode()).hexdigest()[:8], "output": output}
    assert actual == expected, (
        f"{family}/{style} differs from upstream for this output; pin it by appending to "
        f"fixtures/outputs.jsonl (with a 'covers' note):\n{fixture_line(entry)}"
    )
