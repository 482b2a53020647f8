"""Docs a newcomer finishes: each journey of README.md's "What you came for" has one page, in
the journeys' map (docs/journeys.json), that holds the whole journey and opens with its box
(what to install, the command, its exit codes, the reading total, the reference pages); what
its reader must read is stated (README and the box, generated: lcb_conformance_dev.journeys)
and under the map's budget; every other page of docs/ is a reference some journey links."""

from __future__ import annotations

import re

import pytest

from lcb_conformance.common import paths
from lcb_conformance_dev import docs_figures, journeys

pytestmark = pytest.mark.transformers_independent  # the docs

if paths.CHECKOUT is None:
    pytest.skip("README.md and docs/ are the repository's", allow_module_level=True)

README = paths.CHECKOUT / "README.md"
DOCS = paths.CHECKOUT / "docs"
JOURNEYS = journeys.journeys()
SECTION = re.compile(r"^## What you came for\n(.*?)^## ", re.S | re.M)
BULLET = re.compile(r"^- \*\*(?P<question>[^*]+)\*\*(?P<body>.*?)(?=^- |^\S|\Z)", re.S | re.M)
DOCS_LINK = re.compile(r"\]\(docs/([^)#\s]+\.md)(?:#[^)]*)?\)")
NEXT = re.compile(r"^## Next\b", re.M)


def readme_journeys() -> list[tuple[str, str]]:
    """(question, bullet) of every journey README lists."""
    (section,) = SECTION.findall(README.read_text("utf-8"))
    return [(match["question"], match["body"]) for match in BULLET.finditer(section)]


def test_every_readme_journey_is_one_of_the_map_and_every_one_is_listed_once():
    questions = [question for question, _ in readme_journeys()]
    assert questions == [journey.question for journey in JOURNEYS.values()], (
        f"README's journeys and {journeys.MAP}'s differ, or are in another order"
    )


@pytest.mark.parametrize(("question", "bullet"), readme_journeys(), ids=lambda v: v[:30])
def test_every_readme_journey_leads_to_exactly_one_page_with_its_reading_total(question, bullet):
    (journey,) = [j for j in JOURNEYS.values() if j.question == question]
    assert DOCS_LINK.findall(bullet) == [journey.page], (
        f"{question!r}: README links {DOCS_LINK.findall(bullet)}, not its one page "
        f"{journey.page} (its reference pages are the page's to link)"
    )
    assert f"<!-- figure: journey-reading {journey.name} -->" in bullet, (
        f"{question!r}: README does not state what its reader must read"
    )


@pytest.mark.parametrize("journey", JOURNEYS.values(), ids=lambda journey: journey.name)
def test_every_journey_page_opens_with_its_box_and_ends_with_what_next(journey):
    page = DOCS / journey.page
    box = f"journey-box {journey.name}"
    lines = [mark.line for mark in docs_figures.marks(page) if mark.spec == box]
    assert lines == [3], f"{journey.page}: its journey box is not the first thing under its title"
    assert NEXT.search(page.read_text("utf-8")), f"{journey.page}: no '## Next' section"


@pytest.mark.parametrize("journey", JOURNEYS.values(), ids=lambda journey: journey.name)
def test_what_a_journeys_reader_must_read_is_under_the_budget(journey):
    budget = journeys.budget().words
    assert journeys.words(journey.name) <= budget, (
        f"{journey.page}: {journeys.reading(journey.name)}, over the {budget:,} words a "
        "journey may ask: move detail (formats, internals, measurements) to a reference page"
    )


def test_every_docs_page_is_a_journey_page_or_a_reference_one_links():
    needed = {journey.page for journey in JOURNEYS.values()}
    needed |= {page for journey in JOURNEYS.values() for page in journey.references}
    pages = {page.name for page in DOCS.glob("*.md")}
    assert not needed - pages, f"{journeys.MAP} names pages docs/ lacks: {needed - pages}"
    assert not pages - needed, (
        f"pages no journey needs: {sorted(pages - needed)}: merge each into the page that "
        f"needs it, or remove it, or name it a reference of a journey in {journeys.MAP}"
    )


def test_an_exit_code_the_table_lacks_is_refused(monkeypatch):
    entry = {"name": "x", "question": "?", "page": "x.md", "install": "", "run": "",
             "exits": {"5": "no such code"}, "references": []}  # fmt: skip
    monkeypatch.setattr(journeys, "_map", lambda: {"budget_words": 1, "journeys": [entry]})
    journeys.journeys.cache_clear()
    try:
        with pytest.raises(journeys.JourneyError, match="no such exit code"):
            journeys.journeys()
    finally:
        journeys.journeys.cache_clear()
