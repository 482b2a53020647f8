"""lcb_runner itself, unmodified, from a checkout or the installed stand-in; the pinned commit.

The pinned upstream is lcb_runner at LiveCodeBench commit PINNED_COMMIT: every upstream golden is
produced from a clean checkout of it. Two sources can be run: a LiveCodeBench git checkout
whose ``lcb_runner`` package is imported from its path (the pinned commit, or any other),
or the installed PyPI package nvidia-livecodebench (import name ``livecodebench``), an older
snapshot of lcb_runner that stands in offline for what it shares with the pinned commit: it lacks
some LMStyles and builds no prompt for others, which is reported as UpstreamMissing, never as
drift. Upstream's LLaMa3 style loads meta-llama/Meta-Llama-3-8B-Instruct with AutoTokenizer
on every call; that resolves offline through the Hugging Face cache built by
:mod:`lcb_conformance.offline_tokenizers.hf_cache`.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import os
import subprocess
import sys
import traceback
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from types import ModuleType

from lcb_conformance.common import listing, runs_install
from lcb_conformance.common.shared_options import INSTALLED
from lcb_conformance.suite.cases import EXTRACTION_LMSTYLES, PromptVariant
from lcb_conformance.upstream import pinned_tree
from lcb_conformance.upstream.pinned_tree import PINNED_COMMIT

INSTALLED_DISTRIBUTION = runs_install.STAND_IN_DISTRIBUTION
CHANGES_SHOWN = 5  # a modified tree's changes named before "... and N more"
REPOSITORY = "https://github.com/LiveCodeBench/LiveCodeBench"
# How to run the pinned commit where the installed stand-in cannot (named in every such skip).
CHECKOUT_HINT = (
    f"run against the pinned commit: git clone {REPOSITORY} && git -C LiveCodeBench checkout "
    f"{PINNED_COMMIT[:7]}, then tox -e upstream -- --upstream=LiveCodeBench "
    "(or tox -e upstream-head, which does both)"
)


class UpstreamMissing(LookupError):
    """The upstream under test has no such LMStyle or function (an older or newer version)."""


class UpstreamSourceError(RuntimeError):
    """The upstream source could not be loaded; the message says what to fix."""


class UpstreamModified(UpstreamSourceError):
    """The tree given by path is not the pinned commit's lcb_runner (pinned_tree's manifest):
    a verdict resting on it would not be lcb_runner 28fef95's."""


# The flag a command takes to run on a modified tree all the same (never green: INCOMPLETE).
ALLOW_MODIFIED = "--allow-modified-upstream"


@contextlib.contextmanager
def _working_directory(path: Path):
    # lcb_runner opens its one-shot JSON files relative to the working directory at import.
    previous = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)


# the prompt side's modules, by the names _function asks for them with
PROMPT_SIDE = {
    "lm_styles": "lm_styles",
    "problems": "benchmarks.code_generation",
    "prompts": "prompts.code_generation",
    "extraction": "utils.extraction_utils",
}


class Upstream:
    """lcb_runner as found at ``source`` ("installed" or a checkout path)."""

    def __init__(self, source: str = INSTALLED):
        self.source = source
        self._prompt_modules: dict[str, ModuleType] = {}
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

    def _prompt_module(self, key: str) -> ModuleType:
        """One of the prompt side's modules (PROMPT_SIDE), imported when first asked for:
        extraction needs neither the benchmark's ``datasets`` nor the prompts' ``anthropic``,
        whose imports take seconds before a regrade's first verdict."""
        if key not in self._prompt_modules:
            try:
                self._prompt_modules[key] = self._import(PROMPT_SIDE[key])
            except UpstreamSourceError:
                raise
            except Exception as error:  # its code does not import: it is unusable, say where
                raise self._cannot_import("upstream", error) from error
        return self._prompt_modules[key]

    def check_importable(self) -> None:
        """Import lcb_runner's prompt and extraction modules now: UpstreamSourceError, naming
        the file and line, when they cannot be (a syntax error, a missing dependency)."""
        for key in PROMPT_SIDE:
            self._prompt_module(key)

    def _cannot_import(self, what: str, error: Exception) -> UpstreamSourceError:
        """Why ``what`` of this upstream cannot be imported, in one line: the file and line
        of a syntax error, or of the upstream code an import raised in, and what to do."""
        where = ""
        if isinstance(error, SyntaxError) and error.filename:
            where = f"{error.filename}, line {error.lineno}: "
            error_text = f"SyntaxError: {error.msg}"
        else:
            error_text = str(error) if isinstance(error, ImportError) else (
                f"{type(error).__name__}: {error}"
            )
            frames = [
                frame
                for frame in traceback.extract_tb(error.__traceback__)
                if f"/{self.package}/" in frame.filename
            ]
            if frames and not isinstance(error, ImportError):
                where = f"{frames[-1].filename}, line {frames[-1].lineno}: "
        hint = f"; {self._import_hint(error)}" if isinstance(error, ImportError) else ""
        return UpstreamSourceError(
            f"cannot import {what} from {self.describe_source()}: {where}{error_text}{hint}"
        )

    def _import_hint(self, error: ImportError) -> str:
        """What to install (or pass) when importing lcb_runner failed with this error."""
        missing = error.name or ""
        if missing == self.package:  # the stand-in itself is not installed
            return (
                f"install it with `{runs_install.command()}`, or pass --upstream PATH (a "
                "LiveCodeBench checkout)"
            )
        if missing.startswith(self.package + "."):
            return "this lcb_runner has another layout (a much older or newer commit)"
        return (
            "lcb_runner's own dependencies (anthropic<1 for HUMAN_PROMPT, datasets) come with "
            f"the upstream extra: `{runs_install.command()}`"
        )

    def _function(self, module: str, name: str):
        function = getattr(self._prompt_module(module), name, None)
        if function is None:
            raise UpstreamMissing(f"{self.describe_source()} has no {module}.{name}")
        return function

    def module(self, name: str) -> ModuleType:
        """One of lcb_runner's modules by its dotted name under the package, e.g.
        "evaluation.testing_util" (the judge's modules, which the prompt side does not import)."""
        try:
            return self._import(name)
        except UpstreamSourceError:
            raise
        except Exception as error:
            raise self._cannot_import(name, error) from error

    def lmstyle(self, name: str):
        lmstyle_enum = self._prompt_module("lm_styles").LMStyle
        try:
            return lmstyle_enum[name]
        except KeyError:
            raise UpstreamMissing(f"{self.describe_source()} has no LMStyle.{name}") from None

    def lm_styles(self) -> ModuleType:
        """lcb_runner's lm_styles module (LMStyle, LanguageModelList), imported on its own:
        it needs none of the prompt or benchmark modules' dependencies."""
        try:
            module = self._import("lm_styles")
        except UpstreamSourceError:
            raise
        except Exception as error:
            raise self._cannot_import("lm_styles", error) from error
        for name in ("LMStyle", "LanguageModelList"):
            if not hasattr(module, name):
                raise UpstreamMissing(f"{self.describe_source()} has no lm_styles.{name}")
        return module

    def problem(self, row: Mapping[str, object]):
        """The row as upstream's CodeGenerationProblem (which validates it)."""
        return self._function("problems", "CodeGenerationProblem")(**row)

    def format(self, lmstyle_name: str, row: Mapping[str, object]):
        """format_prompt_generation(problem, LMStyle) in its native shape: a string, a list of
        messages or a (system, messages) tuple. UpstreamMissing when this upstream has no
        such LMStyle or builds no code-generation prompt for it (NotImplementedError)."""
        format_prompt_generation = self._function("prompts", "format_prompt_generation")
        lmstyle = self.lmstyle(lmstyle_name)
        try:
            return format_prompt_generation(self.problem(row), lmstyle)
        except NotImplementedError as error:
            raise UpstreamMissing(
                f"{self.describe_source()} builds no code-generation prompt for "
                f"LMStyle.{lmstyle_name} ({error})"
            ) from None

    def chat_messages(self, row: Mapping[str, object]) -> list[dict[str, str]]:
        """The [system, user] messages lcb_runner's OpenAIChat style sends."""
        messages = self.format("OpenAIChat", row)
        roles = [message.get("role") for message in messages]
        if roles != ["system", "user"]:
            raise UpstreamMissing(
                f"{self.describe_source()} LMStyle.OpenAIChat returned roles {roles}, "
                "not [system, user]"
            )
        return messages

    def messages(self, lmstyle_name: str, row: Mapping[str, object]):
        """The chat messages a message LMStyle sends: a list of {role, content}, or Claude3's
        (system, messages); UpstreamMissing when this upstream returns a string for it."""
        formatted = self.format(lmstyle_name, row)
        if isinstance(formatted, str):
            raise UpstreamMissing(
                f"{self.describe_source()} LMStyle.{lmstyle_name} returned a prompt string, "
                "not chat messages"
            )
        return formatted

    def prompt(self, variant: PromptVariant, row: Mapping[str, object]) -> str:
        """The prompt lcb_runner sends for this variant, as one string: a string style's
        prompt, or the text of a style's one user message (OpenAIReasonPreview)."""
        formatted = self.format(variant.lmstyle, row)
        if isinstance(formatted, list) and [m.get("role") for m in formatted] == ["user"]:
            return formatted[0]["content"]
        if not isinstance(formatted, str):
            raise UpstreamMissing(
                f"{self.describe_source()} LMStyle.{variant.lmstyle} returned "
                f"{type(formatted).__name__}, not a prompt string"
            )
        return formatted

    def extract(self, style: str, output: str) -> str:
        return self.extract_as(EXTRACTION_LMSTYLES[style], output)

    def extract_as(self, lmstyle_name: str, output: str) -> str:
        """lcb_runner's extract_code(output, LMStyle.<lmstyle_name>)."""
        lmstyle = self.lmstyle(lmstyle_name)
        extracted = self._function("extraction", "extract_code")(output, lmstyle)
        if not isinstance(extracted, str):
            raise UpstreamMissing(
                f"{self.describe_source()} extract_code(..., LMStyle.{lmstyle.name}) returned "
                f"{type(extracted).__name__}, not str"
            )
        return extracted

    def describe_source(self) -> str:
        if self.checkout is None:
            try:
                return f"{INSTALLED_DISTRIBUTION} {self.version()}"
            except importlib.metadata.PackageNotFoundError:
                return f"{INSTALLED_DISTRIBUTION} (not installed)"
        if self.has_pinned_files():
            return named(self.provenance())
        return f"LiveCodeBench checkout {self.checkout}"

    @cached_property
    def tree(self) -> pinned_tree.Tree | None:
        """The checkout's lcb_runner files against the pinned commit's (None: installed)."""
        return None if self.checkout is None else pinned_tree.compare(self.checkout)

    def has_pinned_files(self) -> bool:
        """lcb_runner's files are the pinned commit's, byte for byte, however they came (a
        checkout, an exported tree): what the judge check and a verdict rest on, not git."""
        return self.tree is not None and self.tree.equal_to == PINNED_COMMIT

    def require_pinned_files(self, allow_modified: bool) -> None:
        """Before a run resting on a tree given by path: UpstreamModified naming what differs
        from the pinned commit's lcb_runner, unless ``allow_modified`` (the run then says so)."""
        if self.tree is None or not self.tree.changes or allow_modified:
            return
        raise UpstreamModified(
            f"{self.checkout} is not lcb_runner {PINNED_COMMIT[:7]}: "
            f"{listing.named(self.tree.changes, CHANGES_SHOWN)} "
            f"(held to {pinned_tree.MANIFEST.name}); restore it (`git checkout "
            f"{PINNED_COMMIT[:7]} -- lcb_runner` there, or a fresh clone), or "
            f"{ALLOW_MODIFIED} to run on it all the same (never green)"
        )

    def is_pinned(self) -> bool:
        """A clean checkout at PINNED_COMMIT whose lcb_runner files are its own: the upstream
        every golden comes from (regen records its commit)."""
        if self.checkout is None:
            return False
        git_clean = self._git["commit"] == PINNED_COMMIT and self._git["dirty"] is False
        return git_clean and self.has_pinned_files()

    @cached_property
    def _git(self) -> dict[str, object]:
        return _git_state(self.checkout)

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
        tree = {"sha256": self.tree.sha256, "equal_to": self.tree.equal_to,
                "changes": list(self.tree.changes)}  # fmt: skip
        return {"source": "checkout", "path": str(self.checkout), **self._git, "tree": tree}


def named(provenance: Mapping[str, object]) -> str:
    """An upstream as a results file's provenance records it, in one phrase: by the commit its
    lcb_runner files equal (the one commit whose manifest the project holds, 28fef95), or
    what in them differs from the pinned commit's; a tree without git metadata says so."""
    if provenance.get("source") != "checkout":
        return f"{provenance.get('distribution')} {provenance.get('version')} (installed)"
    tree = provenance.get("tree")
    if tree is None:  # a results file written before the tree was recorded
        return f"LiveCodeBench checkout at {str(provenance.get('commit'))[:7]}"
    # an exported tree (git archive, a release tarball): named by its files alone
    where = provenance["path"] + (", no git metadata" if provenance.get("commit") is None else "")
    if tree["equal_to"]:
        return f"lcb_runner tree equal to {tree['equal_to'][:7]} ({where})"
    changes = tree["changes"]
    return (
        f"MODIFIED lcb_runner tree at {where}, not {PINNED_COMMIT[:7]}'s: "
        f"{listing.named(changes, CHANGES_SHOWN)}"
        f" (run with {ALLOW_MODIFIED}: never green)"
    )


def is_modified(provenance: Mapping[str, object]) -> bool:
    """A run on a tree given by path whose lcb_runner files are not the pinned commit's."""
    return bool((provenance.get("tree") or {}).get("changes"))


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
