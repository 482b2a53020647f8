"""Every relative link in README.md and docs/ leads somewhere: the file exists and, for a
`#anchor`, a heading of that file has that GitHub anchor."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lcb_conformance.common import paths

if paths.CHECKOUT is None:
    pytest.skip("README.md and docs/ are the repository's", allow_module_level=True)

PAGES = [paths.CHECKOUT / "README.md", *sorted((paths.CHECKOUT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
EXTERNAL = ("http://", "https://", "mailto:")


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces -."""
    headings = re.findall(r"^#{1,6}\s+(.+?)\s*$", FENCE.sub("", page.read_text("utf-8")), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text("utf-8"))
    return [target for target in LINK.findall(text) if not target.startswith(EXTERNAL)]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_resolves(page):
    broken = []
    for target in links(page):
        file, _, anchor = target.partition("#")
        destination = (page.parent / file).resolve() if file else page
        if not destination.exists():
            broken.append(f"{target}: no {destination}")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target}: no heading with anchor #{anchor} in {destination.name}")
    assert not broken, f"{page.name}: " + "; ".join(broken)


def test_the_readme_links_every_docs_page():
    linked = {
        (paths.CHECKOUT / target.partition("#")[0]).resolve()
        for target in links(paths.CHECKOUT / "README.md")
    }
    unlinked = [page.name for page in PAGES[1:] if page.resolve() not in linked]
    assert not unlinked, f"docs pages the README does not link: {unlinked}"
