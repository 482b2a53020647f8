"""lcb_prompts: LiveCodeBench code-generation prompt formatting and code extraction, and the
self-repair, test output prediction and code execution prompts, extractors and scorers,
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
from .scenario_scoring import score_code_execution, score_test_output
from .scenarios import (
    LMSTYLES,
    SCENARIO_LMSTYLES,
    NoLcbRunnerPrompt,
    extract_execution_answer,
    extract_test_output,
    format_code_execution_prompt,
    format_self_repair_prompt,
    format_test_output_prompt,
)
from .score import leaderboard_score, pass_at_k, score_run
from .streaming import PrefixExtractor

# For lcb-conformance's adapter protocol: lcb_prompts' deliberate differences from lcb_runner,
# by their id in conformance/deviations.toml (extract_code cuts at the last </think>).
DEVIATIONS = ("think",)

__all__ = [
    "DEVIATIONS",
    "LMSTYLES",
    "MESSAGE_STYLES",
    "NoLcbRunnerPrompt",
    "PROMPT_STYLES",
    "PrefixExtractor",
    "SCENARIO_LMSTYLES",
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
    "extract_execution_answer",
    "extract_test_output",
    "format_code_execution_prompt",
    "format_lcb_messages",
    "format_lcb_prompt",
    "format_self_repair_prompt",
    "format_test_output_prompt",
    "leaderboard_score",
    "pass_at_k",
    "score_code_execution",
    "score_run",
    "score_test_output",
]
