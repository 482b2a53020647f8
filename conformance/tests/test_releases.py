"""The problem-set manifests (conformance/releases/): the official counts, every tag the
dataset's loader accepts, the leaderboard's windows, and releases.json agreeing with
problems.jsonl (counts and sha256s)."""

from __future__ import annotations

import pytest

from lcb_conformance import releases

pytestmark = pytest.mark.selftest

# The dataset card's counts of release_v1..release_v6.
OFFICIAL = {
    "release_v1": 400,
    "release_v2": 511,
    "release_v3": 612,
    "release_v4": 713,
    "release_v5": 880,
    "release_v6": 1055,
    "release_latest": 1055,
    "v6": 175,
}


@pytest.mark.parametrize(("tag", "count"), OFFICIAL.items())
def test_official_counts(tag, count):
    assert len(releases.members(tag)) == count
    assert releases.manifest()["tags"][tag]["count"] == count


def test_every_tag_of_the_loader_has_a_manifest():
    tags = releases.tag_files()
    assert len(tags) == 7 + 6 + 15  # release_v1..v6 and latest, v1..v6, vA_vB with A < B
    assert set(releases.manifest()["tags"]) == set(tags)


@pytest.mark.parametrize("tag", list(releases.tag_files()))
def test_manifest_agrees_with_the_problem_rows(tag):
    recorded = releases.manifest()["tags"][tag]
    rows = releases.members(tag)
    assert recorded["files"] == releases.tag_files()[tag]
    assert recorded["count"] == len(rows)
    assert recorded["sha256"] == releases.problem_set_sha256(rows)
    if recorded["exact"]:
        assert not recorded["uncertain"] and not recorded["files_derived_by_date"]


def test_what_is_exact():
    """Exact: what the leaderboard's own data fixes (400, 880, 1055 problems and their
    differences); test2..test5 alone are split by date."""
    exact = {tag for tag, m in releases.manifest()["tags"].items() if m["exact"]}
    assert exact == {
        "release_v1", "release_v5", "release_v6", "release_latest",
        "v1", "v6", "v1_v5", "v1_v6", "v2_v5", "v2_v6",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("window", "count", "lcb_runner_count"),
    [
        ("v6-default", 454, 454),
        ("v6-feb-may-2025", 131, 131),
        # the leaderboard shifts contest dates by a day: 14 problems of 2024-08-31 come in
        ("o1-mini-issue", 227, 213),
    ],
)
def test_leaderboard_windows(window, count, lcb_runner_count):
    recorded = releases.manifest()["windows"][window]
    assert (recorded["count"], recorded["lcb_runner_count"]) == (count, lcb_runner_count)


def test_problem_rows_are_well_formed():
    rows = releases.problems().values()
    assert {row["difficulty"] for row in rows} == {"easy", "medium", "hard"}
    assert {row["platform"] for row in rows} == {"atcoder", "codeforces", "leetcode"}
    assert {row["file"] for row in rows} == set(releases.FILES)


def test_a_problem_set_matches_its_release_and_names_what_differs():
    v5 = [row["question_id"] for row in releases.members("release_v5")]
    assert {m.tag for m in releases.closest(v5)} == {"release_v5", "v1_v5"}
    match = releases.compare(v5, "release_v6")
    assert len(match.missing) == 175 and not match.extra and not match.equal


def test_an_unknown_tag_is_a_clear_error():
    with pytest.raises(releases.UnknownRelease, match="release_v7.*not a release tag"):
        releases.members("release_v7")
