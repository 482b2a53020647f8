"""The audited run's problem set, checked as `score` checks it.

The audited run's problem set, checked as score checks it: its question ids against the
releases (releases.py: the nearest by containment, the ids no release holds), its statements
against the release's digests (statements.py) where its file carries them, and the problems
of an lcb_runner file that hold no sample or whose output, code and verdict lists disagree in
length. A run declared ``--not-a-release`` is still compared, but neither foreign ids nor
other statements fail it; every view then says NOT A RELEASE. The release manifests are code
generation's: another scenario's problems (test output prediction's, code execution's) are
not checked, and that is said."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lcb_conformance import releases, statements
from lcb_conformance.common import json_stream, listing
from lcb_conformance.run_audit.request import CANNOT
from lcb_conformance.run_audit.request_logs import LCB_RUNNER
from lcb_conformance.run_formats import lcb_runner_files
from lcb_conformance.run_formats.samples import LogError

SHOWN = 12  # problems listed by id before "... and N more"
# the scenarios whose problems are code generation's (the release manifests')
CODE_GENERATION_PROBLEMS = (lcb_runner_files.CODE_GENERATION, lcb_runner_files.SELF_REPAIR)
NOT_A_RELEASE = "NOT A RELEASE"


def listed(ids) -> str:
    return listing.named(ids, SHOWN)


@dataclass
class ProblemSet:
    """What the run's problems are, and what of them could not be checked."""

    count: int = 0
    why_not: str = ""  # the ids were not compared with the releases, and why
    nearest: releases.Match | None = None
    in_no_release: tuple[str, ...] = ()
    statements: statements.StatementCheck | None = None
    empty: tuple[str, ...] = ()  # problems of the file holding no sample
    uneven: tuple[str, ...] = ()  # output_list, code_list, graded_list of other lengths
    not_a_release: bool = False

    def failures(self) -> list[str]:
        """Why the problem set fails the audit (exit 1), each in one line."""
        found = []
        if self.uneven:
            found.append(
                f"the file disagrees with itself: {len(self.uneven)} problems' output_list, "
                f"code_list and graded_list differ in length ({listed(self.uneven)})"
            )
        if self.not_a_release or self.why_not:
            return found
        if len(self.in_no_release) == self.count:
            found.append(
                f"none of the run's {self.count:,} problems is in any release: not a "
                "LiveCodeBench run (--not-a-release: audit it as the harness's own problems)"
            )
        elif self.in_no_release:
            found.append(
                f"{len(self.in_no_release):,} of the run's {self.count:,} problems are in no "
                f"release ({listed(self.in_no_release)})"
            )
        statement = self.statements
        if statement is not None and (statement.rewritten or statement.missing_fields):
            found.append(f"the problems are not the release's as the model saw them: "
                         f"{statement.summary()}")  # fmt: skip
        return found

    def incomplete(self) -> list[str]:
        """What leaves the audit short of the whole run (exit 4 when nothing differs)."""
        if not self.empty:
            return []
        return [
            f"{len(self.empty):,} of the {self.count:,} problems hold no sample (output_list "
            f"and code_list empty: none of them audited): {listed(self.empty)}"
        ]

    def not_checked(self) -> list[str]:
        """What of the problem set could not be checked on this file, for the headline."""
        if self.why_not:
            return ["the problem set"]
        declared = f"the problem set ({NOT_A_RELEASE}: --not-a-release)"
        found = [declared] if self.not_a_release else []
        if self.statements is None or not self.statements.carried:
            found.append("the statements (none in the file)")
        return found

    def words(self) -> str:
        """The problem set in one line."""
        if self.why_not:
            return f"problem set not checked: {self.why_not}"
        declared = f" ({NOT_A_RELEASE}: --not-a-release)" if self.not_a_release else ""
        where = self.nearest.words() if self.nearest else ""
        line = f"problem set: {self.count:,} problems{declared}; {where}"
        if self.statements is not None:
            line += f"\n{self.statements.summary()}"
        return line

    def record(self) -> dict:
        """The --json record."""
        nearest = self.nearest
        return {
            "count": self.count,
            "checked": not self.why_not,
            "why_not": self.why_not,
            "not_a_release": self.not_a_release,
            "nearest": None
            if nearest is None
            else {"tag": nearest.tag, "relation": nearest.relation.value, "words": nearest.words(),
                  "shared": nearest.shared, "size": nearest.size},  # fmt: skip
            "in_no_release": list(self.in_no_release),
            "statements": self.statements.record() if self.statements else None,
            "empty": list(self.empty),
            "uneven": list(self.uneven),
        }


def check(path: Path, found: str, scenario: str, samples: list, not_a_release: bool) -> ProblemSet:
    """The problem set of the audited run (an lcb_runner file re-read row by row; another
    harness's log: the problems its ``samples`` name, the audit's); LogError when no sample of
    it could be checked at all (a file with nothing to audit is unusable input)."""
    if not samples:
        raise LogError(f"{path}: no sample to audit (every problem's output_list is empty)")
    if all(s.prompt == s.extraction == CANNOT for s in samples):
        raise LogError(f"{path}: no sample could be checked (prompt or extraction): nothing to do")
    if found == LCB_RUNNER and scenario not in CODE_GENERATION_PROBLEMS:
        return ProblemSet(
            why_not=f"the release manifests are code generation's, not --scenario {scenario}'s"
        )
    rows = _rows(path) if found == LCB_RUNNER else _sample_rows(samples)
    ids = [row["question_id"] for row in rows]
    carried = [row for row in rows if statements.carries_statement(row)]
    return ProblemSet(
        count=len(ids),
        nearest=releases.closest(ids)[0],
        in_no_release=releases.foreign(ids),
        statements=statements.check(rows, releases.problems()) if carried else None,
        empty=tuple(row["question_id"] for row in rows if row.get("samples") == 0),
        uneven=tuple(row["question_id"] for row in rows if row.get("uneven")),
        not_a_release=not_a_release,
    )


def _rows(path: Path) -> list[dict]:
    """Each row's question_id, statement fields, sample count and whether its lists disagree
    in length (the audit has read the file whole before: it is well formed)."""
    found = []
    for _, row in json_stream.iter_array(path):
        lists = [row[name] for name in ("output_list", "code_list", "graded_list") if name in row]
        kept = {name: row[name] for name in statements.FIELDS if name in row}
        found.append(
            kept
            | {
                "question_id": str(row["question_id"]),
                "samples": len(row.get("output_list") or ()),
                "uneven": len({len(v) for v in lists if isinstance(v, list)}) > 1,
            }
        )
    return found


def _sample_rows(samples: list) -> list[dict]:
    """A log's problems, once each in the order its samples name them."""
    return [{"question_id": qid} for qid in dict.fromkeys(s.question_id for s in samples)]
