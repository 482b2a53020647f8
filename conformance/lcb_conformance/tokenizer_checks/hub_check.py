"""`lcb-conformance hub-check`, for users with network: the real tokenizers' chat templates on the
Hugging Face Hub against the offline snapshots' (and so the goldens').

    lcb-conformance hub-check [REPO_ID ...]

Each repo is loaded with AutoTokenizer at the snapshot's pinned revision (PROVENANCE.json
"pinned_revision"; "main" where the facts pin none, reported as unpinned). Gated repos
(meta-llama/*) need HF_TOKEN. Exit status (suite.exit_codes): 0 every repo asked for was
loaded from the Hub and its template matches; 1 a template differs; 4 none differs, but a
repo could not be loaded (offline, gated, renamed) or the network is switched off
(HF_HUB_OFFLINE): not checked; 2 a repo id with no snapshot. Never part of the offline suite.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass

from lcb_conformance.common import exit_codes, shared_options, showdiff
from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.suite import cases


@dataclass(frozen=True)
class SnapshotFacts:
    repo_id: str
    revision: str | None
    chat_template_sha256: str

    @classmethod
    def read(cls, repo_id: str) -> SnapshotFacts:
        folder = hf_cache.SNAPSHOTS_DIR / repo_id.replace("/", "__")
        provenance = json.loads((folder / "PROVENANCE.json").read_text("utf-8"))
        return cls(repo_id, provenance.get("pinned_revision"), provenance["chat_template_sha256"])


def verdict(facts: SnapshotFacts, hub_template: str | None) -> tuple[int, str]:
    """(exit status, line) for one repo given the template loaded from the Hub."""
    where = f"{facts.repo_id}@{facts.revision or 'main (unpinned)'}"
    if hub_template is None:
        return exit_codes.DIFFERS, f"MISMATCH {where}: the Hub tokenizer has no chat template"
    digest = hashlib.sha256(hub_template.encode("utf-8")).hexdigest()
    if digest != facts.chat_template_sha256:
        return exit_codes.DIFFERS, (
            f"MISMATCH {where}: chat template sha256 {digest}, snapshot has "
            f"{facts.chat_template_sha256}; update fixtures/tokenizers and regenerate the goldens"
        )
    return exit_codes.OK, f"ok       {where}: chat template sha256 {digest}"


def main(argv: list[str] | None = None) -> int:
    parser = shared_options.CommandParser(
        prog="lcb-conformance hub-check", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "repos",
        nargs="*",
        default=list(cases.CHAT_TOKENIZERS),
        help="repo ids (default: every snapshot)",
    )
    args = parser.parse_args(argv)
    unknown = [repo_id for repo_id in args.repos if repo_id not in cases.CHAT_TOKENIZERS]
    if unknown:
        known = ", ".join(cases.CHAT_TOKENIZERS)
        parser.error(f"no snapshot of {', '.join(unknown)}; the snapshots: {known}")
    if os.environ.get("HF_HUB_OFFLINE", "0") not in ("", "0"):
        showdiff.write(
            "lcb-conformance hub-check: needs the network (HF_HUB_OFFLINE is set): nothing "
            "checked",
            sys.stderr,
        )
        return exit_codes.INCOMPLETE
    from transformers import AutoTokenizer

    codes = set()
    for repo_id in args.repos:
        facts = SnapshotFacts.read(repo_id)
        try:
            tokenizer = AutoTokenizer.from_pretrained(repo_id, revision=facts.revision or "main")
        except Exception as error:  # gated, offline, renamed: say which and go on
            why = " ".join(str(error).split())
            showdiff.write(f"FAILED   {repo_id}: {type(error).__name__}: {why}")
            codes.add(exit_codes.INCOMPLETE)
            continue
        code, line = verdict(facts, tokenizer.chat_template)
        showdiff.write(line)
        codes.add(code)
    return exit_codes.of_checks(codes)

if __name__ == "__main__":
    sys.exit(main())
