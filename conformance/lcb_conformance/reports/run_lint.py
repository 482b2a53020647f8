"""The run's own faults (a lint): outputs cut inside a code block, `###` among the stops,
unclosed `<think>`, no code extracted, token limits, mixed n, ERRATA's problems; never the
number, never the exit code.

Each finding is typed ({"kind", "count", "samples" or "problems", "words"}); score, audit and
regrade show the same findings as a section of their own ("lint:"). ERRATA's problems
(conformance/releases/errata.json, from LiveCodeBench's ERRATA.md at the pinned commit, by
`python -m lcb_conformance_dev.errata`) are counted in the window and the figure without them
given beside the official one, by the same aggregation (reports/score_figures.py).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from lcb_conformance.common import paths
from lcb_conformance.reports.page_style import escape

FENCE = "```"
THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
LCB_RUNNER_STOP = "###"  # lcb_runner/runner/parser.py's --stop default at 28fef95
SHOWN = 12  # samples or problems named before "... and N more"

CUT = "cut_in_code_block"
STOP_HASHES = "stop_hashes"
THINK_UNCLOSED = "think_unclosed"
NO_CODE = "no_code"
TOKEN_LIMIT = "token_limit"
MIXED_N = "mixed_n"
ERRATA = "errata"
OUTPUTS_NOT_RECORDED = "outputs_not_recorded"  # no raw output: nothing reading them checked


def errata() -> dict:
    """conformance/releases/errata.json: its source and problems."""
    return json.loads((paths.RELEASES_DIR / "errata.json").read_text(encoding="utf-8"))


@dataclass
class Lint:
    """The samples' faults, gathered one sample at a time (a reader streams them)."""

    cut: list[str] = field(default_factory=list)
    think_unclosed: list[str] = field(default_factory=list)
    think_empty: int = 0  # of think_unclosed, those with no code extracted
    no_code: list[str] = field(default_factory=list)
    sizes: Counter = field(default_factory=Counter)  # question_id -> samples
    outputs: int = 0

    def add(self, question_id: str, index: int, output: str | None, code: str | None,
            faults: list[str] | None = None) -> None:  # fmt: skip
        """One sample: its raw output (None: not recorded) and the code extracted from it;
        ``faults``: output_faults' of the output, where only they were kept (a regrade's file)."""
        name = f"{question_id}#{index}"
        self.sizes[question_id] += 1
        if code is not None and not code.strip():
            self.no_code.append(name)
        if faults is None and output is None:
            return
        self.outputs += 1
        faults = output_faults(output) if faults is None else faults
        if CUT in faults:
            self.cut.append(name)
        if THINK_UNCLOSED in faults:
            self.think_unclosed.append(name)
            self.think_empty += not code


def output_faults(output: str) -> list[str]:
    """What a raw output shows of itself: cut inside a code block, a <think> never closed."""
    found = [CUT] if output.count(FENCE) % 2 else []
    if THINK_OPEN in output and THINK_CLOSE not in output.rpartition(THINK_OPEN)[2]:
        found.append(THINK_UNCLOSED)
    return found


def _named(names) -> str:
    names = sorted(names)
    more = f", ... and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return ", ".join(names[:SHOWN]) + more


def _stop_finding(stop) -> dict:
    """`###` among the request's stops (lcb_runner's default --stop); stop: the recorded stops,
    or None when the run's files do not record them."""
    why = (
        'lcb_runner\'s default --stop is "###" (lcb_runner/runner/parser.py), sent by its vllm '
        "runner (its API runners send no stop): an answer writing \"### Solution code\" before "
        "its code is cut there and loses the code (upstream PR #117)"
    )
    if stop is None:
        return {
            "kind": STOP_HASHES,
            "recorded": False,
            "count": 0,
            "words": f"stop not recorded; {why}",
        }
    held = [s for s in stop if isinstance(s, str) and LCB_RUNNER_STOP in s]
    words = f'the request\'s stop {json.dumps(stop)} holds "###"; {why}' if held else ""
    return {"kind": STOP_HASHES, "recorded": True, "count": len(held), "words": words}


def _samples(kind: str, names: list[str], words: str, recorded: bool, **more) -> dict:
    said = f"{len(names)} {words}: {_named(names)}" if names else ""
    return {"kind": kind, "recorded": recorded, "count": len(names), "samples": sorted(names),
            **more, "words": said}  # fmt: skip


def sample_findings(lint: Lint, stop=None, tokens_recorded: bool = False) -> list[dict]:
    """The samples' findings; every kind is listed (count 0, no words, when none is found;
    ``recorded`` false when the run's files do not hold what it reads)."""
    recorded = lint.outputs > 0
    found = [
        _samples(CUT, lint.cut, "outputs end inside an open code block (an odd number of ``` "
                 "fences): the answer was cut (a stop string or the token limit)", recorded),
        _stop_finding(stop),
        _samples(THINK_UNCLOSED, lint.think_unclosed, "outputs open <think> and never close it "
                 f"({lint.think_empty} with no code extracted; upstream issue #121): lcb_runner "
                 "28fef95 does nothing with </think>, its extract_code reads the ``` lines of "
                 "the whole output, reasoning included (lcb_runner/utils/extraction_utils.py)",
                 recorded, without_code=lint.think_empty),
        _samples(NO_CODE, lint.no_code, "outputs with no code extracted", recorded),
        {"kind": TOKEN_LIMIT, "recorded": tokens_recorded, "count": 0,
         "words": "outputs at the request's token limit: not recorded (the run's files hold no "
         "token counts)"},
    ]  # fmt: skip
    if not recorded:
        found.insert(0, {"kind": OUTPUTS_NOT_RECORDED, "recorded": False, "count": 0,
                         "words": "raw outputs not recorded: cut answers, unclosed <think> and "
                         "missing code not checked"})  # fmt: skip
    spread = Counter(lint.sizes.values())
    found.append(
        {
            "kind": MIXED_N,
            "count": len(spread) if len(spread) > 1 else 0,
            "problems_by_n": [{"n": n, "problems": c} for n, c in sorted(spread.items())],
            "words": "problems with different numbers of samples: "
            + ", ".join(f"{c} with n={n}" for n, c in sorted(spread.items()))
            if len(spread) > 1
            else "",
        }
    )
    return found


def errata_finding(question_ids, official: float | None, without: float | None) -> dict:
    """ERRATA's problems among ``question_ids`` (the scope's), and the figure without them."""
    data = errata()
    held = set(question_ids)
    named = [p for p in data["problems"] if p["question_id"] in held]
    kinds = Counter(p["kind"] for p in named)
    source = data["source"]
    listed = ", ".join(
        f"{p['question_id']} ("
        + (f"{p['named']}, " if p["named"] != p["question_id"] else "")
        + f"{p['kind']})"
        for p in named
    )
    words = (
        f"{len(named)} problems in ERRATA.md ({source['repository']} {source['commit'][:7]}: "
        "judge known wrong): "
        + ", ".join(f"{c} {k}" for k, c in sorted(kinds.items()))
        + f": {listed}"
        + (
            f"; pass@1 without them {_percent(without)} (official {_percent(official)}, which "
            "stays the number)"
            if official is not None
            else ""
        )
        if named
        else ""
    )
    return {
        "kind": ERRATA,
        "count": len(named),
        "problems": [
            {"question_id": p["question_id"], "named": p["named"], "kind": p["kind"]} for p in named
        ],
        "by_kind": dict(sorted(kinds.items())),
        "official": official,
        "without_errata": without,
        "source": source,
        "words": words,
    }


def recorded_stop(shown_stop: str | None) -> list | None:
    """The stops a request check shows (run_audit.request.shown's words), as a list; None when
    not recorded."""
    if shown_stop is None or shown_stop == "not recorded":
        return None
    if shown_stop == "not sent":
        return []
    try:
        value = json.loads(shown_stop)
    except ValueError:
        return [shown_stop]
    return value if isinstance(value, list) else [value]


def errata_ids() -> set[str]:
    return {p["question_id"] for p in errata()["problems"]}


def _percent(value) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def lines(findings: list[dict]) -> list[str]:
    """The lint section as text: one line per finding with something to say."""
    said = [f"  - {f['words']}" for f in findings if f["words"]]
    return [
        "",
        "lint (the run's own faults; they change neither the number nor the exit code):",
    ] + (said or ["  - nothing found"])


def html(findings: list[dict]) -> list[str]:
    """The lint section of a page: a table of the findings with something to say."""
    said = [f for f in findings if f["words"]]
    rows = "".join(
        f"<tr><td>{escape(f['kind'])}</td><td>{f['count']}</td><td>{escape(f['words'])}</td></tr>"
        for f in said
    )
    return [
        '<h2 id="lint">Lint: the run\'s own faults (the number and the exit code unchanged)</h2>',
        "<table><thead><tr><th>kind</th><th>count</th><th>finding</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
        if said
        else "<p>nothing found</p>",
    ]
