"""`lcb-conformance audit`: a finished run's samples against lcb_runner's prompt and extraction,
its request against lcb_runner's; its text, `--json`, `--html` reports.

Audit a finished evaluation: did each sample get lcb_runner's prompt and extraction, and
did the run ask for lcb_runner's request?

    lcb-conformance audit RUN [--format auto|lcb_runner|evalscope|opencompass|lm-eval|lighteval]
        [--model ID | --style LMSTYLE] [--cache FILE] [--opencompass-results FILE]
        [--dataset ROWS.jsonl] [--codegen-eval FILE] [--request-config FILE]
        [--request-variant VARIANT] [--upstream installed|PATH] [--json FILE] [--html FILE]
        [--show N]

RUN is an evaluation's results file: lcb_runner's own
``output/<model_repr>/Scenario.codegeneration_<n>_<temp>.json`` (or its ``_eval_all.json``),
a JSON array of rows with the problem's fields, ``output_list`` (raw outputs) and
``code_list`` (what was extracted and graded); or another harness's log (evalscope,
OpenCompass, lm-evaluation-harness, lighteval). Every format is read by run_formats (the reader
score and regrade use; run_formats.registry tells the format). For every sample, upstream
lcb_runner itself (``--upstream``: the installed stand-in or a checkout) re-extracts the raw
output with the run's LMStyle and the result is compared with the graded code; the prompt is
rebuilt with upstream's format_prompt_generation and compared with what was sent. lcb_runner
records what it sent only in its ``--use_cache`` file (keyed by the prompt, or json.dumps of
the messages): ``--cache``, or found next to RUN as ``cache/<model_repr>/<same name>.json``;
without one the prompt is "cannot check". lcb_runner's results of its other three scenarios
(``Scenario.selfrepair|testoutputprediction|codeexecution_…``) are audited by
run_audit.scenario_results, with those scenarios' prompt builders and extractors.

Extraction is judged with upstream's extract_code, never lcb_prompts.extract_code, which
cuts at ``</think>`` (a documented deviation, conformance/deviations.toml) and so is not
"what lcb_runner would have extracted".

The request: what the run's files record of it (run_audit.request_logs: lcb_runner's file
name, lm-eval's and lighteval's samples, evalscope's, lighteval's and OpenCompass's config
file beside them or ``--request-config``) against lcb_runner's request golden for the
LMStyle (``--request-variant``: its defaults, or another recorded command line), parameter by
parameter (run_audit.request).

The model's LMStyle: ``--style`` (an LMStyle name), else ``--model`` (resolved through
lcb_runner's model list, as ``lcb-conformance resolve``), else RUN's folder name read as a
model_repr. Files are streamed (one row in memory at a time; the cache keeps only its keys
and a digest of each entry's outputs).

Exit codes: 0 every checkable sample identical and no recorded request parameter that moves
the score differs (n is only noted); 1 a sample or such a request parameter differs; 2
unusable input (the message names file, line and sample), including a file with no sample
or none checkable, and a config file that cannot be read; 6 a report not written.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError
from pathlib import Path

from lcb_conformance.common import exit_codes, json_stream, report_files, shared_options
from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.run_audit import request as requested
from lcb_conformance.run_audit import request_logs
from lcb_conformance.run_audit.request_logs import (
    EVALSCOPE,
    LCB_RUNNER,
    LIGHTEVAL,
    OPENCOMPASS,
)
from lcb_conformance.run_formats import (
    evalscope,
    lcb_runner_files,
    opencompass,
    registry,
)
from lcb_conformance.run_formats.samples import LogError, Logged
from lcb_conformance.runner.results import SCHEMA as RESULTS_SCHEMA
from lcb_conformance.suite import cases, goldens, showdiff

# every part of the audit (prompt, extraction, request) has the same outcomes
IDENTICAL, DIFFERS, CANNOT = requested.IDENTICAL, requested.DIFFERS, requested.CANNOT
PROMPT_DIFFERS, EXTRACTION_DIFFERS = "prompt differs", "extraction differs"
EXIT_OK, EXIT_DIFFERS, EXIT_INPUT = exit_codes.OK, exit_codes.DIFFERS, exit_codes.UNUSABLE
# the audit reads every scenario of lcb_runner's files as lcb_runner's (scenario_results), so its
# formats are the harnesses' (run_formats' code generation readers)
FORMATS = (
    "auto",
    *(
        name
        for name, module in registry.formats().items()
        if registry.scenario(module) == lcb_runner_files.CODE_GENERATION
    ),
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


class AuditInputError(LogError):
    """Input the audit cannot use; the message names file, line and sample."""


@dataclass
class Sample:
    question_id: str
    index: int
    prompt: str  # IDENTICAL / DIFFERS / CANNOT
    extraction: str  # IDENTICAL / DIFFERS / CANNOT (a log that does not record it)
    why: str = ""  # what could not be checked and why, the kind of extraction difference

    @property
    def verdict(self) -> str:
        differs = [
            name
            for name, outcome in (
                (PROMPT_DIFFERS, self.prompt),
                (EXTRACTION_DIFFERS, self.extraction),
            )
            if outcome == DIFFERS
        ]
        if differs:
            return " and ".join(differs)
        # one check that could be made is enough: the other's "cannot check" is noted in why
        # and counted in Audit.prompt_unchecked / extraction_unchecked
        return CANNOT if self.prompt == self.extraction == CANNOT else IDENTICAL


@dataclass
class Audit:
    run: str
    format: str
    lmstyle: str
    upstream: str
    cache: str | None
    scenario: str = lcb_runner_files.CODE_GENERATION  # lcb_runner's --scenario
    cot: bool = False  # --cot_code_execution
    # where lcb_runner 28fef95 raises building this scenario's prompts for the LMStyle (its
    # expected-error goldens), in words: no run of it holds such samples
    lcb_runner_raises: str = ""
    samples: list[Sample] = field(default_factory=list)
    reports: list[str] = field(default_factory=list)  # showdiff reports, first ones only
    prompt_unchecked: Counter = field(default_factory=Counter)  # why -> samples
    # samples whose prompt differs because lcb_runner raises building it: why -> samples
    prompt_raised: Counter = field(default_factory=Counter)
    extraction_unchecked: Counter = field(default_factory=Counter)  # why -> samples
    request: requested.RequestCheck | None = None  # the request against lcb_runner's

    def counts(self) -> Counter:
        return Counter(sample.verdict for sample in self.samples)

    def samples_differ(self) -> bool:
        return bool(set(self.counts()) - {IDENTICAL, CANNOT})

    def request_differs(self) -> bool:
        return self.request is not None and self.request.outcome == requested.DIFFERS

    def exit_code(self) -> int:
        differs = self.samples_differ() or self.request_differs() or self.lcb_runner_raises
        return EXIT_DIFFERS if differs else EXIT_OK

    def as_json(self) -> dict:
        return {
            "run": self.run,
            "format": self.format,
            "lmstyle": self.lmstyle,
            "upstream": self.upstream,
            "cache": self.cache,
            "scenario": self.scenario,
            "cot_code_execution": self.cot,
            "lcb_runner_raises": self.lcb_runner_raises,
            "exit_code": self.exit_code(),
            "summary": dict(self.counts()),
            "prompt_not_checked": dict(self.prompt_unchecked),
            "prompt_raised": dict(self.prompt_raised),
            "extraction_not_checked": dict(self.extraction_unchecked),
            "request": self.request.as_json() if self.request else None,
            "samples": [
                {
                    "question_id": s.question_id,
                    "sample": s.index,
                    "verdict": s.verdict,
                    "prompt": s.prompt,
                    "extraction": s.extraction,
                    "why": s.why,
                }
                for s in self.samples
            ],
            "first_differences": self.reports,
        }


def check_run_file(path: Path) -> None:
    """RUN is a file the audit may read; AuditInputError naming what it is instead."""
    if path.is_dir():
        raise AuditInputError(
            f"{path}: a folder; pass the results file in it (lcb_runner's "
            "Scenario.<scenario>_<n>_<temperature>.json, evalscope's reviews/…jsonl, "
            "OpenCompass's predictions/…json, lm-eval's samples_…jsonl, lighteval's "
            "details_…parquet)"
        )
    if not path.is_file():
        raise AuditInputError(f"{path}: no such file")
    if path.stat().st_size == 0:
        raise AuditInputError(f"{path}: an empty file")
    if path.name.endswith("_eval.json"):
        raise AuditInputError(
            f"{path}: lcb_runner's _eval.json holds only the metrics; pass the run's "
            f"{path.name.removesuffix('_eval.json')}.json or its _eval_all.json"
        )
    with path.open("rb") as stream:
        first_line = stream.readline(4096)
    if f'"{RESULTS_SCHEMA.partition("/")[0]}/'.encode() in first_line:
        raise AuditInputError(
            f"{path}: an lcb-conformance results file, not an evaluation's: "
            f"lcb-conformance report {path}"
        )


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
    from lcb_conformance.upstream.differential import memoised_from_pretrained

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
    from lcb_conformance.upstream import resolver

    if style:
        return style
    models = resolver.ModelList.pinned()
    if model:
        resolution = resolver.resolve(list(models.models), model)
        if resolution.listed is None:
            raise AuditInputError(
                f"--model {model}: not in lcb_runner's model list; pass --style LMSTYLE"
            )
        return resolution.listed.lmstyle
    # lcb_runner names the folder by model_repr, evalscope by the model's name
    by_folder = {listed.model_repr: listed.lmstyle for listed in models.models}
    by_folder.update({listed.model_name: listed.lmstyle for listed in models.models})
    folder = run.resolve().parent.name
    if folder in by_folder:
        return by_folder[folder]
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
    from lcb_conformance.upstream.differential import DatasetError, iter_dataset

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

    def __init__(self, upstream, lmstyle: str, cache: CacheIndex | None, dataset, show: int):
        self.upstream, self.lmstyle, self.cache = upstream, lmstyle, cache
        self.dataset, self.show = dataset, show
        # evalscope numbers a problem by its position in the dataset it read (group_id)
        self.dataset_rows = list(dataset.values()) if dataset else []
        self.recorded: Counter = Counter()  # what the samples record of the request -> samples

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
        """(outcome, kind of difference) of one sample's extraction."""
        expected = self.extract(output)
        if expected == scored:
            return IDENTICAL, ""
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
) -> Audit:
    """Every sample of an lcb_runner results file, and the request its file name records;
    AuditInputError on unusable input."""
    audit = Audit(
        str(path), LCB_RUNNER, lmstyle, upstream.describe_source(), cache and str(cache.path)
    )
    auditor = Auditor(upstream, lmstyle, cache, dataset, show)
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
) -> Audit:
    """Every sample of another harness's log (``samples``: run_formats' reader over ``path``,
    streamed), and its request (the samples' record of it, or ``request_config``, else the
    config file the format keeps beside them). A problem named by position is the dataset's
    row there, the rows in the order the run read them."""
    audit = Audit(str(path), fmt, lmstyle, upstream.describe_source(), None)
    auditor = Auditor(upstream, lmstyle, None, dataset, show)
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


PROMPT_UNCHECKED, EXTRACTION_UNCHECKED = "prompt not checked", "extraction not checked"
VERDICTS = (
    IDENTICAL,
    PROMPT_DIFFERS,
    EXTRACTION_DIFFERS,
    f"{PROMPT_DIFFERS} and {EXTRACTION_DIFFERS}",
    CANNOT,
)
COLUMNS = (*VERDICTS, PROMPT_UNCHECKED, EXTRACTION_UNCHECKED)


ALL = "all"  # the summary row of the per-problem table


def differs(counts: Counter) -> bool:
    """Whether a row of the per-problem table holds a sample that differs."""
    return any(counts[verdict] for verdict in VERDICTS if verdict not in (IDENTICAL, CANNOT))


def per_problem(audit: Audit) -> dict[str, Counter]:
    """"all" (the summary), then question_id -> samples per verdict and per unchecked part
    (COLUMNS): the problems with a sample that differs first, each group in the run's
    order."""
    table: dict[str, Counter] = {}
    for sample in audit.samples:
        counts = table.setdefault(sample.question_id, Counter())
        counts[sample.verdict] += 1
        counts[PROMPT_UNCHECKED] += sample.prompt == CANNOT
        counts[EXTRACTION_UNCHECKED] += sample.extraction == CANNOT
    ordered = sorted(table.items(), key=lambda item: not differs(item[1]))
    return {ALL: sum(table.values(), Counter()), **dict(ordered)}


def render(audit: Audit, show: int = 5) -> str:
    """The summary row, then at most ``show`` problems (those that differ first; how many
    are left out is said); the reasons parts were not checked; the request; the reports."""
    table = per_problem(audit)
    width = max(30, *(len(qid) + 2 for qid in table))
    lines = [audit.lcb_runner_raises] if audit.lcb_runner_raises else []
    lines += [f"{'problem':<{width}}{'samples':>8}" + "".join(f"  {c}" for c in COLUMNS)]
    problems = list(table)[1:]
    for qid in [ALL, *problems[:show]]:
        counts = table[qid]
        samples = sum(counts[c] for c in VERDICTS)
        lines.append(
            f"{qid:<{width}}{samples:>8}" + "".join(f"  {counts[c]:>{len(c)}}" for c in COLUMNS)
        )
    left_out = problems[show:]
    if left_out:
        differing = sum(differs(table[qid]) for qid in left_out)
        lines.append(
            f"… {len(left_out)} more problems not shown ({differing} of them with a sample "
            "that differs): --show N shows more, --json holds every sample"
        )
    for part, unchecked in (
        ("prompt", audit.prompt_unchecked),
        ("extraction", audit.extraction_unchecked),
    ):
        for why, count in unchecked.items():
            lines.append(f"{part} not checked for {count} samples: {why}")
    for why, count in audit.prompt_raised.items():
        lines.append(f"prompt differs for {count} samples: {why}")
    if audit.request is not None:
        lines += ["", *requested.render(audit.request, audit.lmstyle)]
    if audit.reports:
        lines += ["", f"first {len(audit.reports)} differences:"]
        for report in audit.reports:
            lines += ["", report]
    return "\n".join(lines)


def request_headline(audit: Audit) -> str:
    """The request's part of the headline."""
    check = audit.request
    if check is None or check.outcome == requested.CANNOT:
        return "request not checked"
    if check.outcome == requested.IDENTICAL:
        return f"request as lcb_runner's ({check.golden}) where recorded"
    failing = ", ".join(finding.parameter for finding in check.findings if finding.fails)
    return f"the request differs from lcb_runner's ({check.golden}): {failing}"


def headline(audit: Audit) -> str:
    code = audit.exit_code()
    request_part = request_headline(audit)
    if code == EXIT_OK:
        checked = (
            " and ".join(
                name
                for name, unchecked in (
                    ("prompt", audit.prompt_unchecked),
                    ("extraction", audit.extraction_unchecked),
                )
                if not unchecked
            )
            or "prompt or extraction"
        )
        return (
            f"audit: every checkable sample identical to lcb_runner ({checked} checked); "
            + request_part
        )
    counts = audit.counts()
    differing = sum(n for v, n in counts.items() if v != IDENTICAL)
    samples = f"{differing} of {sum(counts.values())} samples differ"
    parts = [samples] if audit.samples_differ() else []
    parts += [request_part] if audit.request_differs() else []
    if audit.lcb_runner_raises:
        parts.append(
            f"lcb_runner 28fef95 raises for LMStyle.{audit.lmstyle} in --scenario {audit.scenario}"
        )
    return "audit: NOT CONFORMANT: " + "; ".join(parts)


# Formats whose log names the problem only by position, or not with its statement
NEEDS_DATASET = {
    EVALSCOPE: "evalscope's reviews number the problems but do not name them",
    OPENCOMPASS: "OpenCompass's predictions name the problem (gold) but not its statement",
    LIGHTEVAL: "lighteval's details number the problems (doc.id) but do not name them",
}


def main(argv: list[str] | None = None) -> int:
    """The command (``lcb-conformance audit``)."""
    parser = argparse.ArgumentParser(
        prog="lcb-conformance audit",
        description="Audit a finished evaluation sample by sample: lcb_runner's prompt and "
        "extraction, or where they differ.",
    )
    parser.add_argument(
        "run",
        type=Path,
        help="the results file: lcb_runner's output JSON (any --scenario), evalscope's reviews, "
        "OpenCompass's predictions, lm-eval's samples, lighteval's details",
    )
    parser.add_argument("--format", default="auto", choices=FORMATS)
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--model", help="the model id, as lcb_runner lists it")
    who.add_argument("--style", metavar="LMSTYLE", help="lcb_runner's LMStyle name")
    parser.add_argument("--cache", type=Path, help="lcb_runner's --use_cache file of the run")
    parser.add_argument(
        "--opencompass-results",
        type=Path,
        metavar="FILE",
        help="OpenCompass's results file (details) of the predictions, where it is not found "
        "beside RUN",
    )
    parser.add_argument(
        "--dataset",
        type=Path,
        help="the dataset's rows (JSON lines) to build prompts from: code_generation_lite's, "
        "or for lcb_runner's other scenarios test_generation's or execution-v2's",
    )
    parser.add_argument(
        "--codegen-eval",
        type=Path,
        metavar="FILE",
        help="the code-generation _eval_all.json a self-repair run repaired (found beside it "
        "as lcb_runner names it)",
    )
    parser.add_argument(
        "--request-config",
        type=Path,
        metavar="FILE",
        help="the run's config file holding its request, where it is not found beside RUN: "
        + "; ".join(request_logs.CONFIG_FILES.values()),
    )
    parser.add_argument(
        "--request-variant",
        default=requested.DEFAULT_VARIANT,
        choices=requested.variants(),
        help="the lcb_runner command line whose request the run's is held to (its request "
        "goldens' variants; default: lcb_runner's defaults)",
    )
    shared_options.add(parser, "upstream")
    shared_options.add_reports(parser)
    parser.add_argument(
        "--show",
        type=int,
        default=5,
        metavar="N",
        help="problems listed (those that differ first) and difference reports shown",
    )
    args = parser.parse_args(argv)
    try:
        return _audit(args)
    except LogError as error:
        print(f"audit: {error}")
        return EXIT_INPUT


def _audit(args: argparse.Namespace) -> int:
    check_run_file(args.run)
    fmt = registry.detect(args.run)
    found = fmt.NAME if fmt.NAME in FORMATS else LCB_RUNNER
    if args.format != "auto" and args.format != found:
        raise AuditInputError(f"{args.run}: --format {args.format}, but it reads as {found}")
    if found in NEEDS_DATASET and not args.dataset:
        raise AuditInputError(
            f"{args.run}: {NEEDS_DATASET[found]}: pass --dataset ROWS.jsonl, the rows in the "
            "order the run read them"
        )
    for option, given in (
        ("--cache", args.cache),
        ("--opencompass-results", args.opencompass_results),
        ("--request-config", args.request_config),
        ("--codegen-eval", args.codegen_eval),
    ):
        if given is not None and not given.is_file():
            raise AuditInputError(f"{option} {given}: no such file")
    if args.request_config and request_logs.config_file_error(found):
        raise AuditInputError(f"--request-config: {request_logs.config_file_error(found)}")
    scenario, cot = lcb_runner_files.CODE_GENERATION, False
    if found == LCB_RUNNER:
        from lcb_conformance.run_audit import scenario_results  # it imports this module

        scenario, cot = scenario_results.scenario_of(args.run)
        scenario_results.check_options(args, scenario)
    lmstyle = resolve_lmstyle(args.run, args.model, args.style)
    cache_path = None
    if found == LCB_RUNNER:
        cache_path = args.cache or lcb_runner_files.default_cache(args.run)
    cache = CacheIndex.read(cache_path) if cache_path else None
    results = args.opencompass_results or opencompass.opencompass_results(args.run)
    repaired_path = None
    if scenario == lcb_runner_files.CODE_GENERATION:
        dataset = read_dataset(args.dataset) if args.dataset else None
    else:
        dataset = scenario_results.read_dataset(args.dataset, scenario) if args.dataset else None
        repaired_path = args.codegen_eval or scenario_results.default_repaired(args.run, scenario)
    hf_cache.activate_offline_cache()  # before upstream imports transformers
    from lcb_conformance.upstream import Upstream, UpstreamMissing, UpstreamSourceError

    try:
        upstream = Upstream(args.upstream)
        styles = [style.name for style in upstream.lm_styles().LMStyle]
    except (UpstreamSourceError, UpstreamMissing, PackageNotFoundError) as error:
        raise AuditInputError(f"upstream lcb_runner is not available: {error!r}") from None
    if lmstyle not in styles:
        given = f"--style {lmstyle}" if args.style else f"LMStyle.{lmstyle} (of the model)"
        raise AuditInputError(
            f"{given}: {upstream.describe_source()} has no such LMStyle; it has {', '.join(styles)}"
        )
    extra = [{LCB_RUNNER: cache_path, OPENCOMPASS: results}.get(found), repaired_path]
    kind = f"{found} format"
    if found == LCB_RUNNER:
        kind += f", --scenario {scenario}" + (" --cot_code_execution" if cot else "")
    print(
        f"audit: {args.run} ({kind}), LMStyle.{lmstyle}, against "
        f"{upstream.describe_source()}" + "".join(f", with {path}" for path in extra if path)
    )
    if scenario != lcb_runner_files.CODE_GENERATION:
        repaired = scenario_results.read_repaired(repaired_path) if repaired_path else None
        audit = scenario_results.audit_scenario_run(
            args.run,
            upstream,
            lmstyle,
            scenario,
            cot,
            cache,
            dataset,
            repaired,
            args.show,
            args.request_variant,
        )
    elif found == LCB_RUNNER:
        audit = audit_run(
            args.run, upstream, lmstyle, cache, dataset, args.show, args.request_variant
        )
    else:
        try:
            # OpenCompass's verdicts are in its results file, given or the one beside RUN
            samples = (
                opencompass.read(args.run, results)
                if found == OPENCOMPASS
                else fmt.samples(args.run)
            )
            audit = audit_log(
                args.run,
                found,
                samples,
                upstream,
                lmstyle,
                dataset,
                args.show,
                args.request_config,
                args.request_variant,
            )
        except json_stream.JsonStreamError as error:
            raise AuditInputError(str(error)) from None
    print(render(audit, args.show))
    print()
    print(headline(audit))
    from lcb_conformance.run_audit import page  # which imports this module: not at the top

    written = report_files.write_reports(
        "lcb-conformance audit",
        {
            "JSON": (args.json, lambda: json.dumps(audit.as_json(), indent=1)),
            "HTML": (args.html, lambda: page.to_html(audit)),
        },
    )
    if not written:
        return report_files.REPORT_NOT_WRITTEN
    return audit.exit_code()


if __name__ == "__main__":
    sys.exit(main())
