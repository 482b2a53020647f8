"""`fixtures/tokenizers` served through a real, offline Hugging Face cache.

Upstream lcb_runner calls ``AutoTokenizer.from_pretrained("meta-llama/Meta-Llama-3-8B-Instruct")``
by repo id. To run that code unmodified and offline, every snapshot folder
``fixtures/tokenizers/<org>__<name>/`` is written into a Hugging Face hub cache
(``HF_HOME/hub/models--<org>--<name>/{refs/main, snapshots/<rev>/...}``) and the process is
switched to offline mode, so transformers' own loading path (config.json -> tokenizer_config.json
-> tokenizer.json) resolves the repo id from that cache and never touches the network.

huggingface_hub (and transformers 4.x) read HF_HOME / HF_HUB_CACHE / HF_HUB_OFFLINE once, when
they are imported, so :func:`activate_offline_cache` must run before anything imports them; it
raises RuntimeError when they were already imported with another cache or without offline mode.

Standard library only (and paths, which is too); :func:`load_tokenizer` imports transformers
when it is called.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import sys
import tempfile
from functools import cache
from pathlib import Path

from lcb_conformance.common import paths

__all__ = [
    "SNAPSHOTS_DIR",
    "snapshot_revision",
    "build_cache",
    "activate_offline_cache",
    "serve",
    "served_home",
    "child_environment",
]

SNAPSHOTS_DIR: Path = paths.TOKENIZERS_DIR

# Written at the top of every HF_HOME this module fills. build_cache() refuses to write into a
# non-empty directory without it, so a real user cache (~/.cache/huggingface) is never touched.
MARKER_FILE = ".lcb-conformance-hf-home"

OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HF_HUB_DISABLE_IMPLICIT_TOKEN": "1",
}

_active_hf_home: Path | None = None


def _snapshot_files(snapshot_dir: Path) -> list[tuple[str, Path]]:
    files = [(p.relative_to(snapshot_dir).as_posix(), p) for p in snapshot_dir.rglob("*")]
    return sorted((rel, p) for rel, p in files if p.is_file())


def snapshot_revision(snapshot_dir: Path) -> str:
    """A deterministic 40-hex "commit hash" for a snapshot folder.

    sha1 over its files sorted by relative POSIX path, each fed as
    ``path (UTF-8) + b"\\0" + decimal byte length + b"\\0" + file bytes``.
    """
    h = hashlib.sha1()
    for rel, path in _snapshot_files(Path(snapshot_dir)):
        data = path.read_bytes()
        h.update(rel.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0")
        h.update(data)
    return h.hexdigest()


def _snapshot_dirs(snapshots_dir: Path) -> list[tuple[str, Path]]:
    """(repo_id, folder) of every ``<org>__<name>`` folder; "_..." and "." folders are skipped."""
    out = []
    for d in sorted(Path(snapshots_dir).iterdir()):
        if not d.is_dir() or d.name.startswith(("_", ".")) or "__" not in d.name:
            continue
        org, name = d.name.split("__", 1)
        out.append((f"{org}/{name}", d))
    if not out:
        raise FileNotFoundError(f"no <org>__<name> snapshot folders in {snapshots_dir}")
    return out


def _check_hf_home_is_ours(hf_home: Path) -> None:
    if hf_home.exists() and not hf_home.is_dir():
        raise RuntimeError(f"HF_HOME {hf_home} exists and is not a directory")
    if hf_home.is_dir() and any(hf_home.iterdir()) and not (hf_home / MARKER_FILE).is_file():
        raise RuntimeError(
            f"refusing to write tokenizer snapshots into {hf_home}: it is not empty and was not "
            f"created by lcb_conformance.offline_tokenizers.hf_cache (no {MARKER_FILE}); "
            "use an empty directory"
        )


def build_cache(hf_home: Path, snapshots_dir: Path = SNAPSHOTS_DIR) -> dict[str, str]:
    """Write every snapshot folder of ``snapshots_dir`` into the hub cache under ``hf_home``.

    Layout (what huggingface_hub reads offline; plain copies, no blobs/ symlinks needed)::

        hf_home/hub/models--ORG--NAME/refs/main               the revision, no newline
        hf_home/hub/models--ORG--NAME/snapshots/REV/<files>   the snapshot folder's files
        hf_home/hub/version.txt                               "1" (transformers' cache marker)

    Snapshots of an older revision of the same repo are removed. Returns ``{repo_id: revision}``.
    """
    hf_home = Path(hf_home)
    _check_hf_home_is_ours(hf_home)
    hf_home.mkdir(parents=True, exist_ok=True)
    (hf_home / MARKER_FILE).write_text(
        "tokenizer snapshots written by lcb_conformance.offline_tokenizers.hf_cache\n"
    )
    hub = hf_home / "hub"
    hub.mkdir(exist_ok=True)
    # Without it transformers 4.22-4.4x warn offline that loading "will very likely fail".
    (hub / "version.txt").write_text("1")
    revisions: dict[str, str] = {}
    for repo_id, folder in _snapshot_dirs(Path(snapshots_dir)):
        rev = snapshot_revision(folder)
        repo_dir = hub / ("models--" + repo_id.replace("/", "--"))
        snap = repo_dir / "snapshots" / rev
        if not snap.is_dir():
            tmp = repo_dir / "snapshots" / f".tmp-{rev}-{os.getpid()}"
            if tmp.exists():
                shutil.rmtree(tmp)
            for rel, src in _snapshot_files(folder):
                dest = tmp / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dest)
            try:
                tmp.rename(snap)
            except OSError:  # a concurrent build_cache() got there first, same content
                shutil.rmtree(tmp, ignore_errors=True)
        for old in (repo_dir / "snapshots").iterdir():
            if old.name != rev and not old.name.startswith(".tmp-"):
                shutil.rmtree(old, ignore_errors=True)
        refs = repo_dir / "refs"
        refs.mkdir(parents=True, exist_ok=True)
        ref_main = refs / "main"
        if not ref_main.is_file() or ref_main.read_text() != rev:
            tmp_ref = refs / f".main.{os.getpid()}"
            tmp_ref.write_text(rev)
            os.replace(tmp_ref, ref_main)
        revisions[repo_id] = rev
    return revisions


def _already_imported_problem(hf_home: Path) -> str | None:
    """Why an already imported huggingface_hub/transformers cannot serve ``hf_home`` offline."""
    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None:
        want = os.path.realpath(hf_home / "hub")
        have = os.path.realpath(getattr(constants, "HF_HUB_CACHE", ""))
        if have != want:
            return f"huggingface_hub was imported with cache {have!r}, not {want!r}"
        if not getattr(constants, "HF_HUB_OFFLINE", False):
            return "huggingface_hub was imported without HF_HUB_OFFLINE=1"
    # transformers 4.x copies the offline flag at import time
    tf_hub = sys.modules.get("transformers.utils.hub")
    if tf_hub is not None and getattr(tf_hub, "_is_offline_mode", True) is False:
        return "transformers was imported without offline mode"
    return None


def _raise_too_late(problem: str) -> None:
    raise RuntimeError(
        f"activate_offline_cache() came too late: {problem}. huggingface_hub reads HF_HOME, "
        "HF_HUB_CACHE and HF_HUB_OFFLINE when it is imported, so call activate_offline_cache() "
        "(e.g. in conftest.py's pytest_configure) before anything imports transformers or "
        "huggingface_hub."
    )


def _set_env(hf_home: Path) -> None:
    os.environ["HF_HOME"] = str(hf_home)
    os.environ["HF_HUB_CACHE"] = str(hf_home / "hub")  # a user's HF_HUB_CACHE would win otherwise
    os.environ.pop("HUGGINGFACE_HUB_CACHE", None)
    os.environ.pop("TRANSFORMERS_CACHE", None)
    os.environ.update(OFFLINE_ENV)


def activate_offline_cache(
    hf_home: Path | None = None, snapshots_dir: Path = SNAPSHOTS_DIR
) -> Path:
    """Build the snapshot cache and switch this process (and its children) to it, offline.

    ``hf_home=None``: a fresh temporary directory, removed at interpreter exit (later calls reuse
    the active one). Sets HF_HOME, HF_HUB_CACHE, HF_HUB_OFFLINE=1, TRANSFORMERS_OFFLINE=1,
    HF_HUB_DISABLE_TELEMETRY=1 and HF_HUB_DISABLE_IMPLICIT_TOKEN=1. Idempotent within a process.
    Returns the HF_HOME path. ``snapshots_dir`` serves another folder of snapshots (a
    tokenizer upgrade under test) instead of fixtures/tokenizers.

    Raises RuntimeError if huggingface_hub/transformers were already imported with a different
    cache directory or without offline mode: they read those settings at import.
    """
    global _active_hf_home
    target = _active_hf_home if hf_home is None else Path(hf_home).resolve()

    if target is not None and target == _active_hf_home:
        problem = _already_imported_problem(target)
        if problem is not None:
            _raise_too_late(problem)
        _set_env(target)
        return target

    if target is None:
        constants = sys.modules.get("huggingface_hub.constants")
        if constants is not None:
            cache = getattr(constants, "HF_HUB_CACHE", "?")
            _raise_too_late(
                f"huggingface_hub was already imported (cache {cache!r}), so a new temporary "
                "HF_HOME cannot take effect"
            )
        target = Path(tempfile.mkdtemp(prefix="lcb-conformance-hf-home-")).resolve()
        atexit.register(shutil.rmtree, target, ignore_errors=True)  # ours: remove at exit
    else:
        problem = _already_imported_problem(target)
        if problem is not None:
            _raise_too_late(problem)

    build_cache(target, snapshots_dir)
    _set_env(target)
    _active_hf_home = target
    return target


# --- serving without touching the process: the suite's own tokenizer loads --------------------

_served_dir: Path = SNAPSHOTS_DIR
_served_homes: dict[Path, Path] = {}


def serve(snapshots_dir: Path = SNAPSHOTS_DIR) -> None:
    """Serve this folder of snapshots to :func:`served_home`'s callers from now on (the
    --tokenizers option). Changes nothing in the process's environment."""
    global _served_dir
    _served_dir = Path(snapshots_dir).resolve()


def served() -> Path:
    """The folder of snapshots served now (:func:`serve`)."""
    return _served_dir


def served_home() -> Path:
    """An HF_HOME holding the served snapshots, built once per folder in a temporary
    directory removed at exit. Load from it with ``from_pretrained(repo_id,
    cache_dir=served_home() / "hub", local_files_only=True)``: transformers' own loading path,
    offline, whatever the process's HF_HOME, and whether or not transformers was imported
    first."""
    if _active_hf_home is not None and _served_dir == Path(SNAPSHOTS_DIR).resolve():
        return _active_hf_home  # the process already serves them (regen, drift)
    if _served_dir not in _served_homes:
        home = Path(tempfile.mkdtemp(prefix="lcb-conformance-hf-home-")).resolve()
        atexit.register(shutil.rmtree, home, ignore_errors=True)
        build_cache(home, _served_dir)
        _served_homes[_served_dir] = home
    return _served_homes[_served_dir]


def load_tokenizer(repo_id: str):
    """A served snapshot's tokenizer (:func:`serve`), loaded once, through transformers' own
    loading path from an HF cache, offline, without changing the process's environment."""
    return _load(repo_id, served_home())


@cache
def _load(repo_id: str, home: Path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(
        repo_id, cache_dir=str(home / "hub"), local_files_only=True
    )


def child_environment() -> dict[str, str]:
    """The environment of a child process that loads the served snapshots by repo id (an
    --impl-cmd program): the caller's, with HF_HOME pointed at them, offline."""
    home = served_home()
    environment = dict(os.environ)
    environment.pop("HUGGINGFACE_HUB_CACHE", None)
    environment.pop("TRANSFORMERS_CACHE", None)
    return environment | {"HF_HOME": str(home), "HF_HUB_CACHE": str(home / "hub")} | OFFLINE_ENV
