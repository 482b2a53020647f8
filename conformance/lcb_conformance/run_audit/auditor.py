"""The audit sample by sample: each prompt rebuilt and each output re-extracted by lcb_runner.

The audit sample by sample: lcb_runner's code-generation results (rows with output_list and
code_list, its --use_cache file indexed small) or another harness's samples (run_formats'
readers), each prompt rebuilt and each raw output re-extracted by upstream lcb_runner and
compared with what the run sent and scored; the run's request against lcb_runner's. Errors
in the input are AuditInputError, naming file, line and sample."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from lcb_conformance.common import json_stream, showdiff
from lcb_conformance.reports.run_lint import Lint
from lcb_conformance.run_audit import request as requested
from lcb_conformance.run_audit import request_logs
from lcb_conformance.run_audit.audit_result import CANNOT, DIFFERS, IDENTICAL, Audit, Sample
from lcb_conformance.run_audit.request_logs import EVALSCOPE, LCB_RUNNER
from lcb_conformance.run_formats import evalscope, lcb_runner_files, registry
from lcb_conformance.run_formats.samples import LogError, Logged
from lcb_conformance.suite import cases, goldens
from lcb_conformance.upstream import resolver
from lcb_conformance.upstream.differential import (
    DatasetError,
    iter_dataset,
    memoised_from_pretrained,
)

LCB_RUNNER_FIELDS = {
    "question_id": str,
    "question_content": str,
    "starter_code": (str, type(None)),
    "platform": str,
    "contest_date": str,
    "difficulty": str,
    "output_list": list,
    "code_list": list,
}


# What upstream's CodeGenerationProblem gets for the fields no prompt reads.
NO_TESTS = {"public_test_cases": "[]", "private_test_cases": "[]", "metadata": "{}"}


NO_CACHE = "lcb_runner's results do not record the prompt (no --cache file)"
# custom_evaluator's output holds the code it was given as the raw output too: nothing to extract
NO_RAW_OUTPUT = (
    "not checkable (no raw output): lcb_runner's custom_evaluator writes the code it is given "
    "as both output_list and code_list"
)


class AuditInputError(LogError):
    """Input the audit cannot use; the message names file, line and sample."""


def cache_key(prompt) -> str:
    """lcb_runner's --use_cache key for what it sent (base_runner.run_single's rule)."""
    if isinstance(prompt, list):
        return json.dumps(prompt)
    if isinstance(prompt, tuple):
        return prompt[0] + json.dumps(prompt[1])
    return prompt


def outputs_digest(outputs: list) -> str:
    """sha256 of a list of outputs, each length-prefixed (no JSON encoding: 2x faster on
    gigabytes of text); a value that is not a string is hashed as tagged JSON."""
    digest = hashlib.sha256(len(outputs).to_bytes(8, "little"))
    for output in outputs:
        if isinstance(output, str):
            data = b"s" + output.encode("utf-8", "surrogatepass")
        else:
            data = b"j" + json.dumps(output).encode()
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def tokenizers_memoised(lmstyle: str):
    """upstream's LLaMa3 style loads its tokenizer on every call: memoised for the run (see
    differential). Other styles need no transformers, whose import costs seconds."""
    return memoised_from_pretrained() if lmstyle == "LLaMa3" else contextlib.nullcontext()


@dataclass
class CacheIndex:
    """lcb_runner's cache, kept small: prompt key -> digest of its outputs, and back."""

    path: Path
    by_key: dict[str, str] = field(default_factory=dict)
    by_outputs: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path) -> CacheIndex:
        index = cls(path)
        try:
            for line, key, outputs in json_stream.iter_object(path):
                if not isinstance(outputs, list):
                    raise AuditInputError(f"{path}:{line}: a cache entry is not a list of outputs")
                digest = outputs_digest(outputs)
                index.by_key[key] = digest
                index.by_outputs.setdefault(digest, key)
        except json_stream.JsonStreamError as error:
            raise AuditInputError(str(error)) from None
        return index


def resolve_lmstyle(run: Path, model: str | None, style: str | None) -> str:
    if style:
        return style
    if model:
        resolution = resolver.resolve(list(resolver.ModelList.pinned().models), model)
        if resolution.listed is None:
            raise AuditInputError(
                f"--model {model}: not in lcb_runner's model list; pass --style LMSTYLE"
            )
        return resolution.listed.lmstyle
    # lcb_runner names the folder by model_repr, evalscope by the model's name
    by_folder = lcb_runner_files.folder_lmstyle(run)
    if by_folder is not None:
        return by_folder
    folder = run.resolve().parent.name
    raise AuditInputError(
        f"{run}: which model's run is it? lcb_runner names its results folder by the model "
        f"(output/<model_repr>/{run.name}), and {folder!r} is no model lcb_runner lists: pass "
        "--style LMSTYLE (e.g. OpenAIChat) or --model MODEL_ID"
    )


def check_row(path: Path, line: int, row: object) -> dict:
    if not isinstance(row, dict):
        raise AuditInputError(f"{path}:{line}: a row is {type(row).__name__}, not an object")
    label = f"{path}:{line}: row {row.get('question_id', '(no question_id)')!r}"
    for name, kind in LCB_RUNNER_FIELDS.items():
        if name not in row:
            raise AuditInputError(f"{label} lacks {name!r}")
        if not isinstance(row[name], kind):
            raise AuditInputError(f"{label}: {name!r} is {type(row[name]).__name__}")
    check_paired(label, row["output_list"], row["code_list"], ("extracted codes", "code"))
    return row


def check_paired(label: str, outputs: list, scored: list, names: tuple[str, str]) -> None:
    """One graded value per raw output, all strings; ``names``: what was graded, plural and
    singular ("extracted codes", "code")."""
    if len(outputs) != len(scored):
        raise AuditInputError(f"{label}: {len(outputs)} outputs but {len(scored)} {names[0]}")
    for index, (output, value) in enumerate(zip(outputs, scored, strict=True)):
        if not isinstance(output, str) or not isinstance(value, str):
            raise AuditInputError(f"{label} sample {index}: output and {names[1]} must be strings")


def read_dataset(path: Path) -> dict[str, dict]:
    """question_id -> the fields a prompt reads, streamed (hidden tests are dropped)."""
    try:
        return {
            row["question_id"]: {name: row[name] for name in LCB_RUNNER_FIELDS if name in row}
            for row in iter_dataset(path)
        }
    except DatasetError as error:
        raise AuditInputError(str(error)) from None


def extraction_difference(
    expected: str, scored: str, thing: str = "code", other: str = "other code"
) -> str:
    """Would lcb_runner's extraction have scored differently, and how (``thing``: what it
    extracts, code or a prediction)."""
    if not expected.strip() and scored.strip():
        return f"scored {thing} where lcb_runner extracts nothing"
    if expected.strip() and not scored.strip():
        return f"scored nothing where lcb_runner extracts {thing}"
    return f"scored {other} than lcb_runner extracts"


def prompt_difference(sent: str, expected: str) -> str:
    """What differs between two conversations (canonical JSON, or lcb_runner's json.dumps
    cache keys), in words: "system message missing", ...; "" for string prompts."""
    return "; ".join(showdiff.messages_differences(sent, expected))


def _shown(prompt) -> str:
    """A prompt as a diff shows it: a string as is, messages as canonical JSON."""
    return prompt if isinstance(prompt, str) else goldens.canonical_json(prompt)


def as_messages(formatted) -> list[dict] | str:
    """What upstream sends, as chat messages: Claude3's (system, messages) with the system
    message first (the API's system parameter); a string style stays a string."""
    if isinstance(formatted, tuple):
        return [{"role": "system", "content": formatted[0]}, *formatted[1]]
    return formatted


class Auditor:
    # what lcb_runner extracts, in the words of an extraction difference
    extracted = ("code", "other code")

    def __init__(self, upstream, lmstyle: str, cache: CacheIndex | None, dataset, show: int,
                 lint: Lint | None = None):  # fmt: skip
        self.upstream, self.lmstyle, self.cache = upstream, lmstyle, cache
        self.dataset, self.show = dataset, show
        self.lint = lint  # the run's own faults, gathered from the samples as they are audited
        # evalscope numbers a problem by its position in the dataset it read (group_id)
        self.dataset_rows = list(dataset.values()) if dataset else []
        self.recorded: Counter = Counter()  # what the samples record of the request -> samples
        self.no_raw_output = False  # custom_evaluator's output (run_formats.registry says)

    def prompt(self, path: Path, line: int, row: dict, audit: Audit) -> tuple[str, str]:
        """(outcome, why) of the problem's prompt: sent == rebuilt?"""
        if self.cache is None:
            return CANNOT, NO_CACHE
        fields = row
        if self.dataset is not None:
            if row["question_id"] not in self.dataset:
                return CANNOT, f"problem {row['question_id']} is not in the dataset"
            fields = self.dataset[row["question_id"]]
        try:
            expected = self.upstream_prompt(fields)
        except Exception as error:  # upstream rejects the row: say so, never count it identical
            return CANNOT, f"upstream cannot build the prompt ({error!r:.200})"
        label = f"{path}:{line}: {row['question_id']}"
        return self.cached(expected, row["output_list"], label, audit)

    def cached(self, expected, outputs: list, label: str, audit: Audit) -> tuple[str, str]:
        """(outcome, why) of the prompt lcb_runner builds (``expected``, native shape) against
        the cache: its key holds these outputs, or the key they are filed under differs."""
        key = cache_key(expected)
        digest = outputs_digest(outputs)
        if self.cache.by_key.get(key) == digest:
            return IDENTICAL, ""
        sent = self.cache.by_outputs.get(digest)
        if sent is None:
            return CANNOT, "no cache entry holds these outputs"
        words = prompt_difference(sent, key)
        self._report(sent, key, f"{label} prompt" + (f" ({words})" if words else ""), audit)
        return DIFFERS, words

    def upstream_prompt(self, fields: dict):
        """upstream's format_prompt_generation for the problem (its native shape)."""
        problem = {name: fields[name] for name in cases.PROBLEM_FIELDS if name in fields}
        problem = {"question_title": "", "contest_id": "", **problem, **NO_TESTS}
        return self.upstream.format(self.lmstyle, problem)

    def extract(self, output: str) -> str:
        """What lcb_runner extracts from the raw output: extract_code with the LMStyle."""
        return self.upstream.extract_as(self.lmstyle, output)

    def extraction(self, output: str, scored: str, label: str, audit: Audit) -> tuple[str, str]:
        """(outcome, kind of difference) of one sample's extraction; not checkable where a
        custom_evaluator output holds the code as its output (what lcb_runner extracts from a
        raw output is unknown without it)."""
        expected = self.extract(output)
        if expected == scored:
            return IDENTICAL, ""
        if self.no_raw_output and output == scored:
            audit.extraction_unchecked[NO_RAW_OUTPUT] += 1
            return CANNOT, NO_RAW_OUTPUT
        kind = extraction_difference(expected, scored, *self.extracted)
        self._report(scored, expected, f"{label} extraction ({kind})", audit)
        return DIFFERS, kind

    def problem(self, sample: Logged) -> tuple[dict | None, str, str]:
        """(the problem's fields, its question_id, why they are unknown): from the dataset by
        question_id or by position, else the row the log carries."""
        if self.dataset is not None and sample.question_id is not None:
            if sample.question_id not in self.dataset:
                return (
                    None,
                    sample.question_id,
                    f"problem {sample.question_id} is not in the dataset",
                )
            return self.dataset[sample.question_id], sample.question_id, ""
        if self.dataset is not None and sample.position is not None:
            name, position = sample.position
            rows = self.dataset_rows
            if not isinstance(position, int) or not 0 <= position < len(rows):
                return (
                    None,
                    f"{name} {position}",
                    f"{name} {position}: the dataset has {len(rows)} rows",
                )
            return rows[position], rows[position]["question_id"], ""
        if sample.problem is not None and "question_content" in sample.problem:
            question_id = sample.question_id or f"{sample.position[0]} {sample.position[1]}"
            return sample.problem, question_id, ""
        where = sample.question_id or (
            sample.position and f"{sample.position[0]} {sample.position[1]}"
        )
        return None, str(where), "the log does not hold the problem's statement: pass --dataset"

    def logged(self, sample: Logged, audit: Audit) -> None:
        """One sample of a harness's log: what was sent against upstream's prompt, what was
        scored against upstream's extraction of the raw output."""
        fields, question_id, why = self.problem(sample)
        label = f"{sample.where}: {question_id} sample {sample.index}"
        if self.lint is not None:  # named as the log names it (a position, where no id)
            name = sample.question_id or ":".join(map(str, sample.position or ("?",)))
            self.lint.add(str(name), sample.index, sample.output, sample.scored)
        if sample.request is not None:
            self.recorded[sample.request] += 1
        prompt = CANNOT
        if fields is not None and sample.sent is None:
            why = "the log does not record the prompt"
        elif fields is not None:
            try:
                expected = as_messages(self.upstream_prompt(fields))
            except Exception as error:  # upstream rejects the row: never count it identical
                why = f"upstream cannot build the prompt ({error!r:.200})"
            else:
                prompt = IDENTICAL
                if sample.sent != expected:
                    prompt, sent, expected = DIFFERS, _shown(sample.sent), _shown(expected)
                    why = prompt_difference(sent, expected)
                    words = f" ({why})" if why else ""
                    self._report(sent, expected, f"{label} prompt{words}", audit)
        if prompt == CANNOT:
            audit.prompt_unchecked[why] += 1
        if sample.scored is None:
            extraction, kind = CANNOT, sample.unscored
            audit.extraction_unchecked[kind] += 1
        else:
            extraction, kind = self.extraction(sample.output, sample.scored, label, audit)
        notes = [note for note in (kind, why, *sample.notes) if note]
        audit.samples.append(
            Sample(question_id, sample.index, prompt, extraction, "; ".join(notes))
        )

    def _report(self, actual: str, expected: str, label: str, audit: Audit) -> None:
        if len(audit.reports) < self.show:
            audit.reports.append(
                showdiff.report(
                    actual,
                    expected,
                    label=label,
                    expected_name="lcb_runner",
                    actual_name="the run",
                )
            )

    def row(self, path: Path, line: int, row: dict, audit: Audit) -> None:
        prompt, why = self.prompt(path, line, row, audit)
        if prompt == CANNOT:
            audit.prompt_unchecked[why] += len(row["output_list"])
        for index, (output, scored) in enumerate(
            zip(row["output_list"], row["code_list"], strict=True)
        ):
            label = f"{path}:{line}: {row['question_id']} sample {index}"
            if self.lint is not None:
                self.lint.add(str(row["question_id"]), index, output, scored)
            extraction, kind = self.extraction(output, scored, label, audit)
            notes = "; ".join(note for note in (kind, why) if note)
            audit.samples.append(Sample(row["question_id"], index, prompt, extraction, notes))


def check_request(
    audit: Audit,
    path: Path,
    recorded: Counter,
    config: Path | None = None,
    variant: str = requested.DEFAULT_VARIANT,
    n_why: str = "",
) -> None:
    """The run's request (what its files record: request_logs; its n counted in its samples,
    or not recorded, ``n_why`` saying why) against lcb_runner's for the LMStyle, as
    ``audit.request``."""
    config = config or request_logs.default_config(audit.format, path)
    run = request_logs.read(audit.format, path, config, recorded)
    if n_why:
        run.values[requested.N], run.notes[requested.N] = requested.NOT_RECORDED, n_why
    else:
        per_problem = Counter(s.question_id for s in audit.samples)
        run.values[requested.N] = requested.n_of_samples(per_problem)
    audit.request = requested.compare(run, requested.expected(audit.lmstyle, variant))


def audit_run(
    path: Path,
    upstream,
    lmstyle: str,
    cache: CacheIndex | None = None,
    dataset: dict | None = None,
    show: int = 5,
    variant: str = requested.DEFAULT_VARIANT,
    lint: Lint | None = None,
) -> Audit:
    """Every sample of an lcb_runner results file, and the request its file name records;
    AuditInputError on unusable input. ``lint`` gathers the run's own faults in the same pass."""
    audit = Audit(
        str(path), LCB_RUNNER, lmstyle, upstream.describe_source(), cache and str(cache.path)
    )
    auditor = Auditor(upstream, lmstyle, cache, dataset, show, lint)
    auditor.no_raw_output = registry.recognise(path).kind == registry.CUSTOM_EVALUATOR
    seen: set[str] = set()
    with tokenizers_memoised(lmstyle):
        try:
            for line, element in json_stream.iter_array(path):
                row = check_row(path, line, element)
                if row["question_id"] in seen:
                    raise AuditInputError(
                        f"{path}:{line}: problem {row['question_id']!r} appears twice"
                    )
                seen.add(row["question_id"])
                auditor.row(path, line, row, audit)
        except json_stream.JsonStreamError as error:
            raise AuditInputError(str(error)) from None
    if not seen:
        raise AuditInputError(f"{path}: no rows")
    if auditor.no_raw_output and set(audit.counts()) == {CANNOT}:  # nothing checked: never 0
        raise AuditInputError(
            f"{path}: no sample could be checked: "
            + "; ".join({**audit.prompt_unchecked, **audit.extraction_unchecked})
        )
    check_request(audit, path, Counter(), variant=variant)
    return audit


def audit_log(
    path: Path,
    fmt: str,
    samples,
    upstream,
    lmstyle: str,
    dataset: dict | None,
    show: int = 5,
    request_config: Path | None = None,
    variant: str = requested.DEFAULT_VARIANT,
    lint: Lint | None = None,
) -> Audit:
    """Every sample of another harness's log (``samples``: run_formats' reader over ``path``,
    streamed), and its request (the samples' record of it, or ``request_config``, else the
    config file the format keeps beside them). A problem named by position is the dataset's
    row there, the rows in the order the run read them. ``lint`` gathers the run's own faults in
    the same pass."""
    audit = Audit(str(path), fmt, lmstyle, upstream.describe_source(), None)
    auditor = Auditor(upstream, lmstyle, None, dataset, show, lint)
    with tokenizers_memoised(lmstyle):
        for sample in samples:
            auditor.logged(sample, audit)
    if not audit.samples:
        raise AuditInputError(f"{path}: no samples")
    if set(audit.counts()) == {CANNOT}:
        raise AuditInputError(
            f"{path}: no sample could be checked: "
            + "; ".join({**audit.prompt_unchecked, **audit.extraction_unchecked})
        )
    check_request(audit, path, auditor.recorded, request_config, variant)
    return audit


def audit_evalscope(path: Path, upstream, lmstyle: str, dataset: dict, show: int = 5) -> Audit:
    """Every line of an evalscope reviews file; its group_id is the problem's position in
    ``dataset``."""
    return audit_log(path, EVALSCOPE, evalscope.samples(path), upstream, lmstyle, dataset, show)
