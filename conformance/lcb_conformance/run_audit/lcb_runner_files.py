"""lcb_runner's output layout, read by run_formats.lcb_runner_files; its names, kept here for
the audit's imports."""

from lcb_conformance.run_formats.lcb_runner_files import (  # noqa: F401 (re-exported)
    CODE_GENERATION,
    NAME_PATTERN,
    RESULTS_NAME,
    SCENARIOS,
    SUITE_SCENARIOS,
    ResultsName,
    default_cache,
    parse,
    repaired_results,
)
