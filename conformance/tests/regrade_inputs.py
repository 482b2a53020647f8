"""Dataset folders and runs for the regrade's tests and false-green rows, built from the
fixtures: LiveCodeBench's published layout (test.jsonl, private tests as
base64(zlib(pickle(json)))), a Hugging Face cache of it, and a release's problem set."""

from __future__ import annotations

import base64
import hashlib
import json
import pickle
import zlib
from pathlib import Path

from lcb_conformance import releases, statements
from lcb_conformance.common import exit_codes
from lcb_conformance.suite import cases
from lcb_conformance.upstream import pinned_tree

AUDIT = cases.FIXTURES_DIR / "audit"
LCB_RUNNER_RUN = (
    AUDIT / "lcb_runner" / "openai-chat" / "output" / "GPT-4O-2024-08-06"
    / "Scenario.codegeneration_3_0.2_eval_all.json"
)  # fmt: skip
EVALSCOPE_RUN = (
    AUDIT / "evalscope" / "default" / "reviews" / "stub-model"
    / "live_code_bench_release_latest.jsonl"
)  # fmt: skip
OPENCOMPASS_RUN = AUDIT / "opencompass" / "conformant" / "predictions" / "stub-model" / (
    "lcb_code_generation.json"
)
LM_EVAL_RUN = AUDIT / "lm_eval" / "conformant" / "samples_lcb_audit.jsonl"
LIGHTEVAL_RUN = AUDIT / "lighteval" / "as-shipped" / "details_lcb:codegeneration|0.parquet"
# the four problems every harness's fixture run read, in the order they read them
RUN_ROWS = AUDIT / "evalscope" / "default" / "dataset.jsonl"
HUB = "datasets--livecodebench--code_generation_lite"
REVISION = "0123456789abcdef0123456789abcdef01234567"


def published(row: dict) -> dict:
    """The row as LiveCodeBench publishes it: private tests compressed (a row whose are
    already, as the judge corpus's, as it is)."""
    private = row["private_test_cases"]
    if not private.lstrip().startswith("["):
        return row
    packed = base64.b64encode(zlib.compress(pickle.dumps(private))).decode()
    return {**row, "private_test_cases": packed}


def rows(path: Path = RUN_ROWS) -> list[dict]:
    return [row for _, row in cases.iter_jsonl(path)]


def write(folder: Path, table: list[dict], name: str = "data.jsonl") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(published(row), ensure_ascii=True) + "\n" for row in table)
    (folder / name).write_text(lines, "utf-8")
    return folder


def release_rows(tag: str) -> list[dict]:
    """A release's problems as the manifests record them, with one trivial test each."""
    test = json.dumps([{"input": "1\n", "output": "1\n", "testtype": "stdin"}])
    return [
        {
            "question_title": row["question_id"], "question_content": "", "platform":
            row["platform"], "question_id": row["question_id"], "contest_id": "",
            "contest_date": row["contest_date"], "starter_code": "", "difficulty":
            row["difficulty"], "public_test_cases": test, "private_test_cases": test,
            "metadata": "{}",
        }
        for row in releases.members(tag)
    ]  # fmt: skip


def hub_cache(folder: Path, table: list[dict], name: str = "test.jsonl") -> Path:
    """A Hugging Face hub cache holding ``table`` as ``name``: the snapshot's file a link to
    its blob, named by its sha256."""
    hub = folder / HUB
    staging = write(folder / "staging", table, name) / name
    data = staging.read_bytes()
    blob = hub / "blobs" / hashlib.sha256(data).hexdigest()
    blob.parent.mkdir(parents=True)
    blob.write_bytes(data)
    snapshot = hub / "snapshots" / REVISION
    snapshot.mkdir(parents=True)
    (snapshot / name).symlink_to(blob)
    (hub / "refs").mkdir()
    (hub / "refs" / "main").write_text(REVISION)
    return folder


ECHO = "print(input())"  # passes release_rows' one test


def release_run(folder: Path, tag: str = "release_v1", count: int = 2) -> Path:
    """An lcb_runner eval_all run on the first ``count`` problems of a release as release_rows
    writes them, each answered by a program lcb_runner's judge passes and its file records
    passed: graded against those rows, a regrade agrees on every sample."""
    table = [
        {
            "question_id": row["question_id"], "contest_date": row["contest_date"],
            "difficulty": row["difficulty"], "platform": row["platform"],
            "output_list": [f"```python\n{ECHO}\n```\n"], "code_list": [ECHO],
            "graded_list": [True],
        }
        for row in releases.members(tag)[:count]
    ]  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    run = folder / "Scenario.codegeneration_1_0.2_eval_all.json"
    run.write_text(json.dumps(table), "utf-8")
    return run


def as_published(monkeypatch, folder: Path) -> None:
    """Take the folder's files for the ones LiveCodeBench published (their sha256 as the
    record's): what the published files themselves, gigabytes, would give offline."""
    record = releases.published()
    files = {
        path.name: {"sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
        for path in folder.rglob("*.jsonl")
    }
    monkeypatch.setattr(releases, "published", lambda: {**record, "files": files})
    # and their statements for the release's (statements.py): the rows here are made, not real
    rows = [json.loads(line) for path in folder.rglob("*.jsonl") for line in path.open()]
    digests = {row["question_id"]: statements.digest(row) for row in rows}
    monkeypatch.setattr(statements, "release_digests", lambda: digests)


def change_a_test(path: Path) -> None:
    """One test case of the file's first row changed: input and output 1 made 2, which the
    run's programs (ECHO) pass all the same, so only the dataset check can tell."""
    text = path.read_text("utf-8")
    one = '\\"input\\": \\"1\\\\n\\", \\"output\\": \\"1\\\\n\\"'
    edited = text.replace(one, one.replace("1", "2"), 1)
    assert edited != text
    path.write_text(edited, "utf-8")


CORRECT_SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
WRONG_SUM = "a, b = map(int, input().split())\nprint(a + b + 1)\n"


def judged_otherwise(folder: Path) -> tuple[Path, Path]:
    """A dataset of the judge corpus's A-plus-B problem and an lcb_runner-format run on it
    whose harness graded differently from lcb_runner: sample 0 a right program the harness
    failed (its judge), sample 1 a right program whose harness scored a wrong block (its
    extraction), sample 2 right and passed by both; (dataset folder, run)."""
    problem = next(r for r in rows(cases.FIXTURES_DIR / "judge" / "problems.jsonl")
                   if r["question_id"] == "j_sum")  # fmt: skip
    dataset = folder / "dataset"
    dataset.mkdir(parents=True)
    (dataset / "data.jsonl").write_text(json.dumps(problem) + "\n", "utf-8")
    fenced = f"```python\n{CORRECT_SUM}```\n"
    row = {
        "question_id": "j_sum", "contest_date": problem["contest_date"],
        "difficulty": problem["difficulty"], "platform": problem["platform"],
        "output_list": [fenced, f"```python\n{WRONG_SUM}```\n{fenced}", fenced],
        # what lcb_runner's extract_code keeps of a block: its lines, no final newline
        "code_list": [CORRECT_SUM.rstrip("\n"), WRONG_SUM.rstrip("\n"), CORRECT_SUM.rstrip("\n")],
        "graded_list": [False, False, True],
    }  # fmt: skip
    run = folder / "Scenario.codegeneration_3_0.2_eval_all.json"
    run.write_text(json.dumps([row]), "utf-8")
    return dataset, run


# What a regrade with a tree whose lcb_runner files are 28fef95's records as its upstream.
PINNED_UPSTREAM = {
    "source": "checkout", "path": "/LiveCodeBench", "commit": pinned_tree.PINNED_COMMIT,
    "dirty": False, "tree": {"sha256": pinned_tree.pinned_digest(),
                             "equal_to": pinned_tree.PINNED_COMMIT, "changes": []},
}  # fmt: skip
# A regrade's results file without a regrade (regrade/results_file.py): its header and
# samples as a regrade of lcb_runner's fixture run writes them, one test a problem.
REGRADE_HEADER = {
    "run": "Scenario.codegeneration_3_0.2_eval_all.json",
    "run_sha256": "0" * 64,
    "format": "lcb_runner",
    "scenario": "codegeneration",
    "lmstyle": "OpenAIChat",
    "upstream": PINNED_UPSTREAM,
    "judge_differs": [],
    "timeout": 6,
    "recheck": 0,
    "dataset": {"sha256": "0" * 64, "files": ["data.jsonl"], "revision": None, "release": None,
                "not_a_release": True, "problems_in_release": None},  # fmt: skip
    "problems": 2,
    "shard": None,
}
WRONG_ANSWER = {"error_code": -2, "error_message": "Wrong Answer"}
# what a quick program's run took (upstream/timing.py's measured)
QUICK = {"wall": 0.05, "cpu": 0.04, "execution": 0.01, "global_timeout": False}


def regrade_sample(n: int, passed: bool, harness: bool | None = None) -> dict:
    """Sample ``n`` (problem n % 2, lcb_runner's verdict ``passed``, the harness's
    ``harness``, by default the same), what each field of it says agreeing with the others."""
    harness = passed if harness is None else harness
    return {
        "n": n, "question_id": ("atc_grid_robot_detour", "lc_starter_null_token_bucket")[n % 2],
        "index": n // 2, "where": f"run.json:{n + 2}", "contest_date": "2024-03-16T00:00:00",
        "difficulty": "medium", "platform": "atcoder",
        "harness": {"passed": harness, "unjudged": "", "problem_score": None},
        "extraction": "same", "code": "print(input())",
        "regrade": {"passed": passed, "graded": [passed],
                    "metadata": json.dumps({} if passed else WRONG_ANSWER)},
        "timing": dict(QUICK),
        "harness_code_passed": None, "why": [] if harness == passed else ["judge"],
    }  # fmt: skip


# what a regrade measures, no two runs alike (docs/regrade-timing.md): a sample's timing and
# the runs alone it asked for
MEASURED = ("timing", "starved", "rechecks")


def unmeasured(path: Path) -> list[dict]:
    """A results file's lines without what was measured: what slices merged and the whole
    run share byte for byte."""
    lines = [json.loads(line) for line in path.read_text("ascii").splitlines()]
    for line in lines:
        for name in MEASURED:
            line.get("sample", {}).pop(name, None)
    return lines


def sample_lines(*paths: Path) -> list[str]:
    """The sample lines of results files, as they are written, in the run's order."""
    found = [line for path in paths for line in path.read_text("ascii").splitlines()
             if line.startswith('{"sample"')]  # fmt: skip
    return sorted(found, key=lambda line: json.loads(line)["sample"]["n"])


def agreeing_exit(upstream) -> int:
    """What a regrade agreeing with the harness on every problem exits with: 0 graded by
    lcb_runner 28fef95 (a checkout), 4 by the stand-in, whose judge differs on judge cases
    (graded with --accept-judge-differences: never lcb_runner's number)."""
    return exit_codes.OK if upstream.checkout is not None else exit_codes.INCOMPLETE


def agreeing_state(upstream) -> str:
    """The headline's first word for :func:`agreeing_exit`."""
    return "OK" if upstream.checkout is not None else "INCOMPLETE"
