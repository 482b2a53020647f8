"""The tokenizers the suite loads offline: snapshots served as a Hugging Face cache, real
vocabularies, token ids, what a tokenizer makes of a prompt."""
