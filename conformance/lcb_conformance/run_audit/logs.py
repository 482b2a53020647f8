"""Other harnesses' logs of a finished LiveCodeBench run, read as samples for the audit: the
readers are run_formats' (one module per format); their names, kept here for the audit's
imports."""

from lcb_conformance.run_formats import evalscope, lighteval, lm_eval, opencompass
from lcb_conformance.run_formats.evalscope import REBUILT, evalscope_record, raw_output
from lcb_conformance.run_formats.lighteval import (  # noqa: F401 (re-exported)
    LIGHTEVAL_COLUMNS,
    LIGHTEVAL_LEAVES,
    LIGHTEVAL_REQUEST,
    LIGHTEVAL_UNSCORED,
    lighteval_columns,
)
from lcb_conformance.run_formats.lm_eval import lm_eval_prompt
from lcb_conformance.run_formats.opencompass import (
    OPENCOMPASS_ROLES,
    opencompass_prompt,
    opencompass_results,
    opencompass_scored,
)
from lcb_conformance.run_formats.samples import LogError, Logged

EVALSCOPE, OPENCOMPASS, LM_EVAL, LIGHTEVAL = (
    evalscope.NAME,
    opencompass.NAME,
    lm_eval.NAME,
    lighteval.NAME,
)
read_evalscope = evalscope.samples
read_opencompass = opencompass.read
read_lm_eval = lm_eval.samples
read_lighteval = lighteval.samples

__all__ = [
    "EVALSCOPE", "LIGHTEVAL", "LIGHTEVAL_COLUMNS", "LIGHTEVAL_LEAVES", "LIGHTEVAL_REQUEST",
    "LIGHTEVAL_UNSCORED", "LM_EVAL", "OPENCOMPASS", "OPENCOMPASS_ROLES", "REBUILT", "LogError",
    "Logged", "evalscope_record", "lighteval_columns", "lm_eval_prompt", "opencompass_prompt",
    "opencompass_results", "opencompass_scored", "raw_output", "read_evalscope",
    "read_lighteval", "read_lm_eval", "read_opencompass",
]  # fmt: skip
