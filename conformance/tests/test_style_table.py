"""One style table: suite/styles.py's. The reference lcb_prompts is standard library only and
reads no suite, so it keeps its own lists of styles and LMStyles; they are held here to the
table, and to lcb_runner's LMStyles as the lm-styles golden records them."""

from __future__ import annotations

import json

import lcb_prompts
from lcb_conformance.suite import goldens, styles
from lcb_conformance.suite.goldens import GoldenKey


def lcb_runner_lmstyles() -> list[str]:
    recorded = goldens.read(GoldenKey(goldens.LM_STYLES, "", goldens.LM_STYLES_CASE))
    return json.loads(recorded)["LMStyle"]


def test_lcb_prompts_styles_are_the_tables():
    assert lcb_prompts.PROMPT_STYLES == styles.PROMPT_STYLES
    assert lcb_prompts.MESSAGE_STYLES == styles.MESSAGE_STYLES
    assert lcb_prompts.STYLES == tuple(styles.EXTRACTION_LMSTYLES)


def test_lcb_prompts_lmstyles_are_lcb_runners_in_its_order():
    assert lcb_prompts.LMSTYLES == tuple(lcb_runner_lmstyles())


def test_the_table_has_a_row_for_every_lcb_runner_lmstyle_and_no_other():
    assert set(styles.MAPPINGS) - set(styles.NOT_LCB_RUNNER) == set(lcb_runner_lmstyles())

