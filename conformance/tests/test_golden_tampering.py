"""What a tampered golden looks like in a failing run: each kind of accident, made on a
scratch copy of the goldens, gives one message that names the file, says what happened to it
and names the regeneration command (lcb_conformance.suite.integrity, shared with
test_suite_integrity.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import junit_record
import pytest

from lcb_conformance.common import paths
from lcb_conformance.suite import cases, families, goldens, integrity

# The suite checking itself (each test copies every golden): not part of an implementation's
# verdict run; tox -e upstream runs it.
pytestmark = pytest.mark.selftest


def non_ascii_prompt() -> goldens.GoldenKey:
    """An NFC prompt golden with a character NFD decomposes (an accented letter)."""
    for key in families.expected_keys(goldens.PROMPT):
        text = goldens.read(key)
        if text and unicodedata.normalize("NFC", text) == text != unicodedata.normalize(
            "NFD", text
        ):
            return key
    raise AssertionError("no NFC prompt golden with a decomposable character in the fixtures")


def new_problems(tamper) -> list[str]:
    """The problems tampering adds to whatever the copy already had."""
    before = set(integrity.integrity_problems())
    tamper()
    return [problem for problem in integrity.integrity_problems() if problem not in before]


def edit(path: Path, change) -> None:
    path.write_bytes(change(path.read_bytes()))


def nfd(data: bytes) -> bytes:
    return unicodedata.normalize("NFD", data.decode("utf-8")).encode("utf-8")


TAMPERING = {
    "hand-edited": (
        lambda data: data.replace(b"Python", b"python", 1),
        "differs from the checksum in MANIFEST.sha256",
    ),
    "truncated": (lambda data: data[: len(data) // 2], "edited by hand, or truncated?"),
    "emptied": (lambda data: b"", "is empty, the recorded golden is not (truncated?)"),
    "crlf": (
        lambda data: data.replace(b"\n", b"\r\n"),
        "has CRLF line endings where the golden has LF",
    ),
    "bom": (
        lambda data: integrity.BOM + data,
        "starts with a UTF-8 byte-order mark the golden does not have",
    ),
    "nfc-to-nfd": (nfd, "is Unicode-normalised to NFD where the golden is NFC"),
    "utf-16": (
        lambda data: data.decode("utf-8").encode("utf-16"),
        "is not valid UTF-8 (re-encoded?)",
    ),
}


@pytest.mark.parametrize("kind", TAMPERING)
def test_a_tampered_golden_is_named_with_what_happened(golden_copy, kind):
    change, says = TAMPERING[kind]
    key = non_ascii_prompt()
    problems = new_problems(lambda: edit(key.path, change))
    assert len(problems) == 1, problems
    (message,) = problems
    assert message.startswith(str(key.path) + ": "), message
    assert says in message
    assert f"`{goldens.REGEN_COMMAND}`" in message


def test_the_checksum_test_fails_with_the_message(golden_copy):
    """The suite's own test, on a tampered copy: what a developer sees."""
    from test_suite_integrity import test_goldens_match_their_recorded_checksums

    key = next(
        key
        for key in families.expected_keys(goldens.EXTRACT)
        if "\n" in (goldens.read(key) or "") and "\r" not in goldens.read(key)
    )
    edit(key.path, lambda data: data.replace(b"\n", b"\r\n"))
    with pytest.raises(AssertionError) as failure:
        test_goldens_match_their_recorded_checksums()
    report = str(failure.value)
    assert key.relative in report
    assert "CRLF line endings" in report
    assert goldens.REGEN_COMMAND in report


def test_an_orphaned_golden_is_named(golden_copy):
    orphan = golden_copy / goldens.PROMPT / "generic" / "no_such_case.txt"
    problems = new_problems(lambda: orphan.write_bytes(b"stale\n"))
    assert problems == [
        f"{orphan}: golden with no case in fixtures/ (renamed or removed?), so no test "
        f"checks it; regenerate with `{goldens.REGEN_COMMAND}` (it removes the file)"
    ]


def test_a_deleted_golden_is_named(golden_copy):
    key = non_ascii_prompt()
    problems = new_problems(key.path.unlink)
    assert sorted(problems) == sorted(
        [
            f"{key.path}: no golden for case {key} (a new fixture case?); "
            f"regenerate with `{goldens.REGEN_COMMAND}`",
            f"{key.path}: listed in MANIFEST.sha256 but gone (deleted by hand?); "
            f"regenerate with `{goldens.REGEN_COMMAND}`",
        ]
    )


def test_a_golden_missing_from_the_manifest_is_named(golden_copy):
    key = non_ascii_prompt()
    kept = [
        line
        for line in goldens.MANIFEST_FILE.read_text("utf-8").splitlines()
        if not line.endswith("  " + key.relative)
    ]
    problems = new_problems(
        lambda: goldens.MANIFEST_FILE.write_text("\n".join(kept) + "\n", "utf-8")
    )
    assert len(problems) == 1 and problems[0].startswith(f"{key.path}: not in MANIFEST.sha256")
    assert goldens.REGEN_COMMAND in problems[0]


def test_a_missing_manifest_is_named(golden_copy):
    problems = new_problems(goldens.MANIFEST_FILE.unlink)
    assert problems == [
        f"{goldens.MANIFEST_FILE}: missing or empty; regenerate with `{goldens.REGEN_COMMAND}`"
    ]


def test_the_real_goldens_are_shown_relative_to_the_repository():
    key = families.expected_keys(goldens.PROMPT)[0]
    assert integrity.display(key.path) == "conformance/goldens/" + key.relative


def test_an_orphaned_golden_fails_the_suite_under_xdist(tmp_path):
    """With the suite split over two workers, the orphan check still runs (once) and fails,
    naming the file. The suite runs from a copy of the repository so the real goldens are
    never touched (lcb_conformance is imported from the copy; fixtures/ is linked)."""
    copy = tmp_path / "repo"
    shutil.copytree(
        paths.ROOT / "conformance",
        copy / "conformance",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy2(paths.ROOT / "pyproject.toml", copy / "pyproject.toml")
    (copy / "fixtures").symlink_to(cases.FIXTURES_DIR, target_is_directory=True)
    orphan = copy / "conformance" / "goldens" / goldens.PROMPT / "generic" / "no_such_case.txt"
    orphan.write_bytes(b"stale\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(copy / "conformance"), env.get("PYTHONPATH")])
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",
            "2",
            f"--junitxml={tmp_path / 'session.xml'}",
            "conformance/tests/test_suite_integrity.py",
            "-k",
            "test_no_orphan_goldens",
        ],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    (failed,) = junit_record.outcomes(tmp_path / "session.xml")  # run once, not per worker
    assert (failed.test, failed.outcome) == ("test_no_orphan_goldens", junit_record.FAILED)
    assert failed.classname.endswith("test_suite_integrity")
    assert "conformance/goldens/prompt/generic/no_such_case.txt: golden with no case" in (
        failed.text
    )
    assert goldens.REGEN_COMMAND in failed.text
