"""The gate itself: one changed character in the implementation, or an edited upstream
checkout, must turn the run red and name the cases with a readable diff.

Each test runs the suite in a subprocess against a mutant made in a temporary folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import junit_record
import pytest

from lcb_conformance.common import paths
from lcb_conformance.suite import cases

pytestmark = pytest.mark.selftest

LLAMA3 = cases.LLAMA3_TOKENIZER.replace("/", "__")  # its chat-prompt golden folder


@dataclass
class SuiteRun:
    returncode: int
    stdout: str  # shown when an assertion fails; the tests read ``failures``
    failures: dict[str, str]  # golden key -> what the failure says, from pytest's JUnit XML


def run_suite(*args: str, pythonpath: Path | None = None) -> SuiteRun:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), env.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory() as folder:
        junit = Path(folder) / "junit.xml"
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:randomly",
                "--no-header",
                f"--junitxml={junit}",
                *args,
            ],
            cwd=paths.ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        found = junit_record.outcomes(junit) if junit.is_file() else []  # none: no session
    failures = {o.parameters: o.text for o in found if o.outcome == junit_record.FAILED}
    return SuiteRun(result.returncode, result.stdout + result.stderr, failures)


def failed_cases(result: SuiteRun) -> set[str]:
    """The golden keys of the failed tests of a run that must have failed."""
    assert result.returncode == 1, result.stdout[-3000:]
    return set(result.failures)


def any_failure_says(result: SuiteRun, *words: str) -> bool:
    """Whether a failure's report holds one of ``words``."""
    return any(word in text for text in result.failures.values() for word in words)


def mutate(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert text.count(old) == 1, f"{path}: expected exactly one {old!r}"
    path.write_text(text.replace(old, new), "utf-8")


def test_one_character_in_the_system_message_fails_with_a_readable_diff(tmp_path):
    import lcb_prompts

    mutant = tmp_path / "mutant_prompts"
    shutil.copytree(Path(lcb_prompts.__file__).parent, mutant)
    mutate(
        mutant / "prompts.py",
        '"You are an expert Python programmer. "',
        '"You are an expert Python programmer.  "',
    )
    result = run_suite(
        "conformance/tests/test_conformance.py",
        "-k",
        f"prompt/generic/ or chat-prompt/{LLAMA3}/",
        "--impl",
        "mutant_prompts",
        pythonpath=tmp_path,
    )
    assert failed_cases(result) == {
        f"{folder}/{qid}"
        for folder in ("prompt/generic", f"chat-prompt/{LLAMA3}")
        for qid in cases.problems()
    }
    assert all("first difference at offset" in text for text in result.failures.values())
    assert any_failure_says(result, "Python programmer.·", "Python programmer.  You")


@pytest.fixture
def upstream_checkout(tmp_path) -> Path:
    """An lcb_runner-shaped checkout made from the installed upstream package (its import
    name renamed), to be edited the way a LiveCodeBench checkout might be."""
    livecodebench = pytest.importorskip("livecodebench")
    package = tmp_path / "checkout" / "lcb_runner"
    shutil.copytree(
        Path(livecodebench.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__")
    )
    for module in package.rglob("*.py"):
        module.write_text(module.read_text("utf-8").replace("livecodebench", "lcb_runner"), "utf-8")
    return package.parent


@pytest.mark.upstream
def test_an_unedited_checkout_reproduces_the_goldens(upstream_checkout):
    result = run_suite(
        "-m",
        "upstream",
        "conformance/tests/test_upstream_drift.py",
        f"--upstream={upstream_checkout}",
        "-k",
        # the prompt side (the stand-in's runners, which request goldens come from, are not
        # lcb_runner's: docs/score.md)
        "generic and (prompt or messages or extract)",
    )
    assert result.returncode == 0, result.stdout[-3000:]


@pytest.mark.upstream
def test_an_edited_checkout_fails_the_drift_run_naming_the_cases(upstream_checkout):
    prompts = upstream_checkout / "lcb_runner" / "prompts" / "code_generation.py"
    mutate(
        prompts,
        'SYSTEM_MESSAGE_GENERIC = f"You are an expert',
        'SYSTEM_MESSAGE_GENERIC = f"You are an  expert',
    )
    extraction = upstream_checkout / "lcb_runner" / "utils" / "extraction_utils.py"
    # lcb_runner's pre-Dec-2024 rule: the first block instead of the last.
    mutate(
        extraction,
        'return "\\n".join(outputlines[indexlines[-2] + 1 : indexlines[-1]])',
        'return "\\n".join(outputlines[indexlines[0] + 1 : indexlines[1]])',
    )
    result = run_suite(
        "-m",
        "upstream",
        "conformance/tests/test_upstream_drift.py",
        f"--upstream={upstream_checkout}",
        "-k",
        "prompt/generic/ or extract/generic/two_blocks_last_wins",
    )
    failed = failed_cases(result)
    assert "extract/generic/two_blocks_last_wins" in failed
    assert {f"prompt/generic/{question_id}" for question_id in cases.problems()} <= failed


@pytest.fixture
def tokenizer_copy(tmp_path) -> Path:
    """A scratch copy of fixtures/tokenizers, to be upgraded the way a user might."""
    from lcb_conformance.offline_tokenizers import hf_cache

    copy = tmp_path / "tokenizers"
    shutil.copytree(hf_cache.SNAPSHOTS_DIR, copy)
    return copy


def set_chat_template(snapshot: Path, template: str) -> None:
    config_file = snapshot / "tokenizer_config.json"
    config = json.loads(config_file.read_text("utf-8"))
    config["chat_template"] = template
    config_file.write_text(json.dumps(config, ensure_ascii=False), "utf-8")


def chat_template_of(snapshot: Path) -> str:
    return json.loads((snapshot / "tokenizer_config.json").read_text("utf-8"))["chat_template"]


def test_llama31_template_in_the_llama3_snapshot_fails_the_generic_style(tokenizer_copy):
    """lcb_runner renders every Llama-3.x with the Llama-3 template; the 3.1 one differs."""
    llama3 = tokenizer_copy / "meta-llama__Meta-Llama-3-8B-Instruct"
    set_chat_template(
        llama3, chat_template_of(tokenizer_copy / "meta-llama__Llama-3.1-8B-Instruct")
    )
    result = run_suite(
        "conformance/tests/test_conformance.py",
        "-k",
        f"chat-prompt/{LLAMA3}/",
        f"--tokenizers={tokenizer_copy}",
    )
    failed = failed_cases(result)
    assert failed == {f"chat-prompt/{LLAMA3}/{qid}" for qid in cases.problems()}
    assert any_failure_says(result, "Cutting·Knowledge", "Cutting Knowledge")


def test_a_bos_added_to_a_template_fails_the_token_audit(tokenizer_copy):
    llama3 = tokenizer_copy / "meta-llama__Meta-Llama-3-8B-Instruct"
    set_chat_template(llama3, "{{ bos_token }}" + chat_template_of(llama3))
    result = run_suite(
        "conformance/tests/test_conformance.py",
        "-k",
        "token-audit and Meta-Llama-3-8B-Instruct/generic__",
        f"--tokenizers={tokenizer_copy}",
    )
    assert len(failed_cases(result)) == len(cases.TOKENIZED_PROBLEMS), result.stdout[-3000:]
    assert any_failure_says(result, '"add_special_tokens=False": 2'), result.stdout[-3000:]
