"""Golden family: the comparability matrix, per transformers line.

comparability/<transformers line>: the comparability matrix (upstream/matrix.py) built from
the upstream families, one file per transformers line."""

from __future__ import annotations

from lcb_conformance.suite import goldens, tokenization
from lcb_conformance.suite.families import Family
from lcb_conformance.suite.goldens import GoldenKey

MATRIX = "matrix.build"  # upstream/matrix.py: the matrix from this producer's goldens


def produce(source, key: GoldenKey) -> str:
    source.check_line(key.case)
    return source.run(MATRIX, source, key.case)


FAMILIES = (
    Family(
        goldens.COMPARABILITY,
        "comparability",
        "matrix.py over the upstream families, per transformers line",
        lambda: (
            GoldenKey(goldens.COMPARABILITY, "", line) for line in tokenization.TRANSFORMERS_LINES
        ),
        produce,
        line_of=lambda key: key.case,
        in_history=False,
        runs=(MATRIX,),
    ),
)
