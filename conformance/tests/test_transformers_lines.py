"""The compat-tf* envs re-run every case a tokenizer can touch (transformers_lines.py): what
the marker leaves to the default line is only what no tokenizer reaches."""

from __future__ import annotations

import pytest
from transformers_lines import independent

from lcb_conformance.suite import families, goldens
from lcb_conformance.suite.scenario_cases import CHAT_TEMPLATES, parse_group
from lcb_conformance.suite.scenarios import SCENARIOS

pytestmark = pytest.mark.transformers_independent

# a chat template or a tokenizer renders these (lcb_runner's format_prompt for its templated
# LMStyles, the token audits, the transformers-line comparability goldens)
RENDERED = (goldens.PROMPT, goldens.MESSAGES, goldens.CHAT_PROMPT, goldens.TOKENIZATION,
            goldens.TOKEN_IDS, goldens.COMPARABILITY, goldens.REFERENCE_DECODE)


@pytest.mark.parametrize("family", RENDERED)
def test_every_rendered_golden_runs_under_each_transformers_line(family):
    keys = families.expected_keys(family)
    assert keys and not [key for key in keys if independent(key)]


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_a_scenario_prompt_rendered_with_a_chat_template_runs_under_each_line(scenario):
    keys = families.expected_keys(f"{scenario}/prompt")
    templated = [key for key in keys if parse_group(key.group)[1] in CHAT_TEMPLATES]
    assert templated and not [key for key in templated if independent(key)]
    assert [key for key in keys if independent(key)]  # the others run once
