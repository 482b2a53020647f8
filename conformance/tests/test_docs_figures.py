"""README.md's and docs/'s figures cannot drift: every generated figure is what the suite
counts now, and every time or size figure is measured (in a block carrying its date and
command), generated, or one of the few constants docs_figures.NOT_MEASURED lists
(lcb_conformance_dev.docs_figures; the wheel's figures are test_installed_wheel.py's)."""

from __future__ import annotations

import re

import pytest

from lcb_conformance.adapters import implementation
from lcb_conformance.common import paths
from lcb_conformance_dev import docs_figures

pytestmark = pytest.mark.transformers_independent  # the docs and the counts

if paths.CHECKOUT is None:
    pytest.skip("README.md and docs/ are the repository's", allow_module_level=True)

PAGES = docs_figures.pages()
# The pages a figure must stay on: a mark removed by hand would stop its check.
REQUIRED = {
    "docs/styles.md": "styles-table",
    "docs/score-goldens.md": "request-table",
    "docs/install.md": "wheel-files",
}


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_generated_figure_is_what_the_suite_counts(page):
    differing = docs_figures.differences(page)
    assert not differing, "\n".join(map(str, differing))


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_time_or_size_figure_is_measured_and_dated(page):
    unmarked = docs_figures.unmeasured(page)
    assert not unmarked, "\n".join([docs_figures.UNMEASURED_ADVICE, *map(str, unmarked)])


def test_the_list_of_constants_names_only_phrases_the_pages_have():
    assert not docs_figures.stale_allowances()


@pytest.mark.parametrize(("page", "figure"), REQUIRED.items())
def test_the_generated_tables_stay_marked(page, figure):
    specs = {mark.spec for mark in docs_figures.marks(paths.CHECKOUT / page)}
    assert figure in specs, f"{page}: the figure '{figure}' is not marked any more"


def test_the_adapter_page_lists_every_function_the_suite_calls():
    text = (paths.CHECKOUT / "docs" / "implementations.md").read_text("utf-8")
    (signatures,) = re.findall(r"```python\n(format_lcb_prompt\(.*?)```", text, re.S)
    listed = set(re.findall(r"^(\w+)\(", signatures, re.M))
    assert set(implementation.functions()) <= listed, set(implementation.functions()) - listed


# The mechanism itself, on pages of its own.


def test_a_differing_figure_names_page_figure_both_values_and_the_command(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("We hold <!-- figure: judge-cases -->98<!-- /figure --> pairs.\n", "utf-8")
    (difference,) = docs_figures.differences(page)
    shown = str(difference)
    counted = docs_figures.compute("judge-cases")
    assert "page.md:1" in shown and "'judge-cases'" in shown
    assert f"is '98' on the page, '{counted}' now" in shown
    assert docs_figures.WRITE_COMMAND in shown


@pytest.mark.parametrize("spec", ["no-such-figure", "judge-problems sideways", "release", "window"])
def test_an_unknown_figure_or_argument_is_named(spec):
    with pytest.raises(docs_figures.FigureError, match=spec.split()[0]):
        docs_figures.compute(spec)


def test_write_fills_inline_and_block_figures(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    page.write_text(
        "It has <!-- figure: styles:words -->?<!-- /figure --> styles,\n"
        "<!-- figure: request-table -->\nstale\n<!-- /figure -->\n",
        "utf-8",
    )
    monkeypatch.setattr(docs_figures, "pages", lambda: [page])
    assert docs_figures.write() == ["page.md"]
    assert not docs_figures.differences(page)
    text = page.read_text("utf-8")
    assert text.startswith("It has <!-- figure: styles:words -->twelve<!-- /figure --> styles")
    assert "| LMStyle | runner |" in text and "stale" not in text


@pytest.mark.parametrize(
    "text",
    [
        "<!-- figure: styles -->12<!-- /figure --> styles on a line of its own\n",
        "<!-- measured 2026-12-01: true --> 3 s\n<!-- /measured -->\n",
        "a figure <!-- figure: styles -->12 without its end\n",
        "took <!-- measured 2026-12-01: tox -e bench -- --quick -->3 s<!-- /measured -->\n",
    ],
)
def test_marks_markdown_would_misread_are_refused(tmp_path, text):
    page = tmp_path / "page.md"
    page.write_text(text, "utf-8")
    with pytest.raises(docs_figures.FigureError):
        docs_figures.marks(page)


def test_marks_in_code_are_text(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "Mark a figure as `<!-- figure: NAME -->` … `<!-- /figure -->`:\n"
        "```\n<!-- figure: no-such-figure -->1 s<!-- /figure -->\n```\n",
        "utf-8",
    )
    assert docs_figures.marks(page) == [] and docs_figures.unmeasured(page) == []


def test_a_time_outside_a_measured_block_is_found(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "The run took 4.9 s and 230 MB; a 10× speed-up.\n"
        "<!-- measured 2026-12-01: python bench/bench_runner.py -->\n"
        "In a block: 3.8 s.\n"
        "<!-- /measured -->\n"
        "In code: `sleep 5 s`, and\n```\n12 s\n```\n",
        "utf-8",
    )
    found = [(u.line, u.figure) for u in docs_figures.unmeasured(page)]
    assert found == [(1, "4.9 s"), (1, "230 MB"), (1, "10×")]
    assert docs_figures.measured_blocks(page) == [
        (2, "2026-12-01", "python bench/bench_runner.py")
    ]


def test_the_command_checks_the_pages_and_refuses_a_missing_wheel(tmp_path, capsys):
    # tests the console's contract: an input error is one line on stderr
    assert docs_figures.main(["--check"]) == 0
    assert docs_figures.main(["--check", "--wheel", str(tmp_path / "none.whl")]) == 2
    assert capsys.readouterr().err.startswith("docs_figures: ")
