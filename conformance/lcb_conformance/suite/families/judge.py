"""Golden family: lcb_runner's judge verdicts on the judge corpus.

judge/<case>: lcb_runner's judge verdict on a (problem, program) pair of fixtures/judge
(suite/judge_cases.py), normalised, as canonical JSON. An implementation's judge_program runs
only in sandboxed child processes, or in its own --impl-cmd process under the same limits
(upstream/judge.py); a row whose tests upstream cannot decode has a "rejected" golden recording
what lcb_runner raises there ({"type": "module.Type", "message"}), and the implementation must
raise the same, not grade."""

from __future__ import annotations

import json

from lcb_conformance.suite import goldens, index, judge_cases
from lcb_conformance.suite.families import JUDGE_VERDICT, Family
from lcb_conformance.suite.goldens import JSON_SUFFIX, GoldenKey

JUDGE_COLUMN = "judge"  # the judge_program row of the verdict matrix
GOLDEN_VERDICT = "judge.golden_verdict"  # upstream/judge.py: lcb_runner's judge, sandboxed


def keys():
    return (GoldenKey(goldens.JUDGE, "", case_id) for case_id in judge_cases.judge_cases())


def entry(key: GoldenKey) -> dict:
    case = judge_cases.judge_cases()[key.case]
    return {
        "call": {
            "function": "judge_program",
            "args": {
                "row": index.fixture(judge_cases.PROBLEMS_FIXTURE, case.problem),
                "program": index.fixture(judge_cases.CASES_FIXTURE, case.id),
                "timeout": case.timeout,
            },
        },
        "cell": [JUDGE_COLUMN, index.NO_TOKENIZER],
        "upstream": "evaluate_generations_by_problem(([program], "
        "CodeGenerationProblem(**row).get_evaluation_sample(), False, timeout))",
    }


def rejects(golden: str) -> bool:
    """Whether lcb_runner raised on the row instead of grading: the implementation must too."""
    return "rejected" in json.loads(golden)


FAMILIES = (
    Family(
        goldens.JUDGE,
        "judge",
        "upstream's judge on fixtures/judge (upstream/judge.py), as canonical JSON",
        keys,
        lambda source, key: source.run(GOLDEN_VERDICT, source.upstream, key.case),
        entry,
        render=lambda verdict, arguments: goldens.canonical_json(verdict),
        suffix=JSON_SUFFIX,
        compare=JUDGE_VERDICT,
        sandboxed=True,
        fixtures=judge_cases.FIXTURE_VALUES,
        runs=(GOLDEN_VERDICT,),
        provenance="judge.provenance",
        known_gap="judge.known_gap",
    ),
)
