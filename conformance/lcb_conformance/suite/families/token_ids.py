"""Golden family: the token ids under the real tokenizers, per transformers line.

token-ids/<transformers line>/<tokenizer>/<style>__<question_id>: the token ids the tokenized
prompts reach a model as, under the real tokenizers (real_vocab.py), per transformers line.
No implementation is held to them here (the real vocabularies are not in the offline
snapshots); the realvocab envs hold the tokenizers to them (test_token_ids.py)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from lcb_conformance.offline_tokenizers import real_vocab, token_ids
from lcb_conformance.offline_tokenizers import real_vocab_sources as sources
from lcb_conformance.suite import cases, goldens
from lcb_conformance.suite.families import Family, NotProducibleHere
from lcb_conformance.suite.families.tokenization import line_of, tokenization_keys, tokenized_prompt
from lcb_conformance.suite.goldens import GoldenKey


class RealVocabulariesMissing(NotProducibleHere):
    """Token ids need the real vocabularies, which this environment does not have."""

    counted_as = "no real vocabularies here"


class RealTokenizerUnverified(RuntimeError):
    """A real tokenizer failed its verification (real_vocab.verify): no golden from it."""


def real_hub() -> tuple[tempfile.TemporaryDirectory, Path]:
    """The real tokenizers (real_vocab.py) in a Hugging Face cache, built from the
    real-vocabulary cache (LCB_REAL_VOCAB_CACHE) in a temporary folder (kept with it)."""
    workdir = tempfile.TemporaryDirectory(prefix="lcb-real-vocab-")
    try:
        return workdir, real_vocab.build(Path(workdir.name) / "hf-home", sources.DEFAULT_CACHE)
    except (sources.RealVocabMissing, ImportError) as missing:  # no files, no gguf
        workdir.cleanup()
        raise RealVocabulariesMissing(
            f"token ids need the real vocabularies: {missing} (tox -e regen installs the "
            "realvocab extra; LCB_REAL_VOCAB_CACHE names the fetched files)"
        ) from None


def verified_tokenizer(hub: Path, repo_id: str):
    tokenizer = real_vocab.load(hub, repo_id)
    problems = real_vocab.verify(repo_id.replace("/", "__"), tokenizer)
    if problems:
        raise RealTokenizerUnverified(f"{repo_id}: " + "; ".join(problems))
    return tokenizer


def real_tokenizer(source, repo_id: str):
    """The real tokenizer, built once per producer and verified before its first use."""
    _, hub = source.once(goldens.TOKEN_IDS, real_hub)
    return source.once((goldens.TOKEN_IDS, repo_id), lambda: verified_tokenizer(hub, repo_id))


def produce(source, key: GoldenKey) -> str:
    """The string with and without special tokens, and for generic also upstream's OpenAIChat
    messages through the template with tokenize=True."""
    line, tokenizer, style, question_id = goldens.parse_tokenized_key(key)
    source.check_line(line)
    real = real_tokenizer(source, tokenizer)
    prompt = tokenized_prompt(source, style, tokenizer, question_id)
    messages = (
        source.upstream.chat_messages(cases.problems()[question_id])
        if style == "generic"
        else None
    )
    return token_ids.render(prompt, token_ids.sequences(real, prompt, messages))


FAMILIES = (
    Family(
        goldens.TOKEN_IDS,
        "token-ids",
        "token_ids.py: the tokenized upstream prompts (generic also as upstream's "
        "OpenAIChat messages through the template, tokenize=True) tokenized by the real "
        "tokenizers (real_vocab.py, from real_vocabularies), per transformers line",
        lambda: tokenization_keys(goldens.TOKEN_IDS),
        produce,
        entry=lambda key: {
            "upstream": "upstream's prompt tokenized by the real tokenizer",
            "transformers_line": line_of(key),
        },
        line_of=line_of,
        in_history=False,
    ),
)
