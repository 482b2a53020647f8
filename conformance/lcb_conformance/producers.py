"""How each golden family is produced: the one place regeneration and the drift run share."""

from __future__ import annotations

from . import cases, goldens
from .goldens import GoldenKey
from .upstream import Upstream


class Producer:
    """Computes the expected text of any golden key: upstream for the upstream families,
    the reference lcb_prompts for the reference-impl ones."""

    def __init__(self, upstream: Upstream):
        self.upstream = upstream

    def __call__(self, key: GoldenKey) -> str:
        import lcb_prompts  # the reference implementation, only for reference-impl families

        if key.family == goldens.PROMPT:
            return self.upstream.prompt(cases.VARIANTS[key.group], cases.problems()[key.case])
        if key.family == goldens.REFERENCE_DECODE:
            return lcb_prompts.decode_context(cases.contexts()[key.case])
        output = cases.outputs()[key.case].output
        if key.family == goldens.EXTRACT:
            return self.upstream.extract(key.group, output)
        if key.family == goldens.EXTRACT_AFTER_THINK:
            return self.upstream.extract(key.group, goldens.answer_after_think(output))
        if key.family == goldens.REFERENCE_PREFIX:
            return lcb_prompts.extract_code_prefix(output, key.group)
        raise ValueError(f"unknown golden family {key.family!r}")
