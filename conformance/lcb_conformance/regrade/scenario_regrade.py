"""`regrade` on lcb_runner's test output prediction and code execution results: its extractor and
scorer (upstream/scenarios.py, sandboxed) against the scenario's rows, per sample what changed
and why.

`lcb-conformance regrade` on lcb_runner's test output prediction and code execution results
(run_formats/lcb_runner_test_output.py, lcb_runner_code_execution.py): their samples are
predictions, not programs, so no judge: every raw output goes through lcb_runner's own
extractor for the run's LMStyle (extract_test_output_code, or extract_execution_code with
``cot`` as the file's name records it), then lcb_runner's own scorer as runner/scenario_router
calls it (test_output_metrics with k_list [1, 5], code_execution_metrics), in a sandboxed
child (upstream/scenarios.py: regrade_runs), against the scenario's dataset rows (``--dataset``:
a JSON lines file of livecodebench/test_generation or execution-v2 rows). Where the run
recorded another prediction, lcb_runner's scorer grades that too, so a changed verdict says
why (results_file.why: the extraction, the scorer, both).

These datasets have no release manifests here: nothing checks a dataset against a release, so
one is graded only with ``--not-a-release`` and the output says so. Options of the code
generation regrade that do not apply (slices, results file, window, HTML, release, timeout)
are refused, not ignored.

Exit codes: 0 every sample's recorded prediction and verdict equal lcb_runner's; 1 some differ
(named, with why), or lcb_runner 28fef95 raises building the scenario's prompts for the LMStyle
(no run it wrote, as audit and score fail it); 2 unusable input, before scoring; 4 the run
records no verdicts (a results file, not its _eval_all); 6 a report not written.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from lcb_conformance.adapters import sandbox
from lcb_conformance.common import exit_codes, report_files, showdiff
from lcb_conformance.regrade import results_file
from lcb_conformance.run_formats import lcb_runner_files
from lcb_conformance.suite import cases, scenario_cases
from lcb_conformance.suite.scenarios import Scenario, by_run_format, get
from lcb_conformance.upstream import grading, scenarios
from lcb_conformance.upstream.source import (
    ALLOW_MODIFIED,
    Upstream,
    UpstreamMissing,
    UpstreamSourceError,
    is_modified,
    named,
)

RUN_KEY, HARNESS_KEY = "lcb_runner", "harness"  # the child's two runs: extracted, recorded
NOT_FOR_SCENARIOS = {
    "shard": "--shard",
    "results": "--results",
    "window": "--window",
    "html": "--html",
    "release": "--release",
    "recheck": "--recheck",  # no judge, no time limit: nothing to recheck
}
NO_RELEASE = (
    "NOT A RELEASE: nothing checks a test output prediction or code execution dataset against "
    "a release here"
)


def _refuse_options(args, described: str) -> None:
    given = [flag for name, flag in NOT_FOR_SCENARIOS.items() if getattr(args, name)]
    if args.timeout != grading.TIMEOUT:
        given.append("--timeout (lcb_runner's scorer has its own)")
    if given:
        raise results_file.RegradeError(
            f"{args.run}: {', '.join(given)}: not for {described} results"
        )
    if not args.not_a_release:
        raise results_file.RegradeError(
            f"{args.dataset}: {described} datasets have no release check here: grade it with "
            "--not-a-release"
        )


def words(scenario: Scenario) -> str:
    return f"lcb_runner's {scenario.words}"


def _dataset(path: Path, scenario: Scenario) -> dict[str, dict]:
    """The dataset's rows by the problem name the run's format gives them."""
    if not path.is_file():
        raise results_file.RegradeError(f"{path}: no such file (a JSON lines file of dataset rows)")
    rows: dict[str, dict] = {}
    for number, row in cases.iter_jsonl(path, results_file.RegradeError):
        scenario_cases.check_fields(
            path, number, row, scenario.dataset.fields, results_file.RegradeError
        )
        name = scenario.name_problem(row)
        if name in rows:
            raise results_file.RegradeError(f"{path}:{number}: problem {name!r} given twice")
        rows[name] = row
    return rows


def _problems(args, fmt, rows: dict[str, dict]) -> dict[str, dict]:
    """name -> {"outputs", "recorded": [(prediction, verdict)], "where"}, in the run's order;
    RegradeError for a problem the dataset lacks or whose fields differ from the dataset's."""
    found: dict[str, dict] = {}
    for sample in fmt.samples(args.run):
        name = sample.question_id
        if name not in rows:
            raise results_file.RegradeError(
                f"{sample.where}: problem {name!r} is not in {args.dataset}"
            )
        if name not in found:
            differing = sorted(
                field
                for field, value in sample.problem.items()
                if field in rows[name] and rows[name][field] != value
            )
            if differing:
                raise results_file.RegradeError(
                    f"{sample.where}: problem {name!r} differs from {args.dataset}'s row in "
                    f"{', '.join(differing)} (the run read another dataset?)"
                )
            found[name] = {"outputs": [], "recorded": [], "unjudged": ""}
        found[name]["outputs"].append(sample.output)
        found[name]["recorded"].append((sample.scored, sample.passed))
        found[name]["unjudged"] = found[name]["unjudged"] or sample.unjudged
    if not found:
        raise results_file.RegradeError(f"{args.run}: no samples")
    return found


def _passed(results: dict, index: int, sample: int) -> bool:
    return results[str(index)][sample] == [True]


def report_of(args, fmt, lmstyle: str, upstream: Upstream) -> dict:
    """Score the run with lcb_runner's extractor and scorer: the report (console, --json)."""
    scenario = by_run_format(fmt.NAME)
    rows = _dataset(args.dataset, scenario)
    problems = _problems(args, fmt, rows)
    cot = bool(scenario.modes) and fmt.cot(args.run)
    common = {
        "scenario": scenario.name,
        "cot": cot,
        "lmstyle": lmstyle,
        "rows": {name: rows[name] for name in problems},
    }
    run = {
        **common,
        "key": RUN_KEY,
        "problems": [{"name": n, "outputs": p["outputs"]} for n, p in problems.items()],
    }
    harness = {
        **common,
        "key": HARNESS_KEY,
        "problems": [
            {"name": n, "outputs": p["outputs"], "predictions": [s for s, _ in p["recorded"]]}
            for n, p in problems.items()
        ],
    }
    answers = scenarios.regrade_runs(upstream, [run, harness])
    regraded = scenarios.golden_of(run, answers[RUN_KEY])
    _, harness_results = answers[HARNESS_KEY]["scored"]
    _, results = answers[RUN_KEY]["scored"]
    changed: dict[str, list[dict]] = {}
    unjudged = ""
    for index, (name, problem) in enumerate(problems.items()):
        unjudged = unjudged or problem["unjudged"]
        for sample, (prediction, verdict) in enumerate(problem["recorded"]):
            ours = regraded["predictions"][name][sample]
            extraction = results_file.SAME if prediction == ours else results_file.DIFFERS
            passed = _passed(results, index, sample)
            scored_as_run = _passed(harness_results, index, sample)
            reasons = results_file.why(verdict, passed, extraction, scored_as_run)
            if reasons or extraction == results_file.DIFFERS:
                changed.setdefault(name, []).append(
                    {
                        "index": sample,
                        "prediction": ours,
                        "passed": passed,
                        "harness": {"prediction": prediction, "passed": verdict},
                        "why": reasons,
                    }
                )
    recorded = [v for p in problems.values() for _, v in p["recorded"] if v is not None]
    # no run lcb_runner wrote: audit and score fail it, and so does this
    raised = lcb_runner_files.lcb_runner_raises(scenario.lcb_runner, cot, lmstyle)
    return {
        "run": str(args.run),
        "run_sha256": results_file.file_sha256(args.run),
        "format": fmt.NAME,
        "lmstyle": lmstyle,
        "lcb_runner_raises": raised,
        "upstream": upstream.provenance(),
        "dataset": {
            "path": str(args.dataset),
            "sha256": results_file.file_sha256(args.dataset),
            "not_a_release": True,
        },
        "regrade": regraded,
        "passed": sum(
            _passed(results, i, s)
            for i, p in enumerate(problems.values())
            for s in range(len(p["outputs"]))
        ),
        "samples": sum(len(p["outputs"]) for p in problems.values()),
        "harness": {"passed": sum(recorded), "judged": len(recorded), "unjudged": unjudged},
        "changed": changed,
        "exit_code": _exit_code(raised, unjudged, bool(changed), upstream),
    }


def _exit_code(raised: str, unjudged: str, changed: bool, upstream: Upstream) -> int:
    if raised or (changed and not unjudged):
        return exit_codes.DIFFERS
    if unjudged:
        return exit_codes.INCOMPLETE
    # scored by a modified tree (--allow-modified-upstream): never green
    return exit_codes.INCOMPLETE if is_modified(upstream.provenance()) else exit_codes.OK


def _verdict(passed: bool | None) -> str:
    return "no verdict" if passed is None else ("pass" if passed else "fail")


def render(report: dict) -> str:
    regraded = report["regrade"]
    mode = " (CoT)" if regraded["cot"] else ""
    lines = [
        f"regrade: {report['run']}: {words(get(regraded['scenario']))}{mode}, LMStyle "
        f"{report['lmstyle']}, {len(regraded['problems'])} problems, {report['samples']} samples",
        NO_RELEASE,
        f"upstream: {named(report['upstream'])}",
        f"lcb_runner's metrics: {json.dumps(regraded['metrics'], sort_keys=True)} "
        f"({report['passed']} of {report['samples']} samples pass)",
    ]
    not_written = ""
    if report["lcb_runner_raises"]:
        lines.insert(1, f"NOT LCB_RUNNER'S RUN: {report['lcb_runner_raises']}: its prompts are "
                     "not lcb_runner's and could not be checked")  # fmt: skip
        not_written = "no run lcb_runner could have written (28fef95 raises building its prompts); "
    harness = report["harness"]
    if harness["unjudged"]:
        lines.append(f"the run's own verdicts: none ({harness['unjudged']})")
    else:
        lines.append(f"the run's own verdicts: {harness['passed']} of {harness['judged']} pass")
    for name, samples in report["changed"].items():
        for sample in samples:
            why = ", ".join(f"{reason} differs" for reason in sample["why"])
            run = sample["harness"]
            lines.append(
                f"  {name} sample {sample['index']}: {why or 'extraction differs, same verdict'}: "
                f"lcb_runner {sample['prediction']!r} ({_verdict(sample['passed'])}), the run "
                f"{run['prediction']!r} ({_verdict(run['passed'])})"
            )
    verdicts = {
        exit_codes.OK: "OK: every prediction and verdict is lcb_runner's",
        exit_codes.DIFFERS: f"DIFFERS: {not_written}{len(report['changed'])} problems",
        exit_codes.INCOMPLETE: "INCOMPLETE: "
        + ("the run records no verdicts to compare" if report["harness"]["unjudged"]
           else f"scored by a MODIFIED lcb_runner ({ALLOW_MODIFIED})"),
    }  # fmt: skip
    lines.append(verdicts[report["exit_code"]])
    return "\n".join(lines)


def main(args, fmt, lmstyle: str) -> int:
    """Score, print, write --json; the exit code."""
    # the options first: a refusal of what was asked never waits on (or for) an upstream
    _refuse_options(args, words(by_run_format(fmt.NAME)))
    try:
        upstream = Upstream(args.upstream)
        upstream.require_pinned_files(args.allow_modified_upstream)
        upstream.lmstyle(lmstyle)
        report = report_of(args, fmt, lmstyle, upstream)
    except (UpstreamSourceError, UpstreamMissing) as error:
        raise results_file.RegradeError(f"--upstream: {error}") from None
    except sandbox.ChildFailed as error:
        showdiff.write(f"regrade: lcb_runner's scorer failed: {error}", sys.stderr)
        return exit_codes.INCOMPLETE
    written = report_files.write_reports(
        "lcb-conformance regrade",
        {"JSON": (args.json, lambda: json.dumps(report, indent=1) + "\n")},
    )
    showdiff.write(render(report))
    return report["exit_code"] if written else report_files.REPORT_NOT_WRITTEN
