"""lcb_prompts: LiveCodeBench code-generation prompt formatting and code extraction,
byte-identical to the official lcb_runner, and its scores as lcb_runner and the leaderboard
compute them (see docs/lcb_prompts.md and docs/score.md in lcb-conformance)."""

from .context import decode_context
from .extraction import extract_code, extract_code_prefix
from .prompts import (
    MESSAGE_STYLES,
    PROMPT_STYLES,
    STYLES,
    SYSTEM_MESSAGE,
    SYSTEM_MESSAGE_CODEQWEN,
    SYSTEM_MESSAGE_DEEPSEEK,
    SYSTEM_MESSAGE_DEEPSEEK_R1,
    SYSTEM_MESSAGE_GEMINI,
    SYSTEM_MESSAGE_QWQ,
    format_lcb_messages,
    format_lcb_prompt,
)
from .score import leaderboard_score, pass_at_k, score_run
from .streaming import PrefixExtractor

# For lcb-conformance's adapter protocol: lcb_prompts' deliberate differences from lcb_runner,
# by their id in conformance/deviations.toml (extract_code cuts at the last </think>).
DEVIATIONS = ("think",)

__all__ = [
    "DEVIATIONS",
    "MESSAGE_STYLES",
    "PROMPT_STYLES",
    "PrefixExtractor",
    "STYLES",
    "SYSTEM_MESSAGE",
    "SYSTEM_MESSAGE_CODEQWEN",
    "SYSTEM_MESSAGE_DEEPSEEK",
    "SYSTEM_MESSAGE_DEEPSEEK_R1",
    "SYSTEM_MESSAGE_GEMINI",
    "SYSTEM_MESSAGE_QWQ",
    "decode_context",
    "extract_code",
    "extract_code_prefix",
    "format_lcb_messages",
    "format_lcb_prompt",
    "leaderboard_score",
    "pass_at_k",
    "score_run",
]
