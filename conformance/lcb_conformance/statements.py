"""The problem set checked on what the model saw: each release problem's statement digest, and
a run's statements against them.

A problem's statement digest is the sha256 of its question_title, question_content and
starter_code as compact sorted-key JSON (ensure_ascii), the fields as LiveCodeBench's dataset
rows and lcb_runner's eval_all rows carry them. The digests are in
conformance/releases/statements.json, written by ``python -m lcb_conformance_dev.statements
build`` from public files only (each digest with the files it was read from and how many of
them agree); this module reads only that file. Standard library only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache

from lcb_conformance.common import listing, paths

MANIFEST_FILE = paths.RELEASES_DIR / "statements.json"
# What a statement digest covers, in the dataset's own field names.
FIELDS = ("question_title", "question_content", "starter_code")
# starter_code null is the "" a stdin problem's row holds, as lcb_runner 28fef95 shows it: its
# prompts test `if question.starter_code:` (lcb_runner/prompts/code_generation.py), and
# CodeGenerationProblem keeps the None, writing it back to eval_all as null.
NULL_IS_EMPTY = ("starter_code",)
IDS_SHOWN = 20  # problems named per kind of mismatch before "... and N more"


def _shown(row: Mapping, field: str) -> object:
    """The field as lcb_runner's prompt shows it."""
    return "" if field in NULL_IS_EMPTY and row[field] is None else row[field]


def digest(row: Mapping) -> str:
    """sha256 of a row's FIELDS (as shown: _shown) as compact sorted-key JSON (ensure_ascii)."""
    fields = {field: _shown(row, field) for field in FIELDS}
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def carries_statement(row: Mapping) -> bool:
    return all(field in row and isinstance(_shown(row, field), str) for field in FIELDS)


@cache
def manifest() -> dict:
    return json.loads(MANIFEST_FILE.read_text("utf-8"))


def release_digests() -> dict[str, str]:
    """question_id -> its statement digest, for every problem the manifest covers."""
    return {qid: entry["digest"] for qid, entry in manifest()["problems"].items()}


def uncovered() -> dict[str, str]:
    """question_id -> why the manifest holds no digest of it."""
    return dict(manifest()["uncovered"])


@dataclass(frozen=True)
class StatementCheck:
    """A run's statements against the release's, problem by problem."""

    carried: bool  # the run's file carries the statements (else nothing could be checked)
    checked: int  # problems whose statement was compared with the release's digest
    rewritten: tuple[str, ...]  # in the release, with another statement
    foreign: tuple[str, ...]  # in no release's manifest of statements or problems
    not_covered: tuple[str, ...]  # release problems the manifest has no digest of
    missing_fields: tuple[str, ...]  # rows lacking one of FIELDS when the others carry them

    @property
    def matches(self) -> bool:
        """Every statement checked and the release's: the only state that is ever green."""
        return self.carried and not (
            self.rewritten or self.foreign or self.not_covered or self.missing_fields
        )

    @property
    def differs(self) -> bool:
        return bool(self.rewritten or self.foreign or self.missing_fields)

    def summary(self) -> str:
        """One line for the console and the page."""
        if not self.carried:
            return "statements: the file carries no question_content: could not be checked"
        parts = [f"statements: {self.checked} checked against the release's digests"]
        for label, ids in (
            ("rewritten", self.rewritten),
            ("in no release", self.foreign),
            ("lacking a statement field", self.missing_fields),
            ("with no public digest (not checked)", self.not_covered),
        ):
            if ids:
                parts.append(f"{len(ids)} {label}: {listing.named(ids, IDS_SHOWN)}")
        return "; ".join(parts) if len(parts) > 1 else parts[0] + ", every one the release's"

    def record(self) -> dict:
        """The --json record."""
        return {
            "carried": self.carried,
            "checked": self.checked,
            "matches": self.matches,
            "rewritten": list(self.rewritten),
            "foreign": list(self.foreign),
            "not_covered": list(self.not_covered),
            "missing_fields": list(self.missing_fields),
        }


def check(rows: Iterable[Mapping], known_ids: Iterable[str] = ()) -> StatementCheck:
    """The run's rows (one per problem, as its file holds them) against the manifest.
    ``known_ids`` are the release problems (releases.py): an id outside them and the
    manifest is foreign."""
    rows = list(rows)
    carrying = [row for row in rows if carries_statement(row)]
    if not carrying:
        return StatementCheck(False, 0, (), (), (), ())
    digests, gaps, known = release_digests(), uncovered(), set(known_ids)
    rewritten, foreign, not_covered, missing = set(), set(), set(), set()
    checked = set()
    for row in rows:
        qid = str(row.get("question_id"))
        if not carries_statement(row):
            missing.add(qid)
        elif qid in digests:
            checked.add(qid)
            if digest(row) != digests[qid]:
                rewritten.add(qid)
        elif qid in gaps:
            not_covered.add(qid)
        elif qid not in known:
            foreign.add(qid)
        else:  # a release problem neither digested nor named: the manifest is incomplete
            not_covered.add(qid)
    return StatementCheck(
        True,
        len(checked),
        tuple(sorted(rewritten)),
        tuple(sorted(foreign)),
        tuple(sorted(not_covered)),
        tuple(sorted(missing)),
    )
