"""`lcb-conformance regen`: the goldens, manifest, provenance and index written by running
upstream lcb_runner, and what changed shown.

    lcb-conformance regen --upstream PATH [--check] [--json FILE]

Goldens come from the pinned commit only: a clean LiveCodeBench checkout at
upstream.PINNED_COMMIT (PATH); any other source is refused, except with --check, which
compares any upstream (a checkout of another commit, 'installed') with the goldens.
Upstream families (prompts, extractions, chat renderings, tokenizations, token ids, the
matrix) come from upstream only; the reference-impl families come from the reference
lcb_prompts (they have no upstream twin). Tokenizations, token ids and the matrix are recorded
per transformers line; a run regenerates its own line's and leaves the other's untouched.
Token ids need the real vocabularies (LCB_REAL_VOCAB_CACHE, real_vocab_sources); a run
without them keeps the token-id goldens as they are and says so.
A case whose computation fails keeps its old golden and is reported. Goldens of cases no
longer in fixtures/ are removed. --check writes nothing.

Exit code (suite.exit_codes): 0 every golden this environment can produce was produced (with
--check: and is unchanged); 1 with --check, a golden, the case index or the set of golden
files would change; 4 a case's computation failed (its old golden kept), or with --check a
case this upstream cannot produce was not compared; 2 a refused source or an installed copy;
6 the --json record could not be written. What no run here can produce (another transformers
line's, the token ids without the real vocabularies, the leaderboard's goldens without its
code) is kept and named ("KEPT"). --json FILE records each golden's outcome, the case index's,
the totals, the upstream run and the exit code as data (the console is for reading).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import platform
import sys
import traceback
from collections import Counter

from lcb_conformance.common import exit_codes, paths, report_files, shared_options, showdiff
from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.offline_tokenizers import real_vocab_sources as sources
from lcb_conformance.suite import cases, families, goldens, index, tokenization
from lcb_conformance.suite.families import NotProducibleHere
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import (
    CHECKOUT_HINT,
    PINNED_COMMIT,
    Upstream,
    UpstreamMissing,
    UpstreamSourceError,
)
from lcb_conformance.upstream.producers import Producer, upstream_function

TRACKED_PACKAGES = ("transformers", "tokenizers", "huggingface_hub", "jinja2")


def provenance(upstream: Upstream, failed: list[GoldenKey]) -> dict:
    """What made the goldens. Tokenizations differ per transformers line, so the package
    versions are recorded per line; a regen under one line keeps the other's record."""
    recorded = goldens.provenance()
    environments = recorded.get("environments", {})
    environments[tokenization.transformers_line()] = {
        "python": platform.python_version(),
        "packages": {name: importlib.metadata.version(name) for name in TRACKED_PACKAGES},
        "upstream": upstream.provenance(),
    }
    return {
        "generated_by": f"{goldens.REGEN_COMMAND} (lcb-conformance regen)",
        "upstream": upstream.provenance(),
        "environments": environments,
        "tokenizers": {
            repo_id: {
                "snapshot": f"fixtures/tokenizers/{repo_id.replace('/', '__')}",
                "revision": hf_cache.snapshot_revision(
                    hf_cache.SNAPSHOTS_DIR / repo_id.replace("/", "__")
                ),
                "chat_template_sha256": hashlib.sha256(
                    hf_cache.load_tokenizer(repo_id).chat_template.encode("utf-8")
                ).hexdigest(),
            }
            for repo_id in cases.CHAT_TOKENIZERS
        },
        "families": {name: family.produced_by for name, family in families.registry().items()},
        "real_vocabularies": {
            name: f"{pinned.package} ({pinned.manager}) {pinned.member} sha256 {pinned.sha256}"
            for name, pinned in sources.PINNED.items()
        },
        # what a family's goldens depend on besides lcb_runner's commit, under the module's name
        **{
            name.partition(".")[0]: upstream_function(name)()
            for name in sorted({f.provenance for f in families.registry().values() if f.provenance})
        },
        "kept_from_previous_run": [str(key) for key in failed],
    }


# A golden's outcome in the record (--json); the console counts them in these words.
UNCHANGED, CHANGED, NEW, REMOVED = "unchanged", "changed", "new", "removed"
FAILED, KEPT, NOT_IN_THIS_UPSTREAM = "failed", "kept", "not_in_this_upstream"
COUNTED = (UNCHANGED, CHANGED, NEW, REMOVED, FAILED, NOT_IN_THIS_UPSTREAM)  # KEPT: by reason
COUNTED_AS = {NOT_IN_THIS_UPSTREAM: "not in this upstream"}
SCHEMA = "lcb-conformance-regen-record/1"


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if not args.check and (refusal := paths.outside_checkout("lcb-conformance regen")):
        showdiff.write(refusal, sys.stderr)
        return exit_codes.UNUSABLE

    hf_cache.activate_offline_cache()
    try:
        upstream = Upstream(args.upstream)
        # a missing dependency (no [upstream] extra): one line, not a traceback per golden
        upstream.check_importable()
    except UpstreamSourceError as error:
        showdiff.write(f"lcb-conformance regen: {error}", sys.stderr)
        return exit_codes.UNUSABLE
    if not args.check and not upstream.is_pinned():
        showdiff.write(
            f"lcb-conformance regen: goldens come from lcb_runner at {PINNED_COMMIT[:7]} only; "
            f"{upstream.describe_source()} is not a clean checkout of it ({CHECKOUT_HINT}). "
            "--check compares any upstream with the goldens without writing.",
            sys.stderr,
        )
        return exit_codes.UNUSABLE
    showdiff.write(
        f"{'checking goldens against' if args.check else 'regenerating goldens from'} "
        f"{upstream.describe_source()}"
    )

    expected = families.expected_keys()
    outcomes = _produce_each(Producer(upstream), expected, args.check)
    outcomes += _remove_stale(expected, args.check)
    case_index = _index_and_records(upstream, outcomes, args.check)
    counts = _counts(outcomes, case_index)
    showdiff.write(", ".join(f"{count} {what}" for what, count in counts.items()))
    record = _record(upstream, args.check, outcomes, case_index)
    written = report_files.write_reports(
        "lcb-conformance regen", {"JSON": (args.json, lambda: json.dumps(record, indent=1) + "\n")}
    )
    return record["exit_code"] if written else report_files.REPORT_NOT_WRITTEN


def _parser() -> argparse.ArgumentParser:
    parser = shared_options.CommandParser(
        prog="lcb-conformance regen", description=__doc__.split("\n\n")[0]
    )
    shared_options.add(
        parser,
        "upstream",
        metavar="PATH",
        help="a LiveCodeBench checkout at the pinned commit "
        f"({PINNED_COMMIT[:7]}); with --check also another checkout or 'installed'",
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if any golden would change"
    )
    shared_options.add(
        parser,
        "json",
        help="write the record here: each golden's outcome, the totals, the upstream, the exit "
        "code (docs/upstream.md)",
    )
    return parser


def _outcome(key: GoldenKey, outcome: str, **more) -> dict:
    """A golden's outcome in the record: its case id, family, group, case, path under
    conformance/goldens/, what happened, and what the outcome says more (error, kept)."""
    return {
        "id": str(key),
        "family": key.family,
        "group": key.group,
        "case": key.case,
        "path": key.relative,
        "outcome": outcome,
        **more,
    }


def _error(error: BaseException) -> dict:
    return {"type": type(error).__name__, "message": str(error)}


def _produce_each(generate: Producer, expected: list[GoldenKey], check: bool) -> list[dict]:
    """Every golden the fixtures call for produced and compared with the one on disk (written
    unless ``check``): each one's outcome."""
    outcomes = []
    kept_reasons: set[str] = set()
    for key in expected:
        try:
            text = generate(key)
        except NotProducibleHere as elsewhere:  # another line's tokenization, no real vocabularies
            if elsewhere.counted_as not in kept_reasons:  # named once per reason
                showdiff.write(f"KEPT    {key.family} ({elsewhere.counted_as}): {elsewhere}")
                kept_reasons.add(elsewhere.counted_as)
            kept = {"reason": elsewhere.counted_as, **_error(elsewhere)}
            outcomes.append(_outcome(key, KEPT, kept=kept))
            continue
        except UpstreamMissing as missing:
            if not check:  # the pinned commit lacks it: a broken checkout, keep the golden
                showdiff.write(f"FAILED {key}: {missing} (old golden kept)")
                outcomes.append(_outcome(key, FAILED, error=_error(missing)))
            else:
                outcomes.append(_outcome(key, NOT_IN_THIS_UPSTREAM, error=_error(missing)))
            continue
        except Exception as error:  # any upstream failure: keep the old golden, report it
            showdiff.write(f"FAILED {key}: {type(error).__name__}: {error} (old golden kept)")
            traceback.print_exc(limit=-2, file=sys.stdout)
            outcomes.append(_outcome(key, FAILED, error=_error(error)))
            continue
        outcomes.append(_outcome(key, _compare(key, text)))
        if not check and outcomes[-1]["outcome"] != UNCHANGED:
            goldens.write(key, text)
    return outcomes


def _compare(key: GoldenKey, text: str) -> str:
    """The produced text against the golden on disk: its outcome, shown when it changes."""
    old = goldens.read(key)
    if old == text:
        return UNCHANGED
    if old is None:
        showdiff.write(f"NEW     {key}")
        return NEW
    showdiff.write(
        showdiff.report(
            text, old, label=f"CHANGED {key}", expected_name="old golden", actual_name="new"
        )
    )
    return CHANGED


def _remove_stale(expected: list[GoldenKey], check: bool) -> list[dict]:
    """Golden files no case calls for any more: their outcome, removed unless ``check``."""
    wanted = {key.path for key in expected}
    outcomes = []
    for path in goldens.golden_files():
        if path not in wanted:
            relative = path.relative_to(goldens.GOLDENS_DIR)
            showdiff.write(f"REMOVED {relative} (no such case in fixtures/)")
            outcomes.append(_stale(relative.as_posix()))
            if not check:
                path.unlink()
    return outcomes


def _stale(relative: str) -> dict:
    """A removed golden's outcome; a file of no family (a family gone) has only its path."""
    try:
        return _outcome(goldens.key_of(relative), REMOVED)
    except ValueError:
        no_key = {"id": None, "family": None, "group": None, "case": None}
        return {**no_key, "path": relative, "outcome": REMOVED}


def _index_and_records(upstream: Upstream, outcomes: list[dict], check: bool) -> str:
    """The case index compared (its outcome), and unless ``check`` written with the manifest
    and provenance."""
    case_index = index.render(index.build())
    if not index.index_file().is_file():
        outcome = NEW
        showdiff.write(f"NEW     {index.INDEX_NAME} (the case index)")
    elif index.index_file().read_text("utf-8") != case_index:
        outcome = CHANGED
        showdiff.write(f"CHANGED {index.INDEX_NAME} (the case index)")
    else:
        outcome = UNCHANGED
    if not check:
        failed = [
            GoldenKey(o["family"], o["group"], o["case"])
            for o in outcomes
            if o["outcome"] == FAILED
        ]
        index.index_file().write_text(case_index, "utf-8")
        goldens.MANIFEST_FILE.write_text("\n".join(goldens.manifest_lines()) + "\n", "utf-8")
        goldens.PROVENANCE_FILE.write_text(
            json.dumps(provenance(upstream, failed), indent=2, sort_keys=True) + "\n", "utf-8"
        )
    return outcome


def _counts(outcomes: list[dict], case_index: str) -> dict[str, int]:
    """The console's totals: each outcome's count (the case index counted as a golden),
    then the kept ones by reason, as they occurred."""
    found = Counter(o["outcome"] for o in outcomes)
    counts = {COUNTED_AS.get(outcome, outcome): found[outcome] for outcome in COUNTED}
    if case_index != UNCHANGED:
        counts[case_index] += 1
    counts.update(Counter(o["kept"]["reason"] for o in outcomes if o["outcome"] == KEPT))
    return counts


def _record(upstream: Upstream, check: bool, outcomes: list[dict], case_index: str) -> dict:
    """What the run found, as data (--json): the upstream it ran, each golden's outcome, the
    case index's, the totals and the exit code."""
    totals = Counter(o["outcome"] for o in outcomes)
    kept = Counter(o["kept"]["reason"] for o in outcomes if o["outcome"] == KEPT)
    would_change = totals[CHANGED] + totals[NEW] + totals[REMOVED] + (case_index != UNCHANGED)
    if check and would_change:
        code = exit_codes.DIFFERS
    elif totals[FAILED] or totals[NOT_IN_THIS_UPSTREAM]:
        code = exit_codes.INCOMPLETE
    else:
        code = exit_codes.OK
    return {
        "schema": SCHEMA,
        "mode": "check" if check else "write",
        "upstream": {
            "described": upstream.describe_source(),
            "pinned": upstream.is_pinned(),
            **upstream.provenance(),
        },
        "goldens": outcomes,
        "case_index": {"path": index.INDEX_NAME, "outcome": case_index},
        "totals": {
            **{outcome: totals[outcome] for outcome in (*COUNTED, KEPT)},
            "kept_by_reason": dict(kept),
        },
        "exit_code": code,
    }


if __name__ == "__main__":
    sys.exit(main())
