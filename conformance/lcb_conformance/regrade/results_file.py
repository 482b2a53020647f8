"""A regrade's JSON-lines results file (header, one line per sample, footer) and the merge of its
slices.

A regrade's results file (schema ``lcb-conformance-regrade/4``,
conformance/regrade.schema.json), which every view of a regrade reads: JSON lines, a header
(the run, its format and LMStyle, the upstream, the dataset and its release check, the shard),
then one ``{"sample": ...}`` line per sample as it is graded, in the run's order (``n``), then
a footer. A regrade that dies leaves its graded samples and no footer. Every sample read is
re-derived from what it holds (:func:`iter_samples`), never believed: the number is read from
a file anyone can edit. The bytes depend on
nothing but the inputs (no time, no worker count), but for what was measured (a sample's
``timing``, and ``starved`` and ``rechecks``, the runs alone its timing asked for:
docs/regrade-timing.md): slices of a run merged (:func:`merge`) equal the whole run graded at
once, byte for byte in the rest, and keep each slice's samples byte for byte.
"""

from __future__ import annotations

import hashlib
import heapq
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lcb_conformance.run_formats.lcb_runner_files import CODE_GENERATION, lcb_runner_raises
from lcb_conformance.upstream import judge, pinned_tree, timing
from lcb_conformance.upstream.source import named

SCHEMA = "lcb-conformance-regrade/4"
# /3 counts no runtime error as a time limit (upstream/timing.py's module alarm came with /4):
# its samples are re-derived by the rule they were written under
BEFORE_MODULE_ALARM = "lcb-conformance-regrade/3"
# /2 lacks a sample's timing (and the header its recheck): read as measuring nothing; /1 also
# a sample's "judge_aware" (what the program did to the judge): read as naming nothing
UNTIMED = ("lcb-conformance-regrade/2", "lcb-conformance-regrade/1")
READABLE = (SCHEMA, BEFORE_MODULE_ALARM, *UNTIMED)
# what a sample's other outcomes (its starved first, its rechecks) hold
OUTCOME = {"passed", "graded", "metadata", "timing"}
# A sample's "extraction": the harness's scored code against lcb_runner's extraction; its
# "why": what made the verdicts differ.
SAME, DIFFERS, NOT_RECORDED = "same", "differs", "not recorded"
EXTRACTION, JUDGE = "extraction", "judge"


class RegradeError(ValueError):
    """Input the regrade cannot use; the message names it."""


def why(harness: bool | None, regraded: bool, extraction: str, harness_code: bool | None):
    """Why lcb_runner's verdict differs from the harness's: the extraction, the judge, both;
    [] when they agree or the log records no verdict."""
    if harness is None or harness == regraded:
        return []
    if extraction == SAME:
        return [JUDGE]
    if harness_code is None:  # the log records no scored code: cannot tell which
        return [EXTRACTION, JUDGE] if extraction == NOT_RECORDED else [EXTRACTION]
    reasons = [EXTRACTION] if harness_code != regraded else []
    return reasons + ([JUDGE] if harness_code != harness else [])


def file_sha256(path: Path) -> str:
    with path.open("rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


class RegradeFileError(ValueError):
    """A results file that is not a regrade's, or slices that do not make one run."""


class ShardsIncomplete(RegradeFileError):
    """Slices that do not cover the run: one missing, or one that did not finish."""


def _line(record: dict) -> str:
    return json.dumps(record, ensure_ascii=True, sort_keys=True) + "\n"


class Writer:
    """Streams a regrade to a results file, one flushed line per sample."""

    def __init__(self, path: Path, header: dict):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._stream = self.path.open("w", encoding="ascii", newline="\n")
        self._stream.write(_line({"header": {"schema": SCHEMA, **header}}))
        self.count = 0

    def write(self, sample: dict) -> None:
        self._stream.write(_line({"sample": sample}))
        self._stream.flush()
        self.count += 1

    def close(self) -> None:
        self._stream.write(_line({"footer": {"complete": True, "samples": self.count}}))
        self._stream.close()

    def abandon(self) -> None:
        """Close without a footer: the file says the regrade did not finish."""
        self._stream.close()


@dataclass
class Regrade:
    path: Path
    header: dict
    samples: list[dict] = field(default_factory=list)
    complete: bool = False


def _records(path: Path) -> Iterator[tuple[int, dict]]:
    try:
        stream = path.open(encoding="ascii")
    except OSError as error:
        raise RegradeFileError(f"{path}: cannot read ({error.strerror})") from None
    with stream:
        for number, line in enumerate(stream, start=1):
            try:
                record = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                raise RegradeFileError(f"{path}:{number}: not JSON ({error})") from None
            if not isinstance(record, dict) or len(record) != 1:
                raise RegradeFileError(f"{path}:{number}: not a line of a regrade results file")
            yield number, record


def prompts_raise(head: dict) -> str:
    """Where lcb_runner 28fef95 raises building the header's scenario's prompts for its LMStyle
    (lcb_runner_files.lcb_runner_raises, as audit and score ask it), in words; "" where it
    builds them. Derived from the scenario and LMStyle, never read from the header."""
    lmstyle = head.get("lmstyle")
    scenario = head.get("scenario", CODE_GENERATION)
    return lcb_runner_raises(scenario, False, lmstyle if isinstance(lmstyle, str) else None)


def upstream_disagreement(head: dict) -> str:
    """How the header's upstream disagrees with what else it records ("": it does not), so that
    no edit of it makes lcb_runner 28fef95's number of one a regrade gave as not: a checkout's
    tree (which every regrade of one records) is one fact, its changes, equal_to and sha256
    (pinned_tree.disagreement); an installed stand-in whose judge is known to differ from
    28fef95's (judge.stand_in_differing) is graded only with --accept-judge-differences, which
    records the cases in judge_differs."""
    upstream = head.get("upstream")
    if not isinstance(upstream, dict):
        return f"upstream {upstream!r}, which is no upstream's provenance"
    if upstream.get("source") == "checkout":
        tree = upstream.get("tree")
        if not isinstance(tree, dict):
            return "a checkout as its upstream without its lcb_runner tree, which regrade records"
        found = pinned_tree.disagreement(tree)
        return f"the upstream's {found}" if found else ""
    known = judge.stand_in_differing(str(upstream.get("version")))
    if known and not head.get("judge_differs"):
        return (
            f"judge_differs {head.get('judge_differs')!r}, but the judge of {named(upstream)} "
            f"differs from 28fef95's on {len(known)} judge cases ({', '.join(known)}), which "
            "only --accept-judge-differences grades with, naming them"
        )
    return ""


def header(path: Path) -> dict:
    """The file's header; RegradeFileError for a file that is none, whose recorded
    ``lcb_runner_raises`` is not :func:`prompts_raise`'s (absent before the header held it:
    derived all the same), or whose upstream disagrees with itself
    (:func:`upstream_disagreement`)."""
    for _, record in _records(path):
        head = record.get("header")
        if not isinstance(head, dict) or head.get("schema") not in READABLE:
            raise RegradeFileError(f"{path}:1: not a regrade results file (schema {SCHEMA})")
        try:
            claimed, derived = head.get("lcb_runner_raises"), prompts_raise(head)
        except ValueError as error:  # a scenario no regrade writes
            raise RegradeFileError(f"{path}:1: {error}") from None
        if claimed is not None and claimed != derived:
            found = "raises building" if derived else "builds"
            raise RegradeFileError(
                f"{path}:1: the header says lcb_runner_raises {claimed!r}, but lcb_runner "
                f"28fef95 {found} the {head.get('scenario', CODE_GENERATION)} prompts for "
                f"LMStyle.{head.get('lmstyle')}: the file is not what the regrade found"
            )
        disagrees = upstream_disagreement(head)
        if disagrees:
            raise RegradeFileError(
                f"{path}:1: the header says {disagrees}: the file is not what the regrade found"
            )
        return head
    raise RegradeFileError(f"{path}: empty")


def _verdict_disagreement(regraded: dict) -> str:
    """lcb_runner's passed is its pass rule on the graded list (judge.passed, as the grading
    process computes it), and a passing list has no error in its metadata."""
    passed = judge.passed(regraded["graded"])
    if regraded["passed"] is not passed:
        return (
            f"lcb_runner passed {regraded['passed']}, but its graded list "
            f"{regraded['graded']} is passed {passed}"
        )
    metadata = json.loads(regraded["metadata"])
    if not isinstance(metadata, dict):
        raise TypeError("its metadata is not a JSON object")
    if passed and "error_code" in metadata:
        return f"lcb_runner passed, but its metadata records error_code {metadata['error_code']}"
    return ""


def _outcome_disagreement(outcome: dict) -> str:
    """An outcome with its timing: the verdict agrees (_verdict_disagreement), the timing is
    one the grading process measures, and a global timeout is graded as the judge grades it."""
    found = _verdict_disagreement(outcome)
    if found:
        return found
    measured = outcome["timing"]
    if not timing.well_formed(measured):
        return f"a timing {measured!r}, which the grading process does not measure"
    if not timing.agrees(outcome["graded"], outcome["metadata"], measured):
        return f"a global timeout, but lcb_runner graded it {outcome['graded']}"
    return ""


def _timing_disagreement(sample: dict, head: dict) -> str:
    """A sample's runs alone agree with its timing: a starved first outcome kept exactly when
    it was starved (the verdict then the run alone's), and exactly the header's ``recheck``
    rechecks of a timing-sensitive verdict, none of another (upstream/timing.py's rules)."""
    outcomes = [{**sample["regrade"], "timing": sample["timing"]}]
    first = sample.get("starved")
    rechecks = sample.get("rechecks")
    for outcome in [first] * (first is not None) + list(rechecks or []):
        if not isinstance(outcome, dict) or set(outcome) != OUTCOME:
            return f"an outcome {outcome!r} that is none the grading process gives"
        outcomes.append(outcome)
    for outcome in outcomes:
        found = _outcome_disagreement(outcome)
        if found:
            return found
    final = outcomes[0]
    timeout = None if head["schema"] == BEFORE_MODULE_ALARM else head["timeout"]
    if first is None and timing.starved(final["metadata"], final["timing"], timeout):
        return "a starved time limit (far less CPU than wall time) as its verdict, not run alone"
    if first is not None and not timing.starved(first["metadata"], first["timing"], timeout):
        return "a first outcome run again alone, though it was not starved"
    asked = head.get("recheck", 0)
    wanted = asked if timing.sensitive(
        final["passed"], final["metadata"], final["timing"], head["timeout"], timeout is not None
    ) else 0  # fmt: skip
    if len(rechecks or []) != wanted or (rechecks is not None and not wanted):
        return f"{len(rechecks or [])} rechecks, but its timing and --recheck {asked} ask {wanted}"
    return ""


def _disagreement(sample: dict, head: dict) -> str:
    """How a sample's verdicts disagree with what it holds ("": they do not): its verdict
    (_verdict_disagreement), its timing and runs alone (_timing_disagreement: absent from a
    file of a schema before timings), and why is :func:`why` of the verdicts."""
    found = _verdict_disagreement(sample["regrade"])
    if head["schema"] in UNTIMED:
        if {"timing", "starved", "rechecks"} & sample.keys():
            return f"timings, which a {head['schema']} results file does not hold"
    else:
        found = found or _timing_disagreement(sample, head)
    if found:
        return found
    passed = sample["regrade"]["passed"]
    extraction = sample["extraction"]
    if (extraction == DIFFERS) != ("scored" in sample) or (
        (extraction == DIFFERS) != (sample["harness_code_passed"] is not None)
    ):
        return (
            f"extraction {extraction}, but the harness's code and lcb_runner's verdict on it "
            "are held only when it differs"
        )
    found = why(sample["harness"]["passed"], passed, extraction, sample["harness_code_passed"])
    if sample["why"] != found:
        return f"why {sample['why']}, but its verdicts give {found}"
    return ""


def iter_samples(path: Path) -> Iterator[dict]:
    """The file's samples, streamed, each re-derived from what it holds (_disagreement), and
    its footer counting them; RegradeFileError for a line that is not one, or a sample or
    footer that disagrees (a results file is data anyone can edit, and the number is read from
    it), ShardsIncomplete for a file that did not finish (no footer) at its end."""
    footer = None
    count = 0
    head = header(path)
    for number, record in _records(path):
        if number == 1:
            continue
        if footer is not None:
            raise RegradeFileError(f"{path}:{number}: a line after the footer")
        if "sample" in record:
            try:
                disagrees = _disagreement(record["sample"], head)
            except (KeyError, TypeError, ValueError) as error:  # ValueError: metadata not JSON
                raise RegradeFileError(
                    f"{path}:{number}: not a sample of a regrade ({type(error).__name__}: {error})"
                ) from None
            if disagrees:
                raise RegradeFileError(
                    f"{path}:{number}: sample {record['sample']['n']} says {disagrees}: the "
                    "file is not what the regrade found"
                )
            count += 1
            yield record["sample"]
        elif "footer" in record:
            footer = record["footer"]
        else:
            raise RegradeFileError(f"{path}:{number}: neither a sample nor the footer")
    if footer is None:
        raise ShardsIncomplete(f"{path}: no footer: the regrade did not finish")
    if footer != {"complete": True, "samples": count}:
        raise RegradeFileError(
            f"{path}: the footer says {footer}, but the file holds {count} samples: the file "
            "is not what the regrade wrote"
        )


def read(path: Path) -> Regrade:
    regrade = Regrade(path, header(path))
    regrade.samples = list(iter_samples(path))
    regrade.complete = True
    return regrade


def _same_run(first: dict, other: dict) -> list[str]:
    """The header fields in which two slices differ (their shard apart, the run's path: each
    node of a job array may hold the run elsewhere, its sha256 must agree; and whether a
    slice's judge check came from the judge cache)."""
    return sorted(
        name for name in first.keys() | other.keys()
        if name not in ("shard", "run", "judge_cache") and first.get(name) != other.get(name)
    )  # fmt: skip


def merge(paths: list[Path], out: Path) -> int:
    """The slices ``--shard 1/N`` .. ``N/N`` of one regrade, as the whole run's results file
    (their samples interleaved back in the run's order); the number of samples. Refused
    before anything is written: a file of another run (its header differs), a slice given
    twice, a sample or footer that disagrees with what it holds, or N/N not all there
    (ShardsIncomplete, as for a slice that did not finish)."""
    headers = [(path, header(path)) for path in paths]
    first_path, first = headers[0]
    shards: dict[int, Path] = {}
    for path, head in headers:
        differs = _same_run(first, head)
        if differs:
            raise RegradeFileError(
                f"{path}: a slice of another regrade than {first_path} (its "
                f"{', '.join(differs)} differ)"
            )
        shard = head.get("shard")
        if not shard:
            raise RegradeFileError(f"{path}: a whole regrade, not a slice (no --shard I/N)")
        index, count = shard
        if count != first["shard"][1]:
            raise RegradeFileError(
                f"{path}: slice {index}/{count}, the others are of {first['shard'][1]}"
            )  # noqa: E501
        if index in shards:
            raise RegradeFileError(f"{path} and {shards[index]} are both slice {index}/{count}")
        shards[index] = path
    count = first["shard"][1]
    missing = sorted(set(range(1, count + 1)) - shards.keys())
    if missing:
        raise ShardsIncomplete(
            f"slice {', '.join(f'{i}/{count}' for i in missing)} missing: the merge would "
            "not cover the run"
        )
    for path in paths:  # every slice finished, before a byte is written
        for _ in iter_samples(path):
            pass
    whole = {name: value for name, value in first.items() if name not in ("schema", "judge_cache")}
    whole["shard"] = None
    cached = [head["judge_cache"] for _, head in headers if head.get("judge_cache")]
    if cached:  # some slice's judge check came from the cache: the whole run's views say so
        whole["judge_cache"] = cached[0]
    writer = Writer(out, whole)
    try:
        streams = [iter_samples(path) for path in paths]
        for sample in heapq.merge(*streams, key=lambda sample: sample["n"]):
            writer.write(sample)
    except BaseException:
        writer.abandon()
        raise
    writer.close()
    return writer.count
