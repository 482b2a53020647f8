"""Reads `conformance/deviations.toml`, the checked-in list of deliberate differences from
upstream."""

from __future__ import annotations

import tomllib
from functools import cache

from lcb_conformance.suite import cases, goldens

EVERY_STYLE = "*"


@cache
def load() -> dict:
    with goldens.DEVIATIONS_FILE.open("rb") as file:
        return tomllib.load(file)


def ids() -> tuple[str, ...]:
    """The deviation ids an implementation can declare (its DEVIATIONS): the top-level
    tables of deviations.toml."""
    return tuple(load())


@cache
def think_deviations() -> dict[tuple[str, str], str]:
    """(output id, style) -> why, for every listed </think> deviation."""
    listed = {}
    for entry in load().get("think", {}).get("cases", []):
        styles = entry["styles"]
        for style in cases.EXTRACTION_LMSTYLES if styles == [EVERY_STYLE] else styles:
            listed[(entry["output"], style)] = entry["why"]
    return listed
