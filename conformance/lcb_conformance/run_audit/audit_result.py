"""An audit's typed result: a verdict per sample, the request's, its text and table.

An audit's typed result: a verdict per sample (prompt, extraction), the request against
lcb_runner's, what could not be checked and why (``Audit``, whose ``as_json`` is the --json
report); its table per problem, its text and its headline. The audit of every scenario fills
one (run_audit/auditor.py, run_audit/scenario_results.py); the command and the page read it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from lcb_conformance.common import exit_codes
from lcb_conformance.run_audit import request as requested
from lcb_conformance.run_audit.problem_set import ProblemSet
from lcb_conformance.run_formats import lcb_runner_files

# every part of the audit (prompt, extraction, request) has the same outcomes
IDENTICAL, DIFFERS, CANNOT = requested.IDENTICAL, requested.DIFFERS, requested.CANNOT


PROMPT_DIFFERS, EXTRACTION_DIFFERS = "prompt differs", "extraction differs"


EXIT_OK, EXIT_DIFFERS, EXIT_INPUT = exit_codes.OK, exit_codes.DIFFERS, exit_codes.UNUSABLE
EXIT_INCOMPLETE = exit_codes.INCOMPLETE


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
    # samples whose prompt is not compared because lcb_runner raises building it (no prompt of
    # its exists; no such sample is lcb_runner's): why -> samples
    prompt_raised: Counter = field(default_factory=Counter)
    extraction_unchecked: Counter = field(default_factory=Counter)  # why -> samples
    request: requested.RequestCheck | None = None  # the request against lcb_runner's
    # self-repair: problem -> the code-generation problem whose code list lcb_runner's main()
    # recorded as its original_code_list (it pairs the rows by position; upstream's own)
    paired_by_position: dict[str, str] = field(default_factory=dict)
    lint: list[dict] = field(default_factory=list)  # the run's own faults (reports/run_lint.py)
    problem_set: ProblemSet | None = None  # the run's problems as score checks them

    def counts(self) -> Counter:
        return Counter(sample.verdict for sample in self.samples)

    def samples_differ(self) -> bool:
        return bool(set(self.counts()) - {IDENTICAL, CANNOT})

    def request_differs(self) -> bool:
        return self.request is not None and self.request.outcome == requested.DIFFERS

    def exit_code(self) -> int:
        raised = self.lcb_runner_raises or self.prompt_raised  # lcb_runner writes no such run
        problems = self.problem_set
        differs = self.samples_differ() or self.request_differs() or raised
        if differs or (problems and problems.failures()):
            return EXIT_DIFFERS
        return EXIT_INCOMPLETE if problems and problems.incomplete() else EXIT_OK

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
            "original_code_list_by_position": self.paired_by_position,
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
            "lint": self.lint,
            "problem_set": self.problem_set.record() if self.problem_set else None,
            "not_checked": not_checked(self),
        }


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
        lines.append(f"prompt not compared for {count} samples: {why}")
    if audit.paired_by_position:
        lines.append(paired_by_position(audit))
    if audit.problem_set is not None:
        lines += ["", audit.problem_set.words()]
    if audit.request is not None:
        lines += ["", *requested.render(audit.request, audit.lmstyle)]
    if audit.reports:
        lines += ["", f"first {len(audit.reports)} differences:"]
        for report in audit.reports:
            lines += ["", report]
    return "\n".join(lines)


def paired_by_position(audit: Audit) -> str:
    """What lcb_runner's main() recorded as original_code_list, where it is another
    problem's."""
    pairs = ", ".join(f"{qid} has {other}'s" for qid, other in audit.paired_by_position.items())
    return (
        "lcb_runner 28fef95's main() took the original_code_list of "
        f"{len(audit.paired_by_position)} of the problems from another code-generation row (it "
        f"pairs the rows by position): {pairs}; each problem's repairs were prompted from its "
        "own attempts, as checked here"
    )


def request_headline(audit: Audit) -> str:
    """The request's part of the headline."""
    check = audit.request
    if check is None or check.outcome == requested.CANNOT:
        return "request not checked"
    if check.outcome == requested.IDENTICAL:
        return f"request as lcb_runner's ({check.golden}) where recorded"
    failing = ", ".join(finding.parameter for finding in check.findings if finding.fails)
    return f"the request differs from lcb_runner's ({check.golden}): {failing}"


def not_checked(audit: Audit) -> list[str]:
    """What could not be checked on this file, each in a few words: the headline says it
    first."""
    found = [
        f"the {part} of {sum(unchecked.values()):,} samples"
        for part, unchecked in (
            ("prompt", audit.prompt_unchecked),
            ("extraction", audit.extraction_unchecked),
        )
        if unchecked
    ]
    if audit.request is None or audit.request.outcome == requested.CANNOT:
        found.append("the request (not recorded)")
    if audit.problem_set is not None:
        found += audit.problem_set.not_checked()
    return found


def headline(audit: Audit) -> str:
    code = audit.exit_code()
    request_part = request_headline(audit)
    unchecked = not_checked(audit)
    first = f"audit: not checked on this file: {', '.join(unchecked)}; " if unchecked else "audit: "
    problems = audit.problem_set
    if code != EXIT_DIFFERS:
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
        status = "INCOMPLETE: " + "; ".join(problems.incomplete()) + "; " if code else ""
        return (
            f"{first}{status}every checkable sample identical to lcb_runner ({checked} checked); "
            + request_part
        )
    counts = audit.counts()
    differing = sum(n for v, n in counts.items() if v != IDENTICAL)
    samples = f"{differing} of {sum(counts.values())} samples differ"
    parts = [samples] if audit.samples_differ() else []
    parts += [request_part] if audit.request_differs() else []
    parts += raised_headline(audit)
    parts += problems.failures() + problems.incomplete() if problems else []
    return f"{first}NOT CONFORMANT: " + "; ".join(parts)


def raised_headline(audit: Audit) -> list[str]:
    """Where lcb_runner raises, in the headline: the pair, and the prompts not compared."""
    raised = sum(audit.prompt_raised.values())
    compared = f"{raised} samples' prompts not compared: lcb_runner raises building them"
    if not audit.lcb_runner_raises:
        return [compared] if raised else []
    pair = f"lcb_runner 28fef95 raises for LMStyle.{audit.lmstyle} in --scenario {audit.scenario}"
    return [f"{pair} ({compared.partition(': ')[0]})" if raised else pair]
