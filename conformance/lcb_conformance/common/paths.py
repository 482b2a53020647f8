"""Where the suite's files are: the checkout's directories, or the installed package's `data/`;
the one module that decides, every other module asks it.

The suite's data (goldens with INDEX.json and PROVENANCE.json, fixtures, tokenizer snapshots,
deviations, the schemas) is laid out the same way in two places:

- a checkout of the repository (tox, an editable install, the source tree on sys.path): the
  repository's own directories, which regeneration writes;
- an installed copy (wheel or sdist): the package's ``data/`` folder, into which
  pyproject.toml maps those directories (package-dir and package-data); it is read-only, and
  holds what a run reads, not the repository's tests, examples or peers.

:data:`ROOT` is the one in use; paths below it are the same in both, so a path in a report
reads the same either way. Standard library only.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

PACKAGE = "lcb_conformance"
PACKAGE_DIR = Path(__file__).resolve().parents[1]
# conformance/lcb_conformance -> the repository root, when this package is a checkout's
_SOURCE_ROOT = PACKAGE_DIR.parents[1]


def _checkout() -> Path | None:
    is_checkout = (_SOURCE_ROOT / "conformance" / PACKAGE).resolve() == PACKAGE_DIR and (
        _SOURCE_ROOT / "conformance" / "goldens"
    ).is_dir()
    return _SOURCE_ROOT if is_checkout else None


def _installed_data() -> Path:
    data = importlib.resources.files(PACKAGE) / "data"
    if not isinstance(data, Path):  # e.g. a zip import: pytest needs real files
        raise RuntimeError(f"{PACKAGE} must be installed as files on disk, not in {data}")
    return data


CHECKOUT: Path | None = _checkout()
ROOT: Path = CHECKOUT or _installed_data()

FIXTURES_DIR = ROOT / "fixtures"
TOKENIZERS_DIR = FIXTURES_DIR / "tokenizers"
SUITE_DIR = ROOT / "conformance"
GOLDENS_DIR = SUITE_DIR / "goldens"
EXAMPLES_DIR = SUITE_DIR / "examples"  # a checkout's only
DEVIATIONS_FILE = SUITE_DIR / "deviations.toml"
# The problem-set manifests of every release tag and leaderboard window (releases.py).
RELEASES_DIR = SUITE_DIR / "releases"
CASE_INDEX_SCHEMA = SUITE_DIR / "case-index.schema.json"
# JSON Schema of the --json report (lcb_conformance.reports.report.SCHEMA)
REPORT_SCHEMA = SUITE_DIR / "report.schema.json"
RESULTS_SCHEMA = SUITE_DIR / "results.schema.json"
# JSON Schema of a regrade's results file (lcb_conformance.regrade.results_file.SCHEMA)
REGRADE_SCHEMA = SUITE_DIR / "regrade.schema.json"
ADAPTER_PROTOCOL_SCHEMA = ROOT / "docs" / "adapter-protocol.schema.json"


def outside_checkout(command: str) -> str | None:
    """None in a checkout; in an installed copy, the one line `command` (which writes into
    the suite's data, or needs the repository's other folders) prints before exiting 2."""
    if CHECKOUT is not None:
        return None
    return (
        f"{command}: works on a checkout of the lcb-conformance repository only; this copy is "
        f"installed and its data ({ROOT}) is read-only: clone the repository and run it there"
    )
