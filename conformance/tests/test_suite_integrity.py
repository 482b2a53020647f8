"""The suite lints itself: fixtures usable, goldens complete, untouched and accounted for,
the deviations list exact, the provenance matching the inputs that made the goldens."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lcb_conformance.common import paths
from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.suite import cases, deviations, families, goldens, tokenization
from lcb_conformance.suite.integrity import checksum_problems, missing_goldens, orphan_goldens
from lcb_conformance.upstream import PINNED_COMMIT

# The suite checking itself, not the implementation: tox -e upstream runs it (selftest).
pytestmark = pytest.mark.selftest

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


def problem_report(problems: list[str]) -> str:
    shown = "\n".join(problems[:10])
    more = f"\n... and {len(problems) - 10} more" if len(problems) > 10 else ""
    return f"{len(problems)} golden integrity problem(s):\n{shown}{more}"


def test_every_case_has_its_golden():
    problems = missing_goldens()
    assert not problems, problem_report(problems)


def test_no_orphan_goldens():
    """A golden no test uses is stale: its case was renamed or removed. A filesystem check,
    not syrupy's unused-snapshot report, so it holds under pytest-xdist as well
    (test_golden_tampering.py runs it with -n 2)."""
    problems = orphan_goldens()
    assert not problems, problem_report(problems)


def test_goldens_match_their_recorded_checksums():
    """A hand-edited, truncated or re-encoded golden fails here, named, with what changed
    (test_golden_tampering.py shows the message for each kind of tampering)."""
    problems = checksum_problems()
    assert not problems, problem_report(problems)


def test_goldens_are_protected_from_line_ending_conversion():
    try:
        sample = families.expected_keys(goldens.PROMPT)[0].path
        attributes = subprocess.run(
            ["git", "check-attr", "text", "--", str(sample)],
            cwd=paths.ROOT,
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
        for key in families.expected_keys(goldens.EXTRACT_AFTER_THINK)
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


def test_goldens_come_from_the_reference_upstream():
    """Every upstream golden, of every transformers line, was produced by a clean checkout of
    lcb_runner at the pinned commit: a golden no real upstream run made is a defect."""
    recorded = goldens.provenance()
    runs = {"regeneration": recorded["upstream"]} | {
        line: environment["upstream"] for line, environment in recorded["environments"].items()
    }
    for run, upstream in runs.items():
        assert (upstream["source"], upstream["commit"], upstream["dirty"]) == (
            "checkout",
            PINNED_COMMIT,
            False,
        ), f"{run}: goldens not from lcb_runner {PINNED_COMMIT[:7]}; {REGEN}"
    assert set(recorded["environments"]) == set(tokenization.TRANSFORMERS_LINES)


def test_the_upstream_head_env_checks_out_the_pinned_commit():
    if paths.CHECKOUT is None:
        pytest.skip("tox.ini is the repository's, not in an installed copy")
    tox_ini = (paths.CHECKOUT / "tox.ini").read_text("utf-8")
    assert f"checkout --quiet {PINNED_COMMIT}" in tox_ini


@pytest.mark.parametrize("repo_id", cases.CHAT_TOKENIZERS)
def test_provenance_matches_the_tokenizer_snapshot(repo_id):
    """A tokenizer snapshot edited after the goldens were made means they are stale."""
    recorded = goldens.provenance()["tokenizers"][repo_id]
    snapshot = hf_cache.SNAPSHOTS_DIR / repo_id.replace("/", "__")
    assert recorded["revision"] == hf_cache.snapshot_revision(snapshot), (
        f"{snapshot} changed since the goldens were generated; {REGEN}"
    )


@pytest.mark.parametrize("repo_id", cases.CHAT_TOKENIZERS)
def test_chat_templates_do_not_read_the_clock(repo_id, chat_tokenizer):
    """A template calling strftime_now renders today's date: its goldens would change by
    day. None of the six does (Llama-3.1 defaults date_string to a fixed "26 Jul 2024")."""
    assert "strftime_now" not in chat_tokenizer(repo_id).chat_template


def test_audits_and_matrix_are_recorded_for_every_transformers_line():
    for line in tokenization.TRANSFORMERS_LINES:
        assert goldens.GoldenKey(goldens.COMPARABILITY, "", line).path.is_file(), (
            f"no goldens for {line}: run `tox -e regen-{line.replace('transformers-', 'tf')}`"
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


# A loaded machine, for a pytest-xdist worker's exit: each full collection after the session
# (pytest's five at exit) takes 10 us per object the collector still tracks, which is what walking
# the session's unfrozen heap cost on the loaded 2-core machine the warning was seen on
SLOW_HEAP_PROBE = """
import gc, time
def _slow(phase, info):
    if phase == "start" and info["generation"] == 2:
        time.sleep(len(gc.get_objects()) * 10e-6)
def pytest_unconfigure(config):
    if hasattr(config, "workerinput"):
        gc.callbacks.append(_slow)
"""


def test_a_green_run_on_a_loaded_machine_prints_no_keyboard_interrupt(tmp_path):
    """A pytest-xdist worker still busy 5 s after it said it finished is SIGINTed by execnet:
    a KeyboardInterrupt traceback (PytestUnraisableExceptionWarning) in a green run. The
    session's heap is frozen when it finishes (conftest.py: pytest_sessionfinish), so pytest's
    collections at exit walk little even where walking is slow, and a worker's green run on
    the tokenizers' cases prints no traceback."""
    (tmp_path / "slow_heap.py").write_text(SLOW_HEAP_PROBE, "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(Path(__file__).parent / "test_conformance.py"),
         "-k", "decode", "-p", "no:randomly", "-n", "1", "-q", "-p", "slow_heap",
         "-p", "no:cacheprovider"],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(
            filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))},
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    for symptom in ("PytestUnraisableExceptionWarning", "KeyboardInterrupt", "Traceback"):
        assert symptom not in output, output[-3000:]
