"""Audit a finished evaluation: did each sample get lcb_runner's prompt and extraction?

    lcb-conformance audit RUN [--format auto|lcb_runner|evalscope] [--model ID | --style LMSTYLE]
        [--cache FILE] [--dataset ROWS.jsonl] [--upstream installed|PATH] [--json F] [--show N]

RUN is an evaluation's results file. Supported: lcb_runner's own
``output/<model_repr>/Scenario.codegeneration_<n>_<temp>.json`` (or its ``_eval_all.json``):
a JSON array of rows with the problem's fields, ``output_list`` (raw outputs) and
``code_list`` (what was extracted and graded); and evalscope's reviews JSON lines (the
messages sent, the answer, ``extracted_prediction``; the problem only as its position in the
dataset, so ``--dataset`` is required). For every sample (row x output), upstream
lcb_runner itself (``--upstream``: the installed stand-in or a checkout) re-extracts the raw
output with the run's LMStyle and the result is compared with the graded code; the prompt
is rebuilt with upstream's format_prompt_generation and looked up in lcb_runner's
``--use_cache`` file (keyed by the prompt, or json.dumps of the messages), the only place
lcb_runner records what it sent: ``--cache``, or found next to RUN as
``cache/<model_repr>/<same name>.json``. Without one the prompt is "cannot check".

Extraction is judged with upstream's extract_code, never lcb_prompts.extract_code, which
cuts at ``</think>`` (a documented deviation, conformance/deviations.toml) and so is not
"what lcb_runner would have extracted".

The model's LMStyle: ``--style`` (an LMStyle name), else ``--model`` (resolved through
lcb_runner's model list, as ``lcb-conformance resolve``), else RUN's folder name read as a
model_repr. The file is streamed (one row in memory at a time; the cache keeps only its keys
and a digest of each entry's outputs).

Exit codes: 0 every checkable sample identical; 1 a sample differs; 2 unusable input (the
message names file, line and sample). A file with no sample is unusable input.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError
from pathlib import Path

from lcb_conformance.suite import cases, goldens, hf_cache, json_stream, showdiff

IDENTICAL, DIFFERS, CANNOT = "identical", "differs", "cannot check"
PROMPT_DIFFERS, EXTRACTION_DIFFERS = "prompt differs", "extraction differs"
EXIT_OK, EXIT_DIFFERS, EXIT_INPUT = 0, 1, 2
LCB_RUNNER, EVALSCOPE = "lcb_runner", "evalscope"
FORMATS = ("auto", LCB_RUNNER, EVALSCOPE)
# Named so that an auditor holding one sees it is known but not read by this version.
NOT_YET = ("opencompass", "lm-eval", "lighteval")
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


class AuditInputError(ValueError):
    """Input the audit cannot use; the message names file, line and sample."""


@dataclass
class Sample:
    question_id: str
    index: int
    prompt: str  # IDENTICAL / DIFFERS / CANNOT
    extraction: str  # IDENTICAL / DIFFERS
    why: str = ""  # for a prompt that cannot be checked, or the kind of extraction difference

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
        # extraction is always checked: a sample with nothing differing is identical, its
        # prompt's "cannot check" noted in why and in Audit.prompt_unchecked
        return " and ".join(differs) or IDENTICAL


@dataclass
class Audit:
    run: str
    format: str
    lmstyle: str
    upstream: str
    cache: str | None
    samples: list[Sample] = field(default_factory=list)
    reports: list[str] = field(default_factory=list)  # showdiff reports, first ones only
    prompt_unchecked: Counter = field(default_factory=Counter)  # why -> samples

    def counts(self) -> Counter:
        return Counter(sample.verdict for sample in self.samples)

    def exit_code(self) -> int:
        return EXIT_DIFFERS if set(self.counts()) - {IDENTICAL} else EXIT_OK

    def as_json(self) -> dict:
        return {
            "run": self.run,
            "format": self.format,
            "lmstyle": self.lmstyle,
            "upstream": self.upstream,
            "cache": self.cache,
            "exit_code": self.exit_code(),
            "summary": dict(self.counts()),
            "prompt_not_checked": dict(self.prompt_unchecked),
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


def detect_format(path: Path) -> str:
    """The format of RUN, from its first element; AuditInputError when unknown."""
    if path.suffix == ".jsonl":
        lines = cases.iter_jsonl(path, AuditInputError)
        try:
            _, first = next(lines, (0, {}))
        finally:
            lines.close()
        if "sample_score" in first and "messages" in first:
            return EVALSCOPE
        raise AuditInputError(
            f"{path}: unknown format: JSON lines, but not evalscope's reviews (lines with "
            f"messages and sample_score); supported: {', '.join(FORMATS[1:])}"
        )
    elements = json_stream.iter_array(path)
    try:
        _, first = next(elements, (0, None))
    except json_stream.JsonStreamError as error:
        raise AuditInputError(f"unknown format: {error}") from None
    finally:
        elements.close()
    if isinstance(first, dict) and {"output_list", "code_list"} <= first.keys():
        return LCB_RUNNER
    raise AuditInputError(
        f"{path}: unknown format: not lcb_runner's results (a JSON array of rows with "
        f"output_list and code_list); supported: {', '.join(FORMATS[1:])}"
    )


def cache_key(prompt) -> str:
    """lcb_runner's --use_cache key for what it sent (base_runner.run_single's rule)."""
    if isinstance(prompt, list):
        return json.dumps(prompt)
    if isinstance(prompt, tuple):
        return prompt[0] + json.dumps(prompt[1])
    return prompt


def _digest(outputs: list) -> str:
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


def _tokenizers_memoised(lmstyle: str):
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
                digest = _digest(outputs)
                index.by_key[key] = digest
                index.by_outputs.setdefault(digest, key)
        except json_stream.JsonStreamError as error:
            raise AuditInputError(str(error)) from None
        return index


def default_cache(run: Path) -> Path | None:
    """lcb_runner's cache for RUN: output/<repr>/<name>[_eval_all].json ->
    cache/<repr>/<name>.json, when that file exists."""
    if run.parent.parent.name != "output":
        return None
    name = run.name.removesuffix(".json").removesuffix("_eval_all") + ".json"
    candidate = run.parent.parent.parent / "cache" / run.parent.name / name
    return candidate if candidate.is_file() else None


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
    if run.parent.name in by_folder:
        return by_folder[run.parent.name]
    raise AuditInputError(
        f"{run}: cannot tell the model (folder {run.parent.name!r} is no model lcb_runner lists); "
        "pass --model MODEL_ID or --style LMSTYLE"
    )


def _check_row(path: Path, line: int, row: object) -> dict:
    if not isinstance(row, dict):
        raise AuditInputError(f"{path}:{line}: a row is {type(row).__name__}, not an object")
    label = f"{path}:{line}: row {row.get('question_id', '(no question_id)')!r}"
    for name, kind in LCB_RUNNER_FIELDS.items():
        if name not in row:
            raise AuditInputError(f"{label} lacks {name!r}")
        if not isinstance(row[name], kind):
            raise AuditInputError(f"{label}: {name!r} is {type(row[name]).__name__}")
    outputs, codes = row["output_list"], row["code_list"]
    if len(outputs) != len(codes):
        raise AuditInputError(f"{label}: {len(outputs)} outputs but {len(codes)} extracted codes")
    for index, (output, code) in enumerate(zip(outputs, codes, strict=True)):
        if not isinstance(output, str) or not isinstance(code, str):
            raise AuditInputError(f"{label} sample {index}: output and code must be strings")
    return row


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


def extraction_difference(expected: str, scored: str) -> str:
    """Would lcb_runner's extraction have scored differently, and how."""
    if not expected.strip() and scored.strip():
        return "scored code where lcb_runner extracts nothing"
    if expected.strip() and not scored.strip():
        return "scored nothing where lcb_runner extracts code"
    return "scored other code than lcb_runner extracts"


def evalscope_record(path: Path, line: int, record: dict):
    """(group_id, generation_index, messages sent, raw output, extracted, whether the raw
    output was rebuilt) of a reviews line."""
    label = f"{path}:{line}: sample {record.get('index', '(no index)')}"
    try:
        score = record["sample_score"]["score"]
        group, generation = (
            record["sample_score"]["group_id"],
            record["sample_score"]["generation_index"],
        )
        messages, output, scored = (
            record["messages"],
            score["prediction"],
            score["extracted_prediction"],
        )
    except (KeyError, TypeError) as error:
        raise AuditInputError(f"{label} lacks {error}") from None
    if not isinstance(group, int) or not isinstance(generation, int):
        raise AuditInputError(f"{label}: group_id and generation_index must be integers")
    if not isinstance(output, str) or not isinstance(scored, str):
        raise AuditInputError(f"{label}: prediction and extracted_prediction must be strings")
    sent, rebuilt = [], False
    for message in messages if isinstance(messages, list) else [None]:
        if isinstance(message, dict) and message.get("role") == "assistant":
            # the conversation up to the model's answer is what was sent; the answer, as
            # the server returned it, is the raw output (prediction lacks the reasoning)
            output, rebuilt = raw_output(message.get("content"), output)
            break
        if not isinstance(message, dict) or not isinstance(message.get("content"), str):
            raise AuditInputError(f"{label}: messages must be a list of {{role, content}}")
        sent.append({"role": message.get("role"), "content": message["content"]})
    return group, generation, sent, output, scored, rebuilt


REBUILT = (
    "raw output rebuilt from evalscope's reasoning and text parts (it splits <think> off the "
    "server's answer; the whitespace around the tags is approximated)"
)


def raw_output(content, prediction: str) -> tuple[str, bool]:
    """(the model's answer as lcb_runner would have read it, whether it was rebuilt):
    evalscope keeps a <think> section as a separate reasoning part."""
    if isinstance(content, str):
        return content, False
    if not isinstance(content, list):
        return prediction, False
    parts, rebuilt = [], False
    for part in content:
        if isinstance(part, dict) and part.get("type") == "reasoning":
            parts.append(f"<think>\n{part.get('reasoning') or ''}\n</think>\n\n")
            rebuilt = True
        elif isinstance(part, dict) and part.get("type") == "text":
            parts.append(part.get("text") or "")
    return "".join(parts), rebuilt


def as_messages(formatted) -> list[dict] | str:
    """What upstream sends, as chat messages: Claude3's (system, messages) with the system
    message first (the API's system parameter); a string style stays a string."""
    if isinstance(formatted, tuple):
        return [{"role": "system", "content": formatted[0]}, *formatted[1]]
    return formatted


class Auditor:
    def __init__(self, upstream, lmstyle: str, cache: CacheIndex | None, dataset, show: int):
        self.upstream, self.lmstyle, self.cache = upstream, lmstyle, cache
        self.dataset, self.show = dataset, show
        # evalscope numbers a problem by its position in the dataset it read (group_id)
        self.dataset_rows = list(dataset.values()) if dataset else []

    def prompt(self, path: Path, line: int, row: dict, audit: Audit) -> tuple[str, str]:
        """(outcome, why) of the problem's prompt: sent == rebuilt?"""
        if self.cache is None:
            return CANNOT, "lcb_runner's results do not record the prompt (no --cache file)"
        fields = row
        if self.dataset is not None:
            if row["question_id"] not in self.dataset:
                return CANNOT, f"problem {row['question_id']} is not in the dataset"
            fields = self.dataset[row["question_id"]]
        try:
            expected = cache_key(self.upstream_prompt(fields))
        except Exception as error:  # upstream rejects the row: say so, never count it identical
            return CANNOT, f"upstream cannot build the prompt ({error!r:.200})"
        digest = _digest(row["output_list"])
        if self.cache.by_key.get(expected) == digest:
            return IDENTICAL, ""
        sent = self.cache.by_outputs.get(digest)
        if sent is None:
            return CANNOT, "no cache entry holds this problem's outputs"
        self._report(sent, expected, f"{path}:{line}: {row['question_id']} prompt", audit)
        return DIFFERS, ""

    def upstream_prompt(self, fields: dict):
        """upstream's format_prompt_generation for the problem (its native shape)."""
        problem = {name: fields[name] for name in cases.PROBLEM_FIELDS if name in fields}
        problem = {"question_title": "", "contest_id": "", **problem, **NO_TESTS}
        return self.upstream.format(self.lmstyle, problem)

    def extraction(self, output: str, scored: str, label: str, audit: Audit) -> tuple[str, str]:
        """(outcome, kind of difference) of one sample's extraction."""
        expected = self.upstream.extract_as(self.lmstyle, output)
        if expected == scored:
            return IDENTICAL, ""
        kind = extraction_difference(expected, scored)
        self._report(scored, expected, f"{label} extraction ({kind})", audit)
        return DIFFERS, kind

    def evalscope_line(self, path: Path, line: int, record: dict, audit: Audit) -> None:
        group, generation, sent, output, scored, rebuilt = evalscope_record(path, line, record)
        rows = self.dataset_rows
        question_id = rows[group]["question_id"] if group < len(rows) else f"group {group}"
        label = f"{path}:{line}: {question_id} sample {generation}"
        if group >= len(rows):
            prompt, why = CANNOT, f"group_id {group}: the dataset has {len(rows)} rows"
            audit.prompt_unchecked[why] += 1
        else:
            try:
                expected = as_messages(self.upstream_prompt(rows[group]))
            except Exception as error:  # upstream rejects the row: never count it identical
                prompt, why = CANNOT, f"upstream cannot build the prompt ({error!r:.200})"
                audit.prompt_unchecked[why] += 1
            else:
                prompt, why = IDENTICAL, ""
                if sent != expected:
                    prompt = DIFFERS
                    self._report(
                        goldens.canonical_json(sent),
                        goldens.canonical_json(expected),
                        f"{label} prompt",
                        audit,
                    )
        extraction, kind = self.extraction(output, scored, label, audit)
        notes = [note for note in (kind, why, REBUILT if rebuilt else "") if note]
        audit.samples.append(Sample(question_id, generation, prompt, extraction, "; ".join(notes)))

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
            audit.samples.append(Sample(row["question_id"], index, prompt, extraction, kind or why))


def audit_run(
    path: Path,
    upstream,
    lmstyle: str,
    cache: CacheIndex | None = None,
    dataset: dict | None = None,
    show: int = 5,
) -> Audit:
    """Every sample of an lcb_runner results file; AuditInputError on unusable input."""
    audit = Audit(
        str(path), LCB_RUNNER, lmstyle, upstream.describe_source(), cache and str(cache.path)
    )
    auditor = Auditor(upstream, lmstyle, cache, dataset, show)
    seen: set[str] = set()
    with _tokenizers_memoised(lmstyle):
        try:
            for line, element in json_stream.iter_array(path):
                row = _check_row(path, line, element)
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
    return audit


def audit_evalscope(path: Path, upstream, lmstyle: str, dataset: dict, show: int = 5) -> Audit:
    """Every line of an evalscope reviews file (streamed); its group_id is the problem's
    position in ``dataset``, the rows in the order the run read them."""
    audit = Audit(str(path), EVALSCOPE, lmstyle, upstream.describe_source(), None)
    auditor = Auditor(upstream, lmstyle, None, dataset, show)
    with _tokenizers_memoised(lmstyle):
        for line, record in cases.iter_jsonl(path, AuditInputError):
            auditor.evalscope_line(path, line, record, audit)
    if not audit.samples:
        raise AuditInputError(f"{path}: no samples")
    return audit


PROMPT_UNCHECKED = "prompt not checked"


def render(audit: Audit) -> str:
    """A table per problem and overall; the reasons prompts were not checked; the reports."""
    per_problem: dict[str, Counter] = {}
    for sample in audit.samples:
        counts = per_problem.setdefault(sample.question_id, Counter())
        counts[sample.verdict] += 1
        counts[PROMPT_UNCHECKED] += sample.prompt == CANNOT
    total = sum(per_problem.values(), Counter())
    columns = [
        IDENTICAL,
        PROMPT_DIFFERS,
        EXTRACTION_DIFFERS,
        f"{PROMPT_DIFFERS} and {EXTRACTION_DIFFERS}",
        PROMPT_UNCHECKED,
    ]
    width = max(30, *(len(qid) + 2 for qid in per_problem))
    lines = [f"{'problem':<{width}}{'samples':>8}" + "".join(f"  {c}" for c in columns)]
    for qid, counts in [*per_problem.items(), ("all", total)]:
        samples = sum(counts[c] for c in columns[:4])
        lines.append(
            f"{qid:<{width}}{samples:>8}" + "".join(f"  {counts[c]:>{len(c)}}" for c in columns)
        )
    for why, count in audit.prompt_unchecked.items():
        lines.append(f"prompt not checked for {count} samples: {why}")
    if audit.reports:
        lines += ["", f"first {len(audit.reports)} differences:"]
        for report in audit.reports:
            lines += ["", report]
    return "\n".join(lines)


def headline(audit: Audit) -> str:
    code = audit.exit_code()
    if code == EXIT_OK:
        checked = "prompt and extraction" if not audit.prompt_unchecked else "extraction"
        return f"audit: every checkable sample identical to lcb_runner ({checked} checked)"
    counts = audit.counts()
    differing = sum(n for v, n in counts.items() if v != IDENTICAL)
    return f"audit: NOT CONFORMANT: {differing} of {sum(counts.values())} samples differ"


def write_atomically(path: Path, text: str) -> None:
    """Write then rename: a failed report leaves no half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="lcb-conformance audit",
        description="Audit a finished evaluation sample by sample: lcb_runner's prompt and "
        "extraction, or where they differ.",
    )
    parser.add_argument(
        "run", type=Path, help="the results file: lcb_runner's output JSON, evalscope's reviews"
    )
    parser.add_argument("--format", default="auto", choices=FORMATS + NOT_YET)
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--model", help="the model id, as lcb_runner lists it")
    who.add_argument("--style", metavar="LMSTYLE", help="lcb_runner's LMStyle name")
    parser.add_argument("--cache", type=Path, help="lcb_runner's --use_cache file of the run")
    parser.add_argument("--dataset", type=Path, help="LCB rows (JSON lines) to build prompts from")
    parser.add_argument("--upstream", default="installed", metavar="installed|PATH")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the JSON report here")
    parser.add_argument("--show", type=int, default=5, help="difference reports shown")
    args = parser.parse_args(argv)
    try:
        return _audit(args)
    except AuditInputError as error:
        print(f"audit: {error}")
        return EXIT_INPUT


def _audit(args: argparse.Namespace) -> int:
    if args.format in NOT_YET:
        raise AuditInputError(
            f"--format {args.format}: not supported yet (supported: {', '.join(FORMATS[1:])})"
        )
    if not args.run.is_file():
        raise AuditInputError(f"{args.run}: no such file")
    found = detect_format(args.run)
    if args.format != "auto" and args.format != found:
        raise AuditInputError(f"{args.run}: --format {args.format}, but it reads as {found}")
    if found == EVALSCOPE and not args.dataset:
        raise AuditInputError(
            f"{args.run}: evalscope's reviews number the problems but do not name them: pass "
            "--dataset ROWS.jsonl, the rows in the order the run read them"
        )
    lmstyle = resolve_lmstyle(args.run, args.model, args.style)
    cache_path = (args.cache or default_cache(args.run)) if found == LCB_RUNNER else None
    if args.cache is not None and not args.cache.is_file():
        raise AuditInputError(f"--cache {args.cache}: no such file")
    cache = CacheIndex.read(cache_path) if cache_path else None
    dataset = read_dataset(args.dataset) if args.dataset else None
    hf_cache.activate_offline_cache()  # before upstream imports transformers
    from lcb_conformance.upstream import Upstream, UpstreamMissing, UpstreamSourceError

    try:
        upstream = Upstream(args.upstream)
        upstream.lmstyle(lmstyle)
    except (UpstreamSourceError, UpstreamMissing, PackageNotFoundError) as error:
        raise AuditInputError(f"upstream lcb_runner is not available: {error!r}") from None
    print(
        f"audit: {args.run} ({found} format), LMStyle.{lmstyle}, against "
        f"{upstream.describe_source()}" + (f", cache {cache_path}" if cache_path else "")
    )
    if found == EVALSCOPE:
        audit = audit_evalscope(args.run, upstream, lmstyle, dataset, args.show)
    else:
        audit = audit_run(args.run, upstream, lmstyle, cache, dataset, args.show)
    print(render(audit))
    print()
    print(headline(audit))
    if args.json:
        write_atomically(args.json, json.dumps(audit.as_json(), indent=1))
        print(f"JSON report: {args.json}")
    return audit.exit_code()


if __name__ == "__main__":
    sys.exit(main())
