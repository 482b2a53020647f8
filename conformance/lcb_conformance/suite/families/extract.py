"""Golden families: extract_code per style, and after `</think>` (the think deviation's).

extract/<style>/<output_id>: lcb_runner's extract_code(output, LMStyle) for every style on
every fixture output; extract-after-think/<style>/<output_id>: upstream's extract_code on the
answer after the last </think>, the golden of the "think" deviation (deviations.toml)."""

from __future__ import annotations

from lcb_conformance.suite import cases, deviations, goldens, index, styles
from lcb_conformance.suite.families import Family
from lcb_conformance.suite.goldens import GoldenKey


def keys():
    return (
        GoldenKey(goldens.EXTRACT, style, output.id)
        for style in cases.EXTRACTION_LMSTYLES
        for output in cases.outputs().values()
    )


def after_think_keys():
    return (
        GoldenKey(goldens.EXTRACT_AFTER_THINK, style, output.id)
        for style in cases.EXTRACTION_LMSTYLES
        for output in cases.outputs().values()
        if goldens.THINK_CLOSE in output.output
    )


def entry(key: GoldenKey) -> dict:
    found = {
        "call": {
            "function": "extract_code",
            "args": {
                "model_output": index.fixture(cases.OUTPUTS_FILE.name, key.case),
                "style": key.group,
            },
        },
        "cell": [key.group, index.NO_TOKENIZER],
        "lmstyles": list(styles.lmstyles_of(key.group)),
        "upstream": f"extract_code(output, LMStyle.{cases.EXTRACTION_LMSTYLES[key.group]})",
    }
    if (key.case, key.group) in deviations.think_deviations():
        # deviations.toml: held to upstream's extraction of the answer after </think>
        after_think = GoldenKey(goldens.EXTRACT_AFTER_THINK, key.group, key.case)
        found |= {"golden": after_think.relative, "deviation": "think"}
    return found


def produce(source, key: GoldenKey) -> str:
    return source.upstream.extract(key.group, cases.outputs()[key.case].output)


def produce_after_think(source, key: GoldenKey) -> str:
    output = cases.outputs()[key.case].output
    return source.upstream.extract(key.group, goldens.answer_after_think(output))


FAMILIES = (
    Family(
        goldens.EXTRACT,
        "extract",
        "upstream extract_code(output, LMStyle)",
        keys,
        produce,
        entry,
        fixtures=cases.FIXTURE_VALUES,
    ),
    Family(
        goldens.EXTRACT_AFTER_THINK,
        "extract",
        "upstream extract_code on the answer after </think>",
        after_think_keys,
        produce_after_think,
    ),
)
