"""The pinned commit, its lcb_runner tree file by file, and an upstream tree held to it.

    python -m lcb_conformance.upstream.pinned_tree CHECKOUT   (maintainers: writes the manifest)

``conformance/pinned-tree.json`` records every file of lcb_runner/ at PINNED_COMMIT with its git
blob SHA-1, as ``git ls-tree -r PINNED_COMMIT lcb_runner`` lists them in a LiveCodeBench clone
(the command above runs exactly that and records itself in the file; test_pinned_tree holds
the file to a clone given by ``--upstream``). A tree given by ``--upstream PATH`` is hashed the
same way (sha1 of ``b"blob %d\\0" + content``) before a run rests on it, so what the verdict
rests on is the files themselves, not git's metadata: an exported tree (``git archive``, a
release tarball) equal to the manifest is the pinned commit's code, and a checkout whose
testing_util.py was appended to is not, whatever its ``.git`` says.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from lcb_conformance.common import exit_codes, paths

# The pinned commit: LiveCodeBench HEAD on 2025-07-16 (the leaderboard's runner).
PINNED_COMMIT = "28fef95ea8c9f7a547c8329f2cd3d32b92c1fa24"
MANIFEST = paths.SUITE_DIR / "pinned-tree.json"
PACKAGE = "lcb_runner"
HOW = "python -m lcb_conformance.upstream.pinned_tree CHECKOUT"


def blob_sha1(content: bytes) -> str:
    """git's object id of a file with this content (``git hash-object``)."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@cache
def manifest() -> dict:
    return json.loads(MANIFEST.read_text("utf-8"))


def files_of(checkout: Path) -> dict[str, str]:
    """Every file under the checkout's lcb_runner/, by its path there, with its blob SHA-1;
    Python's bytecode caches aside (it writes them on import; they are not the tree)."""
    found = {}
    for path in (checkout / PACKAGE).rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            found[path.relative_to(checkout).as_posix()] = blob_sha1(path.read_bytes())
    return found


def root_importables(checkout: Path) -> dict[str, str]:
    """What an import could find at the checkout's root besides lcb_runner: the root goes on
    sys.path first (source.py), so a module file or a package there (``numpy.py``,
    ``tqdm/__init__.py``, an extension module) would shadow what lcb_runner imports, in this
    process and in the judge's. 28fef95's root holds none. A folder without ``__init__`` (a
    namespace portion, such as lcb_runner's own ``output/``) yields to any installed package."""
    suffixes = tuple(importlib.machinery.all_suffixes())
    found = {}
    for path in checkout.iterdir():
        if path.name == PACKAGE:
            continue
        inits = [path / f"__init__{suffix}" for suffix in suffixes] if path.is_dir() else []
        for module in [path] * (path.is_file() and path.name.endswith(suffixes)) + inits:
            if module.is_file():
                found[module.relative_to(checkout).as_posix()] = blob_sha1(module.read_bytes())
    return found


def digest(files: dict[str, str]) -> str:
    """One sha256 for a tree: its paths and blob ids, sorted."""
    listed = "".join(f"{path} {blob}\n" for path, blob in sorted(files.items()))
    return hashlib.sha256(listed.encode()).hexdigest()


def pinned_digest() -> str:
    """The pinned commit's files' :func:`digest`: a tree's (:func:`compare`) exactly when its
    files are the pinned commit's."""
    return digest(manifest()["files"])


@dataclass(frozen=True)
class Tree:
    """A checkout's lcb_runner files against the pinned commit's."""

    sha256: str
    # "changed PATH", "missing PATH", "extra PATH", "importable beside lcb_runner: PATH"
    changes: tuple[str, ...]

    @property
    def equal_to(self) -> str | None:
        """The pinned commit when every file is its own, else None."""
        return PINNED_COMMIT if not self.changes else None


def compare(checkout: Path) -> Tree:
    """The checkout's lcb_runner/ against the manifest: a file of the pinned tree changed or
    missing, an extra .py file (importable as lcb_runner's; other extra files are data
    nothing imports), and a module or package at the root (:func:`root_importables`). Its
    digest is of what is held to the manifest (the data aside): the pinned commit's files'
    digest exactly when nothing differs, which a record of it is held to (:func:`disagreement`)."""
    found = files_of(checkout)
    pinned = manifest()["files"]
    changes = [
        (path, "missing" if path not in found else "changed")
        for path, blob in pinned.items()
        if found.get(path) != blob
    ]
    changes += [(path, "extra") for path in found if path not in pinned and path.endswith(".py")]
    shadowing = root_importables(checkout)
    changes += [(path, "importable beside lcb_runner:") for path in shadowing]
    held = {path: blob for path, blob in found.items() if path in pinned or path.endswith(".py")}
    return Tree(
        digest({**held, **shadowing}), tuple(f"{kind} {path}" for path, kind in sorted(changes))
    )


def disagreement(recorded: Mapping[str, object]) -> str:
    """How a tree as a record holds it (:class:`Tree`'s sha256, equal_to, changes) disagrees
    with itself ("": it does not): its files are the pinned commit's exactly when its sha256 is
    :func:`pinned_digest`, and then it names no change and equals the pinned commit; otherwise
    it names a change and equals no commit (the project holds no other's manifest)."""
    pinned = recorded.get("sha256") == pinned_digest()
    claims = {"changes": not recorded.get("changes"),
              "equal_to": recorded.get("equal_to") == PINNED_COMMIT}  # fmt: skip
    wrong = [f"{name} {recorded.get(name)!r}" for name, says in claims.items() if says != pinned]
    if not wrong:
        return ""
    return (
        f"lcb_runner tree's {' and '.join(wrong)}, but its sha256 "
        f"{str(recorded.get('sha256'))[:16]} is {'' if pinned else 'not '}the digest of "
        f"{PINNED_COMMIT[:7]}'s files"
    )


def ls_tree(clone: Path, commit: str) -> dict[str, str]:
    """``git ls-tree -r COMMIT lcb_runner`` in a clone: path -> blob SHA-1."""
    listed = subprocess.run(
        ["git", "-C", str(clone), "ls-tree", "-r", commit, PACKAGE],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    files = {}
    for line in listed.splitlines():
        meta, path = line.split("\t", 1)
        _mode, kind, blob = meta.split()
        if kind == "blob":
            files[path] = blob
    return files


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(f"usage: {HOW}", file=sys.stderr)
        return exit_codes.UNUSABLE
    try:
        files = ls_tree(Path(argv[0]), PINNED_COMMIT)
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"{argv[0]}: no git clone holding {PINNED_COMMIT[:7]}: {error}", file=sys.stderr)
        return exit_codes.UNUSABLE
    record = {
        "how": HOW,
        "made_by": f"git ls-tree -r {PINNED_COMMIT} {PACKAGE}",
        "commit": PINNED_COMMIT,
        "files": files,
    }
    MANIFEST.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", "utf-8")
    print(f"{MANIFEST}: {len(files)} files of {PACKAGE} at {PINNED_COMMIT[:7]}")
    return exit_codes.OK


if __name__ == "__main__":
    sys.exit(main())
