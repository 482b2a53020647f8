"""Checks of the tokenizers themselves: what replacing one by another changes in the model's
input (`lcb-conformance tokenizer-diff`), and whether the real Hub tokenizers carry the
snapshots' chat templates (`lcb-conformance hub-check`)."""
