"""A judge case whose difference may be the machine's load: why (upstream/timing.py's rule on
its golden and its answer), and its re-run alone, which settles it only by giving the golden.

lcb_runner's judge limits each test by wall-clock time, so on a loaded machine a right
program can come back a time limit (or a slow wrong one a wrong answer). Such a case is re-run
once, alone; the results file keeps both answers (``actual``: the first; ``rechecked``: the
re-run's), and runner/records.py derives the status again from them. A difference is never
excused for being timing-sensitive: only a re-run giving the golden makes it identical.
"""

from __future__ import annotations

import json

from lcb_conformance.runner.results import DIFFERS, IDENTICAL, WHITESPACE, CaseResult
from lcb_conformance.suite import goldens
from lcb_conformance.upstream import timing

# Timing-sensitive differences re-run alone, at most, in a run: a judge whose every answer is
# a time limit is not a loaded machine, and each re-run is a child of its own.
RECHECKS_PER_RUN = 10


def sensitivity(result: CaseResult) -> str | None:
    """Why a judge case's first answer may be the machine's load ("pass vs time limit":
    golden first), or None: the rule on the golden it was held to and the answer it holds."""
    if result.family != goldens.JUDGE or None in (result.actual, result.golden):
        return None
    held = goldens.read(goldens.key_of(result.golden))
    try:
        golden, answer = json.loads(held or "null"), json.loads(result.actual)
    except ValueError:  # an answer that is no verdict: nothing to say about its timing
        return None
    if held == result.actual or not isinstance(golden, dict) or not isinstance(answer, dict):
        return None
    return timing.judged_sensitive(golden, answer)


def to_recheck(found: list[CaseResult]) -> list[CaseResult]:
    """The differing timing-sensitive judge cases re-run alone, in order, up to the cap."""
    differing = [r for r in found if r.status in (DIFFERS, WHITESPACE) and r.timing_sensitive]
    return differing[:RECHECKS_PER_RUN]


def settled(result: CaseResult, rechecked: str, compared: dict) -> None:
    """Record the re-run's answer (as golden text) and, when it is the golden (``compared``:
    run.compare's on it), the case identical; otherwise it still differs, as it first did."""
    result.rechecked = rechecked
    if compared["status"] == IDENTICAL:
        result.status, result.difference = IDENTICAL, None
        result.reason = "identical when re-run alone (its first answer was timing-sensitive)"
        result.deviation = compared.get("deviation")
        result.upstream_identical = compared.get("upstream_identical")
