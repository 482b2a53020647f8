"""lcb_runner's own grading of code-generation samples, fast: the judge of ``regrade``.

Interface (agreed with ``regrade``)::

    grade(problems: Mapping[str, dict], samples: Iterable[Sample], *,
          upstream: Upstream, workers: int = WORKERS, timeout: int = TIMEOUT) -> Iterator[Graded]

- ``problems``: problem id -> the dataset row (code_generation_lite schema, as
  ``CodeGenerationProblem(**row)`` takes it). Only the rows of problems samples name are read,
  each once, when its first sample arrives.
- ``samples``: ``Sample(problem_id, sample_index, code)``, already extracted code (regrade runs
  lcb_runner's extraction before). Consumed lazily: memory stays flat in their number.
- yields one ``Graded(problem_id, sample_index, graded, metadata, passed)`` per sample, in the
  order the samples came: ``graded`` is lcb_runner's graded list for the sample (what
  ``codegen_metrics`` returns in ``results[problem][i]``: True/False/-1..-4 per test, or -2
  for a sample upstream's judge could not run), ``metadata`` its metadata string (what
  ``codegen_metrics`` returns in ``final_metadata[problem][i]``: ``json.dumps`` of the dict),
  ``passed`` lcb_runner's pass rule on it (pass_k_utils.extract_instance_results).
- ``upstream``: an :class:`lcb_conformance.upstream.source.Upstream` (a checkout or the
  installed stand-in); :func:`check_judge` first (below) says whether its judge is 28fef95's.
- ``timeout``: lcb_runner's per-test timeout (codegen_metrics' default, 6 s).
- raises :class:`GradingFailed` when the grading process dies (the message says how),
  :class:`ProblemRejected` when upstream cannot read a problem's row (codegen_metrics would
  crash on it), KeyError for a sample naming a problem not in ``problems``.

``check_judge(upstream) -> list[str]``: the judge corpus cases (conformance/goldens/judge) on
which this judge, run with ``upstream``, differs from the goldens (28fef95's verdicts);
:func:`require_reference_judge` raises :class:`JudgeDiffers` naming them (PyPI's
nvidia-livecodebench 26.3 predates 16de2a1's stdin fix: it differs on the stdin-buffer cases).
"""
