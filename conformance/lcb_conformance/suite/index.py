"""The case index: every golden case as data, with the call that is held to it, its golden
file, its cell of the verdict matrix and where the golden comes from.

Regeneration writes it beside the goldens (conformance/goldens/INDEX.json, described by
conformance/case-index.schema.json); the conformance tests are parametrized from it and the
verdict reads each case's cell from it, so a runner in any language can run the suite from
the index and the fixture files alone. A case's id is its golden key, which is also the id
of the test that checks it.
"""

from __future__ import annotations

import json
from functools import cache

from lcb_conformance.suite import cases, deviations, goldens, judge_cases, paths
from lcb_conformance.suite.goldens import GoldenKey

SCHEMA = "lcb-conformance-case-index/1"
INDEX_NAME = "INDEX.json"
SCHEMA_FILE = paths.CASE_INDEX_SCHEMA

# The tokenizer axis of the verdict matrix, besides the tokenizer families.
NO_TOKENIZER = "-"
NO_TEMPLATE = "no template"
MESSAGES_COLUMN = "messages"
DECODE = "decode_context"
JUDGE = "judge"  # the judge_program row: lcb_runner's verdicts on the judge corpus

# How a case's result is compared with its golden.
TEXT, CANONICAL_JSON, TOKEN_AUDIT = "text", "canonical-json", "token-audit"
JUDGE_VERDICT = "judge-verdict"

FIXTURE_FILES = {
    "problems": cases.PROBLEMS_FILE.name,
    "outputs": cases.OUTPUTS_FILE.name,
    "contexts": cases.CONTEXTS_FILE.name,
    "judge-problems": judge_cases.PROBLEMS_FILE.relative_to(cases.FIXTURES_DIR).as_posix(),
    "judge-cases": judge_cases.CASES_FILE.relative_to(cases.FIXTURES_DIR).as_posix(),
}


def rendering_label(rendering: cases.ChatRendering) -> str:
    if rendering.enable_thinking is None:
        return rendering.tokenizer
    return f"{rendering.tokenizer} thinking={'on' if rendering.enable_thinking else 'off'}"


def _fixture(kind: str, case_id: str) -> dict:
    return {"fixture": FIXTURE_FILES[kind], "id": case_id}


def _prompt_call(question_id: str, style: str, tokenizer=None, thinking=None) -> dict:
    return {
        "function": "format_lcb_prompt",
        "args": {
            "row": _fixture("problems", question_id),
            "style": style,
            "chat_template": tokenizer is not None,
            "tokenizer": tokenizer,
            "enable_thinking": thinking,
        },
    }


def entry(key: GoldenKey) -> dict:
    """The index entry of one golden case."""
    found = {
        "id": str(key),
        "family": key.family,
        "golden": key.relative,
        "compare": CANONICAL_JSON if key.suffix == goldens.JSON_SUFFIX else TEXT,
        "call": None,  # None: a golden no implementation is held to (upstream-only)
        "cell": None,
        "upstream": None,  # None: produced by the reference lcb_prompts (no upstream twin)
    }
    if key.family == goldens.PROMPT:
        variant = cases.VARIANTS[key.group]
        tokenizer = variant.tokenizer
        column = tokenizer or (NO_TEMPLATE if variant.style == "generic" else NO_TOKENIZER)
        found |= {
            "call": _prompt_call(key.case, variant.style, tokenizer),
            "cell": [variant.style, column],
            "upstream": f"format_prompt_generation(problem, LMStyle.{variant.lmstyle})",
        }
    elif key.family == goldens.MESSAGES:
        variant = cases.MESSAGE_VARIANTS_BY_NAME[key.group]
        found |= {
            "call": {
                "function": "format_lcb_messages",
                "args": {"row": _fixture("problems", key.case), "style": variant.style},
            },
            "cell": [variant.style, MESSAGES_COLUMN],
            "upstream": f"format_prompt_generation(problem, LMStyle.{variant.lmstyle})",
        }
    elif key.family == goldens.CHAT_PROMPT:
        rendering = cases.RENDERINGS[key.group]
        found |= {
            "call": _prompt_call(
                key.case, "generic", rendering.tokenizer, rendering.enable_thinking
            ),
            "cell": ["generic", rendering_label(rendering)],
            "upstream": "LMStyle.OpenAIChat messages through the tokenizer's chat template",
        }
    elif key.family == goldens.TOKEN_AUDIT:
        line, tokenizer, style, question_id = goldens.parse_audit_key(key)
        call = _prompt_call(question_id, style, tokenizer if style == "generic" else None)
        call["args"]["tokenizer"] = tokenizer  # the raw styles are audited under it too
        found |= {
            "compare": TOKEN_AUDIT,
            "call": call,
            "cell": [style, tokenizer],
            "upstream": "token audit of upstream's prompt",
            "transformers_line": line,
        }
    elif key.family == goldens.TOKEN_IDS:
        # held to upstream only, in the realvocab envs (test_token_ids.py): the real
        # tokenizers are not in the offline snapshots an implementation is run with
        found |= {
            "upstream": "upstream's prompt tokenized by the real tokenizer",
            "transformers_line": goldens.parse_audit_key(key)[0],
        }
    elif key.family in (goldens.EXTRACT, goldens.REFERENCE_PREFIX):
        function = "extract_code" if key.family == goldens.EXTRACT else "extract_code_prefix"
        found |= {
            "call": {
                "function": function,
                "args": {"model_output": _fixture("outputs", key.case), "style": key.group},
            },
            "cell": [key.group, NO_TOKENIZER],
        }
        if key.family == goldens.EXTRACT:
            found["upstream"] = (
                f"extract_code(output, LMStyle.{cases.EXTRACTION_LMSTYLES[key.group]})"
            )
            if (key.case, key.group) in deviations.think_deviations():
                # deviations.toml: held to upstream's extraction of the answer after </think>
                after_think = GoldenKey(goldens.EXTRACT_AFTER_THINK, key.group, key.case)
                found |= {"golden": after_think.relative, "deviation": "think"}
    elif key.family == goldens.REFERENCE_DECODE:
        found |= {
            "call": {
                "function": "decode_context",
                "args": {"context": _fixture("contexts", key.case)},
            },
            "cell": [DECODE, NO_TOKENIZER],
        }
    elif key.family == goldens.JUDGE:
        case = judge_cases.judge_cases()[key.case]
        found |= {
            "compare": JUDGE_VERDICT,
            "call": {
                "function": "judge_program",
                "args": {
                    "row": _fixture("judge-problems", case.problem),
                    "program": _fixture("judge-cases", case.id),
                    "timeout": case.timeout,
                },
            },
            "cell": [JUDGE, NO_TOKENIZER],
            "upstream": "evaluate_generations_by_problem(([program], "
            "CodeGenerationProblem(**row).get_evaluation_sample(), False, timeout))",
        }
    elif key.family in goldens.UPSTREAM_FAMILIES:
        found["upstream"] = "upstream only (drift run)"
    return found


def build() -> dict:
    """The index of the current fixtures and case tables."""
    return {
        "schema": SCHEMA,
        "fixtures": "fixtures/",
        "goldens": "conformance/goldens/",
        "cases": [entry(key) for key in goldens.expected_keys()],
    }


def render(index: dict) -> str:
    """One case a line, so a changed case is a one-line diff."""
    head = json.dumps({k: v for k, v in index.items() if k != "cases"}, sort_keys=True)
    rows = ",\n".join("  " + json.dumps(case, sort_keys=True, ensure_ascii=False)
                      for case in index["cases"])
    return f'{head[:-1]}, "cases": [\n{rows}\n]}}\n'


def index_file():
    return goldens.GOLDENS_DIR / INDEX_NAME


def read() -> dict | None:
    if not index_file().is_file():
        return None
    return json.loads(index_file().read_text("utf-8"))


@cache
def by_id() -> dict[str, dict]:
    """Case id -> entry, as the checked-in index records it."""
    index = read()
    if index is None:
        raise FileNotFoundError(f"{index_file()}: no case index; {goldens.REGEN_COMMAND}")
    return {case["id"]: case for case in index["cases"]}


def held_cases(family: str) -> list[dict]:
    """The entries of one family that an implementation is held to, in index order."""
    return [case for case in by_id().values() if case["family"] == family and case["call"]]


def golden_held_to(case: dict, declared_deviations) -> str:
    """The golden file (relative path) a case holds an implementation to: the case's listed
    deviation's golden when the implementation declares that deviation (its DEVIATIONS), and
    otherwise lcb_runner's own, which the case id names."""
    if case.get("deviation") and case["deviation"] not in declared_deviations:
        return goldens.key_of(case["id"]).relative
    return case["golden"]


def arguments(call: dict) -> dict:
    """A call's arguments with fixture references replaced by the fixture values (a
    tokenizer stays its repo id; enable_thinking=None is left out of the call)."""
    problems = {
        FIXTURE_FILES["problems"]: cases.problems,
        FIXTURE_FILES["judge-problems"]: judge_cases.problems,
    }
    loaders = {
        "row": lambda ref: problems[ref["fixture"]]()[ref["id"]],
        "program": lambda ref: judge_cases.judge_cases()[ref["id"]].program,
        "model_output": lambda ref: cases.outputs()[ref["id"]].output,
        "context": lambda ref: cases.contexts()[ref["id"]],
    }
    resolved = {}
    for name, value in call["args"].items():
        if name == "enable_thinking" and value is None:
            continue
        resolved[name] = loaders[name](value) if name in loaders else value
    return resolved
