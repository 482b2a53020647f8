"""LiveCodeBench's published dataset (a folder, a Hugging Face cache or one file) indexed,
streamed, and checked against the release manifests before grading.

The dataset a regrade judges against: LiveCodeBench's published code_generation_lite files
(``test.jsonl`` .. ``test6.jsonl``, JSON lines, private tests as base64(zlib(pickle(json)))), in
a local folder or a Hugging Face hub cache folder (``datasets--livecodebench--
code_generation_lite``: ``snapshots/<revision>/`` the files, linked to ``blobs/<sha256>``), or
one JSON lines file of problem rows (one of those files, or a set of one's own).

Read once, streamed: an index of question_id -> (file, byte offset, the metadata the release
manifests record, sha256 of the row's tests as stored), so a problem's row is loaded only when
its samples are graded and memory stays flat in the dataset's size. Nothing is unpickled here:
the tests are decoded by lcb_runner in the judge's children.

Checked before anything is graded (:func:`check`): which release tag the files are (by their
names, as the dataset's loader maps tags to files, or ``--release``); every file byte for byte
the one LiveCodeBench published (its sha256 as the manifests record it), so a test case
changed anywhere in a file names that file; every problem of that tag's manifest present with
its contest_date, difficulty and platform; in a hub cache, every file equal to the blob its
name records (the sha256 the Hub served), so a test case edited after download is named as
such. The digests are of whole files: which problem of a changed file changed is not known
(docs/regrade.md).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from lcb_conformance import releases, statements
from lcb_conformance.common import listing
from lcb_conformance.suite import cases

HUB_FOLDER = "datasets--livecodebench--code_generation_lite"
SHA256 = re.compile(r"^[0-9a-f]{64}$")
SHOWN = 8  # problems named per kind of mismatch before "... and N more"
# where the dataset comes from and the layout read, said with every refusal of what was given
WANTED = (
    "--dataset wants a folder of LiveCodeBench's dataset: the test.jsonl .. test6.jsonl files "
    "of Hugging Face's livecodebench/code_generation_lite (`hf download "
    "livecodebench/code_generation_lite --repo-type dataset --local-dir DIR`), the hub cache "
    f"folder {HUB_FOLDER} that `datasets` leaves, or one JSON lines file of problem rows"
)


class DatasetError(ValueError):
    """A dataset that cannot be graded against; the message names file, line or problem."""


@dataclass(frozen=True)
class Entry:
    """Where a problem's row is, what the manifests record of it, and its tests' digest."""

    file: str
    offset: int
    contest_date: str
    difficulty: str
    platform: str
    tests_sha256: str
    statement: dict | None = None  # question_title, question_content, starter_code (statements.py)


@dataclass
class Dataset:
    folder: Path  # the folder the files were read from (a hub cache: its snapshot)
    files: list[str]
    entries: dict[str, Entry] = field(default_factory=dict)
    file_sha256: dict[str, str] = field(default_factory=dict)  # each file's, as read
    # a hub cache's files whose content differs from the blob they name: file -> found sha256
    changed_files: dict[str, str] = field(default_factory=dict)
    revision: str | None = None  # a hub cache's snapshot revision

    def row(self, question_id: str) -> dict:
        """The problem's full row (its tests included), read from its file."""
        entry = self.entries[question_id]
        with (self.folder / entry.file).open("rb") as stream:
            stream.seek(entry.offset)
            return json.loads(stream.readline())

    def sha256(self) -> str:
        """One digest of the whole dataset as graded: every problem's metadata and tests."""
        digest = hashlib.sha256()
        for question_id in sorted(self.entries):
            entry = self.entries[question_id]
            line = [question_id, entry.contest_date, entry.difficulty, entry.platform,
                    entry.tests_sha256]  # fmt: skip
            digest.update((json.dumps(line) + "\n").encode())
        return digest.hexdigest()


def _snapshot(folder: Path) -> tuple[Path, str | None]:
    """A hub cache's snapshot folder (refs/main's revision, or its only one) and revision;
    any other folder as it is."""
    hub = folder / HUB_FOLDER if (folder / HUB_FOLDER).is_dir() else folder
    snapshots = hub / "snapshots"
    if not snapshots.is_dir():
        return folder, None
    main = hub / "refs" / "main"
    revisions = sorted(p.name for p in snapshots.iterdir() if p.is_dir())
    revision = main.read_text().strip() if main.is_file() else None
    if revision is None and len(revisions) == 1:
        revision = revisions[0]
    if revision not in revisions:
        raise DatasetError(
            f"{hub}: a Hugging Face cache with snapshots {', '.join(revisions) or '(none)'} "
            "and no refs/main naming one of them: pass the snapshot folder itself (its "
            "test*.jsonl files)"
        )
    return snapshots / revision, revision


def _tests_sha256(row: dict) -> str:
    digest = hashlib.sha256()
    for name in ("public_test_cases", "private_test_cases", "metadata"):
        value = row[name].encode("utf-8", "surrogatepass")
        digest.update(len(value).to_bytes(8, "little") + value)
    return digest.hexdigest()


def read(given: Path) -> Dataset:
    """The dataset's index: every JSON-lines file of the folder given (a release's test*.jsonl, or
    any other set's files), or the one file given, streamed once."""
    if given.is_file():  # one file of rows: a release's by its name (test.jsonl), or one's own
        snapshot, revision, files = given.parent, None, [given.name]
    elif given.is_dir():
        snapshot, revision = _snapshot(given)
        files = sorted(p.name for p in snapshot.glob("*.jsonl"))
    else:
        raise DatasetError(f"{given}: no such file or folder; {WANTED}")
    if not files:
        raise DatasetError(f"{snapshot}: a folder without .jsonl files; {WANTED}")
    dataset = Dataset(snapshot, files, revision=revision)
    for name in files:
        path = snapshot / name
        blob = path.resolve().name
        digest = hashlib.sha256()
        offset = 0
        with path.open("rb") as stream:
            for number, raw in enumerate(stream, start=1):
                digest.update(raw)
                start, offset = offset, offset + len(raw)
                if raw.strip():
                    _index(dataset, path, number, start, raw)
        dataset.file_sha256[name] = digest.hexdigest()
        if revision is not None and SHA256.match(blob) and digest.hexdigest() != blob:
            dataset.changed_files[name] = digest.hexdigest()
    if not dataset.entries:
        raise DatasetError(f"{snapshot}: no problems in {', '.join(files)}; {WANTED}")
    return dataset


def _index(dataset: Dataset, path: Path, number: int, offset: int, raw: bytes) -> None:
    try:
        row = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise DatasetError(f"{path}:{number}: not valid JSON ({error})") from None
    if not isinstance(row, dict):
        raise DatasetError(f"{path}:{number}: expected a JSON object (a problem's row)")
    cases.check_problem_row(path, number, row, DatasetError)
    question_id = row["question_id"]
    if question_id in dataset.entries:
        raise DatasetError(f"{path}:{number}: problem {question_id!r} appears twice")
    dataset.entries[question_id] = Entry(
        path.name, offset, row["contest_date"], row["difficulty"], row["platform"],
        _tests_sha256(row),
        {f: row[f] for f in statements.FIELDS} if statements.carries_statement(row) else None,
    )  # fmt: skip


def release_of(dataset: Dataset) -> str | None:
    """The release tag whose files the dataset's file names are (the loader's mapping)."""
    named = [tag for tag, files in releases.tag_files().items() if files == dataset.files]
    return next((tag for tag in named if tag.startswith("release_")), named[0] if named else None)


def listed(ids) -> str:
    return listing.named(sorted(ids), SHOWN)


def _not_published(dataset: Dataset) -> list[str]:
    """The dataset's files that are not byte for byte a file LiveCodeBench published (a file
    already named as changed since download is not named twice)."""
    published = releases.published()
    files = published["files"]
    found = []
    for name in dataset.files:
        if name in dataset.changed_files:
            continue
        digest, record = dataset.file_sha256[name], files.get(name)
        if record is None:
            found.append(
                f"{name} is none of the files LiveCodeBench published ({', '.join(files)}): "
                "its tests cannot be checked against theirs"
            )
        elif digest != record["sha256"]:
            found.append(
                f"{name} is not the file LiveCodeBench published (revision "
                f"{published['revision'][:8]}): its sha256 is {digest[:16]}..., the published "
                f"one's {record['sha256'][:16]}... (a test case changed, or another revision's "
                "file)"
            )
    return found


def check(dataset: Dataset, tag: str | None) -> list[str]:
    """What does not match the release ``tag`` (the published files, its manifest), one
    sentence per kind; empty when the dataset is that release's files byte for byte, with the
    problems its manifest records."""
    found = []
    for name, digest in sorted(dataset.changed_files.items()):
        found.append(
            f"{name} changed since download: its sha256 is {digest[:16]}..., the Hub served "
            f"{(dataset.folder / name).resolve().name[:16]}... (a test case edited?)"
        )
    if tag is None:
        return found
    found += _not_published(dataset)
    expected = {row["question_id"]: row for row in releases.members(tag)}
    missing = expected.keys() - dataset.entries.keys()
    extra = dataset.entries.keys() - expected.keys()
    changed = [
        f"{qid} ({', '.join(f'{name} {getattr(entry, name)!r}, not {expected[qid][name]!r}' for name in ('contest_date', 'difficulty', 'platform') if getattr(entry, name) != expected[qid][name])})"  # noqa: E501
        for qid, entry in sorted(dataset.entries.items())
        if qid in expected
        and any(
            getattr(entry, name) != expected[qid][name]
            for name in ("contest_date", "difficulty", "platform")
        )
    ]
    if missing:
        found.append(f"{len(missing)} problems of {tag} missing: {listed(missing)}")
    if extra:
        found.append(f"{len(extra)} problems not in {tag}: {listed(extra)}")
    if changed:
        found.append(f"{len(changed)} problems with other metadata than {tag}'s: "
                     + "; ".join(changed[:SHOWN]))  # fmt: skip
    return found + statement_mismatch(dataset)


# --- the statement check (statements.py): what the model saw, problem by problem ---
def statement_check(dataset: Dataset) -> statements.StatementCheck:
    rows = [
        {"question_id": qid} | (entry.statement or {}) for qid, entry in dataset.entries.items()
    ]
    return statements.check(rows, releases.problems())


def statement_mismatch(dataset: Dataset) -> list[str]:
    """The problems whose statement is not the release's, named (empty when none is)."""
    result = statement_check(dataset)
    return [result.summary()] if result.differs else []


# --- end of the statement check ---
