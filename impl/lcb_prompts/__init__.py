"""lcb_prompts: LiveCodeBench code-generation prompt formatting and code extraction,
byte-identical to the official lcb_runner (see the lcb-conformance README)."""

from .context import decode_context
from .extraction import extract_code, extract_code_prefix
from .prompts import (
    STYLES,
    SYSTEM_MESSAGE,
    SYSTEM_MESSAGE_CODEQWEN,
    SYSTEM_MESSAGE_DEEPSEEK,
    format_lcb_prompt,
)
from .streaming import PrefixExtractor

__all__ = [
    "PrefixExtractor",
    "STYLES",
    "SYSTEM_MESSAGE",
    "SYSTEM_MESSAGE_CODEQWEN",
    "SYSTEM_MESSAGE_DEEPSEEK",
    "decode_context",
    "extract_code",
    "extract_code_prefix",
    "format_lcb_prompt",
]
