"""lcb_runner's own scoring, run unmodified: evaluation/pass_k_utils'
``compute_metrics_from_results`` and evaluation/compute_scores' ``compute_scores`` (whose
numbers exist only as its printout, which is read back here line by line)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import tempfile
import warnings
from pathlib import Path

from lcb_conformance.upstream.source import Upstream, UpstreamMissing

GROUPS = {"": "all", "Easy ": "easy", "Medium ": "medium", "Hard ": "hard"}
PASS_K_LINE = re.compile(r"^(Easy |Medium |Hard |)Pass@(\d+) =  (\S+)$")
ROWS_LINE = re.compile(r"^(Easy |Medium |Hard |)Pass@1: (\S+)$")


def _plain(value):
    """numpy scalars and arrays as Python values."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value.item() if hasattr(value, "item") else value


def compute_metrics(upstream: Upstream, results: dict, k_list: list[int]) -> dict:
    """compute_metrics_from_results(results, k_list), as plain Python values."""
    module = upstream.module("evaluation.pass_k_utils")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the mean of no tasks
        return _plain(module.compute_metrics_from_results(results, k_list=k_list))


def parse_printout(text: str) -> dict:
    """compute_scores' printout as data: the count, pass@k per group, the rows' pass@1."""
    lines = text.splitlines()
    scores: dict = {"count": int(lines[0]), "pass@k": {}, "pass@1 from rows": {}}
    for line in lines[1:]:
        if found := PASS_K_LINE.match(line):
            group, k, value = found.groups()
            scores["pass@k"].setdefault(k, {})[GROUPS[group]] = float(value)
        elif found := ROWS_LINE.match(line):
            group, value = found.groups()
            scores["pass@1 from rows"][GROUPS[group]] = float(value)
        else:
            raise ValueError(f"compute_scores printed a line this parser does not know: {line!r}")
    return scores


def compute_scores(upstream: Upstream, rows: list[dict], start_date, end_date, platform) -> dict:
    """compute_scores(args) on these eval_all rows (written to a file, as it reads one), with
    --start_date/--end_date/--platform; an exception it raises is part of the answer."""
    module = upstream.module("evaluation.compute_scores")
    if not hasattr(module, "compute_scores"):
        raise UpstreamMissing(f"{upstream.describe_source()} has no compute_scores")
    with tempfile.TemporaryDirectory(prefix="lcb-compute-scores-") as folder:
        eval_all = Path(folder) / "Scenario.codegeneration_10_0.2_eval_all.json"
        eval_all.write_text(json.dumps(rows), "utf-8")
        args = argparse.Namespace(
            eval_all_file=str(eval_all), start_date=start_date, end_date=end_date, platform=platform
        )
        printed = io.StringIO()
        raised = None
        with contextlib.redirect_stdout(printed), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the mean of an empty difficulty
            try:
                module.compute_scores(args)
            except ZeroDivisionError as error:  # an empty window: upstream's own end
                raised = f"{type(error).__name__}: {error}"
    scores = parse_printout(printed.getvalue())
    return scores | ({"raised": raised} if raised else {})
