"""Writes problems.jsonl and releases.json, the problem-set manifests, from public facts.

    python conformance/releases/build.py SITE_GIT SUBMISSIONS_GIT DIGESTS_GIT

SITE_GIT is a git repository (bare is fine) of LiveCodeBench/livecodebench.github.io,
SUBMISSIONS_GIT one of LiveCodeBench/submissions, DIGESTS_GIT one of
Kevin-Li-2025/L20-CodeForge; the files are read at the pinned commits below with ``git show``,
so the result does not depend on what is checked out. Nothing is downloaded; the output is
committed (docs/score.md says how each fact was established).

The facts, and what each establishes:

- The dataset's loader (huggingface.co/datasets/livecodebench/code_generation_lite,
  code_generation_lite.py) maps each release tag to files: ``release_vN`` = test.jsonl ..
  testN.jsonl, ``release_latest`` = all six, ``vN`` = testN.jsonl (test.jsonl for v1),
  ``vA_vB`` = testA.jsonl .. testB.jsonl. The dataset card gives the cumulative counts 400, 511,
  612, 713, 880, 1055.
- The leaderboard site's per-problem data (src/mocks/performances_generation.json) at three
  commits: 2024-04-17 lists exactly 400 problems (test.jsonl, exact), 2025-01-15 880
  (release_v5, exact), 2025-04-22 1055 (release_v6, exact); so test6.jsonl (the 175 of 1055
  not in 880) is exact too.
- The O1-Mini submission's eval_all file (880 rows) gives each v5 problem's contest_date as
  lcb_runner wrote it. The site's "date" is that contest_date read in the builder's local time
  plus one day, in epoch milliseconds; for all 880 the offset is exactly 24 h, so the site data
  was built in UTC, and the 175 v6 problems' contest_date is that date minus one day, in UTC.
- test2..test5 (the 480 problems of release_v5 not in release_v1) are split by contest_date
  into the official counts 111, 101, 101, 167 (derived). Problems sharing a date across a cut,
  and problems not in release_v1 yet dated before its last date (which no date order places),
  are listed as uncertain, with the files they may be in.
- The published files' sha256: a public run's record of the six files it graded
  (L20-CodeForge's materialized manifest: each file's sha256 and row count), the same six
  digests that other public repositories pin for the dataset's revision 0fe84c39 (with the
  Hub's LFS sizes; e.g. leozippon/socio-evo tasks/coding/fetch.py). Each file's row count must
  be the dataset card's (400, 111, 101, 101, 167, 175), so the record is of the published
  files. A dataset's file is held to its digest: a test case changed in it is named.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from lcb_conformance.releases import FILES, problem_set_sha256, tag_files
from lcb_prompts import score

HERE = Path(__file__).resolve().parent
SITE = "https://github.com/LiveCodeBench/livecodebench.github.io"
SUBMISSIONS = "https://github.com/LiveCodeBench/submissions"
LOADER = (
    "https://huggingface.co/datasets/livecodebench/code_generation_lite "
    "(code_generation_lite.py, ALLOWED_FILES)"
)
SITE_DATA = "src/mocks/performances_generation.json"
SITE_V1 = "8ed5690cdc26265076a803380e84f5c5848a0ce1"  # 2024-04-17: 400 problems
SITE_V5 = "33505c076467ba6e4acaa8fad8a29dcc75ec65ce"  # 2025-01-15: 880
SITE_V6 = "83b6481b4890c4951730f53bdde815b25e0f7f3a"  # 2025-04-22: 1055
SUBMISSIONS_COMMIT = "4d04b02a01c81b0a7207bafdcda35efad9e39b8c"
O1_MINI = "O1-Mini-2024-09-12 (N=1)/Scenario.codegeneration_1_0.2_eval_all.json"
BUILDER = "build_leaderboard_json.py"
DIGESTS = "https://github.com/Kevin-Li-2025/L20-CodeForge"
DIGESTS_COMMIT = "edf6ae226dda8cdeb98b8c1721543ea8ddffac5c"  # 2026-05-23
DIGESTS_FILE = (
    "benchmarks/livecodebench_full_release_v6_2026_05_22/"
    "release_v6_test_full.materialized_manifest.json"
)
# The Hub revision whose files have these digests, as other public repositories pin it with
# the same six sha256 (read there, not here: no snapshot of them is to be had offline).
PUBLISHED_REVISION = "0fe84c3912ea0c4d4a78037083943e8f0c4dd505"
REVISION_FROM = (
    "https://github.com/leozippon/socio-evo 4657970f6f462928286132faa44684c870600636 "
    "tasks/coding/fetch.py (REVISION, FILES: the same six sha256)"
)

# The releases' sizes, file by file cumulated (the dataset card's counts).
CUMULATIVE = (400, 511, 612, 713, 880, 1055)
DAY_MS = 24 * 60 * 60 * 1000

# The leaderboard's editions: the public builder's date marks (2023-05-01 .. 2025-02-01, the
# release_v5 leaderboard) and the v6 site data's; the site's default window is marks[15]..last.
EDITIONS = {
    "v5": {"release": "release_v5", "last_mark": "2025-02-01"},
    "v6": {"release": "release_v6", "last_mark": "2025-05-01"},
}
FIRST_MARK = "2023-05-01"
DEFAULT_START_INDEX = 15
# Windows with a name: the examples (LiveCodeBench#99/#145, the O1-Mini comparison).
NAMED_WINDOWS = {
    "v5-default": ("release_v5", "2024-08-01", "2025-02-01"),
    "v6-default": ("release_v6", "2024-08-01", "2025-05-01"),
    "v6-feb-may-2025": ("release_v6", "2025-02-01", "2025-05-01"),
    "o1-mini-issue": ("release_v5", "2024-09-01", "2025-02-01"),
}


def git_show(repository: Path, commit: str, path: str) -> bytes:
    return subprocess.run(
        ["git", "-C", str(repository), "show", f"{commit}:{path}"],
        check=True,
        capture_output=True,
    ).stdout


def site_problems(site: Path, commit: str) -> dict[str, dict]:
    """question_id -> one model's record (date, difficulty, platform) of the site's data."""
    data = json.loads(git_show(site, commit, SITE_DATA))
    first_model = data["performances"][0]["model"]
    return {p["question_id"]: p for p in data["performances"] if p["model"] == first_model}


def split_by_date(rows: list[dict], before: str) -> tuple[dict[str, str], dict[str, list[str]]]:
    """test2..test5 for the problems not in release_v1: (file of each, uncertain -> the files
    it may be in)."""
    dated = sorted(
        (r for r in rows if r["contest_date"] > before),
        key=lambda r: (r["contest_date"], r["question_id"]),
    )
    undated = [r for r in rows if r["contest_date"] <= before]  # no date order places these
    order = dated + undated
    sizes = [b - a for a, b in zip(CUMULATIVE[:4], CUMULATIVE[1:5], strict=True)]
    files: dict[str, str] = {}
    uncertain: dict[str, list[str]] = {r["question_id"]: list(FILES[1:5]) for r in undated}
    start = 0
    for number, size in enumerate(sizes, start=1):
        for row in order[start : start + size]:
            files[row["question_id"]] = FILES[number]
        end = start + size
        if number < len(sizes) and end < len(dated):
            last, first = order[end - 1]["contest_date"], order[end]["contest_date"]
            if last == first:  # a date shared across the cut: either side may hold them
                for row in dated:
                    if row["contest_date"] == last:
                        uncertain[row["question_id"]] = [FILES[number], FILES[number + 1]]
        start = end
    return files, uncertain


def month_marks(last: str) -> list[str]:
    marks, year, month = [], 2023, 5
    while f"{year:04d}-{month:02d}-01" <= last:
        marks.append(f"{year:04d}-{month:02d}-01")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return marks


def published_files(digests: Path) -> dict[str, dict]:
    """file -> its sha256 and row count as the public record gives them; each count the
    dataset card's, so the record is of the published files."""
    record = json.loads(git_show(digests, DIGESTS_COMMIT, DIGESTS_FILE))
    assert record["dataset"] == "livecodebench/code_generation_lite", record["dataset"]
    shards = {shard["filename"]: shard for shard in record["shards"]}
    assert list(shards) == list(FILES), list(shards)
    counts = [b - a for a, b in zip((0, *CUMULATIVE[:-1]), CUMULATIVE, strict=True)]
    assert [shards[name]["rows"] for name in FILES] == counts
    return {name: {key: shards[name][key] for key in ("sha256", "rows")} for name in FILES}


def build(site: Path, submissions: Path, digests: Path) -> tuple[list[dict], dict]:
    v1 = site_problems(site, SITE_V1)
    v5 = site_problems(site, SITE_V5)
    v6 = site_problems(site, SITE_V6)
    o1_mini_bytes = git_show(submissions, SUBMISSIONS_COMMIT, O1_MINI)
    o1_mini = {row["question_id"]: row for row in json.loads(o1_mini_bytes)}
    assert (len(v1), len(v5), len(v6), len(o1_mini)) == (400, 880, 1055, 880)
    assert set(v1) <= set(v5) == set(o1_mini) <= set(v6)

    rows = []
    for qid, record in v6.items():
        if qid in o1_mini:
            run = o1_mini[qid]
            utc = datetime.fromisoformat(run["contest_date"]).replace(tzinfo=UTC)
            assert record["date"] - int(utc.timestamp() * 1000) == DAY_MS, qid  # built in UTC
            assert record["difficulty"] == run["difficulty"], qid
            assert record["platform"] == run["platform"], qid
            date, date_from = run["contest_date"], "eval_all"
        else:
            shifted = datetime.fromtimestamp((record["date"] - DAY_MS) / 1000, UTC)
            date = shifted.replace(tzinfo=None).isoformat()
            date_from = "leaderboard date - 1 day"
        rows.append(
            {
                "question_id": qid,
                "contest_date": date,
                "contest_date_from": date_from,
                "difficulty": record["difficulty"],
                "platform": record["platform"],
            }
        )
    rows.sort(key=lambda r: r["question_id"])
    last_v1_date = max(r["contest_date"] for r in rows if r["question_id"] in v1)
    middle = [r for r in rows if r["question_id"] in v5 and r["question_id"] not in v1]
    by_date, uncertain = split_by_date(middle, last_v1_date)
    for row in rows:
        qid = row["question_id"]
        if qid in v1:
            row["file"], row["file_from"] = FILES[0], "leaderboard data of 2024-04-17 (400)"
        elif qid not in v5:
            row["file"], row["file_from"] = FILES[5], "in the 1055 of 2025-04-22, not the 880"
        else:
            row["file"] = by_date[qid]
            row["file_from"] = "contest_date order, official counts"
            if qid in uncertain:
                row["may_be_in"] = uncertain[qid]

    tag_manifests = {}
    for tag, files in tag_files().items():
        members = [r for r in rows if r["file"] in files]
        unsure = sorted(
            r["question_id"]
            for r in rows
            if "may_be_in" in r and len({f in files for f in r["may_be_in"]}) == 2
        )
        # a part of test2..test5 (all four together are exact: release_v5 minus release_v1)
        derived = sorted({r["file"] for r in members if r["file"] in FILES[1:5]})
        derived = [] if len(derived) == len(FILES[1:5]) else derived
        tag_manifests[tag] = {
            "files": files,
            "count": len(members),
            "sha256": problem_set_sha256(members),
            "exact": not unsure and not derived,
            "files_derived_by_date": derived,
            "uncertain": unsure,
        }
    for number, count in enumerate(CUMULATIVE, start=1):
        tag = f"release_v{number}"
        assert tag_manifests[tag]["count"] == count, tag

    editions = {}
    for name, edition in EDITIONS.items():
        marks = month_marks(edition["last_mark"])
        editions[name] = {
            "release": edition["release"],
            "date_marks": marks,
            "default_window": [marks[DEFAULT_START_INDEX], marks[-1]],
        }
    editions["v5"]["source"] = f"{SUBMISSIONS} {SUBMISSIONS_COMMIT[:7]} {BUILDER} (date_marks)"
    editions["v6"]["source"] = f"{SITE} {SITE_V6[:7]} {SITE_DATA} (date_marks)"
    windows = {}
    for name, (release, start, end) in NAMED_WINDOWS.items():
        members = [r for r in rows if r["file"] in tag_files()[release]]
        shown = score.leaderboard_rows(members, start, end)  # the site data's builder: UTC
        windows[name] = {
            "release": release,
            "start": start,
            "end": end,
            "count": len(shown),
            "sha256": problem_set_sha256(shown),
            "lcb_runner_count": len(score.lcb_runner_rows(members, start, end)),
        }

    manifest = {
        "how": "python conformance/releases/build.py SITE_GIT SUBMISSIONS_GIT DIGESTS_GIT "
        "(docs/score.md)",
        "sources": {
            "loader": LOADER,
            "counts": "the dataset card: 400, 511, 612, 713, 880, 1055 (release_v1..v6)",
            "site_v1": f"{SITE} {SITE_V1} {SITE_DATA}",
            "site_v5": f"{SITE} {SITE_V5} {SITE_DATA}",
            "site_v6": f"{SITE} {SITE_V6} {SITE_DATA}",
            "o1_mini": f"{SUBMISSIONS} {SUBMISSIONS_COMMIT} {O1_MINI}",
            "o1_mini_sha256": hashlib.sha256(o1_mini_bytes).hexdigest(),
            "published_files": f"{DIGESTS} {DIGESTS_COMMIT} {DIGESTS_FILE}",
            "published_revision": REVISION_FROM,
        },
        "sha256_of_a_problem_set": "sha256 of the rows' question_id, contest_date, difficulty "
        "and platform as compact sorted-key JSON, one line each, in question_id order",
        "published": {"revision": PUBLISHED_REVISION, "files": published_files(digests)},
        "tags": tag_manifests,
        "leaderboards": editions,
        "windows": windows,
    }
    return rows, manifest


def main(argv: list[str]) -> int:
    site, submissions, digests = map(Path, argv)
    rows, manifest = build(site, submissions, digests)
    with (HERE / "problems.jsonl").open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=True, sort_keys=True) + "\n")
    (HERE / "releases.json").write_text(json.dumps(manifest, indent=1) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
