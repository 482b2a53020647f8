"""Benchmark of `lcb-conformance audit` over a large lcb_runner results file.

    python bench/bench_audit.py [--problems 1000] [--samples 10] [--output-kb 130]
                                [--scales 0.1,1] [--format lcb_runner|lm-eval]
                                [--upstream installed|PATH] [--json PATH]

Writes, at each scale, an lcb_runner-format results file (the fixture run's rows repeated
under new question_ids, each with --samples long reasoning outputs of about --output-kb KB:
32K tokens is about 130 KB; one final fenced block, whose extraction upstream computes for
code_list) and its --use_cache file, then times the whole command in a subprocess (start,
imports, streaming every row, upstream's extract_code on every sample, the prompt of every
problem rebuilt and looked up in the cache) and reads the child's peak memory. Two scales
show whether memory stays flat as the file grows. ``--format lm-eval``: the same samples as
lm-evaluation-harness's samples file instead (a JSON line per problem: doc, the prompt as
arguments.gen_args_0.arg_0, resps, filtered_resps), audited with ``--style``. Figures for
docs/audit-formats.md, not assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_record import write_record

from lcb_conformance.run_audit import audit as run_audit
from lcb_conformance.run_formats import lcb_runner_files
from lcb_conformance.suite import cases
from lcb_conformance.upstream import Upstream

REPO = Path(__file__).resolve().parents[1]
FIXTURE_RUN = cases.FIXTURES_DIR / "audit" / "lcb_runner" / "deepseek-instruct"
LMSTYLE = "DeepSeekCodeInstruct"
MODEL_REPR = "DSCoder-33b-Ins"
WORDS = "so the answer follows from the invariant we keep while scanning left to right".split()


def reasoning_output(kb: int, seed: int) -> str:
    """About kb KB of reasoning prose (lines of words, a draft fence), then a final block."""
    words = random.Random(seed)
    lines, size = ["<think>"], 0
    while size < kb * 1000:
        line = " ".join(words.choice(WORDS) for _ in range(14))
        lines.append(line)
        size += len(line) + 1
    lines += ["```python", f"print({seed})", "```", "</think>", "", "```python"]
    lines += [f"n = int(input())\nprint(n * {seed})", "```", ""]
    return "\n".join(lines)


def write_run(folder: Path, problems: int, samples: int, kb: int, upstream) -> Path:
    """output/<repr>/… and cache/<repr>/…, written one row at a time."""
    template = json.loads(next(iter((FIXTURE_RUN / "output").glob("*/*_3_0.2.json"))).read_text())
    outputs = [reasoning_output(kb, seed) for seed in range(samples)]
    codes = [upstream.extract_as(LMSTYLE, output) for output in outputs]
    results = folder / "output" / MODEL_REPR / f"Scenario.codegeneration_{samples}_0.2.json"
    cache = folder / "cache" / MODEL_REPR / results.name
    results.parent.mkdir(parents=True)
    cache.parent.mkdir(parents=True)
    with results.open("w") as rows, cache.open("w") as prompts:
        rows.write("[")
        prompts.write("{")
        for index in range(problems):
            base = template[index % len(template)]
            row = {**base, "question_id": f"{base['question_id']}_{index}"}
            row["question_content"] = f"{base['question_content']}\n(variant {index})"
            # Each problem's outputs differ (the cache is keyed by them): the seed line moves.
            row["output_list"] = [f"{output}\n# {index}" for output in outputs]
            row["code_list"] = codes
            problem = {**row, **run_audit.NO_TESTS}
            problem = {k: problem[k] for k in cases.PROBLEM_FIELDS}
            key = run_audit.cache_key(upstream.format(LMSTYLE, problem))
            separator = "," if index else ""
            rows.write(separator + json.dumps(row, indent=4))
            prompts.write(separator + json.dumps(key) + ": " + json.dumps(row["output_list"]))
        rows.write("]")
        prompts.write("}")
    return results


def write_lm_eval(folder: Path, problems: int, samples: int, kb: int, upstream) -> Path:
    """lm-eval's samples_<task>_<date>.jsonl for the same problems and outputs."""
    template = json.loads(next(iter((FIXTURE_RUN / "output").glob("*/*_3_0.2.json"))).read_text())
    outputs = [reasoning_output(kb, seed) for seed in range(samples)]
    codes = [upstream.extract_as(LMSTYLE, output) for output in outputs]
    path = folder / "samples_lcb_bench_2026-01-01T00-00-00.jsonl"
    with path.open("w") as lines:
        for index in range(problems):
            base = template[index % len(template)]
            doc = {k: base[k] for k in cases.PROBLEM_FIELDS if k in base}
            doc |= {"question_id": f"{base['question_id']}_{index}", **run_audit.NO_TESTS}
            doc["question_content"] = f"{base['question_content']}\n(variant {index})"
            record = {
                "doc_id": index,
                "doc": doc,
                "target": doc["question_id"],
                "arguments": {"gen_args_0": {"arg_0": upstream.format(LMSTYLE, doc)}},
                "resps": [[f"{output}\n# {index}" for output in outputs]],
                "filtered_resps": [codes],
                "filter": "lcb_runner",
            }
            lines.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def time_audit(results: Path, upstream_source: str, extra: tuple[str, ...] = ()) -> dict:
    command = [sys.executable, "-m", "lcb_conformance.cli", "audit", str(results), *extra]
    # the generated problems are variants of the fixtures', in no release
    command += ["--not-a-release", "--upstream", upstream_source, "--show", "0"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"audit exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr}")
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2),
        "peak_rss_mb": round(after.ru_maxrss / 1024, 1),  # the largest child so far (Linux: KB)
        "headline": done.stdout.strip().splitlines()[-1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--output-kb", type=int, default=130)
    parser.add_argument("--scales", default="0.1,1", help="fractions of --problems, ascending")
    parser.add_argument("--format", default="lcb_runner", choices=("lcb_runner", "lm-eval"))
    parser.add_argument("--upstream", default="installed")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    upstream = Upstream(args.upstream)
    figures = []
    for scale in (float(s) for s in args.scales.split(",")):
        problems = max(1, round(args.problems * scale))
        with tempfile.TemporaryDirectory(prefix="bench-audit-") as scratch:
            if args.format == "lm-eval":
                results = write_lm_eval(
                    Path(scratch), problems, args.samples, args.output_kb, upstream
                )
                cache_size = 0
                timing = time_audit(results, args.upstream, ("--style", LMSTYLE))
            else:
                results = write_run(Path(scratch), problems, args.samples, args.output_kb, upstream)
                cache_size = lcb_runner_files.default_cache(results).stat().st_size
                timing = time_audit(results, args.upstream)
            size = results.stat().st_size
        figure = {
            "problems": problems,
            "samples": problems * args.samples,
            "results_mb": round(size / 1e6, 1),
            "cache_mb": round(cache_size / 1e6, 1),
            **timing,
            "results_mb_per_s": round(size / 1e6 / timing["wall_s"], 1),
        }
        figures.append(figure)
        print(json.dumps(figure), flush=True)
    report = {
        "machine": {
            "platform": platform.platform(),
            "python": sys.version.split()[0],
            "cpu_count": os.cpu_count(),
            "load_average_1min_at_start": os.getloadavg()[0],
        },
        "upstream": upstream.describe_source(),
        "format": args.format,
        "output_kb": args.output_kb,
        "runs": figures,
    }
    if args.json:
        write_record(args.json, report)


if __name__ == "__main__":
    main()
