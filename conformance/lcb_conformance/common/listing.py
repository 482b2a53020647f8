"""Long lists in the console's views, cut in one wording: the first items named and how many
more (``a, b, ... and 3 more``; a list of lines ends ``... and 3 more``)."""

from __future__ import annotations

from collections.abc import Iterable


def named(items: Iterable[str], shown: int) -> str:
    """The first ``shown`` items, comma-separated, and how many more there are."""
    items = list(items)
    more = f", ... and {len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more


def rest(total: int, shown: int, indent: str, where: str = "") -> list[str]:
    """The line after the first ``shown`` of ``total`` lines saying how many more there are
    (``where``: where they all are, e.g. ``--json``); no line when none was left out."""
    if total <= shown:
        return []
    return [f"{indent}... and {total - shown} more" + (f" ({where})" if where else "")]
