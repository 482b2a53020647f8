"""Golden families without an upstream twin: extract_code_prefix, decode_context.

reference-impl/extract_code_prefix/<style>/<output_id> and reference-impl/decode_context/<id>:
the seed's functions without an upstream twin, produced by the reference lcb_prompts."""

from __future__ import annotations

from lcb_conformance.suite import cases, goldens, index
from lcb_conformance.suite.families import Family
from lcb_conformance.suite.goldens import GoldenKey

DECODE_COLUMN = "decode_context"  # the decode_context row of the verdict matrix


def prefix_keys():
    return (
        GoldenKey(goldens.REFERENCE_PREFIX, style, output.id)
        for style in cases.PREFIX_STYLES
        for output in cases.outputs().values()
    )


def prefix_entry(key: GoldenKey) -> dict:
    return {
        "call": {
            "function": "extract_code_prefix",
            "args": {
                "model_output": index.fixture(cases.OUTPUTS_FILE.name, key.case),
                "style": key.group,
            },
        },
        "cell": [key.group, index.NO_TOKENIZER],
    }


def decode_entry(key: GoldenKey) -> dict:
    return {
        "call": {
            "function": "decode_context",
            "args": {"context": index.fixture(cases.CONTEXTS_FILE.name, key.case)},
        },
        "cell": [DECODE_COLUMN, index.NO_TOKENIZER],
    }


def produce_prefix(source, key: GoldenKey) -> str:
    import lcb_prompts

    return lcb_prompts.extract_code_prefix(cases.outputs()[key.case].output, key.group)


def produce_decode(source, key: GoldenKey) -> str:
    import lcb_prompts

    return lcb_prompts.decode_context(cases.contexts()[key.case])


FAMILIES = (
    Family(
        goldens.REFERENCE_PREFIX,
        "prefix",
        "reference implementation lcb_prompts (no upstream twin)",
        prefix_keys,
        produce_prefix,
        prefix_entry,
        upstream=False,
        fixtures=cases.FIXTURE_VALUES,
    ),
    Family(
        goldens.REFERENCE_DECODE,
        "decode",
        "reference implementation lcb_prompts (no upstream twin)",
        lambda: (GoldenKey(goldens.REFERENCE_DECODE, "", cid) for cid in cases.contexts()),
        produce_decode,
        decode_entry,
        upstream=False,
        fixtures=cases.FIXTURE_VALUES,
    ),
)
