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
style table, the release manifests, the limits the code sets) and writes the pages;
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
import base64
import binascii
import json
import re
import sys
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hypothesis import settings

import lcb_prompts.extraction
import lcb_prompts.score
from lcb_conformance import cli, releases
from lcb_conformance.common import exit_codes, paths, report_files
from lcb_conformance.reports import report
from lcb_conformance.reports import score as score_report
from lcb_conformance.run_audit import audit
from lcb_conformance.runner import contract, properties
from lcb_conformance.suite import (
    cases,
    deviations,
    families,
    goldens,
    index,
    judge_cases,
    scenario_cases,
    scenarios,
    score_cases,
    styles,
)
from lcb_conformance.suite.families import request, scenario_prompt, score
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.tokenizer_checks import tokenizer_diff
from lcb_conformance.upstream import differential, judge
from lcb_conformance_dev import hypothesis_profiles, layout_table, peers

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
    ("docs/judge-sandbox.md", "a new pid every 20 ms"),  # a test program's pace
    ("docs/judge-sandbox.md", "a 5 GiB allocation"),  # a test program's request, above the limit
    ("docs/score-goldens.md", "the contest date + 24 h in UTC"),  # the site's date rule
    ("docs/hardening.md", "4 KiB tokens"),  # how the contract cuts its 10 MB context
    # lcb_prompts' scenario scorers' limits (scenario_scoring.py) and lcb_runner's 3 s
    ("docs/lcb_prompts.md", "a 4 GiB address"),
    ("docs/lcb_prompts.md", "lcb_runner's 3 s per code execution answer"),
    ("docs/lcb_prompts.md", "here 10 s."),
)
UNMEASURED_ADVICE = (
    "time or size figures outside a measured block: put each in <!-- measured YYYY-MM-DD: "
    "COMMAND --> … <!-- /measured -->, make it a generated figure, or (a constant, not a "
    "measurement) list it in lcb_conformance_dev.docs_figures.NOT_MEASURED"
)
WORDS = ":words"  # a figure spelt out: "six"
SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()


class FigureError(ValueError):
    """A page's marks cannot be read (unpaired, unknown, at the start of a busy line)."""


# ---------------------------------------------------------------------------------------------
# The figures, each computed from the suite's own data.


def _version_example() -> str:
    """`lcb-conformance --version` as an installed copy prints it, the family list cut short."""
    lines = cli.version_text().splitlines()
    for number, line in enumerate(lines):
        if re.match(r"goldens: \d+ \(", line):
            head, _, counts = line.partition("(")
            lines[number] = f"{head}({', '.join(counts.split(', ')[:3])}, …)"
        if line.startswith("suite data: "):
            lines[number] = "suite data: …/site-packages/lcb_conformance/data (installed)"
    return "\n".join(["```", *lines, "```"])


def _styles_table() -> str:
    """docs/styles.md's table: each lcb_runner LMStyle (those sharing a mapping on one row),
    what lcb_runner sends, and the lcb_prompts call giving it (suite/styles.py's MAPPINGS)."""
    rows: dict[styles.StyleMapping, list[str]] = {}
    for name, mapping in styles.MAPPINGS.items():
        if name not in styles.NOT_LCB_RUNNER:
            rows.setdefault(mapping, []).append(name)
    lines = ["| lcb_runner LMStyle | sends | `lcb_prompts` |", "|---|---|---|"]
    for mapping, names in rows.items():
        call = f"`{mapping.calls()[0]}`" if mapping.style else "—"
        cells = [", ".join(f"`{name}`" for name in names), mapping.sends, call]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def _comparability_excerpt(*rows: str) -> str:
    """The comparability matrix golden (transformers 5): its column header and the rows named
    by "style,tokenizer,thinking", then an ellipsis."""
    lines = goldens.read(GoldenKey("comparability", "", "transformers-5")).splitlines()
    header = next(line for line in lines if line.split()[:2] == ["style", "tokenizer"])
    wanted = [tuple(row.split(",")) for row in rows]
    picked = [line for line in lines if tuple(line.split()[:3]) in wanted]
    return "\n".join(["```", header, *picked, "…", "```"])


def _lm_styles() -> dict:
    """The reference lcb_runner's LMStyle names and model list (the lm-styles golden)."""
    return json.loads(goldens.read(GoldenKey(goldens.LM_STYLES, "", goldens.LM_STYLES_CASE)))


def _prompting_lmstyles() -> list[str]:
    return [name for name in _lm_styles()["LMStyle"] if styles.mapping_for(name).style]


def _lmstyles_like(lmstyle: str) -> int:
    """The LMStyles that send what this one sends (its mapping)."""
    return sum(1 for mapping in styles.MAPPINGS.values() if mapping == styles.MAPPINGS[lmstyle])


def _judge_problems(kind: str = "all") -> int:
    def plain(row: dict) -> bool:
        return row["private_test_cases"].lstrip().startswith("[")

    def decodable(row: dict) -> bool:
        try:
            zlib.decompress(base64.b64decode(row["private_test_cases"], validate=True))
        except (binascii.Error, zlib.error, ValueError):
            return False
        return True

    kinds = {
        "all": lambda row: True,
        "stdin": lambda row: row["platform"] != "leetcode",
        "leetcode": lambda row: row["platform"] == "leetcode",
        "func-name": lambda row: "func_name" in json.loads(row["metadata"]),
        "plain-json": plain,
        "undecodable": lambda row: not plain(row) and not decodable(row),
    }
    return sum(1 for row in judge_cases.problems().values() if kinds[kind](row))


def _judge_cases(category: str | None = None) -> int:
    if category is not None and category not in judge_cases.CATEGORIES:
        raise FigureError(f"{category!r} is not a judge category")
    found = judge_cases.judge_cases().values()
    return sum(1 for case in found if category in (None, case.category))


def _judge_short_timeouts() -> str:
    """The per-test timeouts of the corpus's run-forever cases (all but lcb_runner's)."""
    found = {case.timeout for case in judge_cases.judge_cases().values()}
    other = sorted(found - {judge_cases.DEFAULT_TIMEOUT})
    return f"{other[0]}–{other[-1]}" if len(other) > 1 else str(other[0])


def _token_ids(what: str) -> int:
    """The token-id goldens of one transformers line: their cases, problems, styles, tokenizer
    families; and the files that differ between the two lines."""
    keys = families.expected_keys("token-ids")
    lines = sorted({key.group.split("/")[0] for key in keys})
    first = [key for key in keys if key.group.startswith(lines[0] + "/")]
    if what == "differing-between-lines":
        def on(line: str, key: GoldenKey) -> str | None:
            return goldens.read(GoldenKey(key.family, key.group.replace(lines[0], line, 1),
                                          key.case))  # fmt: skip

        return sum(1 for key in first if on(lines[0], key) != on(lines[-1], key))
    select = {
        "per-line": lambda key: key,
        "problems": lambda key: key.case.split("__", 1)[1],
        "styles": lambda key: key.case.split("__", 1)[0],
        "tokenizers": lambda key: key.group,
    }[what]
    return len({select(key) for key in first})


def _release(tag: str) -> int:
    return releases.manifest()["tags"][tag]["count"]


def _window(name: str, count: str = "count") -> int:
    return releases.manifest()["windows"][name][count]


def _score(what: str) -> str | int:
    """The O1-Mini submission over 2024-09-01..2025-02-01 as lcb_runner and the leaderboard
    score it (the score goldens), and the problems dated the day before, which only the
    leaderboard counts."""
    run, window = "o1_mini", score_cases.window_id("2024-09-01", "2025-02-01")

    def leaderboard(zone: str = score_cases.UTC) -> dict:
        key = GoldenKey(score.LEADERBOARD, score_cases.zone_folder(zone), f"{run}__{window}")
        return json.loads(goldens.read(key))

    rows = score_cases.run_rows(run)
    day_before = [row for row in rows if row["contest_date"].startswith("2024-08-31")]
    if what.startswith("day-before-at-"):
        time = what.removeprefix("day-before-at-")
        return sum(1 for row in day_before if row["contest_date"][11:16] == time)
    lcb_runner = json.loads(goldens.read(GoldenKey(score.LCB_RUNNER, run, window)))
    shown = leaderboard()
    counted = set(shown["question_ids"])
    mean = 100 * sum(row["pass@1"] for row in rows if row["question_id"] in counted) / len(counted)
    if what.startswith("published-"):
        return _published(what.removeprefix("published-"), rows, window)
    return {
        "lcb-runner-problems": lcb_runner["count"],
        "lcb-runner-percent": f"{lcb_runner['pass@k']['1']['all'] * 100:.2f}",
        "lcb-runner-pass1": f"{lcb_runner['pass@k']['1']['all']}",
        "leaderboard-problems": shown["count"],
        "leaderboard-shown": f"{shown['Pass@1']}",
        "leaderboard-mean": f"{mean:.2f}",
        "day-before": len(day_before),
        "los-angeles-problems": leaderboard("America/Los_Angeles")["count"],
    }[what]


def _published(what: str, rows: list[dict], window: str) -> str | int:
    """What the site published for O1-Mini over the window (its own code on its own data, as
    fixtures/score/build.py recorded it), and on how many problems its data and the submitted
    file differ."""
    folder, model = score_cases.SCORE_FIXTURES_DIR, "O1-Mini-2024-09-12 (N=1)"
    if what == "shown":
        sources = json.loads((folder / "sources.json").read_text("utf-8"))
        return f"{sources['published-2025-01-15.json']['site_shows'][window][model]['Pass@1']}"
    data = score_report.read_published(
        folder / "published-2025-01-15.json", model, folder / "o1-mini-2024-09-12.json"
    )
    start, end = window.split("_")
    return len(score_report.published_view(data, rows, start, end, score_cases.UTC)["differences"])


# `lcb-conformance score` on the O1-Mini submission (docs/score.md): the command line's options,
# and the first words of the output lines shown.
SCORE_EXAMPLES = {
    "claim": (("--claim", "53.7"), ("    ", "lcb_runner's", "the leaderboard", "  as", "claim")),
    "published": (
        ("--published", "published-2025-01-15.json", "--model", "O1-Mini-2024-09-12 (N=1)"),
        ("    ", "the leaderboard", "  as", "published:", "  4 problems"),
    ),
}


def _score_example(name: str) -> str:
    """What `lcb-conformance score` prints for the O1-Mini submission over 2024-09-01..2025-02-01
    (an example of SCORE_EXAMPLES): the lines shown, and the headline."""
    options, shown = SCORE_EXAMPLES[name]
    folder = score_cases.SCORE_FIXTURES_DIR
    argv = [
        str(folder / "o1-mini-2024-09-12.json"),
        "--window",
        "2024-09-01:2025-02-01",
        *(str(folder / o) if o.endswith(".json") else o for o in options),
    ]
    report = score_report.build(score_report.parser().parse_args(argv))
    lines = [line for line in score_report.render(report).splitlines() if line.startswith(shown)]
    command = " ".join(f'"{o}"' if " " in o else o for o in argv)
    text = "\n".join(
        ["```", f"$ lcb-conformance score {command}", *lines, score_report.headline(report), "```"]
    )
    return text.replace(f"{paths.ROOT}/", "")


def _hypothesis_long_factor() -> int:
    ci = settings.get_profile(hypothesis_profiles.DEFAULT).max_examples
    return settings.get_profile("long").max_examples // ci


def _context_limits() -> str:
    limits = tokenizer_diff.CONTEXT_LIMITS
    return f"{limits[0] // 1024}k to {limits[-1] // 1024}k"


def _scenario_raising_lmstyles(scenario: str) -> int:
    mode = scenarios.DIRECT if scenarios.get(scenario).modes else None
    return sum(
        1
        for lmstyle in scenario_cases.LMSTYLES
        if scenario_prompt.raised_for(scenario, mode, lmstyle) is not None
    )


FIGURES: dict[str, Callable[..., int | str]] = {
    # blocks
    "version-example": _version_example,
    "styles-table": _styles_table,
    "request-table": lambda: "\n".join(request.summary_lines()),
    "comparability-excerpt": _comparability_excerpt,
    "layout-modules": layout_table.table,
    # the fixtures and the case index
    "problems": lambda: len(cases.problems()),
    "problems-starter-code-none": lambda: sum(
        1 for row in cases.problems().values() if row.get("starter_code") is None
    ),
    "row-keys": lambda: len(next(iter(cases.problems().values()))),
    "outputs": lambda: len(cases.outputs()),
    "tokenizers": lambda: len(cases.CHAT_TOKENIZERS),
    "deviations": lambda: len(deviations.ids()),
    "deviation-outputs": lambda: len({output for output, _ in deviations.think_deviations()}),
    "score-cases": lambda: sum(1 for case in index.held_cases() if case["family"] in
                               (score.PASS_K, score.LCB_RUNNER, score.LEADERBOARD)),  # fmt: skip
    "token-ids": _token_ids,
    "context-limits": _context_limits,
    # lcb_runner's LMStyles and models, the style table
    "styles": lambda: len(styles.EXTRACTION_LMSTYLES),
    "lmstyles": lambda: len(_lm_styles()["LMStyle"]),
    "models": lambda: len(_lm_styles()["LanguageModelList"]),
    "models-with-a-style": lambda: sum(
        1 for model in _lm_styles()["LanguageModelList"] if model[2] in _prompting_lmstyles()
    ),
    "prompting-lmstyles": lambda: len(_prompting_lmstyles()),
    "message-lmstyles": lambda: sum(
        1 for name in _prompting_lmstyles() if styles.mapping_for(name).messages
    ),
    "lmstyles-like": _lmstyles_like,
    "differential-variants": lambda: len(differential.VARIANTS),
    # the judge corpus and the limits the judge runs under
    "judge-problems": _judge_problems,
    "judge-cases": _judge_cases,
    "judge-category": _judge_cases,
    "judge-categories": lambda: len(judge_cases.CATEGORIES),
    "judge-default-timeout": lambda: judge_cases.DEFAULT_TIMEOUT,
    "judge-short-timeouts": _judge_short_timeouts,
    "judge-limit": lambda name: {
        "memory-gib": judge.MEMORY_LIMIT_BYTES // 2**30,
        "wall-margin": judge.CHILD_OVERHEAD_SECONDS,
        "parallel": judge.PARALLEL_CHILDREN,
    }[name],
    # the release manifests and the score goldens
    "release": _release,
    "release-counts": lambda *tags: " / ".join(f"{_release(tag):,}" for tag in tags),
    "exact-release-tags": lambda: ", ".join(
        f"`{tag}`" for tag, entry in releases.manifest()["tags"].items() if entry["exact"]
    ),
    "window": _window,
    "score": _score,
    "score-example": _score_example,
    "score-significant-digits": lambda: score.SIGNIFICANT_DIGITS,
    "leaderboard-rows": lambda: lcb_prompts.score.LEADERBOARD_ROWS,
    # limits the code sets
    "contract-input-mb": lambda: contract.TEN_MB // 2**20,
    "property-examples": lambda: properties.BUDGET,
    "report-limit": lambda name: {
        "html-diffs": report.HTML_DIFFS,
        "side-by-side": report.SIDE_BY_SIDE_LIMIT,
    }[name],
    "fence-lines-visited": lambda: lcb_prompts.extraction._FEW,
    "hypothesis-long-factor": _hypothesis_long_factor,
    "peers": lambda: len(peers.PEERS),
    # the run audit and its fixtures
    "audit-formats": lambda: len(audit.FORMATS) - 1,  # all but "auto"
    "audit-fixture-runs": lambda harness: sum(
        1 for run in (cases.FIXTURES_DIR / "audit" / harness).iterdir() if run.is_dir()
    ),
    # the LMStyles lcb_runner raises for in a scenario (its expected-error goldens; code
    # execution's direct prompt)
    "scenario-raising-lmstyles": _scenario_raising_lmstyles,
}
# Figures of a build, not of the suite's data: given by wheel_figures.
BUILT = ("wheel-size-mb", "wheel-files")


def wheel_figures(wheel: Path) -> dict[str, str]:
    """The figures of a built wheel: its size in MB and its number of files."""
    try:
        files = len(zipfile.ZipFile(wheel).namelist())
    except (OSError, zipfile.BadZipFile) as error:
        raise FigureError(f"--wheel {wheel}: not a wheel ({error})") from None
    return {"wheel-size-mb": f"{wheel.stat().st_size / 1e6:.1f}", "wheel-files": f"{files:,}"}


def compute(spec: str, built: dict[str, str] | None = None) -> str | None:
    """A figure's text; None for a built figure when no build is given."""
    words = spec.endswith(WORDS)
    name, *arguments = spec.removesuffix(WORDS).split()
    if name in BUILT:
        return None if built is None else built[name]
    if name not in FIGURES:
        raise FigureError(f"unknown figure {name!r} (known: {', '.join(sorted(FIGURES))})")
    try:
        value = FIGURES[name](*arguments)
    except (KeyError, TypeError) as error:  # an argument the figure does not know, or lacks
        raise FigureError(f"figure '{spec}': {type(error).__name__}: {error}") from None
    if words:
        if not isinstance(value, int) or not 0 <= value < len(SMALL):
            raise FigureError(f"{spec}: {value!r} cannot be spelt out")
        return SMALL[value]
    return f"{value:,}" if isinstance(value, int) else value


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
    except (FigureError, OSError, report_files.ReportNotWritten) as error:
        print(f"docs_figures: {error}", file=sys.stderr)
        return exit_codes.UNUSABLE
    print("\n".join(problems) or "every figure is the suite's, every measurement dated")
    return exit_codes.DIFFERS if problems else exit_codes.OK


if __name__ == "__main__":
    sys.exit(main())
