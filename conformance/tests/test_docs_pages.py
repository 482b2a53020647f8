"""Every page of docs/ answers one task and stays short: under PAGE_LIMIT bytes, but the
generated pages named here (README.md's length is its own, test_docs_links.py links it)."""

from __future__ import annotations

import pytest

from lcb_conformance.common import paths

pytestmark = pytest.mark.transformers_independent  # the docs

if paths.CHECKOUT is None:
    pytest.skip("README.md and docs/ are the repository's", allow_module_level=True)

DOCS = paths.CHECKOUT / "docs"
PAGE_LIMIT = 15_000  # bytes
# Generated, long by nature: a section per peer (`python -m lcb_conformance_dev.peers render`),
# a row per module (`docs_figures --write`).
GENERATED = {"peers-matrix.md", "layout-modules.md"}


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.md")), ids=lambda page: page.name)
def test_every_page_stays_short_but_the_generated_ones(page):
    size = page.stat().st_size
    assert page.name in GENERATED or size <= PAGE_LIMIT, (
        f"docs/{page.name} is {size:,} bytes, over {PAGE_LIMIT:,}: split it by task, or move "
        "reference material to a page of its own"
    )


def test_the_generated_pages_named_exist():
    assert {page.name for page in DOCS.glob("*.md")} >= GENERATED
