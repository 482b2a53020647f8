"""Benchmark of lcb_prompts' extraction and prompt formatting, and of the conformance run.

    tox -e bench                                 # full run, writes bench/results.json
    python bench/bench_extraction.py --quick     # smaller inputs, no suite run, no JSON

Measures, on synthetic model answers (results checked equal before anything is timed):

- extract_code vs upstream lcb_runner's extract_code(output, LMStyle.LLaMa3) on 1 KB .. 1 MB;
- the total cost of a prefix for every chunk of a 32K-token stream (~130 KB, ~4-character
  chunks): the naive line-splitting rule re-run on the text so far, lcb_prompts'
  extract_code_prefix re-run on it, and the incremental PrefixExtractor. Three streams: a
  chatty answer with many blocks; a reasoning model's <think>..</think> then the answer (the
  naive rule bails out early, with a C-speed search, while <think> is open); one block open
  from start to end (the prefix returned grows to the whole stream: PrefixExtractor's worst
  case, each step copies it);
- format_lcb_prompt with the Meta-Llama-3-8B-Instruct chat template (offline snapshot);
- wall (and CPU) time of the default conformance run, `pytest -m "not upstream and not
  selftest"` (tox -e conformance), and of `pytest -m "not upstream"`, which adds the gate's
  self-tests, each in a subprocess.

Timing: time.perf_counter, best of several repeats (each repeat loops long enough to be
measurable). These are figures for docs/performance.md, not assertions: no test depends on them.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import random
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

# Standard library only: transformers and upstream are imported once the offline cache is on.
from lcb_conformance.common import shared_options
from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.runner.extraction_rule import prefix_rule
from lcb_prompts import PrefixExtractor, extract_code, extract_code_prefix, format_lcb_prompt

REPO = Path(__file__).resolve().parents[1]

KB = 1024
TOKEN_CHARS = 4  # ~characters per token of code/English for Llama-3-class tokenizers


# --- timing -------------------------------------------------------------------------------


def best_per_call(fn: Callable[[], object], repeats: int = 5, min_seconds: float = 0.05) -> float:
    """Seconds per call of fn: calibrate a loop count taking >= min_seconds, then the best
    (least disturbed) of `repeats` timed loops."""
    loops = 1
    while True:
        elapsed = _time_loops(fn, loops)
        if elapsed >= min_seconds:
            break
        loops *= 2 if elapsed == 0 else max(2, min(10, int(min_seconds / elapsed) + 1))
    best = elapsed
    for _ in range(repeats - 1):
        best = min(best, _time_loops(fn, loops))
    return best / loops


def _time_loops(fn: Callable[[], object], loops: int) -> float:
    start = time.perf_counter()
    for _ in range(loops):
        fn()
    return time.perf_counter() - start


def best_once(fn: Callable[[], object], repeats: int) -> float:
    """Seconds for one call of a long-running fn, best of `repeats`."""
    return min(_time_loops(fn, 1) for _ in range(repeats))


# --- inputs -------------------------------------------------------------------------------

PROSE = (
    "We scan the lamps from left to right and count the positions where the pattern breaks; "
    "each break costs exactly one toggle, and flipping the whole target pattern gives the "
    "other candidate, so the answer is the smaller of the two counts. "
)
CODE = """import sys
from collections import deque


def solve() -> None:
    data = sys.stdin.read().split()
    n, s = int(data[0]), data[1]
    best = min(
        sum(1 for i, c in enumerate(s) if int(c) != i % 2),
        sum(1 for i, c in enumerate(s) if int(c) == i % 2),
    )
    queue = deque([0])
    while queue:
        queue.popleft()
    print(best)


if __name__ == "__main__":
    solve()
"""


def code_block(rng: random.Random) -> str:
    return f"```{rng.choice(['python', 'python3', ''])}\n{CODE}```\n"


def answer_text(size: int, fences: bool = True) -> str:
    """size characters (ASCII) of a chatty answer: paragraphs of prose and fenced solutions,
    the last block near the end followed by a short explanation (fences=False: prose only)."""
    rng = random.Random(size)
    ending = "The solution runs in O(n) time and O(1) extra memory.\n"
    parts, length = [], len(ending)
    while True:
        part = "\n".join(PROSE for _ in range(rng.randint(1, 3))) + "\n\n"
        if fences:
            part += code_block(rng) + "\n"
        if parts and length + len(part) > size:
            break
        parts.append(part)
        length += len(part)
    filler = (PROSE * (size // len(PROSE) + 1))[: max(size - length - 1, 0)] + "\n"
    return "".join(parts) + filler + ending


def reasoning_stream(tokens: int) -> str:
    """A reasoning model's output of ~tokens tokens: <think> with prose and draft blocks
    (90%), </think>, then the answer: a paragraph, the solution block, an explanation."""
    rng = random.Random(tokens)
    size = tokens * TOKEN_CHARS
    answer = (
        "\n</think>\n\nHere is the solution.\n\n"
        + code_block(rng)
        + "\nIt counts the mismatches against both alternating patterns.\n"
    )
    thinking = answer_text(size - len(answer) - len("<think>\n"))
    return "<think>\n" + thinking[: size - len(answer) - len("<think>\n")] + answer


def open_block_stream(tokens: int) -> str:
    """The prefix extractor's worst case: one block open for the whole stream, so the
    prefix (the code so far) grows to ~tokens * 4 characters."""
    size = tokens * TOKEN_CHARS
    body = (CODE * (size // len(CODE) + 1))[: size - len("```python\n")]
    return "```python\n" + body


def token_chunks(text: str, seed: int = 0) -> list[str]:
    """text cut into token-sized chunks (1..7 characters, mean 4)."""
    rng = random.Random(seed)
    chunks, at = [], 0
    while at < len(text):
        size = rng.randint(1, 7)
        chunks.append(text[at : at + size])
        at += size
    return chunks


# --- benchmarks ---------------------------------------------------------------------------


def bench_extract_code(sizes: list[int], repeats: int) -> list[dict]:
    from livecodebench.lm_styles import LMStyle
    from livecodebench.utils.extraction_utils import extract_code as upstream_extract_code

    rows = []
    for shape, fences in (("answer", True), ("no fence", False)):
        for size in sizes:
            text = answer_text(size, fences)
            ours = extract_code(text, "generic")
            theirs = upstream_extract_code(text, LMStyle.LLaMa3)
            if ours != theirs:
                raise SystemExit(f"extract_code differs from upstream on the {size} B {shape}")
            t_upstream = best_per_call(
                lambda text=text: upstream_extract_code(text, LMStyle.LLaMa3), repeats
            )
            t_ours = best_per_call(lambda text=text: extract_code(text, "generic"), repeats)
            rows.append(
                {
                    "shape": shape,
                    "bytes": len(text.encode()),
                    "lines": text.count("\n") + 1,
                    "upstream_us": t_upstream * 1e6,
                    "lcb_prompts_us": t_ours * 1e6,
                    "speedup": t_upstream / t_ours,
                }
            )
            print(
                f"  extract_code {shape:9} {_size(len(text)):>7}: upstream "
                f"{_us(t_upstream):>10}  lcb_prompts {_us(t_ours):>10}  "
                f"{t_upstream / t_ours:8.1f}x"
            )
    return rows


def stream_naive(chunks: list[str], style: str) -> None:
    text = ""
    for chunk in chunks:
        text += chunk
        prefix_rule(text, style)


def stream_stateless(chunks: list[str], style: str) -> None:
    text = ""
    for chunk in chunks:
        text += chunk
        extract_code_prefix(text, style)


def stream_incremental(chunks: list[str], style: str) -> None:
    extractor = PrefixExtractor(style)
    for chunk in chunks:
        extractor.feed(chunk)


def check_stream(chunks: list[str], style: str) -> None:
    """The three agree: at every step for the incremental vs the stateless function, at a
    sample of steps (and the last) for the naive rule."""
    extractor, text = PrefixExtractor(style), ""
    for step, chunk in enumerate(chunks):
        text += chunk
        got = extractor.feed(chunk)
        if got != extract_code_prefix(text, style):
            raise SystemExit(f"PrefixExtractor differs from extract_code_prefix at step {step}")
        if (step % 997 == 0 or step == len(chunks) - 1) and got != prefix_rule(text, style):
            raise SystemExit(f"extract_code_prefix differs from the naive rule at step {step}")


def bench_stream(name: str, text: str, repeats: int, naive_repeats: int) -> dict:
    chunks = token_chunks(text)
    check_stream(chunks, "generic")
    t_naive = best_once(lambda: stream_naive(chunks, "generic"), naive_repeats)
    t_stateless = best_once(lambda: stream_stateless(chunks, "generic"), repeats)
    t_incremental = best_once(lambda: stream_incremental(chunks, "generic"), repeats)
    row = {
        "stream": name,
        "bytes": len(text.encode()),
        "chunks": len(chunks),
        "naive_line_splitting_s": t_naive,
        "extract_code_prefix_each_step_s": t_stateless,
        "prefix_extractor_s": t_incremental,
        "naive_over_incremental": t_naive / t_incremental,
        "stateless_over_incremental": t_stateless / t_incremental,
    }
    print(
        f"  stream {name} ({_size(len(text))}, {len(chunks)} chunks): naive {t_naive:.3f} s, "
        f"extract_code_prefix each step {t_stateless:.3f} s, PrefixExtractor "
        f"{t_incremental:.4f} s  ->  {t_naive / t_incremental:.0f}x / "
        f"{t_stateless / t_incremental:.1f}x"
    )
    return row


def bench_prompt(repeats: int) -> dict:
    from transformers import AutoTokenizer

    rows = [json.loads(line) for line in (REPO / "fixtures/problems.jsonl").open(encoding="utf-8")]
    start = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained("meta-llama/Meta-Llama-3-8B-Instruct")
    t_load = time.perf_counter() - start

    def all_rows(**options) -> None:
        for row in rows:
            format_lcb_prompt(row, **options)

    t_template = best_per_call(lambda: all_rows(tokenizer=tokenizer, chat_template=True), repeats)
    t_plain = best_per_call(lambda: all_rows(), repeats)
    result = {
        "tokenizer": "meta-llama/Meta-Llama-3-8B-Instruct",
        "problems": len(rows),
        "tokenizer_load_s": t_load,
        "chat_template_us_per_prompt": t_template / len(rows) * 1e6,
        "no_template_us_per_prompt": t_plain / len(rows) * 1e6,
    }
    print(
        f"  format_lcb_prompt: chat template {_us(t_template / len(rows))} per prompt, "
        f"no template {_us(t_plain / len(rows))} (tokenizer load {t_load:.2f} s, once)"
    )
    return result


# The default conformance run (tox -e conformance), and the same with the gate's self-tests
# (slow: they run the suite again in subprocesses), with how many times each is timed.
SUITE_RUNS = {
    "conformance": ("not upstream and not selftest and not realvocab", 3),
    "conformance + selftest": ("not upstream", 1),
}


def bench_suite(env: dict[str, str]) -> list[dict]:
    rows = []
    for name, (markers, repeats) in SUITE_RUNS.items():
        command = [sys.executable, "-m", "pytest", "-m", markers, "-q", "-p", "no:randomly"]
        runs = []
        for _ in range(repeats):
            cpu_before = _children_cpu()
            start = time.perf_counter()
            done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
            runs.append((time.perf_counter() - start, _children_cpu() - cpu_before))
        wall, cpu = min(runs)
        summary = done.stdout.strip().splitlines()[-1].strip("= ") if done.stdout.strip() else ""
        if done.returncode != 0:  # a figure for a red run is still a figure; say so
            summary = f"FAILED (exit {done.returncode}): {summary}"
        print(f"  {name} run: {wall:.1f} s wall, {cpu:.1f} s CPU (best of {repeats}; {summary})")
        rows.append(
            {
                "run": name,
                "command": " ".join(["python", *command[1:]]),
                "wall_s": wall,
                "cpu_s": cpu,
                "all_wall_s": [run[0] for run in runs],
                "summary": summary,
            }
        )
    return rows


def _children_cpu() -> float:
    """User + system CPU seconds of finished child processes (less disturbed than wall
    time when the machine is shared)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# --- report -------------------------------------------------------------------------------


def machine() -> dict:
    model = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "platform": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "cpu_count": os.cpu_count(),
        "cpu_model": model,
        "load_average_1min_at_start": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }


def versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for package in ("nvidia-livecodebench", "transformers", "tokenizers", "lcb-conformance"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = None
    return found


def _size(n: int) -> str:
    return f"{n / KB / KB:.1f} MB" if n >= KB * KB else f"{n / KB:.0f} KB"


def _us(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} µs"


def main(argv: list[str] | None = None) -> int:
    parser = shared_options.CommandParser(
        prog="bench/bench_extraction.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="small inputs, no suite run")
    parser.add_argument("--no-suite", action="store_true", help="skip the conformance run")
    parser.add_argument(
        "--json",
        type=Path,
        default=None,
        help="where to write the results (default: bench/results.json; --quick: none)",
    )
    args = parser.parse_args(argv)
    suite_env = dict(os.environ)  # the suite builds its own offline cache
    # Before anything imports huggingface_hub / transformers (upstream may, indirectly).
    hf_cache.activate_offline_cache()
    quick = args.quick
    json_path = args.json or (None if quick else REPO / "bench" / "results.json")
    info = machine()
    print(f"{info['cpu_model']} x{info['cpu_count']}, {info['python']}, {info['platform']}")

    results: dict = {
        "generated": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": info,
        "versions": versions(),
    }
    sizes = [1 * KB, 10 * KB, 100 * KB] + ([] if quick else [1024 * KB])
    results["extract_code"] = bench_extract_code(sizes, repeats=3 if quick else 7)
    tokens = 4096 if quick else 32768
    k = f"{tokens // 1024}K tokens"
    results["stream"] = [
        bench_stream(f"answer {k}", answer_text(tokens * TOKEN_CHARS), 3, 1),
        bench_stream(f"reasoning {k}", reasoning_stream(tokens), 3, 1),
        bench_stream(f"one open block {k}", open_block_stream(tokens), 3, 1),
    ]
    results["format_lcb_prompt"] = bench_prompt(repeats=3 if quick else 5)
    if not (quick or args.no_suite):
        results["conformance_runs"] = bench_suite(suite_env)
    if json_path is not None:
        json_path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", "utf-8")
        print(f"wrote {json_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
