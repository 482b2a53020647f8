"""The request goldens: what lcb_runner's runner classes send per LMStyle and command line.

request/<variant>/<LMStyle>: the request lcb_runner's runner classes build for each of its
19 prompting LMStyles (suite/styles.py), recorded by running them against fake clients
(upstream/runner_requests.py): the runner, the clients it makes, every call with its
arguments (model, messages or prompt as a marker, n, temperature, top_p, max tokens, stop,
thinking and reasoning parameters) and what upstream then does (its outputs, or what it
raised). Variants are lcb_runner's command line: its defaults, --n 1, --temperature 0.7,
--max_tokens 32768, and MistralWeb with MISTRAL_API_KEY set (without it its runner module
cannot be imported). Upstream only: no implementation is held to them; the audit compares
a run log's sampling parameters with them (run_audit/request.py)."""

from __future__ import annotations

import json

from lcb_conformance.suite import cases, goldens, styles
from lcb_conformance.suite.families import Family
from lcb_conformance.suite.goldens import JSON_SUFFIX, GoldenKey

REQUEST = "request"
# upstream/runner_requests.py: lcb_runner's runner classes against recording fake clients, every
# request recorded in one child (once per producer)
RECORD_ALL = "runner_requests.record_all"
# variant -> lcb_runner command-line arguments after --model
VARIANTS = {
    "default": [],
    "n-1": ["--n", "1"],
    "temperature-0.7": ["--temperature", "0.7"],
    "max-tokens-32768": ["--max_tokens", "32768"],
}
# variants for one LMStyle only: (LMStyle, variant) -> environment it sets
WITH_ENVIRONMENT = {("MistralWeb", "with-api-key"): {"MISTRAL_API_KEY": "set-by-the-recording"}}
# the problem every request is built for (its prompt appears as a marker)
PROBLEM = "atc_stamp_card_rally"


def lmstyles() -> list[str]:
    """lcb_runner's LMStyles that build a code-generation prompt (suite/styles.py)."""
    return [
        name
        for name, mapping in styles.MAPPINGS.items()
        if mapping.style is not None and name not in styles.NOT_LCB_RUNNER
    ]


def recorded_cases() -> list[tuple[str, str, list[str]]]:
    """(LMStyle, variant, command-line arguments) of every request golden."""
    every = [(style, variant, argv) for variant, argv in VARIANTS.items() for style in lmstyles()]
    return every + [(lmstyle, variant, []) for lmstyle, variant in WITH_ENVIRONMENT]


def produce(source, key: GoldenKey) -> str:
    environment = {variant: env for (_, variant), env in WITH_ENVIRONMENT.items()}
    records = source.once(
        REQUEST,
        lambda: source.run(
            RECORD_ALL, source.upstream, cases.problems()[PROBLEM], recorded_cases(), environment
        ),
    )
    return goldens.canonical_json(records[f"{key.group}/{key.case}"])


FAMILIES = (
    Family(
        REQUEST,
        "request",
        "upstream runner classes (runner_utils.build_runner, run_main) against recording fake "
        "clients (upstream/runner_requests.py), per LMStyle and command line, as canonical JSON",
        lambda: (GoldenKey(REQUEST, variant, lmstyle) for lmstyle, variant, _ in recorded_cases()),
        produce,
        suffix=JSON_SUFFIX,
        runs=(RECORD_ALL,),
    ),
)


# --- docs/score-goldens.md's summary table (a generated figure: lcb_conformance_dev.docs_figures)

SENT = (
    "n", "candidate_count", "temperature", "top_p", "p", "max_tokens", "max_tokens_to_sample",
    "max_output_tokens", "max_completion_tokens", "stop", "thinking", "thinking_config",
    "reasoning_effort",
)  # fmt: skip


def sent_parameters(record: dict) -> dict:
    """The sampling parameters of a record's request: its call's keyword arguments (and
    Gemini's config), or vLLM's SamplingParams."""
    sampling = record.get("clients", {}).get("sampling_params")
    if sampling:
        return sampling["vllm.SamplingParams"]["kwargs"]
    if not record.get("calls"):
        return {}
    kwargs = record["calls"][0]["kwargs"]
    return {**kwargs, **kwargs.get("config", {})}


def shown(value) -> str:
    """A parameter's value; a recorded object (ThinkingConfig) as Class(arguments)."""
    if isinstance(value, dict) and len(value) == 1 and "." in next(iter(value)):
        ((name, made),) = value.items()
        arguments = ", ".join(f"{k}={v}" for k, v in made["kwargs"].items())
        return f"{name.rsplit('.', 1)[-1]}({arguments})"
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    return str(value)


def summary_lines(variant: str = "default") -> list[str]:
    """A markdown table from the request goldens: per LMStyle the runner, the sampling
    parameters it sends, the requests one problem takes, and how the run ends."""
    lines = [
        "| LMStyle | runner | sends | requests per problem | ends |",
        "|---|---|---|---|---|",
    ]
    for lmstyle in lmstyles():
        record = json.loads(goldens.read(GoldenKey(REQUEST, variant, lmstyle)))
        sent = sent_parameters(record)
        sends = ", ".join(f"{name}={shown(sent[name])}" for name in SENT if name in sent)
        requests = sum(call["times"] for call in record.get("calls", []))
        ends = (record.get("raised") or f"{record['outputs']} outputs").strip()
        lines.append(
            f"| {lmstyle} | {record.get('runner', '-')} | {sends or '-'} | {requests} | "
            f"{ends.replace('|', '&#124;')} |"
        )
    return lines
