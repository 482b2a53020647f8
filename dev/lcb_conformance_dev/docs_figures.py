"""The figures of README.md and docs/: counted by the suite and written into the pages, or
measured and kept with the date and the command that measured them.

    python -m lcb_conformance_dev.docs_figures --write [--wheel WHEEL]
    python -m lcb_conformance_dev.docs_figures --check [--wheel WHEEL]
    python -m lcb_conformance_dev.docs_figures --list

A generated figure is a marked span; the marks are HTML comments, invisible when rendered:

    ... holds <!-- figure: judge-cases -->99<!-- /figure --> cases ...     inline
    <!-- figure: styles-table -->                                           a block (a table,
    | ... |                                                                  a code block): the
    <!-- /figure -->                                                         marks on lines of
                                                                             their own
A figure's name may take arguments (``judge-category decimal``), and a trailing ``:words``
spells a small number out (``tokenizers:words``: six). ``--write`` computes every figure from
the suite's own data (the case index, the golden families and their goldens, the fixtures, the
style table, the release manifests, the limits the code sets, the journeys' map and the
words of each journey's page) and writes the pages;
``--check`` lists each that differs (exit 1), as test_docs_figures.py does. The wheel's size
and file count need a build: ``--wheel`` fills or checks them, and test_installed_wheel.py
checks them against the wheel it builds.

A measured figure (a time, a size, a benchmark's numbers, what a run printed on a day) sits in
a block saying when and how it was measured, or in a span of the same marks within a line:

    <!-- measured 2026-12-01: python bench/bench_runner.py --repeat 3 -->
    ...
    <!-- /measured -->

``--check`` also fails on a time or size figure outside code that is neither measured, nor
generated, nor one of the few constants NOT_MEASURED lists. A mark that begins a line is alone
on it (Markdown reads a line starting with an HTML comment as raw HTML), and a mark within a
line holds no "--". Marks in code (a code block, a code span) are text, not marks.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from lcb_conformance.common import exit_codes, paths, report_files

# The figures themselves, computed (figure_values.py).
from lcb_conformance_dev.figure_values import (  # noqa: F401 (as docs_figures.*)
    BUILT,
    FIGURES,
    FigureError,
    compute,
    wheel_figures,
)
from lcb_conformance_dev.journeys import JourneyError  # the journeys' map, unreadable

WRITE_COMMAND = "python -m lcb_conformance_dev.docs_figures --write"
WHEEL_COMMAND = (
    "pip wheel --no-deps --no-build-isolation -w /tmp/lcb-wheel . && "
    f"{WRITE_COMMAND} --wheel /tmp/lcb-wheel/lcb_conformance-*.whl"
)

FIGURE = re.compile(r"<!-- figure: (?P<spec>[^>]*?) -->(?P<value>.*?)<!-- /figure -->", re.S)
MEASURED = re.compile(
    r"<!-- measured (?P<date>\d{4}-\d{2}-\d{2}): (?P<command>[^>]+?) -->(?P<body>.*?)"
    r"<!-- /measured -->",
    re.S,
)
ANY_MARK = re.compile(r"<!-- /?(?:figure|measured)\b[^>]*-->")
FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)
CODE_SPAN = re.compile(r"(`+)(?!`)(?:(?!\n[ \t]*\n).)+?(?<!`)\1(?!`)", re.S)
# A time, a size, a ratio: what a page can only have measured.
MEASUREMENT = re.compile(
    r"(?<![\w.])\d[\d,.]*(?:\s?[–-]\s?\d[\d,.]*)?"
    r"(?:\s?(?:µs|us|ms|s|sec|seconds?|min|minutes?|h|hours?|KB|kB|MB|GB|TB|KiB|MiB|GiB|%)"
    r"(?![\w])|×)"
)
# Time and size figures that are no measurement: (page, the phrase holding the figure).
NOT_MEASURED = (
    ("docs/score-goldens.md", "the contest date + 24 h in UTC"),  # the site's date rule
    ("docs/hardening.md", "4 KiB tokens"),  # how the contract cuts its 10 MB context
    # lcb_prompts' scenario scorers' limits (scenario_scoring.py) and lcb_runner's 3 s
    ("docs/lcb_prompts.md", "a 4 GiB address"),
    ("docs/lcb_prompts.md", "lcb_runner's 3 s per code execution answer"),
    ("docs/lcb_prompts.md", "here 10 s."),
    ("docs/performance-regrade.md", "a cost of at most 15 %"),  # issue 33's goal, not a figure
)
UNMEASURED_ADVICE = (
    "time or size figures outside a measured block: put each in <!-- measured YYYY-MM-DD: "
    "COMMAND --> … <!-- /measured -->, make it a generated figure, or (a constant, not a "
    "measurement) list it in lcb_conformance_dev.docs_figures.NOT_MEASURED"
)


# ---------------------------------------------------------------------------------------------
# The pages and their marks.


def pages() -> list[Path]:
    if paths.CHECKOUT is None:
        raise FigureError("README.md and docs/ are the repository's: run this in a checkout")
    return [paths.CHECKOUT / "README.md", *sorted((paths.CHECKOUT / "docs").glob("*.md"))]


def page_name(page: Path) -> str:
    """README.md, docs/x.md: as NOT_MEASURED and the messages name it."""
    if paths.CHECKOUT and page.resolve().is_relative_to(paths.CHECKOUT.resolve()):
        return page.resolve().relative_to(paths.CHECKOUT.resolve()).as_posix()
    return page.name


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _blank(match: re.Match) -> str:
    """The match replaced by spaces, its newlines kept: offsets and lines stay put."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _without_code(text: str) -> str:
    """The page with its code blocks and code spans blanked: marks there are text."""
    return CODE_SPAN.sub(_blank, FENCE.sub(_blank, text))


@dataclass(frozen=True)
class Mark:
    page: str
    line: int
    spec: str  # the name, its arguments, and ":words" if spelt out
    value: str  # as the page has it (a block's without its first and last newline)
    start: int  # the offsets of the value in the page
    end: int

    def where(self) -> str:
        return f"{self.page}:{self.line}"


def marks(page: Path) -> list[Mark]:
    """A page's generated figures; FigureError for marks Markdown would misread or that lack
    their pair."""
    text = page.read_text("utf-8")
    name = page_name(page)
    visible = _without_code(text)
    for match in ANY_MARK.finditer(visible):
        start = visible.rfind("\n", 0, match.start()) + 1
        end = visible.find("\n", match.end())
        line = visible[start : len(visible) if end < 0 else end]
        alone = line.strip() == match.group(0)
        if not line[: match.start() - start].strip() and not alone:
            raise FigureError(
                f"{name}:{_line_of(text, match.start())}: a mark that begins a line must be "
                f"alone on it (Markdown would show the rest of the line as raw HTML): {line!r}"
            )
        if not alone and "--" in match.group(0)[4:-3]:
            raise FigureError(
                f"{name}:{_line_of(text, match.start())}: a mark within a line cannot hold "
                f"'--' (CommonMark before 0.31 shows such a comment as text): {match.group(0)}"
            )
    found = []
    for match in FIGURE.finditer(visible):
        start, end = match.span("value")
        value = text[start:end]
        if value.startswith("\n") != value.endswith("\n"):
            raise FigureError(f"{name}:{_line_of(text, match.start())}: a block figure has "
                              "both marks on lines of their own")  # fmt: skip
        if value.startswith("\n"):
            start, end = start + 1, end - 1
        found.append(Mark(name, _line_of(text, match.start()), match.group("spec").strip(),
                          text[start:end], start, end))  # fmt: skip
    unpaired = ANY_MARK.findall(FIGURE.sub("", MEASURED.sub("", visible)))
    if unpaired:
        raise FigureError(f"{name}: marks without their pair: {unpaired}")
    return found


@dataclass(frozen=True)
class Difference:
    mark: Mark
    computed: str

    def __str__(self) -> str:
        fix = WHEEL_COMMAND if self.mark.spec.split()[0] in BUILT else WRITE_COMMAND
        shown, now = self.mark.value, self.computed
        if "\n" in shown + now:  # a block: its first line that differs
            pairs = zip(shown.splitlines() + [""], now.splitlines() + [""], strict=False)
            shown, now = next(((a, b) for a, b in pairs if a != b), (shown, now))
        return (f"{self.mark.where()}: figure '{self.mark.spec}' is {shown!r} on the "
                f"page, {now!r} now; run `{fix}`")  # fmt: skip


def differences(page: Path, built: dict[str, str] | None = None,
                only_built: bool = False) -> list[Difference]:  # fmt: skip
    """The page's figures that are not what the suite counts now (a build's only with one)."""
    found = []
    for mark in marks(page):
        if only_built and mark.spec.split()[0] not in BUILT:
            continue
        computed = compute(mark.spec, built)
        if computed is not None and computed != mark.value:
            found.append(Difference(mark, computed))
    return found


def write(built: dict[str, str] | None = None) -> list[str]:
    """Every page's figures recomputed and written; the pages that changed."""
    changed = []
    for page in pages():
        text = page.read_text("utf-8")
        new = text
        for difference in reversed(differences(page, built)):
            mark = difference.mark
            if "\n" in difference.computed and text[mark.start - 1] != "\n":
                raise FigureError(f"{mark.where()}: figure '{mark.spec}' is a block: put its "
                                  "marks on lines of their own")  # fmt: skip
            new = new[: mark.start] + difference.computed + new[mark.end :]
        if new != text:
            report_files.write_atomically(page, new)
            changed.append(page_name(page))
    return changed


# ---------------------------------------------------------------------------------------------
# Measured figures.


@dataclass(frozen=True)
class Unmeasured:
    page: str
    line: int
    figure: str
    context: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: '{self.figure}' in {self.context.strip()!r}"


def measured_blocks(page: Path) -> list[tuple[int, str, str]]:
    """(line, date, command) of every measured block or span of a page."""
    text = page.read_text("utf-8")
    blocks = []
    for match in MEASURED.finditer(_without_code(text)):
        if "<!-- measured" in match.group("body"):
            raise FigureError(f"{page_name(page)}:{_line_of(text, match.start())}: measured "
                              "blocks do not nest")  # fmt: skip
        blocks.append((_line_of(text, match.start()), match.group("date"),
                       match.group("command").strip()))  # fmt: skip
    return blocks


def _phrase(phrase: str) -> str:
    """A NOT_MEASURED phrase as a pattern, wherever the page's lines break it."""
    return r"\s+".join(map(re.escape, phrase.split()))


def unmeasured(page: Path) -> list[Unmeasured]:
    """The page's time and size figures outside code, measured blocks and generated figures
    that NOT_MEASURED does not list."""
    text = page.read_text("utf-8")
    name = page_name(page)
    measured_blocks(page)
    masked = MEASURED.sub(_blank, _without_code(text))
    masked = FIGURE.sub(_blank, masked)
    allowed = [
        match.span()
        for listed, phrase in NOT_MEASURED
        if listed == name
        for match in re.finditer(_phrase(phrase), text)
    ]
    found = []
    for match in MEASUREMENT.finditer(masked):
        if any(start <= match.start() and match.end() <= end for start, end in allowed):
            continue
        line = _line_of(text, match.start())
        found.append(Unmeasured(name, line, match.group(0), text.splitlines()[line - 1]))
    return found


def stale_allowances() -> list[str]:
    """NOT_MEASURED entries whose phrase is on their page no more."""
    texts = {page_name(page): page.read_text("utf-8") for page in pages()}
    return [f"{page}: {phrase!r}" for page, phrase in NOT_MEASURED
            if not re.search(_phrase(phrase), texts.get(page, ""))]  # fmt: skip


# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lcb_conformance_dev.docs_figures",
        description="Write or check the figures of README.md and docs/ from the suite's data.",
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="write every page's figures")
    action.add_argument("--check", action="store_true", help="list what is not so (exit 1)")
    action.add_argument("--list", action="store_true", help="print every figure of the pages")
    parser.add_argument("--wheel", type=Path, help="a built wheel: its size and file count too")
    args = parser.parse_args(argv)
    try:
        built = wheel_figures(args.wheel) if args.wheel else None
        if args.list:
            for page in pages():
                for mark in marks(page):
                    print(f"{mark.where()}: {mark.spec} = {mark.value!r}")
            return exit_codes.OK
        if args.write:
            for name in write(built):
                print(f"wrote {name}")
            return exit_codes.OK
        problems = [str(d) for page in pages() for d in differences(page, built)]
        unmarked = [str(u) for page in pages() for u in unmeasured(page)]
        problems += [f"{UNMEASURED_ADVICE}:", *unmarked] if unmarked else []
        problems += [f"NOT_MEASURED lists a phrase no page has: {s}" for s in stale_allowances()]
    except (FigureError, JourneyError, OSError, report_files.ReportNotWritten) as error:
        print(f"docs_figures: {error}", file=sys.stderr)
        return exit_codes.UNUSABLE
    print("\n".join(problems) or "every figure is the suite's, every measurement dated")
    return exit_codes.DIFFERS if problems else exit_codes.OK


if __name__ == "__main__":
    sys.exit(main())
