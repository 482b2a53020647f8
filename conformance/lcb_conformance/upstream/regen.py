"""`lcb-conformance regen`: the goldens, manifest, provenance and index written by running
upstream lcb_runner, and what changed shown.

    lcb-conformance regen --upstream PATH [--check]

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
case this upstream cannot produce was not compared; 2 a refused source or an installed copy.
What no run here can produce (another transformers line's, the token ids without the real
vocabularies, the leaderboard's goldens without its code) is kept and named ("KEPT").
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import platform
import sys
import traceback

from lcb_conformance.common import exit_codes, paths, shared_options, showdiff
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
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
    args = parser.parse_args(argv)
    if not args.check and (refusal := paths.outside_checkout("lcb-conformance regen")):
        print(refusal, file=sys.stderr)
        return exit_codes.UNUSABLE

    hf_cache.activate_offline_cache()
    try:
        upstream = Upstream(args.upstream)
    except UpstreamSourceError as error:
        print(f"lcb-conformance regen: {error}", file=sys.stderr)
        return exit_codes.UNUSABLE
    if not args.check and not upstream.is_pinned():
        print(
            f"lcb-conformance regen: goldens come from lcb_runner at {PINNED_COMMIT[:7]} only; "
            f"{upstream.describe_source()} is not a clean checkout of it ({CHECKOUT_HINT}). "
            "--check compares any upstream with the goldens without writing.",
            file=sys.stderr,
        )
        return exit_codes.UNUSABLE
    generate = Producer(upstream)
    print(
        f"{'checking goldens against' if args.check else 'regenerating goldens from'} "
        f"{upstream.describe_source()}"
    )

    expected = families.expected_keys()
    counts, failed = _produce_each(generate, expected, args.check)
    _remove_stale(expected, counts, args.check)
    _index_and_records(upstream, failed, counts, args.check)
    print(", ".join(f"{count} {what}" for what, count in counts.items()))
    changed = counts["changed"] + counts["new"] + counts["removed"]
    if args.check and changed:
        return exit_codes.DIFFERS
    if counts["failed"] or counts["not in this upstream"]:
        return exit_codes.INCOMPLETE
    return exit_codes.OK


def _produce_each(generate: Producer, expected: list[GoldenKey], check: bool):
    """Every golden the fixtures call for produced and compared with the one on disk (written
    unless ``check``); (counts by outcome, the keys whose production failed)."""
    # and, as they occur, the goldens kept because no run here can produce them, by why
    counts = {
        "unchanged": 0,
        "changed": 0,
        "new": 0,
        "removed": 0,
        "failed": 0,
        "not in this upstream": 0,
    }
    failed: list[GoldenKey] = []
    for key in expected:
        try:
            text = generate(key)
        except NotProducibleHere as elsewhere:  # another line's tokenization, no real vocabularies
            if not counts.get(elsewhere.counted_as):
                print(f"KEPT    {key.family} ({elsewhere.counted_as}): {elsewhere}")
            counts[elsewhere.counted_as] = counts.get(elsewhere.counted_as, 0) + 1
            continue
        except UpstreamMissing as missing:
            if not check:  # the pinned commit lacks it: a broken checkout, keep the golden
                failed.append(key)
                counts["failed"] += 1
                print(f"FAILED {key}: {missing} (old golden kept)")
            else:
                counts["not in this upstream"] += 1
            continue
        except Exception as error:  # any upstream failure: keep the old golden, report it
            failed.append(key)
            counts["failed"] += 1
            print(f"FAILED {key}: {type(error).__name__}: {error} (old golden kept)")
            traceback.print_exc(limit=-2, file=sys.stdout)
            continue
        old = goldens.read(key)
        if old == text:
            counts["unchanged"] += 1
            continue
        if old is None:
            counts["new"] += 1
            print(f"NEW     {key}")
        else:
            counts["changed"] += 1
            print(
                showdiff.report(
                    text, old, label=f"CHANGED {key}", expected_name="old golden", actual_name="new"
                )
            )
        if not check:
            goldens.write(key, text)

    return counts, failed


def _remove_stale(expected: list[GoldenKey], counts: dict, check: bool) -> None:
    """Golden files no case calls for any more: counted, and removed unless ``check``."""
    wanted = {key.path for key in expected}
    for path in goldens.golden_files():
        if path not in wanted:
            counts["removed"] += 1
            print(f"REMOVED {path.relative_to(goldens.GOLDENS_DIR)} (no such case in fixtures/)")
            if not check:
                path.unlink()


def _index_and_records(upstream: Upstream, failed: list[GoldenKey], counts: dict, check: bool):
    """The case index compared, and unless ``check`` written with the manifest and provenance."""
    case_index = index.render(index.build())
    if index.index_file().is_file() and index.index_file().read_text("utf-8") != case_index:
        counts["changed"] += 1
        print(f"CHANGED {index.INDEX_NAME} (the case index)")
    if not check:
        index.index_file().write_text(case_index, "utf-8")
        goldens.MANIFEST_FILE.write_text("\n".join(goldens.manifest_lines()) + "\n", "utf-8")
        goldens.PROVENANCE_FILE.write_text(
            json.dumps(provenance(upstream, failed), indent=2, sort_keys=True) + "\n", "utf-8"
        )


if __name__ == "__main__":
    sys.exit(main())
