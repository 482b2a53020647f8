"""A tiny LiveCodeBench evaluation: prompts a model and extracts its code (example)."""
