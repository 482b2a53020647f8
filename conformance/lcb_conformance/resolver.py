"""Model -> style: which lcb_prompts style, and which tokenizer snapshot, give a model the
prompt lcb_runner gives it on the leaderboard.

    lcb-conformance resolve MODEL_ID [--upstream installed|PATH] [--json]
    lcb-conformance resolve --all          every listed model (the resolver/models golden)

The model list is read at run time from upstream's ``lm_styles.LanguageModelList`` (each
LanguageModel has model_name, model_repr, model_style); the LMStyle -> lcb_prompts mapping is
this module's, held to upstream's own prompts by test_resolver.py and recorded, with the
resolution of every listed model, in the golden ``resolver/models`` (drift-checked).

A model lcb_runner does not list gets a suggestion from the listed models of the same
family, labelled as not official. Exit code: 0 listed, with an lcb_prompts style; 1 listed,
but lcb_prompts has no style for its LMStyle; 3 not listed (suggestion only).
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from dataclasses import dataclass, field

from .cases import LLAMA3_TOKENIZER

NOT_LISTED_EXIT = 3
SNAPSHOTS = "fixtures/tokenizers"


@dataclass(frozen=True)
class StyleMapping:
    """What lcb_prompts offers for one LMStyle."""

    style: str | None  # lcb_prompts style, None when it has none for this LMStyle
    tokenizer: str | None  # chat_template=True with this tokenizer snapshot
    sends: str  # what lcb_runner sends to the model for this LMStyle
    note: str  # caveats; for style None, why there is no style

    def calls(self) -> list[str]:
        """The lcb_prompts calls that reproduce lcb_runner for this LMStyle."""
        if self.style is None:
            return []
        if self.tokenizer:
            tokenizer = f'AutoTokenizer.from_pretrained("{self.tokenizer}")'
            prompt = (
                f"format_lcb_prompt(row, tokenizer={tokenizer}, chat_template=True, "
                f'style="{self.style}")'
            )
        else:
            prompt = f'format_lcb_prompt(row, style="{self.style}")'
        return [prompt, f'extract_code(model_output, style="{self.style}")']

    def summary(self) -> str:
        if self.style is None:
            return "no lcb_prompts style"
        if self.tokenizer:
            return f"{self.style}, chat_template=True with {self.tokenizer}"
        return f"{self.style}, no chat template"


_OPENAI_MESSAGES = (
    "[system, user] chat messages (the API applies its own template): system = the generic "
    "system message, user = the question in the generic template"
)
_JOINED = (
    'format_lcb_prompt(row, style="generic") is system + blank line + user; send '
    "lcb_prompts.SYSTEM_MESSAGE as the system message and the rest as the user message"
)
_NOT_IMPLEMENTED = (
    "lcb_runner has no code-generation prompt for this LMStyle "
    "(format_prompt_generation raises NotImplementedError)"
)

# LMStyle name -> mapping. test_resolver.py holds each claim to upstream: a mapped LMStyle's
# prompt equals the style's goldens on every fixture problem; an unmapped one equals none.
MAPPINGS = {
    "LLaMa3": StyleMapping(
        "generic",
        LLAMA3_TOKENIZER,
        "a prompt string: [system, user] rendered by the Meta-Llama-3-8B-Instruct chat "
        "template, whatever the model",
        "use that snapshot's template for every LLaMa3-style model, not the model's own "
        "(Llama-3.1 and later templates add a 'Cutting Knowledge Date' preamble); the prompt "
        "starts with <|begin_of_text|>, so tokenize it with add_special_tokens=False or a "
        "server adds a second BOS",
    ),
    "OpenAIChat": StyleMapping("generic", None, _OPENAI_MESSAGES, _JOINED),
    "DeepSeekAPI": StyleMapping("generic", None, _OPENAI_MESSAGES, _JOINED),
    "MistralWeb": StyleMapping(
        "generic", None, _OPENAI_MESSAGES, "the same messages as OpenAIChat; " + _JOINED
    ),
    "OpenAIReasonPreview": StyleMapping(
        "generic",
        None,
        "one user message: the generic system message, a blank line, the question",
        'that user message is exactly format_lcb_prompt(row, style="generic")',
    ),
    "CodeQwenInstruct": StyleMapping(
        "codeqwen",
        None,
        "a raw prompt string with the <|im_start|>/<|im_end|> turns written out (no chat template)",
        "the same string for every tokenizer; outside the Qwen family its markers are "
        "ordinary text (see the comparability matrix)",
    ),
    "DeepSeekCodeInstruct": StyleMapping(
        "deepseek",
        None,
        "a raw prompt string (### Instruction / ### Response, no chat template)",
        "the same string for every tokenizer",
    ),
    "GenericBase": StyleMapping(
        "genericbase",
        None,
        "a raw one-shot completion prompt",
        "extraction takes the whole answer, stripped",
    ),
    "GenericOAIServer": StyleMapping(
        None,
        None,
        "one user message without a system message, the question right-stripped",
        "no lcb_prompts style sends it; its extraction also differs (the first ```python block)",
    ),
    "OpenAIReason": StyleMapping(
        None,
        None,
        "one user message whose stdin format asks for a main() function",
        "another question template than the generic one",
    ),
    "Claude": StyleMapping(
        None,
        None,
        "a completion string framed by anthropic's HUMAN_PROMPT / AI_PROMPT, the question "
        "right-stripped",
        "lcb_prompts has no Claude framing",
    ),
    "Claude3": StyleMapping(
        None,
        None,
        "(system, [user]) with the question right-stripped",
        "the user text loses the generic template's trailing blank line",
    ),
    "Gemini": StyleMapping(
        None,
        None,
        "one string: another system message ('Do NOT use system calls ...') and the question "
        "joined by one newline",
        "lcb_prompts has no Gemini system message",
    ),
    "GeminiThinking": StyleMapping(
        None,
        None,
        "one string: the generic system message and question joined by one newline",
        "generic joins them with a blank line",
    ),
    **{
        name: StyleMapping(None, None, "nothing (code generation unsupported)", _NOT_IMPLEMENTED)
        for name in (
            "CodeLLaMaInstruct",
            "StarCoderInstruct",
            "QwQ",
            "CohereCommand",
            "DataBricks",
        )
    },
}


def mapping_for(lmstyle: str) -> StyleMapping:
    return MAPPINGS.get(lmstyle) or StyleMapping(
        None,
        None,
        "unknown",
        f"LMStyle.{lmstyle} is not known to this resolver (a newer upstream?): "
        "add it to lcb_conformance.resolver.MAPPINGS",
    )


@dataclass(frozen=True)
class Listed:
    model_name: str
    model_repr: str
    lmstyle: str


def listed_models(upstream) -> list[Listed]:
    """Every LanguageModel of upstream's list, in its order (duplicates kept)."""
    return [
        Listed(model.model_name, model.model_repr, model.model_style.name)
        for model in upstream.lm_styles().LanguageModelList
    ]


def lmstyle_names(upstream) -> list[str]:
    return [member.name for member in upstream.lm_styles().LMStyle]


@dataclass
class Resolution:
    query: str
    listed: Listed | None  # lcb_runner's entry, when it lists the model
    suggestion: str | None = None  # an LMStyle suggested for an unlisted model
    neighbours: list[tuple[Listed, float]] = field(default_factory=list)

    @property
    def lmstyle(self) -> str | None:
        return self.listed.lmstyle if self.listed else self.suggestion

    @property
    def mapping(self) -> StyleMapping | None:
        return mapping_for(self.lmstyle) if self.lmstyle else None

    def exit_code(self) -> int:
        if self.listed is None:
            return NOT_LISTED_EXIT
        return 0 if self.mapping and self.mapping.style else 1

    def as_dict(self) -> dict:
        mapping = self.mapping
        return {
            "query": self.query,
            "official": self.listed is not None,
            "model_name": self.listed.model_name if self.listed else None,
            "model_repr": self.listed.model_repr if self.listed else None,
            "lmstyle": self.lmstyle,
            "style": mapping.style if mapping else None,
            "chat_template_tokenizer": mapping.tokenizer if mapping else None,
            "tokenizer_snapshot": (
                f"{SNAPSHOTS}/{mapping.tokenizer.replace('/', '__')}"
                if mapping and mapping.tokenizer
                else None
            ),
            "lcb_runner_sends": mapping.sends if mapping else None,
            "calls": mapping.calls() if mapping else [],
            "note": mapping.note if mapping else None,
            "nearest_listed": [
                {"model_name": m.model_name, "lmstyle": m.lmstyle, "similarity": round(s, 2)}
                for m, s in self.neighbours
            ],
        }


_SIZE = re.compile(r"(?<![a-z0-9.])\d+(?:\.\d+)?(?:x\d+)?[bm](?![a-z])")


def family(model_id: str) -> str:
    """A model id without its org and parameter count: Qwen/Qwen2.5-14B-Instruct ->
    qwen2.5-*-instruct."""
    return _SIZE.sub("*", model_id.lower().rsplit("/", 1)[-1])


def _find(models: list[Listed], query: str) -> Listed | None:
    lowered = query.lower()
    for matches in (
        lambda m: m.model_name == query,
        lambda m: m.model_name.lower() == lowered,
        lambda m: m.model_repr.lower() == lowered,
        lambda m: m.model_name.lower().rsplit("/", 1)[-1] == lowered.rsplit("/", 1)[-1],
    ):
        found = [model for model in models if matches(model)]
        if found:
            return found[0]
    return None


SUGGEST_SIMILARITY = 0.75  # family similarity for a suggestion (1.0: same family, other size)


def resolve(models: list[Listed], query: str) -> Resolution:
    listed = _find(models, query)
    if listed is not None:
        return Resolution(query, listed)
    org = query.lower().split("/", 1)[0] if "/" in query else None
    same_org = [m for m in models if org and m.model_name.lower().startswith(org + "/")]
    pool = same_org or models
    scored = sorted(
        (
            (m, difflib.SequenceMatcher(None, family(query), family(m.model_name)).ratio())
            for m in {m.model_name: m for m in pool}.values()
        ),
        key=lambda pair: -pair[1],
    )
    neighbours = scored[:3]
    suggestion = None
    if neighbours and neighbours[0][1] >= SUGGEST_SIMILARITY:
        close = {m.lmstyle for m, score in neighbours if score >= SUGGEST_SIMILARITY}
        if len(close) == 1:
            suggestion = close.pop()
    return Resolution(query, None, suggestion, neighbours)


def render(resolution: Resolution, source: str) -> str:
    data = resolution.as_dict()
    lines = [f"model:         {resolution.query}"]
    if resolution.listed:
        lines.append(
            f"lcb_runner:    listed as {resolution.listed.model_name} "
            f"({resolution.listed.model_repr}) in lm_styles of {source}"
        )
    else:
        lines.append(f"lcb_runner:    NOT LISTED in lm_styles of {source}")
        if resolution.suggestion:
            near = ", ".join(f"{m.model_name} ({m.lmstyle})" for m, _ in resolution.neighbours)
            lines.append(
                f"suggestion:    NOT OFFICIAL: LMStyle.{resolution.suggestion}, the style of the "
                f"listed models of the same family: {near}"
            )
        else:
            near = ", ".join(
                f"{m.model_name} ({m.lmstyle}, {score:.2f})" for m, score in resolution.neighbours
            )
            lines.append(
                "suggestion:    none: lcb_runner lists no model of this family (nearest listed: "
                f"{near}). Unofficially, by how the model is served: a chat model behind an "
                "OpenAI-compatible API gets OpenAIChat's messages (lcb_prompts generic, no "
                "template); a base model gets GenericBase (genericbase)."
            )
            return "\n".join(lines)
    mapping = resolution.mapping
    official = "" if resolution.listed else " (suggested, NOT OFFICIAL)"
    lines.append(f"LMStyle:       {resolution.lmstyle}{official}")
    lines.append(f"lcb_runner:    sends {mapping.sends}")
    if mapping.style is None:
        lines.append(f"lcb_prompts:   no lcb_prompts style: {mapping.note}")
        return "\n".join(lines)
    lines.append(f"lcb_prompts:   {mapping.summary()}")
    for call in mapping.calls():
        lines.append(f"               {call}")
    if mapping.tokenizer:
        lines.append(
            f"tokenizer:     {mapping.tokenizer} (snapshot {data['tokenizer_snapshot']}); "
            "this template, not the model's own, gives the leaderboard prompt"
        )
    else:
        lines.append("tokenizer:     none needed for the prompt text")
    lines.append(f"note:          {mapping.note}")
    return "\n".join(lines)


def table(upstream) -> str:
    """Every LMStyle's mapping and every listed model's resolution (the resolver/models golden)."""
    models = listed_models(upstream)
    lines = [
        "lcb_runner's lm_styles -> lcb_prompts (lcb-conformance resolve MODEL_ID).",
        "Per LMStyle: the lcb_prompts style and chat-template tokenizer giving lcb_runner's",
        "prompt, what lcb_runner sends, and why when there is no style. Then every model of",
        "LanguageModelList in its order: model_name (model_repr): LMStyle -> resolution.",
        "",
        "LMStyles:",
    ]
    for name in lmstyle_names(upstream):
        mapping = mapping_for(name)
        lines.append(f"{name} -> {mapping.summary()}")
        lines.append(f"    sends: {mapping.sends}")
        lines.append(f"    {'why not' if mapping.style is None else 'note'}: {mapping.note}")
    lines += ["", f"models ({len(models)}):"]
    for model in models:
        lines.append(
            f"{model.model_name} ({model.model_repr}): {model.lmstyle} -> "
            f"{mapping_for(model.lmstyle).summary()}"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    from .upstream import INSTALLED, Upstream, UpstreamMissing, UpstreamSourceError

    parser = argparse.ArgumentParser(
        prog="lcb-conformance resolve",
        description="Which lcb_prompts style and tokenizer give MODEL_ID lcb_runner's prompt "
        "(from upstream's lm_styles). Exit 0: listed, with a style; 1: listed, no lcb_prompts "
        f"style; {NOT_LISTED_EXIT}: not listed (a suggestion, not official).",
    )
    parser.add_argument("model", nargs="?", metavar="MODEL_ID")
    parser.add_argument("--all", action="store_true", help="every listed model, as a table")
    parser.add_argument(
        "--upstream",
        default=INSTALLED,
        metavar="installed|PATH",
        help="the lcb_runner whose model list to read (default: %(default)s)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if not args.all and not args.model:
        parser.error("give a MODEL_ID or --all")
    try:
        upstream = Upstream(args.upstream)
        source = upstream.describe_source()
        if args.all:
            print(table(upstream), end="")
            return 0
        resolution = resolve(listed_models(upstream), args.model)
    except (UpstreamSourceError, UpstreamMissing) as error:
        print(f"lcb-conformance resolve: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(resolution.as_dict() | {"upstream": source}, indent=1))
    else:
        print(render(resolution, source))
    return resolution.exit_code()
