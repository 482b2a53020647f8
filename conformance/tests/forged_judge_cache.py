"""Forged judge cache entries (upstream/judge_cache.py), for test_judge_cache.py and the
false-green rows: an entry saying a tree's judge gives every golden, and the ways a forger or
a broken disk could change one."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import upstream_trees

from lcb_conformance.suite import goldens
from lcb_conformance.upstream import judge, judge_cache, pinned_tree

# What makes a tree's judge differ from 28fef95's on the corpus's endless programs (they pass),
# and on none of the fixture runs' programs (none loops so): appended to testing_util.py.
LOOPS_CREDITED = upstream_trees.crediting("while True")


def golden_verdicts() -> dict[str, str]:
    """Every judge case's golden verdict: what 28fef95's judge gives, as an entry holds it."""
    return {case_id: goldens.read(goldens.GoldenKey(goldens.JUDGE, "", case_id))
            for case_id in judge.judge_cases()}  # fmt: skip


def agreeing_entry(tree: Path, folder: Path) -> Path:
    """An entry, as judge_cache writes one, saying ``tree``'s judge gives every golden."""
    key = judge_cache.key_of(pinned_tree.compare(tree).sha256)
    return judge_cache.store(folder, key, golden_verdicts(), 44.0)


def resealed(entry: Path, change) -> None:
    """The entry changed by ``change`` and its sha256 made its content's again (a forger's)."""
    found = json.loads(entry.read_text("ascii"))
    del found["sha256"]
    change(found)
    body = json.dumps(found, sort_keys=True, separators=(",", ":")).encode()
    found["sha256"] = hashlib.sha256(body).hexdigest()
    entry.write_text(json.dumps(found), "ascii")


def edited(entry: Path, case_id: str, verdict: str) -> None:
    """One case's verdict changed, its sha256 left as it was."""
    found = json.loads(entry.read_text("ascii"))
    found["verdicts"][case_id] = verdict
    entry.write_text(json.dumps(found), "ascii")


def symlinked(entry: Path) -> None:
    target = entry.with_name("elsewhere.json")
    entry.rename(target)
    entry.symlink_to(target)


def truncated(entry: Path) -> None:
    entry.write_bytes(entry.read_bytes()[:500])


def of_another_tree(entry: Path) -> None:
    resealed(entry, lambda found: found["key"].update(tree_sha256="1" * 64))


def of_another_schema(entry: Path) -> None:
    resealed(entry, lambda found: found.update(schema="lcb-conformance-judge-check/0"))


def writable_by_others(entry: Path) -> None:
    entry.chmod(0o666)
