"""lcb-conformance diff: an implementation vs live upstream on a dataset file."""

from __future__ import annotations

import base64
import json
import pickle
import shlex
import sys
import textwrap
import zlib

import pytest

from lcb_conformance.adapters import jsonl_server
from lcb_conformance.common import exit_codes
from lcb_conformance.suite import cases
from lcb_conformance.upstream import UpstreamMissing, differential

ROWS = list(cases.problems().values())


def diff_result(monkeypatch, argv: list[str]) -> tuple[int, differential.Result]:
    """The command's exit code and the record it rendered: differential.compare's Result."""
    found = []
    compare = differential.compare

    def recording(*args, **kwargs):
        found.append(compare(*args, **kwargs))
        return found[-1]

    monkeypatch.setattr(differential, "compare", recording)
    code = differential.main(argv)
    (result,) = found
    return code, result


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
def test_reference_is_identical_on_every_row_and_variant(
    tmp_path, monkeypatch, options, pytestconfig
):
    dataset = write_rows(tmp_path / "rows.jsonl", ROWS)
    source = f"--upstream={pytestconfig.getoption('--upstream')}"
    code, result = diff_result(monkeypatch, [dataset, source, *options])
    assert code == result.exit_code()
    assert not result.not_provided and not result.mismatches
    assert set(result.counts) | set(result.not_in_upstream) == set(differential.VARIANTS)
    for name, counts in result.counts.items():
        assert counts == {differential.IDENTICAL: len(ROWS)}, name
    assert {"generic-llama3", "OpenAIChat"} <= set(result.counts)  # every upstream has these
    # the installed stand-in lacks some LMStyles: those were not compared
    assert code == (exit_codes.INCOMPLETE if result.not_in_upstream else exit_codes.OK)


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
    argv = [dataset, "--impl", "broken_lcb_impl", "--show", "1"]
    code, result = diff_result(monkeypatch, argv)
    assert code == result.exit_code() == exit_codes.DIFFERS
    # " :" for ":" is a difference in whitespace only, counted as such
    whitespace = {differential.DIFFER: 4, differential.WHITESPACE_ONLY: 4}
    assert result.counts["generic-llama3"] == whitespace
    assert result.counts["codeqwen"] == {differential.IDENTICAL: 4}
    assert sum(counts[differential.DIFFER] for counts in result.counts.values()) == 8
    assert {"deepseek", "OpenAIChat"} <= set(result.not_provided)  # no format_lcb_messages
    assert len(result.mismatches) == 8
    assert {m.severity for m in result.mismatches} == {differential.WHITESPACE_ONLY}
    first = ROWS[0]["question_id"]
    mismatch = result.mismatches[0]
    assert (mismatch.variant, mismatch.question_id) == ("generic-llama3", first)
    report = mismatch.report
    assert report.startswith(f"generic-llama3/{first}: differs from the upstream\n")
    assert "upstream: …" in report and "broken_lcb_impl: …" in report  # visible characters
    assert "-### Answer: (use the provided format with backticks)" in report  # line diff
    assert "(whitespace-only: interior whitespace differs at offset" in report
    # tests the console's contract: --show caps the reports printed; the headline's wording
    out = capsys.readouterr().out
    assert "first 1 of 8 mismatches:" in out and out.count("differs from the upstream") == 1
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
    # tests the console's contract: an input error is one line naming file, line and field
    row = dict(ROWS[0])
    row["starter_code"] = 3
    dataset = write_rows(tmp_path / "rows.jsonl", [ROWS[1], row])
    assert differential.main([dataset]) == 2
    assert f"{dataset}:2: 'starter_code' is int" in capsys.readouterr().err


def test_an_unusable_upstream_is_named(tmp_path, capsys):
    # tests the console's contract: an unusable upstream is one line on stderr
    dataset = write_rows(tmp_path / "rows.jsonl", ROWS[:1])
    assert differential.main([dataset, f"--upstream={tmp_path}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lcb-conformance diff: upstream lcb_runner is not available: ")
    assert "no lcb_runner/ package there" in err and err.count("\n") == 1


@pytest.mark.upstream
def test_an_implementation_over_impl_cmd_is_compared_like_one_in_process(tmp_path, capsys):
    """diff reads run's implementation options: lcb_prompts served over --impl-cmd (a chat
    variant's tokenizer sent by repo id) is identical to upstream, as it is in process."""
    dataset = write_rows(tmp_path / "rows.jsonl", ROWS[:2])
    server = shlex.join([sys.executable, jsonl_server.PATH, "lcb_prompts"])
    chosen = ("--variants", "generic,generic-llama3,OpenAIChat")
    assert differential.main([dataset, *chosen]) == exit_codes.OK
    in_process = capsys.readouterr().out
    assert differential.main([dataset, "--impl-cmd", server, *chosen]) == exit_codes.OK
    over_process = capsys.readouterr().out
    assert "identical to lcb_runner: yes" in in_process.splitlines()[-1]
    assert over_process.splitlines()[-1].endswith(in_process.splitlines()[-1].split(": ", 1)[1])


def test_unknown_variant_is_refused(tmp_path, capsys):
    # tests the console's contract: an input error is one line naming the value
    dataset = write_rows(tmp_path / "rows.jsonl", ROWS[:1])
    assert differential.main([dataset, "--variants", "generic,llama3"]) == 2
    assert "unknown llama3" in capsys.readouterr().err


def test_progress_bar_only_on_a_terminal(monkeypatch):
    with differential._progress(3) as bar:
        assert bar is None  # pytest captures stdout: not a TTY
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    with differential._progress(3) as bar:
        assert bar is not None and bar.total == 3
