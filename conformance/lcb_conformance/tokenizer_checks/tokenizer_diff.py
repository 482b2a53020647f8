"""`lcb-conformance tokenizer-diff OLD NEW`: what a tokenizer upgrade changes in prompts, token
ids, BOS/EOS, markers.

    lcb-conformance tokenizer-diff OLD NEW [--styles generic,deepseekr1] [--problems N]

OLD and NEW are tokenizer directories (tokenizer.json, tokenizer_config.json, ...) or, with
network, Hub repo ids with an optional ``@revision``. Both are loaded through transformers'
AutoTokenizer. For every style the tokenization goldens cover and every fixture problem, the
prompt is lcb_runner's own (the goldens): the raw styles' prompt string, and for ``generic`` the
OpenAIChat messages rendered by each tokenizer's chat template with the generation prompt.
Per style it reports how many rendered prompts changed, how many token sequences changed
(the string tokenized with special tokens, as vLLM, SGLang and HF ``generate`` receive it from
a string prompt; without; and, for ``generic``, the template with ``tokenize=True``), the BOS
counts, the longest prompt in tokens (and any prompt whose length crosses a common context
limit, 2k to 128k, between the two), and the first difference decoded on both sides; then
BOS/EOS and each style marker's status (one special token, one added token, or split text).

Exit status (suite.exit_codes): 0 nothing the leaderboard depends on changed, on at least
one problem and style; 1 something did (a rendered prompt, a token id, BOS/EOS, a marker); 2 a
tokenizer could not be loaded, an unknown style, no style or fewer than one problem asked for.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from lcb_conformance.common import exit_codes, shared_options, showdiff
from lcb_conformance.offline_tokenizers.token_ids import (
    WITH_SPECIALS,
    first_token_difference,
    sequences,
)
from lcb_conformance.suite import cases, goldens, tokenization

CHAT_STYLE = "generic"
CHAT_LMSTYLE = "OpenAIChat"  # the messages lcb_runner sends for a chat model
CONTEXT_CHARS = 30  # characters shown either side of a first difference in a prompt
# Context lengths servers commonly truncate or reject at: a prompt that fits under one
# tokenizer and not under the other is named.
CONTEXT_LIMITS = (2048, 4096, 8192, 16384, 32768, 131072)


def load(spec: str):
    """A tokenizer from a directory, or (with network) a Hub ``repo_id[@revision]``."""
    from transformers import AutoTokenizer

    if Path(spec).is_dir():
        return AutoTokenizer.from_pretrained(spec)
    if Path(spec).exists() or spec.startswith(("/", ".", "~")):  # a path, not a repo id
        raise FileNotFoundError(f"{spec} is not a directory")
    repo_id, _, revision = spec.partition("@")
    return AutoTokenizer.from_pretrained(repo_id, revision=revision or None)


def _messages(question_id: str) -> list[dict]:
    return json.loads(goldens.read(goldens.GoldenKey(goldens.MESSAGES, CHAT_LMSTYLE, question_id)))


def model_input(tokenizer, style: str, question_id: str) -> dict:
    """The rendered prompt of one (style, problem) and the token sequences built from it."""
    messages = None
    if style == CHAT_STYLE:
        messages = _messages(question_id)
        prompt = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    else:
        prompt = goldens.read(goldens.GoldenKey(goldens.PROMPT, style, question_id))
    return {"prompt": prompt, "ids": sequences(tokenizer, prompt, messages)}


def _bos_count(tokenizer, ids: list[int]) -> int:
    return ids.count(tokenizer.bos_token_id)  # no BOS (None): never among the ids


def _prompt_difference(old: dict, new: dict) -> str:
    at = showdiff.first_difference(old["prompt"], new["prompt"])
    start = max(0, at - CONTEXT_CHARS)

    def shown(prompt: str) -> str:
        return showdiff.visible(prompt, start, at + CONTEXT_CHARS)

    return (
        f"rendered prompt differs at character {at}\n"
        f'      old "{shown(old["prompt"])}"\n'
        f'      new "{shown(new["prompt"])}"'
    )


@dataclass
class StyleDiff:
    style: str
    cases: int = 0
    prompts_changed: int = 0
    ids_changed: dict[str, int] = field(default_factory=dict)
    bos: set[tuple[int, int]] = field(default_factory=set)  # (old, new) with special tokens
    longest: tuple[int, int] = (0, 0)  # tokens with special tokens, old and new
    crossings: list[str] = field(default_factory=list)
    first: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.prompts_changed or any(self.ids_changed.values()))


def diff_style(old_tok, new_tok, style: str, question_ids: list[str]) -> StyleDiff:
    result = StyleDiff(style)
    for question_id in question_ids:
        old, new = (
            model_input(old_tok, style, question_id),
            model_input(new_tok, style, question_id),
        )
        result.cases += 1
        if old["prompt"] != new["prompt"]:
            result.prompts_changed += 1
            if not result.first:
                result.first.append(f"{question_id}: " + _prompt_difference(old, new))
        for how, old_ids in old["ids"].items():
            new_ids = new["ids"][how]
            changed = old_ids != new_ids
            result.ids_changed[how] = result.ids_changed.get(how, 0) + changed
            if changed and len(result.first) < 2:
                result.first.append(
                    f"{question_id} ({how}): "
                    + first_token_difference(old_tok, old_ids, new_tok, new_ids)
                )
        old_len, new_len = len(old["ids"][WITH_SPECIALS]), len(new["ids"][WITH_SPECIALS])
        result.longest = (max(result.longest[0], old_len), max(result.longest[1], new_len))
        result.crossings += [
            f"{question_id}: {old_len} -> {new_len} tokens crosses the {limit}-token context"
            for limit in limits_crossed(old_len, new_len)
        ]
        result.bos.add(
            (
                _bos_count(old_tok, old["ids"][WITH_SPECIALS]),
                _bos_count(new_tok, new["ids"][WITH_SPECIALS]),
            )
        )
    return result


def limits_crossed(old_len: int, new_len: int) -> list[int]:
    """The common context limits one length fits and the other does not."""
    return [limit for limit in CONTEXT_LIMITS if (old_len <= limit) != (new_len <= limit)]


def tokenizer_facts(tokenizer) -> dict[str, str]:
    """BOS/EOS and every style marker's status: what a template or a server relies on."""
    facts = {
        attr: repr(getattr(tokenizer, attr))
        for attr in ("bos_token", "bos_token_id", "eos_token", "eos_token_id")
    }
    facts["BOS added to a string"] = str(_bos_count(tokenizer, tokenizer("hi")["input_ids"]))
    facts |= {m: tokenization.marker_status(tokenizer, m) for m in cases.STYLE_MARKERS}
    return facts


def report(old_tok, new_tok, styles: list[str], question_ids: list[str]) -> tuple[int, str]:
    """(exit status, text) of the comparison."""
    lines, status = [], exit_codes.OK
    for style in styles:
        d = diff_style(old_tok, new_tok, style, question_ids)
        ids = ", ".join(f"{how}: {n}" for how, n in d.ids_changed.items())
        bos = ", ".join(f"{a}->{b}" for a, b in sorted(d.bos))
        mark = "CHANGED" if d.changed else "same   "
        lines.append(
            f"{mark} {style:<12} prompts changed {d.prompts_changed}/{d.cases}; "
            f"token ids changed ({ids}) /{d.cases}; BOS with specials {bos}; "
            f"longest {d.longest[0]} -> {d.longest[1]} tokens"
        )
        lines += [f"    {line}" for line in d.first + d.crossings]
        status = exit_codes.DIFFERS if d.changed else status
    old_facts, new_facts = tokenizer_facts(old_tok), tokenizer_facts(new_tok)
    for name in old_facts:
        if old_facts[name] != new_facts[name]:
            lines.append(f"CHANGED {name}: {old_facts[name]} -> {new_facts[name]}")
            status = exit_codes.DIFFERS
    lines.append(
        "verdict: "
        + ("changed: re-validate before comparing with the leaderboard" if status else "identical")
    )
    return status, "\n".join(lines) + "\n"


def _at_least_one(text: str) -> int:
    """--problems N: a verdict on no problem would be a green on nothing."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of problems (1 or more)")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    parser = shared_options.CommandParser(
        prog="lcb-conformance tokenizer-diff", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("old", help="tokenizer directory, or repo_id[@revision] with network")
    parser.add_argument("new", help="tokenizer directory, or repo_id[@revision] with network")
    parser.add_argument(
        "--styles",
        default=",".join(cases.TOKENIZED_STYLES),
        help="comma-separated styles (default: %(default)s)",
    )
    parser.add_argument(
        "--problems",
        type=_at_least_one,
        default=None,
        metavar="N",
        help="only the first N fixture problems",
    )
    args = parser.parse_args(argv)
    styles = [s for s in args.styles.split(",") if s]
    unknown = sorted(set(styles) - set(cases.TOKENIZED_STYLES))
    if unknown or not styles:
        parser.error(
            f"--styles: {'unknown ' + ', '.join(unknown) if unknown else 'none given'}; choose "
            f"from {', '.join(cases.TOKENIZED_STYLES)}"
        )
    loaded = []
    for spec in (args.old, args.new):
        try:
            loaded.append(load(spec))
        except Exception as error:  # missing files, offline, gated: say which side and why
            why = " ".join(str(error).split())
            showdiff.write(
                f"lcb-conformance tokenizer-diff: cannot load tokenizer {spec!r}: "
                f"{type(error).__name__}: {why}",
                sys.stderr,
            )
            return exit_codes.UNUSABLE
    question_ids = list(cases.problems())[: args.problems]
    status, text = report(*loaded, styles, question_ids)
    showdiff.write(text, end="")
    return status


if __name__ == "__main__":
    sys.exit(main())
