"""The real upstream: lcb_runner's prompt and extraction code, run unmodified.

Two sources: the installed PyPI package nvidia-livecodebench (import name ``livecodebench``,
lcb_runner's code for the styles this suite covers), or a LiveCodeBench git checkout whose
``lcb_runner`` package is imported from its path. Upstream's LLaMa3 style loads
meta-llama/Meta-Llama-3-8B-Instruct with AutoTokenizer on every call; that resolves
offline through the Hugging Face cache built by :mod:`lcb_conformance.hf_cache`.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import os
import subprocess
import sys
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from types import ModuleType

from .cases import EXTRACTION_LMSTYLES, PromptVariant

INSTALLED = "installed"
INSTALLED_DISTRIBUTION = "nvidia-livecodebench"


class UpstreamMissing(LookupError):
    """The upstream under test has no such LMStyle or function (an older or newer version)."""


class UpstreamSourceError(RuntimeError):
    """The upstream source could not be loaded; the message says what to fix."""


@contextlib.contextmanager
def _working_directory(path: Path):
    # lcb_runner opens its one-shot JSON files relative to the working directory at import.
    previous = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)


class Upstream:
    """lcb_runner as found at ``source`` ("installed" or a checkout path)."""

    def __init__(self, source: str = INSTALLED):
        self.source = source
        if source == INSTALLED:
            self.package = "livecodebench"
            self.checkout = None
        else:
            self.package = "lcb_runner"
            self.checkout = Path(source).expanduser().resolve()
            if not (self.checkout / "lcb_runner" / "prompts").is_dir():
                raise UpstreamSourceError(
                    f"--upstream {source}: no lcb_runner/ package there; pass 'installed' or "
                    "the path of a LiveCodeBench git checkout"
                )

    def _import(self, name: str) -> ModuleType:
        module_name = f"{self.package}.{name}"
        if self.checkout is None:
            return importlib.import_module(module_name)
        loaded = sys.modules.get(self.package)
        # lcb_runner is a namespace package: __path__ has no index, only iteration.
        loaded_from = [Path(p).resolve().parent for p in getattr(loaded, "__path__", [])]
        if loaded is not None and self.checkout not in loaded_from:
            raise UpstreamSourceError(
                f"lcb_runner is already imported from {loaded_from}; "
                f"cannot also load {self.checkout} in this process"
            )
        if str(self.checkout) not in sys.path:
            sys.path.insert(0, str(self.checkout))
        with _working_directory(self.checkout):
            return importlib.import_module(module_name)

    @cached_property
    def _modules(self) -> dict[str, ModuleType]:
        try:
            return {
                "lm_styles": self._import("lm_styles"),
                "problems": self._import("benchmarks.code_generation"),
                "prompts": self._import("prompts.code_generation"),
                "extraction": self._import("utils.extraction_utils"),
            }
        except ImportError as error:
            raise UpstreamSourceError(
                f"cannot import upstream from {self.describe_source()}: {error}. "
                "Its dependencies are pinned in pyproject.toml's 'suite' extra "
                "(anthropic<1 for HUMAN_PROMPT, datasets)."
            ) from error

    def _function(self, module: str, name: str):
        function = getattr(self._modules[module], name, None)
        if function is None:
            raise UpstreamMissing(f"{self.describe_source()} has no {module}.{name}")
        return function

    def lmstyle(self, name: str):
        lmstyle_enum = self._modules["lm_styles"].LMStyle
        try:
            return lmstyle_enum[name]
        except KeyError:
            raise UpstreamMissing(f"{self.describe_source()} has no LMStyle.{name}") from None

    def lm_styles(self) -> ModuleType:
        """lcb_runner's lm_styles module (LMStyle, LanguageModelList), imported on its own:
        it needs none of the prompt or benchmark modules' dependencies."""
        try:
            module = self._import("lm_styles")
        except ImportError as error:
            raise UpstreamSourceError(
                f"cannot import lm_styles from {self.describe_source()}: {error}"
            ) from error
        for name in ("LMStyle", "LanguageModelList"):
            if not hasattr(module, name):
                raise UpstreamMissing(f"{self.describe_source()} has no lm_styles.{name}")
        return module

    def problem(self, row: Mapping[str, object]):
        """The row as upstream's CodeGenerationProblem (which validates it)."""
        return self._function("problems", "CodeGenerationProblem")(**row)

    def _format(self, lmstyle_name: str, row: Mapping[str, object]):
        format_prompt_generation = self._function("prompts", "format_prompt_generation")
        return format_prompt_generation(self.problem(row), self.lmstyle(lmstyle_name))

    def chat_messages(self, row: Mapping[str, object]) -> list[dict[str, str]]:
        """The [system, user] messages lcb_runner's OpenAIChat style sends."""
        messages = self._format("OpenAIChat", row)
        roles = [message.get("role") for message in messages]
        if roles != ["system", "user"]:
            raise UpstreamMissing(
                f"{self.describe_source()} LMStyle.OpenAIChat returned roles {roles}, "
                "not [system, user]"
            )
        return messages

    def prompt(self, variant: PromptVariant, row: Mapping[str, object]) -> str:
        """The prompt lcb_runner sends for this variant, as one string."""
        if variant.lmstyle == "OpenAIChat":
            # Without a chat template the two messages join with a blank line.
            system, user = self.chat_messages(row)
            return system["content"] + "\n\n" + user["content"]
        formatted = self._format(variant.lmstyle, row)
        if not isinstance(formatted, str):
            raise UpstreamMissing(
                f"{self.describe_source()} LMStyle.{variant.lmstyle} returned "
                f"{type(formatted).__name__}, not a prompt string"
            )
        return formatted

    def extract(self, style: str, output: str) -> str:
        lmstyle = self.lmstyle(EXTRACTION_LMSTYLES[style])
        extracted = self._function("extraction", "extract_code")(output, lmstyle)
        if not isinstance(extracted, str):
            raise UpstreamMissing(
                f"{self.describe_source()} extract_code(..., LMStyle.{lmstyle.name}) returned "
                f"{type(extracted).__name__}, not str"
            )
        return extracted

    def describe_source(self) -> str:
        if self.checkout is None:
            return f"{INSTALLED_DISTRIBUTION} {self.version()}"
        return f"LiveCodeBench checkout {self.checkout}"

    def version(self) -> str:
        return importlib.metadata.version(INSTALLED_DISTRIBUTION)

    def provenance(self) -> dict[str, object]:
        if self.checkout is None:
            return {
                "source": "installed",
                "distribution": INSTALLED_DISTRIBUTION,
                "version": self.version(),
                "import_name": self.package,
            }
        return {"source": "checkout", "path": str(self.checkout), **_git_state(self.checkout)}


def _git_state(checkout: Path) -> dict[str, object]:
    def git(*args: str) -> str | None:
        try:
            return subprocess.run(
                ["git", "-C", str(checkout), *args], capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return None

    status = git("status", "--porcelain", "--", "lcb_runner")
    return {
        "commit": git("rev-parse", "HEAD"),
        "dirty": bool(status) if status is not None else None,
    }
