"""Golden integrity: are the golden files exactly what the last regeneration wrote?

Every problem is one message naming the golden file, saying what is wrong with it (and, for
the usual accidents, how it got that way: a byte-order mark, CRLF line endings, Unicode
normalisation), and naming the regeneration command. test_suite_integrity.py runs these on
the real goldens; test_golden_tampering.py on tampered scratch copies.

Goldens, manifest and directory are looked up through :mod:`lcb_conformance.suite.goldens` at call
time (``goldens.GOLDENS_DIR``, ``goldens.MANIFEST_FILE``), and the manifest is re-read on every
call, so a test can point these checks at a copy.
"""

from __future__ import annotations

import hashlib
import unicodedata
from pathlib import Path

from lcb_conformance.common import paths
from lcb_conformance.suite import families, goldens

BOM = b"\xef\xbb\xbf"


def regenerate() -> str:
    return f"regenerate with `{goldens.REGEN_COMMAND}`"


def only_regen_changes_goldens() -> str:
    return (
        f"goldens change only through `{goldens.REGEN_COMMAND}` "
        "(restore the file from git, or regenerate)"
    )


def display(path: Path) -> str:
    """The golden's path as a person finds it: relative to the suite's root when inside it."""
    try:
        return path.relative_to(paths.ROOT).as_posix()
    except ValueError:
        return str(path)


def recorded_manifest() -> dict[str, str]:
    """The manifest as it is on disk now (goldens.recorded_manifest is cached per session)."""
    return goldens.recorded_manifest.__wrapped__()


def missing_goldens() -> list[str]:
    """A case in fixtures/ with no golden file."""
    return [
        f"{display(key.path)}: no golden for case {key} (a new fixture case?); {regenerate()}"
        for key in families.expected_keys()
        if not key.path.is_file()
    ]


def orphan_goldens() -> list[str]:
    """A golden file no case calls for (renamed or removed from fixtures/): no test uses it."""
    expected = {key.path for key in families.expected_keys()}
    return [
        f"{display(path)}: golden with no case in fixtures/ (renamed or removed?), "
        f"so no test checks it; {regenerate()} (it removes the file)"
        for path in goldens.golden_files()
        if path not in expected
    ]


def checksum_problems() -> list[str]:
    """Golden files that differ from MANIFEST.sha256, or that it does not list or lists gone."""
    recorded = recorded_manifest()
    if not recorded:
        return [f"{display(goldens.MANIFEST_FILE)}: missing or empty; {regenerate()}"]
    expected = {key.path for key in families.expected_keys()}
    problems = []
    on_disk = set()
    for path in goldens.golden_files():
        relative = path.relative_to(goldens.GOLDENS_DIR).as_posix()
        on_disk.add(relative)
        digest = recorded.get(relative)
        if digest is None:
            if path in expected:  # an orphan is reported (once) by orphan_goldens
                problems.append(
                    f"{display(path)}: not in MANIFEST.sha256 (written by hand?); "
                    f"{only_regen_changes_goldens()}"
                )
            continue
        data = path.read_bytes()
        if _sha256(data) != digest:
            problems.append(
                f"{display(path)}: {_what_changed(data, digest)}; {only_regen_changes_goldens()}"
            )
    for relative in sorted(set(recorded) - on_disk):
        problems.append(
            f"{display(goldens.GOLDENS_DIR / relative)}: listed in MANIFEST.sha256 but gone "
            f"(deleted by hand?); {regenerate()}"
        )
    return problems


def integrity_problems() -> list[str]:
    """Everything wrong with the golden store, one message per problem (empty: all good)."""
    return missing_goldens() + orphan_goldens() + checksum_problems()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _what_changed(data: bytes, recorded: str) -> str:
    """Why the bytes no longer match the recorded checksum, when an undo tells."""
    if not data:
        return "is empty, the recorded golden is not (truncated?)"
    if data.startswith(BOM) and _sha256(data[len(BOM) :]) == recorded:
        return "starts with a UTF-8 byte-order mark the golden does not have (added by an editor?)"
    if b"\r\n" in data and _sha256(data.replace(b"\r\n", b"\n")) == recorded:
        return "has CRLF line endings where the golden has LF (git autocrlf or an editor?)"
    if b"\n" in data and _sha256(data.replace(b"\n", b"\r\n")) == recorded:
        return "has LF line endings where the golden has CRLF (git or an editor converted them?)"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"is not valid UTF-8 (re-encoded?): {error}"
    for form in ("NFC", "NFD"):
        normalised = unicodedata.normalize(form, text)
        if normalised != text and _sha256(normalised.encode("utf-8")) == recorded:
            other = "NFD" if form == "NFC" else "NFC"
            return (
                f"is Unicode-normalised to {other} where the golden is {form} "
                "(an editor or filesystem re-normalised it?)"
            )
    return (
        f"differs from the checksum in MANIFEST.sha256 (sha256 {_sha256(data)[:12]}…, recorded "
        f"{recorded[:12]}…): edited by hand, or truncated?"
    )
