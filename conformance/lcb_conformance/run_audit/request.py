"""The audit's request part: lcb_runner's request for an LMStyle (its request golden) against a
run's, each difference named.

lcb_runner's request for an LMStyle is its request golden (request/<variant>/<LMStyle>,
suite/families/request.py: what its runner classes sent to recording fake clients). A run's
request is what its files record (run_audit/request_logs.py), one value per parameter, or
"not sent" (the harness sends none: the server's or model's default applies), or "not
recorded". The two are compared parameter by parameter and each difference is named in
words: "temperature 0.7, lcb_runner 0.2", "stop ["###"] not sent", "max tokens not recorded".

n (the outputs per problem, counted in the run's own samples) is named but does not fail the
audit: pass@1 averages over the samples, so n moves its sampling error, not its expected
value. Every other parameter moves the expected score (max tokens truncates reasoning,
temperature and top_p change what is sampled) and a difference fails it (docs/audit-request.md).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from lcb_conformance.suite import goldens
from lcb_conformance.suite.families import request as request_goldens
from lcb_conformance.suite.goldens import GoldenKey

IDENTICAL, DIFFERS, CANNOT = "identical", "differs", "cannot check"  # the audit's outcomes
N, TEMPERATURE, TOP_P, MAX_TOKENS, STOP = "n", "temperature", "top_p", "max tokens", "stop"
THINKING, REASONING_EFFORT = "thinking", "reasoning effort"
PARAMETERS = (N, TEMPERATURE, TOP_P, MAX_TOKENS, STOP, THINKING, REASONING_EFFORT)
N_ONLY_NOTED = "n moves the sampling error of pass@1, not its expected value"
DEFAULT_VARIANT = "default"
# lcb_runner's names for each parameter, in the request goldens (Cohere's p, Gemini's config)
GOLDEN_NAMES = {
    TEMPERATURE: ("temperature",),
    TOP_P: ("top_p", "p"),
    MAX_TOKENS: (
        "max_tokens", "max_tokens_to_sample", "max_output_tokens", "max_completion_tokens",
    ),
    STOP: ("stop",),
    THINKING: ("thinking", "thinking_config"),
    REASONING_EFFORT: ("reasoning_effort",),
}  # fmt: skip


class _Marker:
    def __init__(self, words: str):
        self.words = words

    def __repr__(self) -> str:
        return self.words


NOT_SENT = _Marker("not sent")  # the request carries no such parameter
NOT_RECORDED = _Marker("not recorded")  # the run's files do not say


@dataclass(frozen=True)
class Mixed:
    """A parameter with several values across the run's samples."""

    values: tuple


@dataclass
class RunRequest:
    """What a run's files record of its request."""

    source: str  # the files and fields read, in words
    values: dict = field(default_factory=dict)  # parameter -> value, NOT_SENT or NOT_RECORDED
    notes: dict = field(default_factory=dict)  # parameter -> where it comes from, or why unknown
    # lcb_runner's own results record its command-line arguments, not the request: an
    # argument its runner does not send for the LMStyle (a reasoning style's temperature)
    # cannot differ
    arguments: bool = False

    def value(self, parameter: str):
        return self.values.get(parameter, NOT_RECORDED)


@dataclass
class Expected:
    """lcb_runner's request for an LMStyle, from its request golden."""

    golden: str  # the golden's name, "request/default/OpenAIChat"
    values: dict
    unavailable: str = ""  # why there is nothing to compare with


@dataclass
class Finding:
    parameter: str
    outcome: str  # IDENTICAL / DIFFERS / CANNOT
    run: str  # the values as shown
    lcb_runner: str
    words: str  # the difference in words; "" when identical or not recorded
    why: str = ""  # where the run's value comes from, or why it is not recorded

    @property
    def fails(self) -> bool:
        return self.outcome == DIFFERS and self.parameter != N


@dataclass
class RequestCheck:
    golden: str
    source: str
    findings: list[Finding] = field(default_factory=list)
    unavailable: str = ""

    @property
    def outcome(self) -> str:
        if any(finding.fails for finding in self.findings):
            return DIFFERS
        checked = [f for f in self.findings if f.outcome != CANNOT and f.parameter != N]
        return IDENTICAL if checked else CANNOT

    def named(self, outcome: str) -> list[Finding]:
        return [finding for finding in self.findings if finding.outcome == outcome]

    def as_json(self) -> dict:
        return {
            "golden": self.golden,
            "source": self.source,
            "outcome": self.outcome,
            "unavailable": self.unavailable,
            "parameters": [
                {
                    "parameter": f.parameter,
                    "outcome": f.outcome,
                    "fails": f.fails,
                    "run": f.run,
                    "lcb_runner": f.lcb_runner,
                    "words": f.words,
                    "why": f.why,
                }
                for f in self.findings
            ],
        }


def shown(value) -> str:
    if isinstance(value, _Marker):
        return value.words
    if isinstance(value, Mixed):
        return "mixed (" + ", ".join(shown(v) for v in value.values) + ")"
    return request_goldens.shown(value)


def variants() -> list[str]:
    return list(request_goldens.VARIANTS)


def expected(lmstyle: str, variant: str = DEFAULT_VARIANT) -> Expected:
    """lcb_runner's request for the LMStyle under a variant of its command line (its request
    golden); a variant for which its runner module cannot even be built (MistralWeb without
    its API key) is read from the variant that sets the environment."""
    name = f"{request_goldens.REQUEST}/{variant}/{lmstyle}"
    text = goldens.read(GoldenKey(request_goldens.REQUEST, variant, lmstyle))
    if text is None:
        return Expected(name, {}, f"no request golden {name} (not a prompting LMStyle?)")
    record = json.loads(text)
    if not record.get("calls"):
        for style, with_environment in request_goldens.WITH_ENVIRONMENT:
            if style == lmstyle and variant == DEFAULT_VARIANT:
                return expected(lmstyle, with_environment)
        raised = record.get("raised", "").strip()
        return Expected(name, {}, f"lcb_runner sends no request ({raised})")
    sent = request_goldens.sent_parameters(record)
    values = {N: _samples_per_problem(record, sent)}
    for parameter, names in GOLDEN_NAMES.items():
        values[parameter] = next((sent[n] for n in names if n in sent), NOT_SENT)
    return Expected(name, values)


def _samples_per_problem(record: dict, sent: dict) -> int:
    """The outputs lcb_runner's requests give one problem: n (Gemini's candidate_count, else
    one) per request, times the requests it makes."""
    per_request = sent.get("n", sent.get("candidate_count", 1))
    return sum(per_request * call["times"] for call in record["calls"])


def n_of_samples(per_problem: Counter) -> object:
    """The run's n from its samples: question_id -> outputs."""
    counts = sorted(set(per_problem.values()))
    return counts[0] if len(counts) == 1 else Mixed(tuple(counts))


def _empty(value) -> bool:
    return value is NOT_SENT or value is None or value == []


def _same(run, lcb) -> bool:
    if isinstance(run, Mixed):
        return all(_same(value, lcb) for value in run.values)
    if _empty(run) or _empty(lcb):
        return _empty(run) and _empty(lcb)
    numbers = (int, float)
    if isinstance(run, numbers) and isinstance(lcb, numbers):
        return not isinstance(run, bool) and float(run) == float(lcb)
    return run == lcb


def _difference(parameter: str, run, lcb, note: str) -> str:
    where = f" ({note})" if note else ""
    if run is NOT_SENT or run == []:
        return f"{parameter} {shown(lcb)} not sent{where}"
    if lcb is NOT_SENT:
        return f"{parameter} {shown(run)}{where}, lcb_runner sends none"
    return f"{parameter} {shown(run)}{where}, lcb_runner {shown(lcb)}"


def compare(run: RunRequest, lcb: Expected) -> RequestCheck:
    """Every parameter of the run's request against lcb_runner's."""
    check = RequestCheck(lcb.golden, run.source, unavailable=lcb.unavailable)
    if lcb.unavailable:
        return check
    for parameter in PARAMETERS:
        value, want = run.value(parameter), lcb.values[parameter]
        note = run.notes.get(parameter, "")
        if value is NOT_RECORDED:
            outcome, words = CANNOT, ""
        elif _same(value, want) or (run.arguments and want is NOT_SENT):
            outcome, words = IDENTICAL, ""
        else:
            outcome, words = DIFFERS, _difference(parameter, value, want, note)
        finding = Finding(parameter, outcome, shown(value), shown(want), words, note)
        check.findings.append(finding)
    return check


def render(check: RequestCheck, lmstyle: str) -> list[str]:
    """The request part of the console report: a line per kind of finding."""
    head = f"request against lcb_runner's (LMStyle.{lmstyle}, {check.golden})"
    if check.unavailable:
        return [f"{head}: cannot check: {check.unavailable}"]
    lines = [f"{head}, read from {check.source}: {check.outcome}"]
    differing = [f for f in check.named(DIFFERS)]
    for label, items, joined in (
        ("differs", [f.words for f in differing if f.fails], "; "),
        (f"noted ({N_ONLY_NOTED})", [f.words for f in differing if not f.fails], "; "),
        ("identical", [f.parameter for f in check.named(IDENTICAL)], ", "),
    ):
        if items:
            lines.append(f"  {label}: " + joined.join(items))
    unrecorded: dict[str, list[str]] = {}
    for finding in check.named(CANNOT):
        unrecorded.setdefault(finding.why, []).append(finding.parameter)
    for why, parameters in unrecorded.items():
        lines.append(f"  not recorded{f' ({why})' if why else ''}: " + ", ".join(parameters))
    return lines
