"""The dataset held to the files LiveCodeBench published: releases.json's record of each
file's sha256 agrees with the manifests, and a file that is not byte for byte the published
one (a test case changed, in a plain folder or a hub cache) is named with the release it was
meant to be, before anything is graded (exit 2)."""

from __future__ import annotations

import re

import pytest
import regrade_inputs as inputs

from lcb_conformance import cli, releases
from lcb_conformance.common import exit_codes
from lcb_conformance.regrade import dataset as datasets

# no tokenizer touches a dataset (the compat-tf* envs leave these to the upstream env)
pytestmark = pytest.mark.transformers_independent

SHA256 = re.compile(r"^[0-9a-f]{64}$")


def test_the_published_files_are_the_manifests_files_with_their_counts():
    published = releases.published()
    assert re.fullmatch(r"[0-9a-f]{40}", published["revision"])
    assert list(published["files"]) == list(releases.FILES)
    for name, record in published["files"].items():
        assert SHA256.match(record["sha256"]), name
        members = [row for row in releases.problems().values() if row["file"] == name]
        assert record["rows"] == len(members), name
    assert "published_files" in releases.manifest()["sources"]


def test_a_plain_folder_with_a_test_case_changed_is_named(tmp_path, monkeypatch):
    folder = inputs.write(tmp_path, inputs.release_rows("release_v1"), "test.jsonl")
    inputs.as_published(monkeypatch, folder)
    assert datasets.check(datasets.read(folder), "release_v1") == []
    inputs.change_a_test(folder / "test.jsonl")
    (found,) = datasets.check(datasets.read(folder), "release_v1")
    assert found.startswith("test.jsonl is not the file LiveCodeBench published")


def test_a_file_of_no_published_name_cannot_pass_for_a_release(tmp_path):
    folder = inputs.write(tmp_path, inputs.release_rows("release_v1"), "release_v1.jsonl")
    # the made-up rows' statements are named as well (statements.py): the file's finding first
    found, *statements = datasets.check(datasets.read(folder), "release_v1")
    assert found.startswith("release_v1.jsonl is none of the files LiveCodeBench published")
    assert len(statements) == 1


def test_a_file_edited_in_a_hub_cache_is_named_once(tmp_path, monkeypatch):
    folder = inputs.hub_cache(tmp_path, inputs.release_rows("release_v1"))
    inputs.as_published(monkeypatch, folder)
    inputs.change_a_test(folder / inputs.HUB / "blobs" / next(
        (folder / inputs.HUB / "blobs").iterdir()).name)  # fmt: skip
    (found,) = datasets.check(datasets.read(folder), "release_v1")
    assert found.startswith("test.jsonl changed since download")


def test_a_hub_cache_of_other_files_than_the_published_is_named(tmp_path):
    """What the Hub served is checked too: a cache of another revision's (or a made-up) file
    is whole, and still not the published one."""
    folder = inputs.hub_cache(tmp_path, inputs.release_rows("release_v1"))
    found, *statements = datasets.check(datasets.read(folder), "release_v1")
    assert found.startswith("test.jsonl is not the file LiveCodeBench published (revision ")
    assert len(statements) == 1
    assert releases.published()["files"]["test.jsonl"]["sha256"][:16] in found


def test_no_release_checks_no_published_file(tmp_path):
    folder = inputs.write(tmp_path, inputs.rows())
    assert datasets.check(datasets.read(folder), None) == []


# --- end to end: the same input grades once its file is the published one ------------------


def _regrade(pytestconfig, upstream, dataset, run) -> int:
    accept = ["--accept-judge-differences"] if upstream.checkout is None else []
    return cli.main(["regrade", str(run), "--dataset", str(dataset), "--style", "OpenAIChat",
                     "--upstream", pytestconfig.getoption("--upstream"), "--workers", "2",
                     *accept])  # fmt: skip


@pytest.mark.upstream
def test_a_changed_test_case_is_what_stops_the_regrade(
    pytestconfig, upstream, tmp_path, monkeypatch, capsys
):
    """The false-green rows' input (false_greens/dataset_digests.py): a run whose programs pass
    the changed test as they pass the original regrades to exit 0 were the changed file the
    published one; only its digest stands between the changed test and a green."""
    folder = inputs.write(tmp_path / "dataset", inputs.release_rows("release_v1"), "test.jsonl")
    inputs.change_a_test(folder / "test.jsonl")
    run = inputs.release_run(tmp_path)
    assert _regrade(pytestconfig, upstream, folder, run) == exit_codes.UNUSABLE
    err = capsys.readouterr().err
    assert "is not release release_v1: test.jsonl is not the file LiveCodeBench published" in err
    inputs.as_published(monkeypatch, folder)
    assert _regrade(pytestconfig, upstream, folder, run) == inputs.agreeing_exit(upstream)
