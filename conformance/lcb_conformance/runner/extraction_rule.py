"""lcb_runner's extraction rule stated plainly, for property tests: split into lines, look at
every line.

This is the definition, not an implementation to use: the property tests hold the
implementation under test to it for arbitrary text, and the benchmark times it as the
naive baseline. Keep it obviously right rather than fast.
"""

from __future__ import annotations

FENCE = "```"


def upstream_rule(output: str) -> str:
    """lcb_runner: lines split on "\\n"; a fence line contains ```; the code is the lines
    strictly between the last two fence lines, "" if there are fewer than two."""
    lines = output.split("\n")
    fences = [i for i, line in enumerate(lines) if FENCE in line]
    return "\n".join(lines[fences[-2] + 1 : fences[-1]]) if len(fences) >= 2 else ""


def after_think(output: str) -> str:
    """The answer: the text after the last </think> (all of it when there is none)."""
    return output.rpartition("</think>")[2]


def extract_code_rule(output: str, style: str = "generic", think: bool = True) -> str:
    """lcb_prompts.extract_code: upstream's rule on the answer; genericbase = stripped answer.
    think=False: lcb_runner's own, on the whole output (no "think" deviation)."""
    answer = after_think(output) if think else output
    return answer.strip() if style == "genericbase" else upstream_rule(answer)


def prefix_rule(output: str, style: str = "generic") -> str:
    """lcb_prompts.extract_code_prefix: "" while a <think> is open in the answer; for
    genericbase the stripped answer; otherwise, if the answer has an odd number of fence
    lines, the lines after the last one, else ""."""
    answer = after_think(output)
    if "<think>" in answer:
        return ""
    if style == "genericbase":
        return answer.strip()
    lines = answer.split("\n")
    fences = [i for i, line in enumerate(lines) if FENCE in line]
    return "\n".join(lines[fences[-1] + 1 :]) if len(fences) % 2 == 1 else ""
