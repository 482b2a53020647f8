"""How each golden family is produced from upstream: the one place regeneration and the drift run
share."""

from __future__ import annotations

import tempfile
from pathlib import Path

from lcb_conformance.adapters import implementation
from lcb_conformance.offline_tokenizers import real_vocab
from lcb_conformance.offline_tokenizers import real_vocab_sources as sources
from lcb_conformance.suite import audit, families, goldens
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import (
    Upstream,
    UpstreamMissing,
    grading,
    judge,
    leaderboard,
    matrix,
    resolver,
    runner_requests,
    scenarios,
    score,
)


class NotProducibleHere(LookupError):
    """The golden belongs to another environment (a token audit of another transformers line)."""

    counted_as = "other transformers line"


class RealVocabulariesMissing(NotProducibleHere):
    """Token ids need the real vocabularies, which this environment does not have."""

    counted_as = "no real vocabularies here"


class LeaderboardCodeMissing(UpstreamMissing, NotProducibleHere):
    """The leaderboard's builder, site or TypeScript compiler is not configured here
    (upstream/leaderboard.py): regeneration keeps those goldens, the drift run skips them."""

    counted_as = "no leaderboard code here"


class RealTokenizerUnverified(RuntimeError):
    """A real tokenizer failed its verification (real_vocab.verify): no golden from it."""


class Producer:
    """Computes the expected text of any golden key by its family's producer
    (suite/families/): upstream for the upstream families, the reference lcb_prompts for the
    reference-impl ones. Results are memoised."""

    def __init__(self, upstream: Upstream):
        self.upstream = upstream
        self._produced: dict[GoldenKey, str] = {}
        self._workdir: tempfile.TemporaryDirectory | None = None  # the real tokenizers' cache
        self._real_hub: Path | Exception | None = None  # built once, or why it cannot be
        self._real_tokenizers: dict[str, object] = {}
        self._leaderboards: dict[tuple, dict] = {}  # one builder and one site run per zone
        self._requests: dict[str, dict] | None = None  # every request, recorded in one child

    def __call__(self, key: GoldenKey) -> str:
        if key not in self._produced:
            self._produced[key] = self._produce(key)
        return self._produced[key]

    def _produce(self, key: GoldenKey) -> str:
        return families.get(key.family).produce(self, key)

    # --- what the families' producers reach through this object --------------------------

    def judge_verdict(self, case_id: str) -> str:
        """upstream's judge on one corpus case, as canonical JSON (judge.upstream_outcomes:
        the whole corpus is judged once per source and process)."""
        outcome = judge.upstream_outcomes(str(self.upstream.checkout or self.upstream.source))[
            case_id
        ]
        if "verdict" not in outcome:  # the judge child failed, or lcb_runner's judge raised
            why = outcome.get("failed") or implementation.describe_raised(outcome["raised"])
            raise judge.JudgeRunError(
                f"{self.upstream.describe_source()} judged no verdict: {why}"
            )
        return judge.canonical(outcome["verdict"])

    def regrade(self, key: GoldenKey) -> str:
        """lcb_runner's extraction and codegen_metrics on a fixture run (upstream/grading.py:
        every run evaluated in one sandboxed child, once per source and process)."""
        return goldens.canonical_json(grading.regrade_golden(self.upstream, key))

    def regrade_scenario(self, key: GoldenKey) -> str:
        """lcb_runner's scenario extractor and metrics on a test output prediction or code
        execution fixture run (upstream/scenarios.py: every run in one sandboxed child)."""
        return goldens.canonical_json(scenarios.regrade_golden(self.upstream, key))

    def scenario_prompt(self, scenario: str, mode: str | None, lmstyle: str, value: dict):
        """(RETURNED, prompt) or (RAISED, {type, message}): what lcb_runner's prompt builder of
        a scenario does for one input and LMStyle (upstream/scenarios.py)."""
        return scenarios.prompt(self.upstream, scenario, mode, lmstyle, value)

    def scenario_extract(self, scenario: str, mode: str | None, lmstyle: str, output: str) -> str:
        return scenarios.extract(self.upstream, scenario, mode, lmstyle, output)

    def scenario_score(self, scenario: str, grading_id: str) -> object:
        """Upstream's scorer on one grading case, run in a sandboxed child (once per scenario
        and source)."""
        return scenarios.score(self.upstream, scenario, grading_id)

    def matrix(self, line: str) -> str:
        """The comparability matrix of a transformers line, from this producer's goldens."""
        return matrix.build(self, line)

    def compute_metrics(self, results: dict, k_list: list[int]) -> dict:
        """lcb_runner's compute_metrics_from_results (upstream/score.py)."""
        return score.compute_metrics(self.upstream, results, k_list)

    def compute_scores(self, rows: list[dict], start_date, end_date, platform) -> dict:
        """lcb_runner's compute_scores on eval_all rows, its printout as data."""
        return score.compute_scores(self.upstream, rows, start_date, end_date, platform)

    def leaderboard(self, runs: dict[str, list[dict]], zone: str, windows) -> dict:
        """The leaderboard's answers for these runs (model_repr -> rows) under the builder's
        time zone, per window (upstream/leaderboard.py), once per producer."""
        key = (zone, tuple(runs), tuple(windows))
        if key not in self._leaderboards:
            try:
                found = leaderboard.answers(self.upstream, runs, zone, list(windows))
            except UpstreamMissing as missing:
                raise LeaderboardCodeMissing(str(missing)) from None
            self._leaderboards[key] = found
        return self._leaderboards[key]

    def requests(self, row: dict, cases: list, environment: dict) -> dict[str, dict]:
        """lcb_runner's requests per "variant/LMStyle" (upstream/runner_requests.py), recorded
        once per producer."""
        if self._requests is None:
            self._requests = runner_requests.record_all(self.upstream, row, cases, environment)
        return self._requests

    def model_list(self) -> resolver.ModelList:
        return resolver.ModelList.of(self.upstream)

    def resolver_table(self) -> str:
        return resolver.table(self.model_list())

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
    def check_line(line: str) -> None:
        """Raise NotProducibleHere for a golden of another transformers line."""
        if line != audit.transformers_line():
            raise NotProducibleHere(
                f"recorded under {line}; this environment runs {audit.transformers_line()}"
            )
