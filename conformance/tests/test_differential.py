"""lcb-conformance diff: an implementation vs live upstream on a dataset file."""

from __future__ import annotations

import base64
import json
import pickle
import sys
import textwrap
import zlib

import pytest

from lcb_conformance.common import exit_codes
from lcb_conformance.suite import cases
from lcb_conformance.upstream import UpstreamMissing, differential

ROWS = list(cases.problems().values())


def write_rows(path, rows) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), "utf-8")
    return str(path)


@pytest.mark.upstream
def test_tokenizer_cache_changes_nothing_upstream_returns(upstream):
    """The memoised AutoTokenizer.from_pretrained gives upstream's LLaMa3 prompt unchanged:
    on the first call (which loads and caches), on later calls (which reuse the tokenizer),
    and the original method is back afterwards."""
    from transformers import AutoTokenizer

    variant = cases.VARIANTS["generic-llama3"]
    uncached = [upstream.prompt(variant, row) for row in ROWS[:3]]
    original = AutoTokenizer.__dict__.get("from_pretrained")
    with differential.memoised_from_pretrained() as cache:
        assert upstream.prompt(variant, ROWS[0]) == uncached[0]
        assert list(cache) == [
            ((cases.LLAMA3_TOKENIZER,), (("padding_side", "left"), ("use_fast", False)))
        ]
        cached = [upstream.prompt(variant, row) for row in ROWS[:3]]
        assert len(cache) == 1
    assert cached == uncached
    assert AutoTokenizer.__dict__.get("from_pretrained") is original


def encoded(tests: list) -> str:
    """private_test_cases as the real dataset stores them: base64(zlib(pickle(json)))."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests)))).decode("ascii")


@pytest.mark.upstream
def test_upstream_prompts_do_not_read_the_hidden_tests(upstream):
    """Upstream gets rows without private_test_cases (it would decode them for nothing): for
    rows whose hidden tests are plain JSON or encoded as in the dataset, every variant's prompt
    is the same with and without them."""
    with_tests = [row for row in ROWS if row["private_test_cases"] != "[]"]
    assert with_tests
    row = dict(ROWS[0])
    row["private_test_cases"] = encoded(json.loads(with_tests[0]["private_test_cases"]) * 3)
    with differential.memoised_from_pretrained():
        for full in [*with_tests, row]:
            stripped = differential.for_upstream(full)
            assert stripped["private_test_cases"] == "[]" and full["private_test_cases"] != "[]"
            assert upstream.problem(full).private_test_cases  # decoded: there are tests
            for variant in differential.VARIANTS.values():
                try:
                    expected = differential._expected(upstream, variant, stripped)
                except UpstreamMissing:  # the installed stand-in lacks some LMStyles
                    continue
                assert expected == differential._expected(upstream, variant, full)
    assert differential.for_upstream(row, full_rows=True) is row


@pytest.mark.upstream
@pytest.mark.parametrize("options", [[], ["--full-rows"]], ids=["default", "full-rows"])
def test_reference_is_identical_on_every_row_and_variant(tmp_path, capsys, options, pytestconfig):
    dataset = write_rows(tmp_path / "rows.jsonl", ROWS)
    source = f"--upstream={pytestconfig.getoption('--upstream')}"
    code = differential.main([dataset, source, *options])
    out = capsys.readouterr().out
    for name in differential.VARIANTS:
        assert (
            f"{name:<20}{len(ROWS):>6}{len(ROWS):>11}{0:>8}{0:>21}{0:>8}" in out
            or f"{name:<20}  not in this upstream: " in out
        ), name
    assert f"{'generic-llama3':<20}{len(ROWS):>6}" in out  # every upstream has these
    assert f"{'OpenAIChat':<20}{len(ROWS):>6}" in out
    if "not in this upstream: " in out:  # the installed stand-in: those were not compared
        assert code == exit_codes.INCOMPLETE
        assert "lcb_prompts: INCOMPLETE: identical to lcb_runner on the " in out
    else:
        assert code == exit_codes.OK
        assert "lcb_prompts: identical to lcb_runner: yes, all " in out


BROKEN = """
    from lcb_prompts import format_lcb_prompt as reference

    STYLES = ("generic", "codeqwen")


    def format_lcb_prompt(row, tokenizer=None, chat_template=False, style="generic",
                          enable_thinking=None):
        prompt = reference(row, tokenizer, chat_template, style, enable_thinking)
        return prompt.replace("### Answer:", "### Answer :") if style == "generic" else prompt
"""


@pytest.mark.upstream
def test_broken_implementation_gets_a_mismatch_report(tmp_path, monkeypatch, capsys):
    (tmp_path / "broken_lcb_impl.py").write_text(textwrap.dedent(BROKEN), "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    dataset = write_rows(tmp_path / "rows.jsonl", ROWS[:4])
    assert differential.main([dataset, "--impl", "broken_lcb_impl", "--show", "1"]) == 1
    out = capsys.readouterr().out
    # " :" for ":" is a difference in whitespace only, counted as such
    assert f"{'generic-llama3':<20}{4:>6}{0:>11}{4:>8}{4:>21}{0:>8}" in out
    assert f"{'codeqwen':<20}{4:>6}{4:>11}{0:>8}{0:>21}{0:>8}" in out
    assert f"{'deepseek':<20}  not provided" in out
    assert f"{'OpenAIChat':<20}  not provided" in out  # no format_lcb_messages
    assert "first 1 of 8 mismatches:" in out
    report = out.split("mismatches:\n\n", 1)[1]
    first = ROWS[0]["question_id"]
    assert report.startswith(f"generic-llama3/{first}: differs from the upstream\n")
    assert "upstream: …" in report and "broken_lcb_impl: …" in report  # visible characters
    assert "-### Answer: (use the provided format with backticks)" in report  # line diff
    assert "(whitespace-only: interior whitespace differs at offset" in report
    assert out.rstrip().endswith(
        "broken_lcb_impl: identical to lcb_runner: NO, 8 of 12 prompts "
        f"({len(differential.VARIANTS) - 3} variants not provided, not counted): "
        "0 differ in content, 8 in whitespace only"
    )


def test_a_bad_dataset_line_is_named(tmp_path):
    row = dict(ROWS[0])
    del row["question_content"]
    dataset = write_rows(tmp_path / "rows.jsonl", [ROWS[1], row])
    rows = differential.iter_dataset(dataset)
    assert next(rows) == ROWS[1]  # streamed: one row at a time
    with pytest.raises(
        differential.DatasetError, match=f"{dataset}:2: row lacks 'question_content'"
    ):
        next(rows)
    (tmp_path / "bad.jsonl").write_text('\n["a row"]\n', "utf-8")
    with pytest.raises(differential.DatasetError, match=r"bad.jsonl:2: expected a JSON object"):
        list(differential.iter_dataset(tmp_path / "bad.jsonl"))
    (tmp_path / "empty.jsonl").write_text("\n", "utf-8")
    with pytest.raises(differential.DatasetError, match=r"empty.jsonl: no rows"):
        list(differential.iter_dataset(tmp_path / "empty.jsonl"))


@pytest.mark.upstream
def test_the_run_stops_at_a_bad_line(tmp_path, capsys):
    row = dict(ROWS[0])
    row["starter_code"] = 3
    dataset = write_rows(tmp_path / "rows.jsonl", [ROWS[1], row])
    assert differential.main([dataset]) == 2
    assert f"{dataset}:2: 'starter_code' is int" in capsys.readouterr().err


def test_an_unusable_upstream_is_named(tmp_path, capsys):
    dataset = write_rows(tmp_path / "rows.jsonl", ROWS[:1])
    assert differential.main([dataset, f"--upstream={tmp_path}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lcb-conformance diff: upstream lcb_runner is not available: ")
    assert "no lcb_runner/ package there" in err and err.count("\n") == 1


def test_unknown_variant_is_refused(tmp_path, capsys):
    dataset = write_rows(tmp_path / "rows.jsonl", ROWS[:1])
    assert differential.main([dataset, "--styles", "generic,llama3"]) == 2
    assert "unknown llama3" in capsys.readouterr().err


def test_progress_bar_only_on_a_terminal(monkeypatch):
    with differential._progress(3) as bar:
        assert bar is None  # pytest captures stdout: not a TTY
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    with differential._progress(3) as bar:
        assert bar is not None and bar.total == 3
