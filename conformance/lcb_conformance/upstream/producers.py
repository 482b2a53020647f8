"""How each golden family is produced: the one place regeneration and the drift run share."""

from __future__ import annotations

from lcb_conformance.suite import audit, cases, goldens
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import Upstream, judge, matrix, resolver


class NotProducibleHere(LookupError):
    """The golden belongs to another environment (a token audit of another transformers line)."""


class Producer:
    """Computes the expected text of any golden key: upstream for the upstream families,
    the reference lcb_prompts for the reference-impl ones. Results are memoised."""

    def __init__(self, upstream: Upstream):
        self.upstream = upstream
        self._produced: dict[GoldenKey, str] = {}

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

    @staticmethod
    def _check_line(line: str) -> None:
        if line != audit.transformers_line():
            raise NotProducibleHere(
                f"recorded under {line}; this environment runs {audit.transformers_line()}"
            )
