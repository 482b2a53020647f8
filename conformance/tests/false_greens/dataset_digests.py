"""`lcb-conformance regrade` on a dataset that is not the files LiveCodeBench published: a test
case changed in a plain folder or in a hub cache, a problem missing, a hub cache of other files
than the published ones. Each run's programs pass the dataset's tests as they stand, so only
the dataset check stands between the input and a green (test_dataset_digests.py grades the
same input to exit 0 once its file is taken for the published one)."""

from __future__ import annotations

from pathlib import Path

import regrade_inputs as inputs

from false_greens import FalseGreen
from lcb_conformance.common import exit_codes

ARGV = ("{tmp}/Scenario.codegeneration_1_0.2_eval_all.json", "--dataset", "{tmp}/dataset",
        "--style", "OpenAIChat")  # fmt: skip
NOT_PUBLISHED = "test.jsonl is not the file LiveCodeBench published"


def _plain_folder_test_changed(tmp: Path) -> None:
    inputs.write(tmp / "dataset", inputs.release_rows("release_v1"), "test.jsonl")
    inputs.change_a_test(tmp / "dataset" / "test.jsonl")
    inputs.release_run(tmp)


def _plain_folder_missing_one(tmp: Path) -> None:
    table = inputs.release_rows("release_v1")
    del table[-1]  # a problem the run did not answer
    inputs.write(tmp / "dataset", table, "test.jsonl")
    inputs.release_run(tmp)


def _hub_cache_edited(tmp: Path) -> None:
    inputs.hub_cache(tmp / "dataset", inputs.release_rows("release_v1"))
    inputs.change_a_test(next((tmp / "dataset" / inputs.HUB / "blobs").iterdir()))
    inputs.release_run(tmp)


def _hub_cache_of_other_files(tmp: Path) -> None:
    inputs.hub_cache(tmp / "dataset", inputs.release_rows("release_v1"))
    inputs.release_run(tmp)


CASES = [
    FalseGreen(
        id="dataset-plain-folder-test-changed",
        command="regrade",
        argv=ARGV,
        prepare=_plain_folder_test_changed,
        expect=exit_codes.UNUSABLE,
        why="a test case changed in a folder's test.jsonl judges against other tests than the "
        "release's, and the run passes them all the same",
        says=("not release release_v1", NOT_PUBLISHED),
    ),
    FalseGreen(
        id="dataset-plain-folder-missing-a-problem",
        command="regrade",
        argv=ARGV,
        prepare=_plain_folder_missing_one,
        expect=exit_codes.UNUSABLE,
        why="a release missing a problem the run did not answer is still another problem set",
        says=("not release release_v1", "1 problems of release_v1 missing: abc343_e"),
    ),
    FalseGreen(
        id="dataset-hub-cache-file-edited",
        command="regrade",
        argv=ARGV,
        prepare=_hub_cache_edited,
        expect=exit_codes.UNUSABLE,
        why="a hub cache's file edited after download is not what the Hub served",
        says=("not release release_v1", "test.jsonl changed since download"),
    ),
    FalseGreen(
        id="dataset-hub-cache-of-other-files",
        command="regrade",
        argv=ARGV,
        prepare=_hub_cache_of_other_files,
        expect=exit_codes.UNUSABLE,
        why="a whole hub cache of another revision's (or a made-up) file is not the release",
        says=("not release release_v1", NOT_PUBLISHED),
    ),
]
