"""The judge check of an ``--upstream PATH`` tree, kept across calls by what was checked.

grading.judge_verdicts grades the 99 judge corpus cases with a tree's lcb_runner (~45 s); a
tree whose files are 28fef95's is never checked (its files are the goldens' own judge). For any
other tree the verdicts are kept in a cache entry keyed by everything they depend on: the
tree's lcb_runner files (pinned_tree.digest of their blob ids: an exported tree and a checkout
of the same files share an entry, git's metadata plays no part), the corpus (its cases, its
problems and its goldens, byte for byte), the checking code (this project's modules the check
runs), the Python and numpy that run it. The entry records every case's verdict, not a
conclusion: which cases differ is computed from them against the goldens on every read.

The cache is hostile input. An entry is read only as a regular file of the user's, not a
symlink (O_NOFOLLOW), writable by no one else, in a folder of the user's writable by no one
else, at most MAX_BYTES, strict JSON (no duplicate keys, no NaN), of this SCHEMA, its key the
one wanted field by field, its verdicts exactly the corpus's cases, and its ``sha256`` that of
the rest of it (an edit that forgets it, a truncation). Anything else is ignored, said, and
checked again. An entry is written atomically (report_files.write_atomically: a temporary
file beside it, renamed over it): a failed write leaves no entry and nothing half-written.

What it trusts: that no one who can write the user's cache folder forges an entry with a
matching key and sha256 (nothing here can tell such an entry from one it wrote). So the cache
is used only for trees that are not 28fef95's files, which a regrade refuses unless
``--allow-modified-upstream`` and then never exits 0 with: a forged entry can turn a refusal
into an exit-4 run whose views say the judge check came from the cache and when, never into a
green. The installed stand-in's check (its number can be green) is not cached.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.metadata
import json
import os
import stat
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from lcb_conformance.adapters import sandbox, untrusted
from lcb_conformance.common import report_files
from lcb_conformance.suite import goldens, judge_cases
from lcb_conformance.upstream import (
    grading,
    grading_process,
    judge,
    judge_aware,
    pinned_tree,
    source,
    timing,
)
from lcb_conformance.upstream.source import Upstream

SCHEMA = "lcb-conformance-judge-check/1"
ENV = "LCB_JUDGE_CACHE"  # the folder; default $XDG_CACHE_HOME/lcb-conformance/judge-checks
MAX_BYTES = 1 << 20  # an entry of 99 verdicts is ~60 KB
# the code the check's outcome rests on (its grading, containment, corpus reading, this cache)
CHECKING_CODE = (grading, grading_process, judge, judge_aware, timing, sandbox, untrusted,
                 judge_cases, goldens, pinned_tree, source, sys.modules[__name__])  # fmt: skip


def default_folder() -> Path:
    """``$LCB_JUDGE_CACHE``, else the user's cache folder's lcb-conformance/judge-checks."""
    given = os.environ.get(ENV)
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "lcb-conformance" / "judge-checks"


def _sha256_of(paths) -> str:
    digest = hashlib.sha256()
    for path in paths:
        content = Path(path).read_bytes()
        digest.update(b"%s %d\0" % (Path(path).name.encode(), len(content)) + content)
    return digest.hexdigest()


def key_of(tree_sha256: str) -> dict[str, str]:
    """What a tree's judge check depends on, field by field."""
    golden_files = [goldens.GoldenKey(goldens.JUDGE, "", case_id).path
                    for case_id in judge.judge_cases()]  # fmt: skip
    return {
        "tree_sha256": tree_sha256,
        "corpus_sha256": _sha256_of(
            [judge_cases.CASES_FILE, judge_cases.PROBLEMS_FILE, *golden_files]
        ),
        "code_sha256": _sha256_of(module.__file__ for module in CHECKING_CODE),
        "python": sys.version,
        "numpy": _version("numpy"),
    }


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":")).encode()


def entry_path(folder: Path, key: dict[str, str]) -> Path:
    return folder / f"{hashlib.sha256(_canonical(key)).hexdigest()[:32]}.json"


class Ignored(Exception):
    """A cache entry or folder not believed; the message says why."""


def _owned_private(info: os.stat_result, what: str) -> None:
    if info.st_uid != os.getuid():
        raise Ignored(f"{what} is not yours")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise Ignored(f"{what} is writable by others")


def _folder_checked(folder: Path) -> None:
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise Ignored(f"the cache folder {folder} is a symlink or no folder")
    _owned_private(info, f"the cache folder {folder}")


def _read_bytes(path: Path) -> bytes:
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        if error.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink
            raise Ignored(f"{path} is a symlink") from None
        raise
    with os.fdopen(descriptor, "rb") as entry:
        info = os.fstat(entry.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise Ignored(f"{path} is not a regular file")
        _owned_private(info, str(path))
        if info.st_size > MAX_BYTES:
            raise Ignored(f"{path} is larger than {MAX_BYTES} bytes")
        return entry.read(MAX_BYTES + 1)


def _strict_object(pairs):
    found = dict(pairs)
    if len(found) != len(pairs):
        raise ValueError("a key given twice")
    return found


def _refuse_constant(name):
    raise ValueError(f"{name} is no JSON number")


def _parsed(path: Path, key: dict[str, str]) -> dict:
    """The entry at ``path`` for ``key``, every field checked; Ignored naming what is wrong."""
    try:
        entry = json.loads(_read_bytes(path), object_pairs_hook=_strict_object,
                           parse_constant=_refuse_constant)  # fmt: skip
    except ValueError as error:  # UnicodeDecodeError and JSONDecodeError among them
        raise Ignored(f"{path} is not a cache entry's JSON ({error})") from None
    fields = {"schema", "key", "verdicts", "checked_at", "checked_by", "seconds", "sha256"}
    if not isinstance(entry, dict) or set(entry) != fields or entry["schema"] != SCHEMA:
        raise Ignored(f"{path} is not a {SCHEMA} entry")
    body = {name: value for name, value in entry.items() if name != "sha256"}
    if entry["sha256"] != hashlib.sha256(_canonical(body)).hexdigest():
        raise Ignored(f"{path} was edited (its sha256 is not its content's)")
    if not isinstance(entry["key"], dict):
        raise Ignored(f"{path} is not a {SCHEMA} entry")
    other = sorted(name for name in key.keys() | entry["key"].keys()
                   if entry["key"].get(name) != key.get(name))  # fmt: skip
    if other:
        raise Ignored(f"{path} is another check's (its {', '.join(other)} differ)")
    verdicts = entry["verdicts"]
    if (not isinstance(verdicts, dict) or list(verdicts) != list(judge.judge_cases())
            or not all(isinstance(verdict, str) for verdict in verdicts.values())):  # fmt: skip
        raise Ignored(f"{path} does not hold a verdict for each judge case, in corpus order")
    if not all(isinstance(entry[name], str) for name in ("checked_at", "checked_by")):
        raise Ignored(f"{path} is not a {SCHEMA} entry")
    return entry


def store(folder: Path, key: dict[str, str], verdicts: dict[str, str], seconds: float) -> Path:
    """Write the entry for ``key`` atomically; OSError or ReportNotWritten (nothing left
    behind) when it cannot."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    _folder_checked(folder)
    body = {
        "schema": SCHEMA,
        "key": key,
        "verdicts": verdicts,
        "checked_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "checked_by": f"lcb-conformance {_version('lcb-conformance')}",
        "seconds": round(seconds, 1),
    }
    text = json.dumps({**body, "sha256": hashlib.sha256(_canonical(body)).hexdigest()},
                      indent=1, ensure_ascii=True) + "\n"  # fmt: skip
    path = entry_path(folder, key)
    report_files.write_atomically(path, text)  # whole or absent, a symlink there replaced
    path.chmod(0o600)  # as the umask made it until now: a reader refuses it meanwhile
    return path


@dataclass(frozen=True)
class Check:
    """A tree's judge check: the cases it grades unlike 28fef95; where it came from."""

    differing: list[str]
    cached: dict | None  # {"entry", "checked_at", "checked_by"} when read from the cache
    said: list[str]  # why an entry was ignored, or not written


def check(upstream: Upstream, folder: Path | None) -> Check:
    """The judge check of a tree given by path whose files are not 28fef95's: from its entry
    in ``folder`` when one is believed, else graded now and stored (``folder`` None: graded
    now, nothing read or written)."""
    if folder is None:
        return Check(grading.check_judge(upstream), None, [])
    key = key_of(upstream.tree.sha256)
    path, said = entry_path(folder, key), []
    try:
        if os.path.lexists(path):
            _folder_checked(folder)
            entry = _parsed(path, key)
            cached = {"entry": str(path), "checked_at": entry["checked_at"],
                      "checked_by": entry["checked_by"]}  # fmt: skip
            return Check(grading.differing_cases(entry["verdicts"]), cached, [])
    except (Ignored, OSError) as error:
        said.append(f"judge cache entry ignored, the judge checked again: {error}")
    started = time.monotonic()
    verdicts = grading.judge_verdicts(upstream)
    try:
        store(folder, key, verdicts, time.monotonic() - started)
    except (Ignored, OSError, report_files.ReportNotWritten) as error:
        said.append(f"judge check not kept in the cache: {error}")
    return Check(grading.differing_cases(verdicts), None, said)
