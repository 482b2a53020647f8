"""The judge check of an --upstream PATH tree kept across calls (upstream/judge_cache.py, issue
35): one check per set of files, wherever they lie and whatever git says; every entry that is
not exactly what this check would have written (a symlink, truncated, edited, of another tree,
corpus, code or schema, writable by others) is ignored and the judge checked again; a failed
write leaves nothing; a cached check is named in every view."""

from __future__ import annotations

import json
import os
from pathlib import Path

import forged_judge_cache as forged
import pytest
import regrade_inputs as inputs

from lcb_conformance import cli
from lcb_conformance.common import exit_codes
from lcb_conformance.regrade import regrade, results_file
from lcb_conformance.upstream import Upstream, grading, judge, judge_cache, pinned_tree

pytestmark = pytest.mark.selftest

FILES = {"lcb_runner/prompts/__init__.py": "", "lcb_runner/x.py": "x = 1\n"}  # not 28fef95's


def _tree(folder: Path, files: dict[str, str] = FILES) -> Upstream:
    for name, content in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(content, "utf-8")
    return Upstream(str(folder))


FIRST_CASE = next(iter(judge.judge_cases()))
GOLDEN_FIRST = forged.golden_verdicts()[FIRST_CASE]


@pytest.fixture
def checks(monkeypatch) -> list[Upstream]:
    """The trees the judge was really checked with; each gives every golden but the first."""
    checked = []

    def verdicts(upstream, workers=grading.WORKERS):
        checked.append(upstream)
        return {**forged.golden_verdicts(), FIRST_CASE: '{"passed": "never"}'}

    monkeypatch.setattr(grading, "judge_verdicts", verdicts)
    return checked


def test_a_tree_is_checked_once_by_its_files_wherever_it_lies(tmp_path, checks):
    cache = tmp_path / "cache"
    first = judge_cache.check(_tree(tmp_path / "one"), cache)
    again = judge_cache.check(_tree(tmp_path / "two"), cache)  # the same files elsewhere
    assert len(checks) == 1
    assert first.differing == again.differing == [FIRST_CASE]
    assert first.cached is None and first.said == []
    (entry,) = cache.iterdir()
    assert again.cached == {"entry": str(entry), "checked_at": again.cached["checked_at"],
                            "checked_by": again.cached["checked_by"]}  # fmt: skip
    assert oct(entry.stat().st_mode & 0o777) == "0o600"
    other = judge_cache.check(_tree(tmp_path / "three", {**FILES, "lcb_runner/x.py": "x = 2\n"}),
                              cache)  # fmt: skip
    assert len(checks) == 2 and other.cached is None


def test_no_cache_checks_every_time_and_keeps_nothing(tmp_path, checks):
    for _ in range(2):
        assert judge_cache.check(_tree(tmp_path / "one"), None).cached is None
    assert len(checks) == 2


def test_differences_come_from_the_verdicts_against_todays_goldens(tmp_path, checks, monkeypatch):
    """An entry holds verdicts, not a conclusion: a corpus whose goldens changed is another
    key, and which cases differ is computed on every read."""
    cache = tmp_path / "cache"
    upstream = _tree(tmp_path / "one")
    judge_cache.check(upstream, cache)
    key = judge_cache.key_of(upstream.tree.sha256)
    monkeypatch.setattr(judge_cache, "key_of", lambda tree: {**key, "corpus_sha256": "0" * 64})
    assert judge_cache.check(upstream, cache).cached is None
    assert len(checks) == 2


def _entry(tmp_path: Path, checks) -> tuple[Upstream, Path]:
    cache = tmp_path / "cache"
    upstream = _tree(tmp_path / "one")
    judge_cache.check(upstream, cache)
    checks.clear()
    return upstream, next(cache.iterdir())


TAMPERED = {
    "truncated": (forged.truncated, "JSON"),
    "edited": (lambda entry: forged.edited(entry, FIRST_CASE, GOLDEN_FIRST), "edited"),
    "symlinked": (forged.symlinked, "symlink"),
    "writable by others": (forged.writable_by_others, "writable by others"),
    "a key given twice": (
        lambda entry: entry.write_text('{"schema": 1, ' + entry.read_text("ascii")[1:], "ascii"),
        "given twice",
    ),
    "another tree's": (forged.of_another_tree, "tree_sha256 differ"),
    "other checking code's": (
        lambda entry: forged.resealed(entry, lambda e: e["key"].update(code_sha256="1" * 64)),
        "code_sha256 differ",
    ),
    "another schema": (forged.of_another_schema, "not a lcb-conformance-judge-check/1 entry"),
    "a case missing": (
        lambda entry: forged.resealed(entry, lambda e: e["verdicts"].pop(FIRST_CASE)),
        "a verdict for each judge case",
    ),
    "not JSON": (lambda entry: entry.write_bytes(b"\xff\xfe"), "JSON"),
}


@pytest.mark.parametrize("how", TAMPERED)
def test_a_tampered_entry_is_ignored_said_and_checked_again(tmp_path, checks, how):
    upstream, entry = _entry(tmp_path, checks)
    tamper, said = TAMPERED[how]
    tamper(entry)
    found = judge_cache.check(upstream, entry.parent)
    assert found.cached is None and len(checks) == 1
    assert found.differing == [FIRST_CASE]
    assert len(found.said) == 1 and said in found.said[0], found.said


def test_a_cache_folder_others_can_write_is_not_used(tmp_path, checks):
    upstream, entry = _entry(tmp_path, checks)
    entry.parent.chmod(0o777)
    found = judge_cache.check(upstream, entry.parent)
    assert found.cached is None and len(checks) == 1
    assert [said.split(":")[0] for said in found.said] == [
        "judge cache entry ignored, the judge checked again", "judge check not kept in the cache"
    ]  # fmt: skip


def test_a_failed_write_leaves_nothing(tmp_path, checks, monkeypatch):
    def refused(source, destination):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refused)
    found = judge_cache.check(_tree(tmp_path / "one"), tmp_path / "cache")
    assert found.differing == [FIRST_CASE] and "No space left" in found.said[0]
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_refusal_from_the_cache_says_so(tmp_path, checks):
    cache = tmp_path / "cache"
    judge_cache.check(_tree(tmp_path / "one"), cache)
    with pytest.raises(regrade.RegradeError, match="its judge check from the cache, 20"):
        regrade.judge_differences(_tree(tmp_path / "two"), False, cache)
    differs, cached = regrade.judge_differences(_tree(tmp_path / "two"), True, cache)
    assert differs == [FIRST_CASE] and cached["entry"] == str(next(cache.iterdir()))
    assert len(checks) == 1


def test_the_key_is_the_trees_files_digest(tmp_path):
    upstream = _tree(tmp_path / "one")
    key = judge_cache.key_of(upstream.tree.sha256)
    assert key["tree_sha256"] == pinned_tree.digest(pinned_tree.files_of(tmp_path / "one"))
    assert set(key) == {"tree_sha256", "corpus_sha256", "code_sha256", "python", "numpy"}


CACHED = {"entry": "/c/0123.json", "checked_at": "2026-12-02T19:00:00Z",
          "checked_by": "lcb-conformance 0.1"}  # fmt: skip


def test_every_view_and_the_merge_name_a_check_from_the_cache(tmp_path, capsys):
    upstream = {
        "source": "checkout",
        "path": "/t",
        "commit": None,
        "dirty": None,
        "tree": {"sha256": "0" * 64, "equal_to": None, "changes": ["changed x.py"]},
    }
    head = {**inputs.REGRADE_HEADER, "upstream": upstream}
    for number, cached in enumerate((None, CACHED)):
        header = {**head, "shard": [number + 1, 2]}
        if cached:
            header["judge_cache"] = cached
        writer = results_file.Writer(tmp_path / f"s{number}.jsonl", header)
        writer.write(inputs.regrade_sample(number, False))
        writer.close()
    merged, report = tmp_path / "whole.jsonl", tmp_path / "report.json"
    code = cli.main(["regrade", "merge", str(tmp_path / "s0.jsonl"), str(tmp_path / "s1.jsonl"),
                     "--results", str(merged), "--json", str(report)])  # fmt: skip
    assert code == exit_codes.INCOMPLETE  # a modified tree: never green
    assert results_file.header(merged)["judge_cache"] == CACHED
    said = ("its judge check from the judge cache, not run now: checked 2026-12-02T19:00:00Z "
            "by lcb-conformance 0.1 (/c/0123.json; --no-judge-cache checks again)")  # fmt: skip
    assert said in capsys.readouterr().out
    assert json.loads(report.read_text("utf-8"))["header"]["judge_cache"] == CACHED
