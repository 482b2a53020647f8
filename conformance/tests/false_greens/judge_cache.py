"""`lcb-conformance regrade` with a judge cache entry (upstream/judge_cache.py) forged for a
tree whose judge differs from 28fef95's: believed, it never makes a green (such a tree is
graded only with --allow-modified-upstream, exit 4 at best) and every view says the check came
from the cache; symlinked, edited, truncated, of another tree or schema, or writable by others,
it is ignored, said, and the judge checked again, which refuses the tree."""

from __future__ import annotations

from pathlib import Path

import forged_judge_cache as forged
import regrade_inputs as inputs
import upstream_trees

from false_greens import CLONE, FalseGreen
from lcb_conformance.common import exit_codes

ARGV = (str(inputs.LCB_RUNNER_RUN), "--dataset", "{tmp}/dataset", "--not-a-release",
        "--upstream", f"{{tmp}}/{CLONE}", "--allow-modified-upstream",
        "--judge-cache", "{tmp}/judge-cache")  # fmt: skip
REFUSED = "3 of the 99 judge cases unlike lcb_runner 28fef95"


def _forged(tamper=None):
    """A prepare: the clone's judge crediting endless programs, the fixture rows, and an entry
    saying its judge gives every golden, changed by ``tamper``."""

    def prepare(tmp: Path) -> None:
        tree = upstream_trees.forge(tmp / CLONE, forged.LOOPS_CREDITED)
        inputs.write(tmp / "dataset", inputs.rows(inputs.cases.FIXTURES_DIR / "problems.jsonl"))
        entry = forged.agreeing_entry(tree, tmp / "judge-cache")
        if tamper is not None:
            tamper(entry)

    return prepare


def _ignored(name: str, tamper, said: str) -> FalseGreen:
    return FalseGreen(
        id=f"regrade-judge-cache-{name}",
        command="regrade",
        argv=ARGV,
        prepare=_forged(tamper),
        expect=exit_codes.UNUSABLE,
        why=f"a judge cache entry {name.replace('-', ' ')} is no record of this tree's judge "
        "check: believed, it would pass a judge that credits endless programs",
        needs=("upstream", "checkout"),
        says=("judge cache entry ignored, the judge checked again", said, REFUSED),
    )


CASES = [
    FalseGreen(
        id="regrade-judge-cache-forged-agreeing",
        command="regrade",
        argv=ARGV,
        prepare=_forged(),
        expect=exit_codes.INCOMPLETE,
        why="an entry forged whole (its key and sha256 right) saying a differing judge gives "
        "every golden is believed, but only for a tree that is not 28fef95's files: never green",
        needs=("upstream", "checkout"),
        says=("its judge check from the judge cache, not run now", "INCOMPLETE:"),
    ),
    _ignored("symlinked", forged.symlinked, "is a symlink"),
    _ignored("edited", lambda entry: forged.edited(entry, "sum_input_correct", "{}"), "edited"),
    _ignored("truncated", forged.truncated, "not a cache entry's JSON"),
    _ignored("of-another-tree", forged.of_another_tree, "tree_sha256 differ"),
    _ignored("of-another-schema", forged.of_another_schema, "entry"),
    _ignored("writable-by-others", forged.writable_by_others, "writable by others"),
]
