"""The one LMStyle ↔ style table: what lcb_runner sends per LMStyle and the `lcb_prompts` call
giving it (cases, resolver and docs read it).

lcb_runner's LMStyles and the lcb_prompts style giving each one's prompt: the one table that
the case tables (suite/cases.py, suite/scenario_cases.py), the API contract (runner/contract.py),
the resolver (``lcb-conformance resolve``) and docs/styles.md read. A new LMStyle or style is
one row of ``MAPPINGS``.

A row says what lcb_runner sends for the LMStyle, the lcb_prompts call that reproduces it (a
string prompt, or chat messages), the chat-template tokenizer when there is one, and why when
lcb_prompts has no style for it; whether a model's own tokenizer sees the prompt, whether the
style is one of the seed's, and how its answers are extracted. test_resolver.py holds every row
to the goldens and to upstream; test_style_table.py holds the reference lcb_prompts' own style
and LMStyle lists (it is standard library only and reads no suite) to this table. The order of
the rows is the order of the verdict's styles: the first LMStyle of a style is the one its
extraction goldens are produced from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# lcb_runner renders LLaMa3 with the Meta-Llama-3-8B-Instruct template for every Llama-3.x.
LLAMA3_TOKENIZER = "meta-llama/Meta-Llama-3-8B-Instruct"
# What extract_code takes of an answer: the code between its last two fence lines, or the whole
# answer stripped (GenericBase's completions).
FENCED, WHOLE_ANSWER = "fenced", "whole answer"


@dataclass(frozen=True)
class StyleMapping:
    """What lcb_prompts offers for one LMStyle."""

    style: str | None  # lcb_prompts style, None when lcb_runner builds no prompt for it
    tokenizer: str | None  # chat_template=True with this tokenizer snapshot
    sends: str  # what lcb_runner sends to the model for this LMStyle
    note: str  # caveats; for style None, why there is no style
    messages: bool = False  # format_lcb_messages (chat messages), not format_lcb_prompt
    # the folder of its prompt goldens (prompt/<folder>), when not its style's name
    prompt_folder: str | None = None
    # a message LMStyle whose one user message is also a string prompt: that prompt's style
    # (format_lcb_prompt(row, style=...) is its text)
    user_message_prompt: str | None = None
    # a model's own tokenizer sees the prompt as a string (open weights, served as is): the style
    # is token-audited under every tokenizer family; an API tokenizes its prompt its own way
    tokenized_here: bool = False
    # a style of the seed implementation: extract_code_prefix's reference goldens and the API
    # contract's style cases cover it (a style has a flag when any of its rows has it)
    seed: bool = False
    extraction: str = FENCED  # what extract_code takes of an answer in this style

    def calls(self) -> list[str]:
        """The lcb_prompts calls that reproduce lcb_runner for this LMStyle."""
        if self.style is None:
            return []
        if self.messages:
            prompt = f'format_lcb_messages(row, style="{self.style}")'
        elif self.tokenizer:
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
        if self.messages:
            return f"{self.style} messages"
        if self.tokenizer:
            return f"{self.style}, chat_template=True with {self.tokenizer}"
        return f"{self.style}, no chat template"


def _messages(style: str, sends: str, note: str) -> StyleMapping:
    return StyleMapping(style, None, sends, note, messages=True)


def _raw(style: str, sends: str, note: str, **traits) -> StyleMapping:
    return StyleMapping(style, None, sends, note, **traits)


_SYSTEM_USER = _messages(
    "generic",
    "[system, user] chat messages (the API applies its own template): system = the generic "
    "system message, user = the question in the generic template",
    "send the messages as they are; joined into one string they are "
    'format_lcb_prompt(row, style="generic"), which is not what lcb_runner sends',
)
_ONE_USER = StyleMapping(
    "oaireasonpreview",
    None,
    "one user message: the generic system message, a blank line, the question",
    'that user message\'s text is format_lcb_prompt(row, style="generic")',
    messages=True,
    user_message_prompt="generic",
)
_CLAUDE3 = _messages(
    "claude3",
    "(system, [user]): the generic system message passed as the API's system parameter, the "
    "question in the generic template right-stripped",
    "the user text lacks the generic template's trailing blank line",
)
NOT_IMPLEMENTED = (
    "lcb_runner has no code-generation prompt for this LMStyle "
    "(format_prompt_generation raises NotImplementedError)"
)

# LMStyle name -> mapping. test_resolver.py holds each claim to the goldens (a mapped LMStyle
# has prompt or messages goldens produced from it, or its style's, and extracts like its
# style) and to upstream (an unmapped LMStyle builds no prompt).
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
        prompt_folder="generic-llama3",
        tokenized_here=True,
        seed=True,
    ),
    **dict.fromkeys(
        ("OpenAIChat", "DeepSeekAPI", "TogetherAI", "CohereCommand", "MistralWeb"), _SYSTEM_USER
    ),
    "CodeQwenInstruct": _raw(
        "codeqwen",
        "a raw prompt string with the <|im_start|>/<|im_end|> turns written out (no chat template)",
        "the same string for every tokenizer; outside the Qwen family its markers are "
        "ordinary text (see the comparability matrix)",
        tokenized_here=True,
        seed=True,
    ),
    "DeepSeekCodeInstruct": _raw(
        "deepseek",
        "a raw prompt string (### Instruction / ### Response, no chat template)",
        "the same string for every tokenizer",
        tokenized_here=True,
        seed=True,
    ),
    "GenericBase": _raw(
        "genericbase",
        "a raw one-shot completion prompt",
        "extraction takes the whole answer, stripped",
        tokenized_here=True,
        seed=True,
        extraction=WHOLE_ANSWER,
    ),
    "QwQ": _raw(
        "qwq",
        "a raw prompt string with the <|im_start|>/<|im_end|> turns written out and QwQ's own "
        "system turn (no chat template)",
        "the same string for every tokenizer; tokenize it with add_special_tokens=False",
        tokenized_here=True,
    ),
    "DeepSeekR1": _raw(
        "deepseekr1",
        "a raw prompt string that starts with the text <｜begin▁of▁sentence｜> and writes the "
        "<｜User｜>/<｜Assistant｜> turns out (no chat template)",
        "the prompt carries its own BOS: tokenize it with add_special_tokens=False or a server "
        "adds a second one (see the comparability matrix)",
        tokenized_here=True,
    ),
    "Claude": _raw(
        "claude",
        "a completion string framed by anthropic's HUMAN_PROMPT / AI_PROMPT, the question "
        "right-stripped",
        "send it to a completion endpoint as it is",
    ),
    "Gemini": _raw(
        "gemini",
        "one string: a system message of its own ('Do NOT use system calls ...') and the "
        "question joined by one newline",
        "send it as the one user turn",
    ),
    "GeminiThinking": _raw(
        "geminithinking",
        "one string: the generic system message and the question joined by one newline",
        "not the generic style: that joins them with a blank line",
    ),
    # its one user message is the template-free generic prompt: the prompt/generic goldens
    "OpenAIReasonPreview": _ONE_USER,
    "Grok": _ONE_USER,
    "OpenAIReason": _messages(
        "oaireason",
        "one user message: the generic system message, a blank line, the question; for stdin "
        "problems the format asks for a main() function",
        "starter-code problems get the generic template; only the stdin format differs",
    ),
    **dict.fromkeys(("Claude3", "Claude3Thinking"), _CLAUDE3),
    "GenericOAIServer": StyleMapping(
        None,
        None,
        "one user message without a system message, the question right-stripped",
        "nvidia-livecodebench's own LMStyle, not lcb_runner's; no lcb_prompts style sends it, "
        "and its extraction differs (the first ```python block)",
    ),
    "CodeLLaMaInstruct": StyleMapping(
        None,
        None,
        "nothing (code generation unsupported)",
        NOT_IMPLEMENTED + "; its extract_code branch returns None",
    ),
    **{
        name: StyleMapping(None, None, "nothing (code generation unsupported)", NOT_IMPLEMENTED)
        for name in ("StarCoderInstruct", "DataBricks")
    },
}
# The template-free generic prompt's goldens are produced as OpenAIReasonPreview's one user
# message (lcb_runner has no string LMStyle sending it).
GENERIC_PROMPT_LMSTYLE = "OpenAIReasonPreview"


# LMStyles of the installed stand-in that lcb_runner does not have.
NOT_LCB_RUNNER = ("GenericOAIServer",)


def mapping_for(lmstyle: str) -> StyleMapping:
    return MAPPINGS.get(lmstyle) or StyleMapping(
        None,
        None,
        "unknown",
        f"LMStyle.{lmstyle} is not known to this resolver (a newer upstream?): "
        "add it to lcb_conformance.suite.styles.MAPPINGS",
    )


def lmstyles_of(style: str) -> tuple[str, ...]:
    """The LMStyles whose prompt and extraction an lcb_prompts style gives, in table order."""
    return tuple(name for name, mapping in MAPPINGS.items() if mapping.style == style)


def styles_where(has: Callable[[StyleMapping], bool]) -> tuple[str, ...]:
    """The lcb_prompts styles of the rows that ``has``, in table order."""
    found = (mapping.style for mapping in MAPPINGS.values() if mapping.style and has(mapping))
    return tuple(dict.fromkeys(found))


# format_lcb_prompt's styles (a message LMStyle's one user message is a string prompt too), and
# format_lcb_messages'
PROMPT_STYLES = tuple(
    dict.fromkeys(
        (*styles_where(lambda mapping: not mapping.messages),
         *(mapping.user_message_prompt for mapping in MAPPINGS.values()
           if mapping.user_message_prompt))
    )
)  # fmt: skip
MESSAGE_STYLES = styles_where(lambda mapping: mapping.messages)
# the styles whose prompt a tokenizer sees as a string: token-audited under every family
TOKENIZED_STYLES = styles_where(lambda mapping: mapping.tokenized_here)
SEED_STYLES = styles_where(lambda mapping: mapping.seed)
FENCED_SEED_STYLES = styles_where(lambda mapping: mapping.seed and mapping.extraction == FENCED)


# style -> the LMStyle its extraction goldens are produced from (its first in the table);
# the other LMStyles of a style extract like it (test_resolver.py holds them to upstream)
EXTRACTION_LMSTYLES = {
    style: lmstyles_of(style)[0]
    for style in dict.fromkeys(mapping.style for mapping in MAPPINGS.values() if mapping.style)
}
