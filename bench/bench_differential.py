"""Benchmark of the differential run (python -m lcb_conformance.upstream.differential).

    python bench/bench_differential.py [--rows 1000] [--private-kb 0] [--impl MODULE]
                                       [--uncached 20] [--upstream installed|PATH]

Generates ROWS LiveCodeBench rows by varying the fixture rows (each gets its own question_id,
a changed statement, and hidden tests as private_test_cases encoded the way the real dataset
encodes them: base64(zlib(pickle(json))); --private-kb makes them about that many KB of random
test data, as real rows carry megabytes), writes them to a temporary JSON lines file, and times
the whole command in a subprocess (interpreter start, imports, offline tokenizer cache, every
row x every prompt variant against live upstream), by default and with --full-rows (upstream
decodes the hidden tests). Then, in this process, times upstream's LLaMa3 prompt for
--uncached rows without the AutoTokenizer.from_pretrained cache, to show what the cache saves.
Figures for docs/performance.md, not assertions.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import pickle
import platform
import random
import re
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

from lcb_conformance.suite import cases

REPO = Path(__file__).resolve().parents[1]


def encode_tests(tests: list) -> str:
    """private_test_cases as code_generation_lite stores them."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests)))).decode("ascii")


def hidden_tests(kb: int) -> list[dict]:
    """About kb KB (encoded) of stdin tests made of random numbers, which zlib cannot shrink
    much, like the real ones."""
    numbers = random.Random(kb)
    tests, size = [], 0
    while size < kb * 1000 * 1.5:  # ~2/3 of the JSON survives compression and base64
        line = " ".join(str(numbers.randrange(10**9)) for _ in range(2000))
        output = f"{numbers.randrange(10**9)}\n"
        tests.append({"input": line + "\n", "output": output, "testtype": "stdin"})
        size += len(line)
    return tests


def generate(count: int, private_kb: int = 0) -> list[dict]:
    base = list(cases.problems().values())
    shared = encode_tests(hidden_tests(private_kb)) if private_kb else None
    rows = []
    for index in range(count):
        row = dict(base[index % len(base)])
        row["question_id"] = f"{row['question_id']}_{index}"
        row["question_content"] += (
            f"\n\nVariant {index}: the answer must also hold for n = {index}."
        )
        tests = json.loads(row["public_test_cases"]) * 20
        row["private_test_cases"] = shared or encode_tests(tests)
        rows.append(row)
    return rows


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def time_uncached(rows: list[dict]) -> float:
    from lcb_conformance.offline_tokenizers import hf_cache
    from lcb_conformance.upstream import differential

    hf_cache.activate_offline_cache()
    from lcb_conformance.upstream import Upstream

    upstream, variant = Upstream(), cases.VARIANTS["generic-llama3"]
    start = time.perf_counter()
    for row in rows:
        upstream.prompt(variant, differential.for_upstream(row))
    return time.perf_counter() - start


# a row of the differential run's table: variant, rows, identical, differ, errors
COUNTED = re.compile(r"^\S+\s+(\d+)\s+\d+\s+\d+\s+\d+$", re.MULTILINE)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--private-kb", type=int, default=0, help="hidden tests a row, KB")
    parser.add_argument("--impl", default="lcb_prompts")
    parser.add_argument("--uncached", type=int, default=20, help="rows timed without the cache")
    parser.add_argument("--upstream", default="installed", metavar="installed|PATH")
    args = parser.parse_args()

    rows = generate(args.rows, args.private_kb)
    codes = []
    with tempfile.TemporaryDirectory() as folder:
        dataset = Path(folder) / "rows.jsonl"
        with dataset.open("w", encoding="utf-8") as out:
            out.writelines(json.dumps(row) + "\n" for row in rows)
        size = dataset.stat().st_size
        for extra in ([], ["--full-rows"]):
            command = [sys.executable, "-m", "lcb_conformance.upstream.differential", str(dataset)]
            command += ["--impl", args.impl, f"--upstream={args.upstream}", *extra]
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
            wall = time.perf_counter() - start
            codes.append(done.returncode)
            table = done.stdout.split("\n\n")[0]
            if not extra:
                print(table)
            compared = [int(m[1]) for m in COUNTED.finditer(table)]
            print(
                f"\n{args.rows} rows ({size / 1e6:.1f} MB) x {len(compared)} variants the "
                f"upstream has = {sum(compared)} prompts vs live upstream"
                f"{''.join(' ' + e for e in extra)}: {wall:.1f} s wall, exit code {done.returncode}"
            )
    print(
        f"machine: {os.cpu_count()} CPUs (nproc), {cpu_model()}, Python {platform.python_version()}"
    )
    if args.uncached:
        seconds = time_uncached(rows[: args.uncached])
        print(
            f"without the from_pretrained cache, upstream's generic-llama3 prompt alone: "
            f"{seconds / args.uncached * 1000:.0f} ms a row "
            f"(~{seconds / args.uncached * args.rows:.0f} s for {args.rows} rows)"
        )
    return max(codes)


if __name__ == "__main__":
    sys.exit(main())
