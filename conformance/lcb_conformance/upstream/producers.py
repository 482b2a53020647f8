"""How each golden family is produced: the one place regeneration and the drift run share."""

from __future__ import annotations

import tempfile
from pathlib import Path

from lcb_conformance.suite import audit, cases, goldens, real_vocab, token_ids
from lcb_conformance.suite import real_vocab_sources as sources
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import Upstream, judge, matrix, resolver


class NotProducibleHere(LookupError):
    """The golden belongs to another environment (a token audit of another transformers line)."""

    counted_as = "other transformers line"


class RealVocabulariesMissing(NotProducibleHere):
    """Token ids need the real vocabularies, which this environment does not have."""

    counted_as = "no real vocabularies here"


class RealTokenizerUnverified(RuntimeError):
    """A real tokenizer failed its verification (real_vocab.verify): no golden from it."""


class Producer:
    """Computes the expected text of any golden key: upstream for the upstream families,
    the reference lcb_prompts for the reference-impl ones. Results are memoised."""

    def __init__(self, upstream: Upstream):
        self.upstream = upstream
        self._produced: dict[GoldenKey, str] = {}
        self._workdir: tempfile.TemporaryDirectory | None = None  # the real tokenizers' cache
        self._real_hub: Path | Exception | None = None  # built once, or why it cannot be
        self._real_tokenizers: dict[str, object] = {}

    def __call__(self, key: GoldenKey) -> str:
        if key not in self._produced:
            self._produced[key] = self._produce(key)
        return self._produced[key]

    def _produce(self, key: GoldenKey) -> str:
        import lcb_prompts  # the reference implementation, only for reference-impl families

        if key.family == goldens.PROMPT:
            return self.upstream.prompt(cases.VARIANTS[key.group], cases.problems()[key.case])
        if key.family == goldens.MESSAGES:
            return goldens.canonical_json(
                self.upstream.messages(key.group, cases.problems()[key.case])
            )
        if key.family == goldens.CHAT_PROMPT:
            return self.chat_prompt(cases.RENDERINGS[key.group], key.case)
        if key.family == goldens.TOKEN_AUDIT:
            line, tokenizer, style, question_id = goldens.parse_audit_key(key)
            self._check_line(line)
            return audit.render(
                audit.audit(
                    audit.load_tokenizer(tokenizer),
                    self.audited_prompt(style, tokenizer, question_id),
                )
            )
        if key.family == goldens.TOKEN_IDS:
            line, tokenizer, style, question_id = goldens.parse_audit_key(key)
            self._check_line(line)
            return self.token_ids(tokenizer, style, question_id)
        if key.family == goldens.COMPARABILITY:
            self._check_line(key.case)
            return matrix.build(self, key.case)
        if key.family == goldens.RESOLVER:
            return resolver.table(resolver.ModelList.of(self.upstream))
        if key.family == goldens.LM_STYLES:
            return goldens.canonical_json(resolver.ModelList.of(self.upstream).as_json())
        if key.family == goldens.JUDGE:
            return self.judge_verdict(key.case)
        if key.family == goldens.REFERENCE_DECODE:
            return lcb_prompts.decode_context(cases.contexts()[key.case])
        output = cases.outputs()[key.case].output
        if key.family == goldens.EXTRACT:
            return self.upstream.extract(key.group, output)
        if key.family == goldens.EXTRACT_AFTER_THINK:
            return self.upstream.extract(key.group, goldens.answer_after_think(output))
        if key.family == goldens.REFERENCE_PREFIX:
            return lcb_prompts.extract_code_prefix(output, key.group)
        raise ValueError(f"unknown golden family {key.family!r}")

    def judge_verdict(self, case_id: str) -> str:
        """upstream's judge on one corpus case, as canonical JSON (judge.upstream_outcomes:
        the whole corpus is judged once per source and process)."""
        outcome = judge.upstream_outcomes(str(self.upstream.checkout or self.upstream.source))[
            case_id
        ]
        if "failure" in outcome:
            raise judge.JudgeRunError(
                f"{self.upstream.describe_source()} judged no verdict: {outcome['failure']}"
            )
        return judge.canonical(outcome["verdict"])

    def chat_prompt(self, rendering: cases.ChatRendering, question_id: str) -> str:
        """upstream's OpenAIChat messages rendered by the family's own chat template."""
        extra = (
            {}
            if rendering.enable_thinking is None
            else {"enable_thinking": rendering.enable_thinking}
        )
        return audit.load_tokenizer(rendering.tokenizer).apply_chat_template(
            self.upstream.chat_messages(cases.problems()[question_id]),
            tokenize=False,
            add_generation_prompt=True,
            **extra,
        )

    def audited_prompt(self, style: str, tokenizer: str, question_id: str) -> str:
        """The prompt a token audit looks at: generic rendered by the tokenizer's own
        template, the raw styles as lcb_runner builds them."""
        if style == "generic":
            return self(
                GoldenKey(goldens.CHAT_PROMPT, cases.ChatRendering(tokenizer).name, question_id)
            )
        return self(GoldenKey(goldens.PROMPT, style, question_id))

    def token_ids(self, repo_id: str, style: str, question_id: str) -> str:
        """The token ids of the audited prompt under the real tokenizer: the string with and
        without special tokens, and for generic also upstream's OpenAIChat messages through
        the template with tokenize=True."""
        real = self.real_tokenizer(repo_id)
        prompt = self.audited_prompt(style, repo_id, question_id)
        messages = (
            self.upstream.chat_messages(cases.problems()[question_id])
            if style == "generic"
            else None
        )
        return token_ids.render(prompt, token_ids.sequences(real, prompt, messages))

    def real_tokenizer(self, repo_id: str):
        """The real tokenizer (real_vocab.py), built from the real-vocabulary cache
        (LCB_REAL_VOCAB_CACHE) once per producer and verified before its first use."""
        if self._real_hub is None:
            self._workdir = tempfile.TemporaryDirectory(prefix="lcb-real-vocab-")
            try:
                self._real_hub = real_vocab.build(
                    Path(self._workdir.name) / "hf-home", sources.DEFAULT_CACHE
                )
            except (sources.RealVocabMissing, ImportError) as missing:  # no files, no gguf
                self._real_hub = RealVocabulariesMissing(
                    f"token ids need the real vocabularies: {missing} (tox -e regen installs "
                    "the realvocab extra; LCB_REAL_VOCAB_CACHE names the fetched files)"
                )
        if isinstance(self._real_hub, Exception):
            raise self._real_hub
        if repo_id not in self._real_tokenizers:
            tokenizer = real_vocab.load(self._real_hub, repo_id)
            problems = real_vocab.verify(repo_id.replace("/", "__"), tokenizer)
            if problems:
                raise RealTokenizerUnverified(f"{repo_id}: " + "; ".join(problems))
            self._real_tokenizers[repo_id] = tokenizer
        return self._real_tokenizers[repo_id]

    @staticmethod
    def _check_line(line: str) -> None:
        if line != audit.transformers_line():
            raise NotProducibleHere(
                f"recorded under {line}; this environment runs {audit.transformers_line()}"
            )
