"""An adapter raising an exception class of its own that is merely named ``NotProvided`` (the
suite's is lcb_conformance.adapters.implementation's): `--impl own_not_provided` or served over
`--impl-cmd`, an error either way, never not provided."""

from __future__ import annotations

from miniatures import _fences, _first_block

STYLES = ("generic",)


class NotProvided(Exception):
    """The adapter's own exception, named like the suite's."""


def extract_code(model_output, style="generic"):
    if _fences(model_output) > 2:
        raise NotProvided("this harness does not extract from an answer with several blocks")
    return _first_block(model_output)
