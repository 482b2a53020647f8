"""Every relative link in README.md and docs/ leads somewhere: the file exists and, for a
`#anchor`, a heading of that file has that GitHub anchor; and every docs page is reached from
the README, directly or through the pages it links."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lcb_conformance.common import paths

pytestmark = pytest.mark.transformers_independent  # the docs

if paths.CHECKOUT is None:
    pytest.skip("README.md and docs/ are the repository's", allow_module_level=True)

README = paths.CHECKOUT / "README.md"
PAGES = [README, *sorted((paths.CHECKOUT / "docs").glob("*.md"))]
INLINE_LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?", re.M)
FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.S | re.M)
CODE_SPAN = re.compile(r"(`+)(?!`)(?:(?!\n[ \t]*\n).)+?(?<!`)\1(?!`)", re.S)
HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$", re.M)
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # https:, mailto:


def _blank(match: re.Match) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: the text as shown (no comments, tags, link
    targets or backticks), lower case, punctuation dropped, each space a hyphen."""
    text = re.sub(r"<!--.*?-->", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The page's anchors: its headings' (a repeated one gets -1, -2, ...) and HTML ones."""
    text = FENCE.sub("", page.read_text("utf-8"))
    found = set(HTML_ANCHOR.findall(text))
    seen: dict[str, int] = {}
    for heading in HEADING.findall(text):
        base = slug(heading)
        found.add(f"{base}-{seen[base]}" if base in seen else base)
        seen[base] = seen.get(base, 0) + 1
    return found


def links(page: Path) -> list[str]:
    """The page's relative link targets; links in code blocks and code spans are text."""
    text = CODE_SPAN.sub(_blank, FENCE.sub(_blank, page.read_text("utf-8")))
    found = INLINE_LINK.findall(text) + REFERENCE_LINK.findall(text)
    return [target for target in found if not EXTERNAL.match(target)]


def target_path(page: Path, target: str) -> Path:
    file = target.partition("#")[0]
    return (page.parent / file).resolve() if file else page.resolve()


def broken(page: Path) -> list[str]:
    """The page's relative links whose file, or heading, is not there."""
    found = []
    for target in links(page):
        anchor = target.partition("#")[2]
        destination = target_path(page, target)
        if not destination.exists():
            found.append(f"{target}: no {destination}")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            found.append(f"{target}: no heading with anchor #{anchor} in {destination.name}")
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_resolves(page):
    assert not broken(page), f"{page.name}: " + "; ".join(broken(page))


def test_every_docs_page_is_reached_from_the_readme():
    reached, todo = set(), [README.resolve()]
    while todo:
        page = todo.pop()
        if page in reached or page.suffix != ".md" or not page.exists():
            continue
        reached.add(page)
        todo += [target_path(page, target) for target in links(page)]
    unreached = [page.name for page in PAGES if page.resolve() not in reached]
    assert not unreached, f"docs pages no link from the README leads to: {unreached}"


def test_a_broken_link_or_heading_is_found_and_code_is_text(tmp_path):
    (tmp_path / "other.md").write_text("# Its `title`: here — there\n\n## Again\n## Again\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#its-title-here--there) [twice](other.md#again-1) [self](#top)\n"
        "# Top\n[gone](missing.md) [no heading](other.md#nowhere) `[code](nowhere.md)`\n"
        "[web](https://example.com/x.md)\n\n[ref]: other.md#again\n",
        "utf-8",
    )
    assert [entry.split(":")[0] for entry in broken(page)] == ["missing.md", "other.md#nowhere"]
