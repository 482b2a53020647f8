"""suite.json_stream: lcb_runner's result and cache files read one element at a time."""

from __future__ import annotations

import json

import pytest

from lcb_conformance.common import json_stream
from lcb_conformance.suite import cases

pytestmark = pytest.mark.transformers_independent  # a file reader

AUDIT_FIXTURES = cases.FIXTURES_DIR / "audit" / "lcb_runner"
RESULTS = sorted(AUDIT_FIXTURES.glob("*/output/*/*.json"))
CACHES = sorted(AUDIT_FIXTURES.glob("*/cache/*/*.json"))


@pytest.fixture
def tiny_chunks(monkeypatch):
    """Chunks of 7 characters: every element, string and escape spans many reads."""
    monkeypatch.setattr(json_stream, "CHUNK", 7)


def test_there_are_lcb_runner_files_to_read():
    assert len(RESULTS) >= 8 and len(CACHES) >= 4


@pytest.mark.parametrize("path", RESULTS + CACHES, ids=lambda p: "/".join(p.parts[-4:]))
def test_streamed_elements_are_what_json_load_reads(path, tiny_chunks):
    whole = json.loads(path.read_text("utf-8"))
    if isinstance(whole, list):
        assert [element for _, element in json_stream.iter_array(path)] == whole
    else:
        assert {key: value for _, key, value in json_stream.iter_object(path)} == whole


def test_each_element_is_given_the_line_it_starts_on(tmp_path, tiny_chunks):
    path = tmp_path / "rows.json"
    rows = [{"text": "a\nb" * n, "emoji": "\U0001f600\u2028"} for n in range(4)]
    path.write_text(json.dumps(rows, indent=4), "utf-8")
    lines = [line for line, _ in json_stream.iter_array(path)]
    text_lines = path.read_text("utf-8").split("\n")
    assert [text_lines[line - 1].strip() for line in lines] == ["{"] * 4
    assert lines == sorted(set(lines))


def test_a_file_cut_anywhere_is_an_error_never_fewer_elements(tmp_path):
    """Truncation (a copy interrupted, a disk full) must not pass for a shorter run."""
    text = RESULTS[0].read_text("utf-8").rstrip()
    path = tmp_path / "cut.json"
    for end in range(1, len(text), max(1, len(text) // 97)):
        path.write_text(text[:end], "utf-8")
        with pytest.raises(json_stream.JsonStreamError, match=rf"^{path}:\d+: "):
            list(json_stream.iter_array(path))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "ends early"),
        ('{"a": 1}', "expected a JSON array"),
        ("[1, 2] 3", "text after the end of the array"),
        ('[{"a": 1},\n {"a": tru}]', r"json:2: element 1 .* not valid JSON \(Expecting value\)"),
        ("[1 2]", "expected ',' or ']'"),
    ],
)
def test_malformed_arrays_are_named_by_file_and_line(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text, "utf-8")
    with pytest.raises(json_stream.JsonStreamError, match=message):
        list(json_stream.iter_array(path))


def test_an_object_key_must_be_a_string(tmp_path):
    path = tmp_path / "cache.json"
    path.write_text('{1: ["x"]}', "utf-8")
    with pytest.raises(json_stream.JsonStreamError, match="cache.json:1: "):
        list(json_stream.iter_object(path))


def test_a_file_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'["caf\xe9"]')
    with pytest.raises(json_stream.JsonStreamError, match="latin1.json:1: not UTF-8"):
        list(json_stream.iter_array(path))
