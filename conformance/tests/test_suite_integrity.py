"""The suite lints itself: fixtures usable, goldens complete, untouched and accounted for,
the deviations list exact, the provenance matching the inputs that made the goldens."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lcb_conformance import cases, deviations, goldens, hf_cache

REGEN = f"regenerate with `{goldens.REGEN_COMMAND}`"


def test_fixture_counts_meet_the_coverage_floor():
    assert len(cases.problems()) >= 30
    assert len(cases.outputs()) >= 60
    starter = [row for row in cases.problems().values() if row["starter_code"]]
    assert starter and len(starter) < len(cases.problems()), "need both starter-code and stdin rows"


def test_fixture_text_can_be_stored_as_a_golden():
    """Goldens are UTF-8 files: a lone surrogate in a fixture could never be one."""
    texts = [row["question_content"] for row in cases.problems().values()]
    texts += [row["starter_code"] or "" for row in cases.problems().values()]
    texts += [output.output for output in cases.outputs().values()]
    for text in texts:
        text.encode("utf-8")


def test_every_case_has_its_golden():
    missing = [str(key) for key in goldens.expected_keys() if not key.path.is_file()]
    assert not missing, f"{len(missing)} goldens missing, e.g. {missing[:5]}; {REGEN}"


def test_no_orphan_goldens():
    """A golden no test uses is stale: its case was renamed or removed."""
    expected = {key.path for key in goldens.expected_keys()}
    orphans = [
        str(path.relative_to(goldens.GOLDENS_DIR))
        for path in goldens.golden_files()
        if path not in expected
    ]
    assert not orphans, f"goldens with no case: {orphans[:10]}; {REGEN}"


def test_goldens_match_their_recorded_checksums():
    """A hand-edited, truncated or re-encoded golden fails here, named."""
    recorded = goldens.recorded_manifest()
    assert recorded, f"{goldens.MANIFEST_FILE} is missing; {REGEN}"
    on_disk = {}
    for line in goldens.manifest_lines():
        digest, _, relative = line.partition("  ")
        on_disk[relative] = digest
    altered = sorted(path for path in on_disk if recorded.get(path) != on_disk[path])
    unrecorded = sorted(set(recorded) - set(on_disk))
    assert not altered, (
        f"golden files differ from MANIFEST.sha256 (edited by hand? line endings converted?): "
        f"{altered[:10]}; goldens change only through `{goldens.REGEN_COMMAND}`"
    )
    assert not unrecorded, (
        f"MANIFEST.sha256 lists goldens that are gone: {unrecorded[:10]}; {REGEN}"
    )


def test_goldens_are_protected_from_line_ending_conversion():
    try:
        sample = goldens.expected_keys(goldens.PROMPT)[0].path
        attributes = subprocess.run(
            ["git", "check-attr", "text", "--", str(sample)],
            cwd=cases.REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    assert attributes.rstrip().endswith("text: unset"), attributes


def test_deviation_list_is_exact():
    """Listed (output, style) pairs are exactly those whose upstream goldens on the whole
    output and on the answer after </think> differ."""
    differing = {
        (key.case, key.group)
        for key in goldens.expected_keys(goldens.EXTRACT_AFTER_THINK)
        if goldens.read(key)
        != goldens.read(goldens.GoldenKey(goldens.EXTRACT, key.group, key.case))
    }
    listed = set(deviations.think_deviations())
    assert not listed - differing, f"listed but not a difference: {sorted(listed - differing)}"
    assert not differing - listed, (
        f"differences missing from deviations.toml: {sorted(differing - listed)}"
    )
    for entry in deviations.load()["think"]["cases"]:
        assert entry["why"].strip(), f"{entry['output']}: say why it differs"


def test_provenance_matches_the_tokenizer_snapshot():
    """A tokenizer snapshot edited after the goldens were made means they are stale."""
    recorded = goldens.provenance()["tokenizers"][cases.LLAMA3_TOKENIZER]
    snapshot = hf_cache.SNAPSHOTS_DIR / cases.LLAMA3_TOKENIZER.replace("/", "__")
    assert recorded["revision"] == hf_cache.snapshot_revision(snapshot), (
        f"{snapshot} changed since the goldens were generated; {REGEN}"
    )


def test_reference_implementation_imports_only_the_standard_library():
    probe = (
        "import sys; before = set(sys.modules); import lcb_prompts; "
        "print(*sorted({m.split('.')[0] for m in set(sys.modules) - before}))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    foreign = [m for m in loaded if m != "lcb_prompts" and m not in sys.stdlib_module_names]
    assert not foreign, f"lcb_prompts imports non-stdlib modules: {foreign}"
