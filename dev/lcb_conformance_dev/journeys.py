"""The journeys of README.md's "What you came for", read from their map (docs/journeys.json):
each journey's one page, the box that page opens with (what to install, the command, its exit
codes, what the reader must read, the reference pages), and that reading total.

A journey page holds the whole journey: a reader finishes it without opening another page;
the pages it links are reference. What the reader must read is therefore the page itself: its
words as rendered (HTML comments are not shown), code included, read at WORDS_PER_MINUTE.
test_docs_journeys.py holds every journey under the map's budget."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import cache

from lcb_conformance.common import exit_codes, paths

MAP = "docs/journeys.json"
WORDS_PER_MINUTE = 200  # technical prose with code, read to be followed
# A word as a reader counts it: letters or digits, joined by what joins a path or a flag.
WORD = re.compile(r"[^\W_]+(?:[-_./:'’@=][^\W_]+)*")
COMMENT = re.compile(r"<!--.*?-->", re.S)
# The words of "~1,900 words, 10 min" whatever the figures: the box never counts itself.
PLACEHOLDER = "~0 words, 0 min"


class JourneyError(ValueError):
    """The map names a page or an exit code that is not there."""


@dataclass(frozen=True)
class Journey:
    name: str
    question: str  # README's bullet, in bold
    page: str  # under docs/
    install: str  # Markdown, one line
    run: str  # the command
    exits: dict[int, str]  # exit code: what it means here
    references: tuple[str, ...]  # pages under docs/ it links, none needed to finish it


@dataclass(frozen=True)
class Budget:
    words: int  # the most a journey's reader must read


def _map() -> dict:
    if paths.CHECKOUT is None:
        raise JourneyError(f"{MAP} is the repository's: run this in a checkout")
    try:
        return json.loads((paths.CHECKOUT / MAP).read_text("utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise JourneyError(f"{MAP}: {error}") from None


@cache
def journeys() -> dict[str, Journey]:
    """The journeys in README's order."""
    known = {value for name, value in vars(exit_codes).items() if name.isupper()}
    found = {}
    for entry in _map()["journeys"]:
        exits = {int(code): meaning for code, meaning in entry["exits"].items()}
        if set(exits) - known:
            raise JourneyError(f"{MAP}: {entry['name']}: no such exit code {set(exits) - known}")
        found[entry["name"]] = Journey(
            entry["name"], entry["question"], entry["page"], entry["install"], entry["run"],
            exits, tuple(entry["references"]),
        )  # fmt: skip
    return found


def budget() -> Budget:
    return Budget(_map()["budget_words"])


def _link(page: str) -> str:
    return f"[{page.removesuffix('.md')}]({page})"


def box(name: str, reading: str | None = None) -> str:
    """The table a journey page opens with."""
    journey = journeys()[name]
    exits = "; ".join(f"**{code}** {meaning}" for code, meaning in journey.exits.items())
    rows = [
        ("install", journey.install),
        ("run", f"`{journey.run}`"),
        ("exit codes", exits),
        ("reading", f"{reading or _reading(words(name))}: this page holds the whole journey"),
        ("reference", ", ".join(map(_link, journey.references)) or "none"),
    ]
    return "\n".join(["| | |", "|---|---|", *(f"| {key} | {value} |" for key, value in rows)])


def words(name: str) -> int:
    """The words a reader of the journey's page reads: as rendered, its box included."""
    journey = journeys()[name]
    text = (paths.CHECKOUT / "docs" / journey.page).read_text("utf-8")
    own = re.compile(rf"<!-- figure: journey-box {re.escape(name)} -->.*?<!-- /figure -->", re.S)
    text = own.sub(lambda match: box(name, PLACEHOLDER), text)
    return len(WORD.findall(COMMENT.sub(" ", text)))


def _reading(count: int) -> str:
    return f"~{max(100, round(count, -2)):,} words, {math.ceil(count / WORDS_PER_MINUTE)} min"


def reading(name: str) -> str:
    """What the journey's reader must read, as README's list and the box state it."""
    return _reading(words(name))


FIGURES = {
    "journey-box": box,
    "journey-reading": reading,
    "journey-budget": lambda: budget().words,
}
