"""The offline tokenizer snapshots (fixtures/tokenizers/) load through transformers' own Hub-cache
path and behave like the real tokenizers: chat template bytes, special-token ids, BOS behaviour,
byte-level round trip.

The facts checked come from fixtures/tokenizers/families.json and each snapshot's
tokenizer_config.json (verbatim copies of the tokenizer facts), not from the generated
tokenizer.json.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path
from unittest import mock

import pytest

from lcb_conformance.offline_tokenizers import hf_cache

# The suite checking itself, not the implementation: tox -e upstream runs it (selftest).
pytestmark = pytest.mark.selftest

SNAPSHOTS_DIR = hf_cache.SNAPSHOTS_DIR
BUILD_SCRIPT = SNAPSHOTS_DIR / "build.py"
FAMILIES = json.loads((SNAPSHOTS_DIR / "families.json").read_text(encoding="utf-8"))
SNAPSHOTS = FAMILIES["snapshots"]  # folder name -> facts
REPO_TO_FOLDER = {spec["repo_id"]: name for name, spec in SNAPSHOTS.items()}
REPO_IDS = list(REPO_TO_FOLDER)

REQUIRED_REPOS = {
    "meta-llama/Meta-Llama-3-8B-Instruct",
    "meta-llama/Llama-3.1-8B-Instruct",
    "Qwen/Qwen2.5-Coder-7B-Instruct",
    "Qwen/Qwen3-8B",
    "deepseek-ai/deepseek-coder-6.7b-instruct",
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
}
SNAPSHOT_FILES = {"tokenizer_config.json", "tokenizer.json", "config.json", "PROVENANCE.json"}

# Upstream lcb_runner's LLaMa3 style loads exactly this way (on every call).
UPSTREAM_KWARGS = {
    "meta-llama/Meta-Llama-3-8B-Instruct": {"padding_side": "left", "use_fast": False}
}

ROUND_TRIP_TEXT = (
    "def solve(n: int) -> int:\n\treturn sum(i * i for i in range(n))  # ∑ i²\r\n"
    "Straße, café, 你好, мир, こんにちは, 안녕, 🙂👍🏽 — “quotes” ‘x’ … ok\n  trailing spaces   \n"
)
# deepseek-coder's vocab makes 13 Latin-1 letters (the byte-level names of bytes C0 C1 F5-FF)
# added tokens, so those letters do not round-trip there (the real tokenizer behaves the same).
# Keep them out of the generic text; test_deepseek_coder_latin1_added_tokens pins that quirk.
DEEPSEEK_CODER_ADDED_LETTERS = "õ÷ÁýÀÿøúþüùöû"
assert not set(ROUND_TRIP_TEXT) & set(DEEPSEEK_CODER_ADDED_LETTERS)

NAMED_SPECIAL_ATTRS = ("bos_token", "eos_token", "pad_token", "unk_token")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="session")
def hf_home() -> Path:
    """The offline cache (normally activated by conftest.py's pytest_configure; idempotent)."""
    return hf_cache.activate_offline_cache()


@pytest.fixture(scope="session")
def transformers(hf_home):
    import transformers

    return transformers


@contextlib.contextmanager
def refused_lookups():
    """The host names looked up while the block runs, each refused at once: a connection to
    the Hub resolves its name first (socket.create_connection), so none means no network
    attempt, and no retry of one."""
    looked_up: list[str] = []

    def refuse(host, *args, **kwargs):
        looked_up.append(str(host))
        raise OSError(f"the test refuses a network attempt ({host})")

    with mock.patch.object(socket, "getaddrinfo", refuse):
        yield looked_up


@pytest.fixture(scope="session")
def tokenizers_by_repo(transformers) -> dict:
    """Each tokenizer loaded once, offline, by AutoTokenizer.from_pretrained(repo_id); the
    host names it looked up (none: it never reached for the network)."""
    loaded = {}
    for repo_id in REPO_IDS:
        with refused_lookups() as looked_up:
            tok = transformers.AutoTokenizer.from_pretrained(
                repo_id, **UPSTREAM_KWARGS.get(repo_id, {})
            )
        loaded[repo_id] = (tok, looked_up)
    return loaded


@pytest.fixture(params=REPO_IDS)
def repo_id(request) -> str:
    return request.param


@pytest.fixture
def tok(tokenizers_by_repo, repo_id):
    return tokenizers_by_repo[repo_id][0]


def spec_for(repo_id: str) -> dict:
    return SNAPSHOTS[REPO_TO_FOLDER[repo_id]]


def folder_for(repo_id: str) -> Path:
    return SNAPSHOTS_DIR / REPO_TO_FOLDER[repo_id]


def provenance(repo_id: str) -> dict:
    return json.loads((folder_for(repo_id) / "PROVENANCE.json").read_text(encoding="utf-8"))


def added_token_facts(repo_id: str) -> list[dict]:
    """The real added tokens: tokenizer_config.json's added_tokens_decoder, or families.json where
    the real tokenizer_config.json has none (deepseek repos keep them only in tokenizer.json)."""
    spec = spec_for(repo_id)
    if spec["added_tokens"] != "tokenizer_config":
        return spec["added_tokens"]
    cfg = json.loads((folder_for(repo_id) / "tokenizer_config.json").read_text(encoding="utf-8"))
    return [{"id": int(i), **t} for i, t in cfg["added_tokens_decoder"].items()]


def transformers_major(transformers) -> str:
    return (
        "transformers>=5" if int(transformers.__version__.split(".")[0]) >= 5 else "transformers<5"
    )


# ------------------------------------------------------------------------ fixtures on disk


def test_snapshot_folders_are_the_six_repos():
    folders = {
        p.name for p in SNAPSHOTS_DIR.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))
    }
    assert set(REPO_IDS) == REQUIRED_REPOS
    assert folders == set(SNAPSHOTS)
    for name in folders:
        assert name.replace("__", "/", 1) == SNAPSHOTS[name]["repo_id"]


def test_snapshot_files_match_provenance(repo_id):
    folder = folder_for(repo_id)
    assert {p.name for p in folder.iterdir()} == SNAPSHOT_FILES
    prov = provenance(repo_id)
    assert prov["repo_id"] == repo_id
    assert set(prov["files"]) == SNAPSHOT_FILES - {"PROVENANCE.json"}
    for fname, digest in prov["files"].items():
        assert sha256((folder / fname).read_bytes()) == digest, fname
    for fname, info in spec_for(repo_id)["inputs"].items():  # verbatim copies of the facts
        assert sha256((folder / fname).read_bytes()) == info["sha256"], fname


def test_build_check_passes():
    proc = subprocess.run(
        [sys.executable, str(BUILD_SCRIPT), "--check"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --------------------------------------------------------------------------- offline cache


def test_cache_revision_is_the_snapshot_hash(hf_home, repo_id):
    rev = hf_cache.snapshot_revision(folder_for(repo_id))
    assert len(rev) == 40 and all(c in "0123456789abcdef" for c in rev)
    repo_dir = Path(os.environ["HF_HUB_CACHE"]) / ("models--" + repo_id.replace("/", "--"))
    assert (repo_dir / "refs" / "main").read_text() == rev
    for fname in SNAPSHOT_FILES:
        assert (repo_dir / "snapshots" / rev / fname).read_bytes() == (
            folder_for(repo_id) / fname
        ).read_bytes()


def test_offline_environment(hf_home):
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert os.environ["TRANSFORMERS_OFFLINE"] == "1"
    assert os.environ["HF_HUB_DISABLE_TELEMETRY"] == "1"
    assert os.environ["HF_HUB_DISABLE_IMPLICIT_TOKEN"] == "1"
    assert Path(os.environ["HF_HOME"]) == hf_home
    import huggingface_hub.constants as constants

    assert constants.HF_HUB_OFFLINE
    assert os.path.realpath(constants.HF_HUB_CACHE) == os.path.realpath(hf_home / "hub")
    assert hf_cache.activate_offline_cache() == hf_home  # idempotent


def test_build_cache_is_deterministic(tmp_path):
    first = hf_cache.build_cache(tmp_path / "a")
    second = hf_cache.build_cache(tmp_path / "b")
    again = hf_cache.build_cache(tmp_path / "a")
    assert first == second == again
    assert set(first) == REQUIRED_REPOS


def test_build_cache_refuses_a_foreign_hf_home(tmp_path):
    (tmp_path / "token").write_text("not ours")
    with pytest.raises(RuntimeError, match="refusing"):
        hf_cache.build_cache(tmp_path)


def _run_python(code: str, env: dict, timeout: float = 180) -> subprocess.CompletedProcess:
    env = dict(env)
    pkg_root = str(Path(hf_cache.__file__).resolve().parents[1])  # makes lcb_conformance importable
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [pkg_root, env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def test_activate_refuses_after_huggingface_hub_was_imported(tmp_path):
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HF_", "HUGGINGFACE_", "TRANSFORMERS_"))
    }
    env["HF_HOME"] = str(tmp_path / "elsewhere")
    proc = _run_python(
        f"""
        import huggingface_hub.constants  # what transformers imports; reads HF_HOME now
        from lcb_conformance.offline_tokenizers import hf_cache
        try:
            hf_cache.activate_offline_cache({str(tmp_path / "ours")!r})
        except RuntimeError as e:
            print("RuntimeError:", e)
        """,
        env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "RuntimeError: activate_offline_cache() came too late" in proc.stdout


def test_repo_not_in_fixtures_fails_fast_offline(hf_home):
    """Offline, an unknown repo id fails at once: huggingface_hub's "not in the cache"
    (LocalEntryNotFoundError, under transformers' OSError), with no host name looked up, so no
    network attempt and none of its retries (with HF_HUB_OFFLINE unset it looks up
    huggingface.co, retrying each request five times)."""
    proc = _run_python(
        """
        import json, socket
        looked_up = []

        def refuse(host, *args, **kwargs):
            looked_up.append(str(host))
            raise OSError(f"the test refuses a network attempt ({host})")

        socket.getaddrinfo = refuse
        from transformers import AutoTokenizer
        try:
            AutoTokenizer.from_pretrained("lcb-conformance/not-a-fixture-repo")
        except OSError as e:
            cause = type(e.__cause__)
            print(json.dumps({"cause": f"{cause.__module__}.{cause.__name__}",
                              "looked_up": looked_up}))
            raise SystemExit(3)
        print("loaded?!")
        """,
        os.environ,
        timeout=180,
    )
    assert proc.returncode == 3, proc.stdout + proc.stderr
    failure = json.loads(proc.stdout.splitlines()[-1])
    assert failure["looked_up"] == [], proc.stderr
    assert failure["cause"] == "huggingface_hub.errors.LocalEntryNotFoundError"


# --------------------------------------------------------------------- tokenizer behaviour


def test_loads_offline_from_the_cache(tokenizers_by_repo, repo_id, hf_home):
    tok, looked_up = tokenizers_by_repo[repo_id]
    assert tok.name_or_path == repo_id
    assert looked_up == []  # from the cache, no network attempt
    from huggingface_hub import try_to_load_from_cache

    path = try_to_load_from_cache(repo_id, "tokenizer.json")
    assert isinstance(path, str) and Path(path).resolve().is_relative_to(hf_home.resolve())


def test_upstream_llama3_call(tokenizers_by_repo):
    """lcb_runner LMStyle.LLaMa3: from_pretrained(..., padding_side="left", use_fast=False), then
    apply_chat_template(messages, tokenize=False, add_generation_prompt=True, truncation=False,
    padding=False)."""
    tok, _ = tokenizers_by_repo["meta-llama/Meta-Llama-3-8B-Instruct"]
    assert tok.padding_side == "left"
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "  Solve it.  "},
    ]
    text = tok.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=True, truncation=False, padding=False
    )
    assert text == (
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n"
        "You are a helpful assistant.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nSolve it.<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )


def test_chat_template_sha256(tok, repo_id):
    digest = sha256(tok.chat_template.encode("utf-8"))
    assert digest == provenance(repo_id)["chat_template_sha256"]
    assert digest == spec_for(repo_id)["expected"]["chat_template_sha256"]


def test_named_special_tokens(tok, repo_id):
    exp = spec_for(repo_id)["expected"]
    for attr in ("bos_token", "eos_token", "pad_token"):
        assert getattr(tok, attr) == exp[attr], attr
    assert tok.bos_token_id == exp["bos_token_id"]
    assert tok.eos_token_id == exp["eos_token_id"]


def test_added_tokens_at_real_ids(tok, repo_id):
    named = {str(getattr(tok, a)) for a in NAMED_SPECIAL_ATTRS if getattr(tok, a) is not None}
    facts = added_token_facts(repo_id)
    assert set(tok.added_tokens_decoder) == {t["id"] for t in facts}
    for t in facts:
        assert tok.convert_tokens_to_ids(t["content"]) == t["id"], t
        assert tok(t["content"], add_special_tokens=False)["input_ids"] == [t["id"]], t
        assert tok.convert_ids_to_tokens(t["id"]) == t["content"], t
        added = tok.added_tokens_decoder[t["id"]]
        assert (added.content, added.normalized, added.lstrip, added.rstrip) == (
            t["content"],
            t["normalized"],
            t["lstrip"],
            t["rstrip"],
        ), t
        # transformers marks the named bos/eos/pad tokens special even where tokenizer.json does not
        # (deepseek-coder's <|EOT|>), exactly as with the real files.
        assert added.special == (t["special"] or t["content"] in named), t


def test_special_tokens_inside_text_stay_single_tokens(tok, repo_id):
    facts = added_token_facts(repo_id)
    first, last = facts[0], facts[-1]
    ids = tok("a" + first["content"] + "b" + last["content"], add_special_tokens=False)["input_ids"]
    assert first["id"] in ids and last["id"] in ids
    assert len(ids) == 4


def test_bos_count(tok, repo_id, transformers):
    exp = spec_for(repo_id)["expected"]
    want = exp["bos_count_hi"][transformers_major(transformers)]
    for add_special_tokens in (True, False):
        ids = tok("hi", add_special_tokens=add_special_tokens)["input_ids"]
        bos = ids.count(exp["bos_token_id"]) if exp["bos_token_id"] is not None else 0
        assert bos == want[f"add_special_tokens={add_special_tokens}"], (add_special_tokens, ids)
        if bos:
            assert ids[0] == exp["bos_token_id"]
        assert len(ids) - bos == 2  # ordinary text is byte-level: "h", "i"


def test_round_trip_unicode(tok, repo_id):
    ids = tok(ROUND_TRIP_TEXT, add_special_tokens=False)["input_ids"]
    assert tok.decode(ids, clean_up_tokenization_spaces=False) == ROUND_TRIP_TEXT
    special_ids = {t["id"] for t in added_token_facts(repo_id)}
    assert not special_ids & set(ids)
    with_specials = tok(ROUND_TRIP_TEXT, add_special_tokens=True)["input_ids"]
    assert (
        tok.decode(with_specials, skip_special_tokens=True, clean_up_tokenization_spaces=False)
        == ROUND_TRIP_TEXT
    )


def test_deepseek_coder_latin1_added_tokens(tokenizers_by_repo):
    """Real deepseek-coder quirk (seen on the real HF files with 4.57.6 and 5.23.0): "ö" is added
    token 32011 and decodes through the byte-level decoder to U+FFFD."""
    tok, _ = tokenizers_by_repo["deepseek-ai/deepseek-coder-6.7b-instruct"]
    ids = tok("wörld", add_special_tokens=False)["input_ids"]
    assert 32011 in ids
    assert tok.decode(ids) == "w\ufffdrld"
