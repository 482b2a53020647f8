"""The generated figures of README.md and docs/, computed from the suite's data or a wheel.

The generated figures of README.md and docs/, each computed from the suite's own data (the
case index, the golden families and their goldens, the fixtures, the style table, the release
manifests, the limits the code sets) or from a built wheel; ``compute`` gives a figure's text
from its spec (docs_figures.py writes and checks the pages)."""

from __future__ import annotations

import base64
import binascii
import json
import re
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

from hypothesis import settings

import lcb_prompts.extraction
import lcb_prompts.score
from lcb_conformance import releases, run_command
from lcb_conformance.adapters import untrusted
from lcb_conformance.common import paths
from lcb_conformance.reports import report
from lcb_conformance.reports import score as score_report
from lcb_conformance.run_audit import audit
from lcb_conformance.runner import contract, judge_timing, properties
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
from lcb_conformance_dev import (
    bench_figures,
    end_to_end_figures,
    hypothesis_profiles,
    journeys,
    layout_table,
    loaded_figures,
    peers,
    verdict_bench_figures,
)

WORDS = ":words"  # a figure spelt out: "six"
SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()


class FigureError(ValueError):
    """A page's marks cannot be read (unpaired, unknown, at the start of a busy line)."""


def _version_example() -> str:
    """`lcb-conformance --version` as an installed copy prints it, the family list cut short."""
    lines = run_command.version_text().splitlines()
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
        # a console block: test_docs_commands runs the command as written and finds every line
        ["```console", f"$ lcb-conformance score {command}", *lines, score_report.headline(report),
         "```"]  # fmt: skip
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
    "judge-rechecks-per-run": lambda: judge_timing.RECHECKS_PER_RUN,
    "judge-short-timeouts": _judge_short_timeouts,
    "judge-limit": lambda name: {
        "memory-gib": judge.MEMORY_LIMIT_BYTES // 2**30,
        "wall-margin": judge.CHILD_OVERHEAD_SECONDS,
        "parallel": judge.PARALLEL_CHILDREN,
    }[name],
    "sandbox": lambda name: {
        "process-limit": untrusted.PROCESS_LIMIT,
        "tree-memory-gib": untrusted.TREE_MEMORY_LIMIT_BYTES // 2**30,
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
    "fence-lines-visited": lambda: lcb_prompts.extraction.FENCE_LINES_VISITED,
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
    # the regrade benchmark's record (bench/regrade.json)
    **bench_figures.FIGURES,
    # the end-to-end regrade benchmark's record (bench/regrade-e2e.json)
    **end_to_end_figures.FIGURES,
    # the loaded-machine regrade benchmark's record (bench/regrade-loaded.json)
    **loaded_figures.FIGURES,
    # the time-to-first-verdict benchmark's record (bench/time-to-verdict.json)
    **verdict_bench_figures.FIGURES,
    # the journeys' map (docs/journeys.json): each journey page's box, its reader's total
    **journeys.FIGURES,
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
