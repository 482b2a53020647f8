"""lighteval's details parquet (doc.id, model_response, its metric per document).

lighteval 0.13.0's details, ``details_<task>_<date>.parquet`` (EvaluationTracker
.save_details): ``doc.id`` (the problem's position), ``model_response.input`` (sent),
``model_response.text`` (one per sample), ``metric`` (per document: ``{name: value}``, e.g.
``codegen_pass@1:16``). lighteval's metric extracts and grades in one step and records only
the problem's score: neither what was scored nor a verdict per sample is in the log."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from lcb_conformance.common import runs_install
from lcb_conformance.run_formats.samples import LogError, Logged, chat_messages, check_strings

NAME = "lighteval"
DESCRIBED = "lighteval's details (parquet with doc and model_response)"
LIGHTEVAL_COLUMNS = ("doc", "model_response")
# the leaves read: never doc.specific (the problem's hidden tests)
LIGHTEVAL_LEAVES = ["doc.id", "model_response.input", "model_response.text"]
# and, where the details have them, what the task asked of the model (run_audit.request_logs)
LIGHTEVAL_REQUEST = ("generation_size", "stop_sequences")
LIGHTEVAL_UNSCORED = (
    "lighteval's details do not record the extracted code (its metric extracts and grades "
    "in one step)"
)
NO_VERDICT = "lighteval records its metric per document, not a verdict per sample"


def detect(peek) -> bool:
    return peek.suffix == ".parquet" and set(LIGHTEVAL_COLUMNS) <= lighteval_columns(peek.path)


def model(path: Path) -> str | None:
    return None  # the details' folder is named by the run's date, not by the model


def _parquet(path: Path):
    """pyarrow.parquet (a dependency of ``datasets``, so of the upstream extra)."""
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise LogError(
            f"{path}: reading parquet (lighteval's details) needs pyarrow, which comes with the "
            f"upstream extra: `{runs_install.command()}`"
        ) from None
    return parquet


def lighteval_columns(path: Path) -> set[str]:
    """The top-level columns of a parquet file; LogError if it is not one."""
    parquet = _parquet(path)
    try:
        return set(parquet.ParquetFile(path).schema_arrow.names)
    except Exception as error:  # pyarrow's errors: not parquet, truncated footer, ...
        raise LogError(f"{path}: not a readable parquet file ({error})") from None


def problem_score(metric) -> tuple[str, float] | None:
    """The document's metric as (name, value), when it holds exactly one number."""
    if not isinstance(metric, dict) or len(metric) != 1:
        return None
    (name, value), = metric.items()
    return (name, float(value)) if isinstance(value, int | float) else None


def samples(path: Path) -> Iterator[Logged]:
    parquet = _parquet(path)
    import pyarrow

    columns = lighteval_columns(path)
    missing = set(LIGHTEVAL_COLUMNS) - columns
    if missing:
        raise LogError(f"{path}: no {', '.join(sorted(missing))} column (lighteval's details)")
    number = 0
    try:
        details = parquet.ParquetFile(path)
        doc = details.schema_arrow.field("doc").type
        asked = [name for name in LIGHTEVAL_REQUEST if pyarrow.types.is_struct(doc)]
        asked = [name for name in asked if doc.get_field_index(name) >= 0]
        leaves = LIGHTEVAL_LEAVES + [f"doc.{name}" for name in asked]
        leaves += ["metric"] if "metric" in columns else []
        for batch in details.iter_batches(batch_size=16, columns=leaves):
            for row in batch.to_pylist():
                label = f"{path}: row {number}"
                try:
                    position = int(row["doc"]["id"])
                    task = {name: row["doc"][name] for name in asked}
                    sent, texts = row["model_response"]["input"], row["model_response"]["text"]
                except (KeyError, TypeError, ValueError) as error:
                    raise LogError(f"{label} lacks doc.id or model_response ({error})") from None
                if not isinstance(sent, str):
                    sent = chat_messages(label, sent)
                if not isinstance(texts, list):
                    raise LogError(f"{label}: model_response.text must be a list")
                score = problem_score(row.get("metric"))
                for index, text in enumerate(texts):
                    check_strings(f"{label} sample {index}", text=text)
                    yield Logged(
                        f"{path}: row {number}",
                        index,
                        sent,
                        text,
                        None,
                        position=("doc.id", position),
                        unscored=LIGHTEVAL_UNSCORED,
                        request=json.dumps(task, sort_keys=True) if asked else None,
                        unjudged=NO_VERDICT,
                        problem_score=score,
                    )
                number += 1
    except (OSError, pyarrow.ArrowException) as error:  # a corrupt page, a missing leaf
        raise LogError(f"{path}: row {number}: unreadable ({error})") from None
