"""A pytest session's outcomes as its JUnit XML record holds them (``--junitxml FILE``): what a
test running pytest in a subprocess reads, rather than pytest's console."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"


@dataclass(frozen=True)
class Outcome:
    test: str  # as pytest names it: the function, its parameters in brackets
    classname: str  # the dotted path of its module (and class)
    outcome: str  # PASSED, FAILED (an error too) or SKIPPED
    text: str  # what a failure or a skip says (pytest's report of it); "" for a pass

    @property
    def parameters(self) -> str:
        """The bracketed part of the name: a golden case's key."""
        return self.test.split("[", 1)[1].rsplit("]", 1)[0] if "[" in self.test else ""


def outcomes(junit: Path) -> list[Outcome]:
    """Every test case of the session, in the record's order."""
    found = []
    for case in ElementTree.parse(junit).iter("testcase"):
        marks = [mark for mark in case if mark.tag in ("failure", "error", "skipped")]
        outcome = PASSED if not marks else SKIPPED if marks[0].tag == "skipped" else FAILED
        text = "\n".join(f"{mark.get('message', '')}\n{mark.text or ''}" for mark in marks)
        found.append(Outcome(case.get("name"), case.get("classname"), outcome, text))
    return found


def counts(found: list[Outcome]) -> Counter:
    """Test cases per outcome."""
    return Counter(outcome.outcome for outcome in found)
