"""The checked-in list of deliberate differences from upstream (conformance/deviations.toml)."""

from __future__ import annotations

import tomllib
from functools import cache

from . import goldens


@cache
def load() -> dict:
    with goldens.DEVIATIONS_FILE.open("rb") as file:
        return tomllib.load(file)


@cache
def think_deviations() -> dict[tuple[str, str], str]:
    """(output id, style) -> why, for every listed </think> deviation."""
    listed = {}
    for entry in load().get("think", {}).get("cases", []):
        for style in entry["styles"]:
            listed[(entry["output"], style)] = entry["why"]
    return listed
