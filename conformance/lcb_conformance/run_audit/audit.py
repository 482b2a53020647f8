"""`lcb-conformance audit`: a finished run's samples against lcb_runner's prompt and extraction,
its request against lcb_runner's; its text, `--json`, `--html` reports.

Audit a finished evaluation: did each sample get lcb_runner's prompt and extraction, and
did the run ask for lcb_runner's request?

    lcb-conformance audit RUN [--format auto|lcb_runner|evalscope|opencompass|lm-eval|lighteval]
        [--model ID | --style LMSTYLE] [--cache FILE] [--opencompass-results FILE]
        [--dataset ROWS.jsonl] [--codegen-eval FILE] [--request-config FILE]
        [--request-variant VARIANT] [--not-a-release] [--upstream installed|PATH]
        [--json FILE] [--html FILE] [--show N]

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

The run's problem set is checked as score checks it (run_audit.problem_set): its ids against
the releases, its statements against the release's digests, its problems without samples;
``--not-a-release`` audits a harness's own problems, every view saying NOT A RELEASE. The
headline says first what could not be checked on this file.

Exit codes: 0 every checkable sample identical, no recorded request parameter that moves the
score differs (n is only noted), and the problems are a release's (or --not-a-release); 1 a
sample or such a request parameter differs, lcb_runner raises building the run's prompts (its
LMStyle's, or a sample's: not compared, and no run of lcb_runner's), or problems are in no
release, a statement is rewritten, lists differ in length; 2 unusable input (the message names
file, line and sample), including a file with no sample or none checkable (custom_evaluator's
output without its prompts), and a config file that cannot be read; 4 nothing differs but some
problems hold no sample; 6 a report not written.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib.metadata import PackageNotFoundError
from pathlib import Path

from lcb_conformance.common import json_stream, report_files, shared_options, showdiff
from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.reports import run_lint
from lcb_conformance.run_audit import page, problem_set, request_logs, scenario_results
from lcb_conformance.run_audit import request as requested

# The command's parts, read by tests and tools as audit.*: the sample-by-sample audit
# (auditor.py) and its result (audit_result.py).
from lcb_conformance.run_audit.audit_result import (  # noqa: F401
    CANNOT,
    DIFFERS,
    EXIT_DIFFERS,
    EXIT_INPUT,
    EXIT_OK,
    EXTRACTION_DIFFERS,
    IDENTICAL,
    PROMPT_DIFFERS,
    Audit,
    Sample,
    headline,
    render,
)
from lcb_conformance.run_audit.auditor import (  # noqa: F401
    NO_CACHE,
    NO_TESTS,
    AuditInputError,
    CacheIndex,
    audit_evalscope,
    audit_log,
    audit_run,
    cache_key,
    read_dataset,
    resolve_lmstyle,
    tokenizers_memoised,
)
from lcb_conformance.run_audit.request_logs import (  # noqa: F401
    EVALSCOPE,
    LCB_RUNNER,
    LIGHTEVAL,
    OPENCOMPASS,
)
from lcb_conformance.run_formats import lcb_runner_files, opencompass, registry
from lcb_conformance.run_formats.samples import LogError
from lcb_conformance.runner.results import SCHEMA as RESULTS_SCHEMA
from lcb_conformance.upstream.source import Upstream, UpstreamMissing, UpstreamSourceError

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


def check_run_file(path: Path) -> None:
    """RUN is a file the audit may read; AuditInputError naming what it is instead."""
    registry.check_exists(path)
    if path.stat().st_size == 0:
        raise AuditInputError(f"{path}: an empty file")
    with path.open("rb") as stream:
        first_line = stream.readline(4096)
    if f'"{RESULTS_SCHEMA.partition("/")[0]}/'.encode() in first_line:
        raise AuditInputError(
            f"{path}: an lcb-conformance results file, not an evaluation's: "
            f"lcb-conformance report {path}"
        )


# Formats whose log names the problem only by position, or not with its statement
NEEDS_DATASET = {
    EVALSCOPE: "evalscope's reviews number the problems but do not name them",
    OPENCOMPASS: "OpenCompass's predictions name the problem (gold) but not its statement",
    LIGHTEVAL: "lighteval's details number the problems (doc.id) but do not name them",
}


def main(argv: list[str] | None = None) -> int:
    """The command (``lcb-conformance audit``)."""
    parser = shared_options.CommandParser(
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
    parser.add_argument(
        "--not-a-release",
        action="store_true",
        help="the run's problems are the harness's own, no release's: its problem set is not "
        "held to the releases, and every view says NOT A RELEASE",
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
        return _refused(str(error))
    except (UpstreamSourceError, UpstreamMissing) as error:  # found only once a row needs it
        return _refused(f"--upstream: {error}")


def _refused(why: str) -> int:
    """An unusable input: one line on stderr (exit_codes), nothing on stdout."""
    showdiff.write(f"audit: {' '.join(why.split())}", sys.stderr)
    return EXIT_INPUT


def _audit(args: argparse.Namespace) -> int:
    fmt, found = _checked_format(args)
    scenario, cot = lcb_runner_files.CODE_GENERATION, False
    if found == LCB_RUNNER:
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
    upstream = _upstream(args, lmstyle, scenario)
    extra = [{LCB_RUNNER: cache_path, OPENCOMPASS: results}.get(found), repaired_path]
    kind = f"{found} format"
    if found == LCB_RUNNER:
        kind += f", --scenario {scenario}" + (" --cot_code_execution" if cot else "")
    if registry.recognise(args.run).kind == registry.CUSTOM_EVALUATOR:
        kind += f"; {registry.CUSTOM_WORDS}"
    showdiff.write(
        f"audit: {args.run} ({kind}), LMStyle.{lmstyle}, against "
        f"{upstream.describe_source()}" + "".join(f", with {path}" for path in extra if path)
    )
    lint = run_lint.Lint()  # code generation's, gathered as its samples are audited: one read
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
            args.run, upstream, lmstyle, cache, dataset, args.show, args.request_variant, lint
        )
    else:
        audit = _audit_log(args, fmt, found, results, upstream, lmstyle, dataset, lint)
    audit.problem_set = problem_set.check(
        args.run, found, scenario, audit.samples, args.not_a_release
    )
    if scenario == lcb_runner_files.CODE_GENERATION:
        audit.lint = _lint(lint, audit)
    return _reported(audit, args)


def _lint(lint: run_lint.Lint, audit: Audit) -> list[dict]:
    """The run's own faults (reports/run_lint.py) from its samples and its recorded stops."""
    findings = audit.request.findings if audit.request else []
    stops = [
        f.run for f in findings if f.parameter == requested.STOP and f.outcome != requested.CANNOT
    ]
    stop = run_lint.recorded_stop(stops[0] if stops else None)
    return run_lint.sample_findings(lint, stop) + [run_lint.errata_finding(lint.sizes, None, None)]


def _checked_format(args: argparse.Namespace):
    """RUN's format module and name, once RUN and the options given with it are usable."""
    check_run_file(args.run)
    registry.taken(args.run, registry.AUDIT)  # what it is, as every command recognises it
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
    return fmt, found


def _upstream(args: argparse.Namespace, lmstyle: str, scenario: str) -> Upstream:
    """The upstream lcb_runner asked for, which must know the run's LMStyle (and, for code
    generation, import its prompt and extraction: refused before the audit starts)."""
    hf_cache.activate_offline_cache()  # before upstream imports transformers
    try:
        upstream = Upstream(args.upstream)
        styles = [style.name for style in upstream.lm_styles().LMStyle]
        if scenario == lcb_runner_files.CODE_GENERATION:
            upstream.check_importable()
    except (UpstreamSourceError, UpstreamMissing, PackageNotFoundError) as error:
        raise AuditInputError(f"upstream lcb_runner is not available: {error}") from None
    if lmstyle not in styles:
        given = f"--style {lmstyle}" if args.style else f"LMStyle.{lmstyle} (of the model)"
        raise AuditInputError(
            f"{given}: {upstream.describe_source()} has no such LMStyle; it has {', '.join(styles)}"
        )
    return upstream


def _audit_log(args, fmt, found: str, results, upstream, lmstyle: str, dataset, lint) -> Audit:
    """Another harness's log, sample by sample."""
    try:
        # OpenCompass's verdicts are in its results file, given or the one beside RUN
        samples = (
            opencompass.read(args.run, results) if found == OPENCOMPASS else fmt.samples(args.run)
        )
        return audit_log(
            args.run,
            found,
            samples,
            upstream,
            lmstyle,
            dataset,
            args.show,
            args.request_config,
            args.request_variant,
            lint,
        )
    except json_stream.JsonStreamError as error:
        raise AuditInputError(str(error)) from None


def _reported(audit: Audit, args: argparse.Namespace) -> int:
    """The text on stdout, the --json and --html reports; the exit code."""
    showdiff.write(render(audit, args.show))
    showdiff.write("\n".join(run_lint.lines(audit.lint)) if audit.lint else "")
    showdiff.write(headline(audit))
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
