"""The problem-set manifests: every release tag's and leaderboard window's problems, count,
sha256; a run's problem set against them.

Which problems a LiveCodeBench release tag or leaderboard window holds: the manifests in
conformance/releases/ (problems.jsonl, one row per problem of release_latest with the dataset
file it is in; releases.json, every tag's files, count and sha256, what is exact and what is
derived, the leaderboard's windows, and the sha256 of each file LiveCodeBench published),
written by conformance/releases/build.py from public facts (docs/score-goldens.md). Standard library
only.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from lcb_conformance.common import paths

PROBLEMS_FILE = paths.RELEASES_DIR / "problems.jsonl"
MANIFEST_FILE = paths.RELEASES_DIR / "releases.json"
FILES = ("test.jsonl", "test2.jsonl", "test3.jsonl", "test4.jsonl", "test5.jsonl", "test6.jsonl")
VERSIONS = tuple(f"v{number}" for number in range(1, len(FILES) + 1))
LATEST = "release_latest"
# The fields a problem set's sha256 covers.
FIELDS = ("question_id", "contest_date", "difficulty", "platform")


def tag_files() -> dict[str, list[str]]:
    """Every version tag the dataset's loader accepts, and its files (code_generation_lite.py:
    release_vN = test..testN, release_latest = all, vN = testN, vA_vB = testA..testB)."""
    mapping = {f"release_{v}": list(FILES[: i + 1]) for i, v in enumerate(VERSIONS)}
    mapping[LATEST] = list(FILES)
    for i, version in enumerate(VERSIONS):
        mapping[version] = [FILES[i]]
    for a in range(len(FILES)):
        for b in range(a + 1, len(FILES)):
            mapping[f"{VERSIONS[a]}_{VERSIONS[b]}"] = list(FILES[a : b + 1])
    return mapping


def problem_set_sha256(rows) -> str:
    """sha256 of a problem set: each row's FIELDS as compact sorted-key JSON, one line each,
    in question_id order."""
    lines = sorted(
        json.dumps({f: row[f] for f in FIELDS}, sort_keys=True, separators=(",", ":"))
        for row in rows
    )
    return hashlib.sha256("".join(line + "\n" for line in lines).encode()).hexdigest()


@cache
def problems() -> dict[str, dict]:
    """question_id -> its row (contest_date, difficulty, platform, file, how each is known)."""
    with PROBLEMS_FILE.open(encoding="utf-8") as stream:
        rows = [json.loads(line) for line in stream]
    return {row["question_id"]: row for row in rows}


@cache
def manifest() -> dict:
    return json.loads(MANIFEST_FILE.read_text("utf-8"))


def published() -> dict:
    """The dataset's files as LiveCodeBench published them: the Hub revision, and each file's
    sha256 and row count (releases.json's ``published``, from a public record of them)."""
    return manifest()["published"]


class UnknownRelease(ValueError):
    pass


def members(tag: str) -> list[dict]:
    """The rows of a release tag, in question_id order."""
    files = tag_files().get(tag)
    if files is None:
        raise UnknownRelease(
            f"{tag!r} is not a release tag of the dataset's loader (release_v1..release_v6, "
            f"{LATEST}, v1..v6, vA_vB such as v4_v6)"
        )
    return [row for row in problems().values() if row["file"] in files]


class Relation(StrEnum):
    """How a run's problem set stands to a release tag's."""

    EXACT = "exact"  # the same problems
    SUBSET = "subset"  # every problem of the run is the tag's; the tag has more
    SUPERSET = "superset"  # every problem of the tag is the run's; the run has more
    OVERLAP = "overlap"  # some problems of each are the other's
    IN_NO_RELEASE = "in_no_release"  # none of the run's problems is the tag's


@dataclass(frozen=True)
class Match:
    """How a run's problem set compares with one release tag."""

    tag: str
    missing: tuple[str, ...]  # in the tag, not in the run
    extra: tuple[str, ...]  # in the run, not in the tag
    exact: bool  # the tag's membership is exact (releases.json), not derived by date
    shared: int = 0  # problems both hold
    size: int = 0  # the tag's problems

    @property
    def equal(self) -> bool:
        return not self.missing and not self.extra

    @property
    def relation(self) -> Relation:
        if not self.shared:
            return Relation.EXACT if self.equal else Relation.IN_NO_RELEASE
        if self.equal:
            return Relation.EXACT
        if not self.extra:
            return Relation.SUBSET
        return Relation.SUPERSET if not self.missing else Relation.OVERLAP

    def words(self) -> str:
        """The relation in words: "100 of release_v1's 400 problems (a subset)"."""
        run = self.shared + len(self.extra)
        relation = self.relation
        if relation == Relation.EXACT:
            return f"all {self.size:,} of {self.tag}'s problems (exact)"
        if relation == Relation.SUBSET:
            return f"{self.shared:,} of {self.tag}'s {self.size:,} problems (a subset)"
        if relation == Relation.SUPERSET:
            return (
                f"all {self.size:,} of {self.tag}'s problems and {len(self.extra):,} in no "
                "release (a superset)"
            )
        if relation == Relation.OVERLAP:
            return (
                f"{self.shared:,} of {self.tag}'s {self.size:,} problems and {len(self.extra):,} "
                "in no release (an overlap)"
            )
        return f"none of the run's {run:,} problems is in any release"


def compare(question_ids, tag: str) -> Match:
    expected = {row["question_id"] for row in members(tag)}
    given = set(question_ids)
    return Match(
        tag,
        tuple(sorted(expected - given)),
        tuple(sorted(given - expected)),
        manifest()["tags"][tag]["exact"],
        len(expected & given),
        len(expected),
    )


def foreign(question_ids) -> tuple[str, ...]:
    """The ids no release holds (none of release_latest's problems)."""
    return tuple(sorted(set(question_ids) - set(problems())))


def closest(question_ids) -> list[Match]:
    """The tags nearest the run's problem set, containment first: those equal to it; else the
    smallest holding every problem of the run (the run is their subset); else those sharing
    the most problems with it (the smallest first). Ties are all returned, in tag order. A run
    whose problems no release holds: release_latest, which shares none."""
    matches = [compare(question_ids, tag) for tag in tag_files()]
    equal = [m for m in matches if m.equal]
    if equal:
        return equal
    containing = [m for m in matches if not m.extra]
    if containing:
        smallest = min(m.size for m in containing)
        return [m for m in containing if m.size == smallest]
    best = max(m.shared for m in matches)
    if not best:
        return [m for m in matches if m.tag == LATEST]
    sharing = [m for m in matches if m.shared == best]
    smallest = min(m.size for m in sharing)
    return [m for m in sharing if m.size == smallest]


def nearest(question_ids) -> str | None:
    """The first tag closest() gives, or None when no release holds a problem of the run."""
    found = closest(question_ids)[0]
    return None if found.relation == Relation.IN_NO_RELEASE else found.tag
