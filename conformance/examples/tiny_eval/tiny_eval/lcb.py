"""tiny_eval's LiveCodeBench functions, as the conformance suite calls them (the adapter
protocol, docs/implementations.md): this harness builds its prompts and extracts code with
lcb_prompts, for two styles only, so every other style's cases are reported as not provided."""

from lcb_prompts import DEVIATIONS, extract_code, format_lcb_prompt

STYLES = ("generic", "codeqwen")

__all__ = ["DEVIATIONS", "STYLES", "extract_code", "format_lcb_prompt"]
