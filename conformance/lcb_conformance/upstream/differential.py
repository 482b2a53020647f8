"""`lcb-conformance diff`: an implementation against live upstream lcb_runner on a dataset file.

    lcb-conformance diff DATASET.jsonl [--impl MODULE[:ATTR] [--impl-path DIR] | --impl-cmd CMD]
        [--variants VARIANT,...] [--upstream installed|PATH] [--show N] [--full-rows]

DATASET.jsonl holds LiveCodeBench rows (the code_generation_lite schema, lcb_conformance.suite.cases
.PROBLEM_FIELDS), one JSON object a line. For every row and every variant, one per prompting
LMStyle (cases.PROMPT_VARIANTS: the implementation's ``format_lcb_prompt``;
cases.MESSAGE_VARIANTS: its ``format_lcb_messages``, as canonical JSON; or those named by
--variants), the implementation is compared byte for byte with what upstream builds for that
row right now; no goldens are involved. Variants whose style the implementation's STYLES
leaves out, or whose function it lacks, are reported as not provided; variants the upstream
lacks (the installed stand-in has no QwQ prompt, ...) as not in this upstream. Prints a
table per variant and the first N mismatches as showdiff reports; exit code (suite.exit_codes)
0 when every prompt compared is identical and every variant the implementation provides was
compared, 1 on a mismatch or an error, 2 when the dataset, the implementation or a --variants
name is unusable (one line on stderr), 4 when nothing differs but a variant the implementation
provides is not in this upstream, or no prompt was compared. The last line answers "identical
to lcb_runner?" over the prompts compared (not-provided variants left out), each difference
counted as content or whitespace only.

Speed, without changing what upstream returns (tests/test_differential.py proves each):

- upstream's LLaMa3 style loads its tokenizer with AutoTokenizer.from_pretrained on every
  call; for the duration of the run that method is memoised (:func:`memoised_from_pretrained`);
- each row's CodeGenerationProblem is built once for all its variants;
- upstream gets the row with ``private_test_cases`` = "[]": its constructor decodes the hidden
  tests (base64, zlib, pickle, JSON: ~0.1 s for a real row of several MB) and no prompt reads
  them. ``--full-rows`` passes the rows untouched. The implementation always gets the row as
  read;
- the file is streamed, one row in memory at a time (the real dataset is gigabytes).
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lcb_conformance.adapters import impl_options
from lcb_conformance.common import exit_codes, shared_options, showdiff
from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.suite import cases, goldens
from lcb_conformance.upstream import Upstream, UpstreamMissing, UpstreamSourceError

IDENTICAL, DIFFER, ERROR = "identical", "differ", "error"
# Counted besides DIFFER: differences in whitespace alone (showdiff.severity).
WHITESPACE_ONLY = showdiff.WHITESPACE_ONLY
VARIANTS = {**cases.VARIANTS, **cases.MESSAGE_VARIANTS_BY_NAME}


class DatasetError(ValueError):
    """A dataset line the run cannot use; the message names file and line."""


# What upstream's CodeGenerationProblem gets for the hidden tests no prompt shows.
NO_PRIVATE_TESTS = "[]"


def iter_dataset(path: Path) -> Iterator[dict]:
    """The rows of a JSON lines file, one at a time, each checked against the schema."""
    count = 0
    for number, row in cases.iter_jsonl(path, DatasetError):
        cases.check_problem_row(path, number, row, DatasetError)
        count += 1
        yield row
    if not count:
        raise DatasetError(f"{path}: no rows")


def count_rows(path: Path) -> int:
    """Non-blank lines (for the progress bar's total), without parsing them."""
    with Path(path).open("rb") as lines:
        return sum(1 for line in lines if line.strip())


def for_upstream(row: dict, full_rows: bool = False) -> dict:
    """The row upstream builds its prompts from: without the hidden tests unless full_rows."""
    return row if full_rows else {**row, "private_test_cases": NO_PRIVATE_TESTS}


@contextlib.contextmanager
def memoised_from_pretrained():
    """transformers.AutoTokenizer.from_pretrained, memoised by its (args, kwargs) until exit
    (calls with unhashable arguments go through uncached). Yields the cache."""
    from transformers import AutoTokenizer

    own = AutoTokenizer.__dict__.get("from_pretrained")  # the classmethod, when defined there
    load = AutoTokenizer.from_pretrained
    cache: dict = {}

    def from_pretrained(*args, **kwargs):
        key = (args, tuple(sorted(kwargs.items())))
        try:
            hash(key)
        except TypeError:
            return load(*args, **kwargs)
        if key not in cache:
            cache[key] = load(*args, **kwargs)
        return cache[key]

    AutoTokenizer.from_pretrained = staticmethod(from_pretrained)
    try:
        yield cache
    finally:
        if own is not None:
            AutoTokenizer.from_pretrained = own
        else:
            del AutoTokenizer.from_pretrained


def _available_upstream(source: str):
    """(upstream, its description), imported now; LookupError saying why it cannot be."""
    try:
        upstream = _row_cached_upstream(source)
        upstream.check_importable()  # imports lcb_runner's prompt side now, or says why not
        return upstream, upstream.describe_source()
    except (UpstreamSourceError, importlib.metadata.PackageNotFoundError) as error:
        raise LookupError(str(error) or repr(error)) from None


def _row_cached_upstream(source: str):
    """Upstream whose problem(row) is built once per row (for all of that row's variants)."""

    class RowCachedUpstream(Upstream):
        _row: object = None
        _problem: object = None

        def problem(self, row):
            if row is not self._row:
                self._row, self._problem = row, super().problem(row)
            return self._problem

    return RowCachedUpstream(source)


@dataclass
class Mismatch:
    variant: str
    question_id: str
    report: str
    severity: str = ERROR  # showdiff.severity's: content or whitespace-only; error when raised


@dataclass
class Result:
    counts: dict[str, Counter] = field(default_factory=dict)  # variant -> outcome counts
    not_provided: list[str] = field(default_factory=list)
    not_in_upstream: dict[str, str] = field(default_factory=dict)  # variant -> why
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(c[DIFFER] or c[ERROR] for c in self.counts.values())

    def compared(self) -> int:
        return sum(sum(c[o] for o in (IDENTICAL, DIFFER, ERROR)) for c in self.counts.values())

    def exit_code(self) -> int:
        """Green only on prompts compared: a variant the implementation provides and this
        upstream cannot build was not checked (INCOMPLETE), and neither was anything when no
        prompt was compared."""
        if not self.ok:
            return exit_codes.DIFFERS
        if self.not_in_upstream or not self.compared():
            return exit_codes.INCOMPLETE
        return exit_codes.OK

    def total(self, outcome: str) -> int:
        return sum(counts[outcome] for counts in self.counts.values())

    def headline(self, impl_name: str) -> str:
        """Identical to lcb_runner or not, first; counted over the prompts compared only."""
        compared = self.compared()
        left_out = [
            f"{len(self.not_provided)} variants not provided" if self.not_provided else "",
            f"{len(self.not_in_upstream)} not in this upstream" if self.not_in_upstream else "",
        ]
        scope = "; ".join(filter(None, left_out))
        scope = f" ({scope}, not counted)" if scope else ""
        if self.ok and self.exit_code() == exit_codes.INCOMPLETE:
            unchecked = (
                f"{', '.join(self.not_in_upstream)} (not in this upstream)"
                if self.not_in_upstream
                else "every variant asked for (none provided)"
            )
            return (
                f"{impl_name}: INCOMPLETE: identical to lcb_runner on the {compared} prompts "
                f"compared; not compared: {unchecked}{left_out[0] and '; ' + left_out[0]}"
            )
        if self.ok:
            return f"{impl_name}: identical to lcb_runner: yes, all {compared} prompts{scope}"
        differ, whitespace = self.total(DIFFER), self.total(WHITESPACE_ONLY)
        errors = self.total(ERROR)
        return (
            f"{impl_name}: identical to lcb_runner: NO, {differ + errors} of {compared} prompts"
            f"{scope}: {differ - whitespace} differ in content, {whitespace} in whitespace only"
            + (f", {errors} raised" if errors else "")
        )


def _progress(total: int | None):
    """A tqdm bar on a terminal, nothing otherwise."""
    if not sys.stdout.isatty():
        return contextlib.nullcontext(None)
    from tqdm import tqdm

    return tqdm(total=total, unit="prompt", desc="differential")


def _function(variant) -> str:
    if isinstance(variant, cases.MessageVariant):
        return "format_lcb_messages"
    return "format_lcb_prompt"


def _expected(upstream, variant, row: dict) -> str:
    if isinstance(variant, cases.MessageVariant):
        return goldens.canonical_json(upstream.messages(variant.lmstyle, row))
    return upstream.prompt(variant, row)


def _actual(impl, variant, row: dict):
    if isinstance(variant, cases.MessageVariant):
        return goldens.canonical_json(impl.format_lcb_messages(row, style=variant.style))
    tokenizer = variant.tokenizer
    if tokenizer is not None and impl_options.loads_tokenizer_here(impl, "format_lcb_prompt"):
        tokenizer = hf_cache.load_tokenizer(tokenizer)
    return impl.format_lcb_prompt(
        row,
        tokenizer=tokenizer,
        chat_template=variant.chat_template,
        style=variant.style,
    )


def compare(
    impl, upstream, rows: Iterable[dict], variants, total: int | None = None, full_rows=False
) -> Result:
    """Every row x variant; ``total`` rows (for the progress bar) when known."""
    result = Result()
    active = []
    for variant in variants:
        if impl.provides(_function(variant), variant.style):
            active.append(variant)
            result.counts[variant.name] = Counter()
        else:
            result.not_provided.append(variant.name)
    prompts = None if total is None else total * len(active)
    with memoised_from_pretrained(), _progress(prompts) as bar:
        for row in rows:
            upstream_row = for_upstream(row, full_rows)
            for variant in active:
                if variant.name in result.not_in_upstream:
                    continue
                label = f"{variant.name}/{row['question_id']}"
                try:
                    expected = _expected(upstream, variant, upstream_row)
                except UpstreamMissing as missing:
                    result.not_in_upstream[variant.name] = str(missing)
                    del result.counts[variant.name]
                    continue
                except Exception as error:  # reported; the run goes on
                    outcome, report = ERROR, f"{label}: upstream raised {error!r}"
                else:
                    try:
                        actual = _actual(impl, variant, row)
                    except Exception as error:
                        outcome, report = ERROR, f"{label}: {impl.name} raised {error!r}"
                    else:
                        same = actual == expected
                        outcome = IDENTICAL if same else DIFFER
                        report = None if same else _report(actual, expected, label, impl.name)
                        how = None if same else showdiff.severity(expected, _text(actual))
                result.counts[variant.name][outcome] += 1
                if report is not None:
                    severity = how["severity"] if outcome == DIFFER else ERROR
                    if severity == WHITESPACE_ONLY:
                        result.counts[variant.name][WHITESPACE_ONLY] += 1
                        report = f"{report}\n({WHITESPACE_ONLY}: {how['detail']})"
                    mismatch = Mismatch(variant.name, row["question_id"], report, severity)
                    result.mismatches.append(mismatch)
                if bar is not None:
                    bar.update()
    return result


def _text(actual) -> str | None:
    return actual if isinstance(actual, str) else None


def _report(actual, expected: str, label: str, impl_name: str) -> str:
    if not isinstance(actual, str):
        return f"{label}: {impl_name} returned {type(actual).__name__}, not str: {actual!r:.200}"
    return showdiff.report(
        actual, expected, label=label, expected_name="upstream", actual_name=impl_name
    )


def render(result: Result, show: int) -> str:
    lines = [
        f"{'variant':<20}{'rows':>6}{'identical':>11}{'differ':>8}{'of which whitespace':>21}"
        f"{'errors':>8}"
    ]
    for name, counts in result.counts.items():
        rows = counts[IDENTICAL] + counts[DIFFER] + counts[ERROR]
        lines.append(
            f"{name:<20}{rows:>6}{counts[IDENTICAL]:>11}"
            f"{counts[DIFFER]:>8}{counts[WHITESPACE_ONLY]:>21}{counts[ERROR]:>8}"
        )
    for name in result.not_provided:
        lines.append(f"{name:<20}  not provided (outside the implementation's STYLES or API)")
    for name, why in result.not_in_upstream.items():
        lines.append(f"{name:<20}  not in this upstream: {why}")
    if result.mismatches:
        shown = result.mismatches[:show]
        lines += ["", f"first {len(shown)} of {len(result.mismatches)} mismatches:"]
        for mismatch in shown:
            lines += ["", mismatch.report]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    names = list(VARIANTS)
    parser = shared_options.CommandParser(
        prog="lcb-conformance diff",
        description="Compare an implementation's prompts with live upstream lcb_runner on "
        "every row of an LCB dataset file and every prompt variant.",
    )
    parser.add_argument("dataset", type=Path, help="JSON lines of LCB code_generation rows")
    impl_options.add(parser)
    parser.add_argument(
        "--variants",
        default=",".join(names),
        metavar="VARIANT,...",
        help="the prompt variants to compare, each a golden folder of the prompt and messages "
        f"families (default: all: {','.join(names)})",
    )
    shared_options.add(parser, "upstream")
    parser.add_argument("--show", type=int, default=5, help="mismatch reports printed")
    parser.add_argument(
        "--full-rows",
        action="store_true",
        help="give upstream the rows with their private_test_cases (slower: it decodes them; "
        "no prompt reads them)",
    )
    args = parser.parse_args(argv)

    wanted = [name.strip() for name in args.variants.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in VARIANTS]
    if unknown or not wanted:
        return _refuse(f"--variants: unknown {', '.join(unknown) or '(none)'}; known: "
                       f"{', '.join(names)}")  # fmt: skip
    if not args.dataset.is_file():
        what = "is a directory, not a dataset file" if args.dataset.is_dir() else "no such file"
        return _refuse(f"{args.dataset}: {what}")
    # Before anything imports transformers or huggingface_hub (upstream and the chat templates do).
    hf_cache.activate_offline_cache()
    try:
        impl = impl_options.load(lambda name: getattr(args, name.replace("-", "_")))
    except ImportError as error:
        return _refuse(str(error))
    if not any(impl.provides(f) for f in ("format_lcb_prompt", "format_lcb_messages")):
        return _refuse(f"{impl.name} provides neither format_lcb_prompt nor format_lcb_messages")
    try:
        upstream, source = _available_upstream(args.upstream)
    except LookupError as error:  # UpstreamSourceError is a RuntimeError: caught inside
        return _refuse(f"upstream lcb_runner is not available: {error}")
    showdiff.write(f"differential: {impl.name} vs {source} (live) on {args.dataset}")
    total = count_rows(args.dataset) if sys.stdout.isatty() else None
    try:
        result = compare(
            impl,
            upstream,
            iter_dataset(args.dataset),
            [VARIANTS[name] for name in wanted],
            total,
            args.full_rows,
        )
    except DatasetError as error:
        return _refuse(str(error))
    showdiff.write(render(result, args.show))
    showdiff.write(f"\n{result.headline(impl.name)}")
    return result.exit_code()


def _refuse(why: str) -> int:
    showdiff.write(f"lcb-conformance diff: {why}", sys.stderr)
    return exit_codes.UNUSABLE

if __name__ == "__main__":
    sys.exit(main())
