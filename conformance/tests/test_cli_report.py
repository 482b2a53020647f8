"""The lcb-conformance command and its reports: the reference passes the whole suite (exit 0);
a one-character mutant fails with red cells and diffs in the JSON and HTML reports; a correct
adapter declaring a style subset passes with the rest "not provided"; the HTML page renders
in headless Chromium with the verdict matrix in it.

Each run is a subprocess (the suite in its own process, as a user runs it); they take seconds
to a minute, so these are gate self-tests (tox -e upstream), not the fast conformance env.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path

import interpreters
import jsonschema
import pytest

from lcb_conformance.reports import verdict
from lcb_conformance.suite import cases, paths
from lcb_conformance.upstream import PINNED_COMMIT

pytestmark = pytest.mark.selftest

# the mutant's golden cases: prompts, extraction, prefix and decode_context (a few seconds)
GOLDEN_SUBSET = "test_prompt or test_extract_code or test_decode_context"


def run_cli(*args: str, pythonpath: Path | None = None, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "lcb_conformance.cli", *args],
        cwd=cwd,  # not the repository: the command finds its suite itself
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.fixture(scope="module")
def adapters(tmp_path_factory) -> Path:
    """A folder of implementations: mutant_prompts (lcb_prompts with one more space in the
    system message) and adapters over it and over lcb_prompts declaring STYLES."""
    import lcb_prompts

    folder = tmp_path_factory.mktemp("adapters")
    mutant = folder / "mutant_prompts"
    shutil.copytree(
        Path(lcb_prompts.__file__).parent, mutant, ignore=shutil.ignore_patterns("__pycache__")
    )
    prompts = mutant / "prompts.py"
    text = prompts.read_text("utf-8")
    old = '"You are an expert Python programmer. "'
    assert text.count(old) == 1
    prompts.write_text(text.replace(old, '"You are an expert Python programmer.  "'), "utf-8")
    (folder / "subset_adapters.py").write_text(
        "import types\n"
        "import lcb_prompts\n"
        "import mutant_prompts\n"
        "# the mutant, for generic and codeqwen only, without extract_code_prefix/decode_context\n"
        "broken = types.SimpleNamespace(\n"
        "    format_lcb_prompt=mutant_prompts.format_lcb_prompt,\n"
        "    extract_code=mutant_prompts.extract_code,\n"
        "    STYLES=('generic', 'codeqwen'),\n"
        "    DEVIATIONS=('think',),  # lcb_prompts' extraction: it cuts at </think>\n"
        ")\n"
        "class Harness:\n"
        "    STYLES = ('generic',)\n"
        "    DEVIATIONS = lcb_prompts.DEVIATIONS\n"
        "    format_lcb_prompt = staticmethod(lcb_prompts.format_lcb_prompt)\n"
        "    extract_code = staticmethod(lcb_prompts.extract_code)\n"
        "correct = Harness()\n",
        "utf-8",
    )
    return folder


@pytest.fixture(scope="module")
def broken_run(adapters, tmp_path_factory):
    out = tmp_path_factory.mktemp("broken-report")
    result = run_cli(
        "--impl",
        "subset_adapters:broken",
        "--json",
        str(out / "report.json"),
        "--html",
        str(out / "report.html"),
        "--color",
        "always",
        "--",
        "-k",
        GOLDEN_SUBSET,
        pythonpath=adapters,
        cwd=out,
    )
    report = json.loads((out / "report.json").read_text("utf-8"))
    jsonschema.validate(report, json.loads(paths.REPORT_SCHEMA.read_text("utf-8")))
    return result, report, out / "report.html"


def cell(report: dict, style: str, tokenizer: str) -> dict:
    return next(c for c in report["cells"] if (c["style"], c["tokenizer"]) == (style, tokenizer))


def test_the_console_script_is_declared():
    scripts = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="console_scripts")}
    assert scripts.get("lcb-conformance") == "lcb_conformance.cli:main"


def test_the_reference_passes_the_whole_suite(tmp_path):
    result = run_cli("--impl", "lcb_prompts", "--json", "r.json", "--html", "r.html", cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # its declared </think> deviation is the only difference from lcb_runner (tier 1), and
    # it is identical to every golden once that deviation is declared (tier 2)
    assert "lcb_prompts: NOT identical to lcb_runner: " in result.stdout
    assert "cases differ, all by its declared deviations" in result.stdout
    assert "identical except its declared deviations (think): yes" in result.stdout
    assert "\x1b[" not in result.stdout  # not a terminal: no colour
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    jsonschema.validate(report, json.loads(paths.REPORT_SCHEMA.read_text("utf-8")))
    assert report["verdict"] == "pass" and report["exit_code"] == 0
    tiers = report["tiers"]
    assert tiers["upstream"]["differing"] == tiers["upstream"]["differing_by_declared_deviations"]
    assert tiers["upstream"]["differing"] > 0 and tiers["declared_deviations"]["identical"]
    assert tiers["api_contract"]["failed"] == 0 and tiers["api_contract"]["run"] > 0
    assert report["failures"] == []
    assert report["totals"]["failed"] == 0 and report["totals"]["passed"] > 1000
    # lcb_prompts has no judge: its judge row is the one cell not provided
    assert {c["status"] for c in report["cells"] if c["style"] != verdict.JUDGE} == {"pass"}
    assert cell(report, verdict.JUDGE, verdict.NO_TOKENIZER)["status"] == "not provided"
    assert cell(report, "generic", cases.LLAMA3_TOKENIZER)["checks"] == [
        "chat-prompt",
        "prompt",
        "token-audit",
    ]
    assert report["goldens"]["upstream"]["commit"] == PINNED_COMMIT
    assert report["comparability_matrix"]["text"].startswith("Comparability with lcb_runner")
    assert 'id="verdict-matrix"' in (tmp_path / "r.html").read_text("utf-8")


def test_a_broken_implementation_fails_with_red_cells_and_diffs(broken_run):
    result, report, html_file = broken_run
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    assert "NOT identical to lcb_runner" in result.stdout
    assert "\x1b[31;1mgeneric" in result.stdout  # --color always: the failing rows are red
    assert "first difference at offset" in result.stdout
    assert report["verdict"] == "fail"
    assert not report["tiers"]["upstream"]["identical"]
    assert report["tiers"]["upstream"]["differing_by_declared_deviations"] > 0  # think
    assert report["tiers"]["api_contract"]["failed"] == 0  # one more space breaks no contract
    assert {f["tier"] for f in report["failures"]} == {"upstream"}
    assert {f["severity"] for f in report["failures"]} == {"whitespace-only"}  # one more space

    # exactly the generic prompts fail: untemplated and Llama-3-templated
    failed = {failure["golden_key"] for failure in report["failures"]}
    expected = {
        f"prompt/{variant}/{question_id}"
        for variant in ("generic", "generic-llama3")
        for question_id in cases.problems()
    }
    assert failed == expected
    assert cell(report, "generic", verdict.NO_TEMPLATE)["status"] == "fail"
    assert cell(report, "generic", cases.LLAMA3_TOKENIZER)["failed"] == len(cases.problems())
    assert cell(report, "codeqwen", verdict.NO_TOKENIZER)["status"] == "pass"
    # not provided, not failed: other styles, extract_code_prefix, decode_context
    for style in ("deepseek", "genericbase", verdict.DECODE):
        assert cell(report, style, verdict.NO_TOKENIZER)["status"] == "not provided"
    generic = cell(report, "generic", verdict.NO_TOKENIZER)  # extract passes, prefix n/p
    assert generic["failed"] == 0 and generic["passed"] and generic["not_provided"]

    failure = next(f for f in report["failures"] if f["golden_key"].startswith("prompt/generic/"))
    assert failure["golden_file"] == f"conformance/goldens/{failure['golden_key']}.txt"
    assert "programmer. You" in failure["golden"]
    assert "programmer.  You" in failure["actual"]
    assert failure["first_difference"] == failure["golden"].index(" You") + 1
    assert "first difference at offset" in failure["report"]
    assert any(line.startswith("+") and "programmer.  You" in line for line in failure["diff"])

    page = html_file.read_text("utf-8")
    assert page.count('class="failure"') == len(expected)
    assert page.count('<table class="diff"') == min(len(expected), 100)
    assert "programmer.&nbsp;&nbsp;You" in page or "programmer.  You" in page
    assert "http://" not in page.replace("http://www.w3.org", "") and "<script" not in page


def test_lcb_runners_own_extraction_is_identical_to_lcb_runner_on_the_think_cases(tmp_path):
    """An extractor with lcb_runner's rule, declaring no deviation, is held to lcb_runner's
    own goldens on the </think> cases of deviations.toml, and passes them."""
    (tmp_path / "runner_rule_adapter.py").write_text(
        "from lcb_conformance.suite.extraction_rule import upstream_rule\n"
        "def extract_code(model_output, style='generic'):\n"
        "    if style == 'genericbase':\n"
        "        return model_output.strip()\n"
        "    return upstream_rule(model_output)\n",
        "utf-8",
    )
    result = run_cli(
        "--impl", "runner_rule_adapter", "--json", "r.json", "--", "-k", "test_extract_code",
        pythonpath=tmp_path, cwd=tmp_path,
    )
    # exit 1: the bad-input checks -k selects fail (it accepts what lcb_prompts rejects),
    # reported apart from comparability
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["impl"]["deviations"] == []
    tiers = report["tiers"]
    upstream = tiers["upstream"]
    assert upstream["identical"] and upstream["run"] == upstream["identical_cases"] > 900
    assert tiers["declared_deviations"]["identical"] and tiers["api_contract"]["failed"] > 0
    assert {f["tier"] for f in report["failures"]} == {"api_contract"}
    assert "runner_rule_adapter: identical to lcb_runner on every case it provides" in (
        result.stdout
    )


def test_a_correct_adapter_declaring_a_style_subset_passes(adapters, tmp_path):
    result = run_cli(
        "--impl",
        "subset_adapters:correct",
        "--json",
        "r.json",
        "--",
        "-k",
        GOLDEN_SUBSET,
        pythonpath=adapters,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout[-3000:]
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["totals"]["failed"] == 0
    assert report["totals"]["not_provided"] > report["totals"]["passed"] > 0
    assert report["impl"]["styles_not_provided"] == [
        style for style in cases.EXTRACTION_LMSTYLES if style != "generic"
    ]
    assert cell(report, "codeqwen", verdict.NO_TOKENIZER)["status"] == "not provided"
    assert "cases not provided" in result.stdout


HOSTILE_ADAPTER = r"""
import lcb_prompts

# lone surrogates, NUL, C0 and C1 controls, an ANSI escape
HOSTILE = "lone \ud800 \udfff, NUL \x00, bell \x07, esc \x1b[31m, c1 \x85"
calls = 0


def extract_code(model_output, style="generic"):
    global calls
    calls += 1
    if calls == 1:
        return "x" * 10_000_000
    return lcb_prompts.extract_code(model_output, style) + HOSTILE
"""


@pytest.fixture(scope="module")
def hostile_adapter(tmp_path_factory) -> Path:
    """A folder with hostile_adapter: extract_code returning a 10 MB string once, then
    lcb_runner's extraction followed by characters UTF-8 and HTML cannot carry as they are."""
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "hostile_adapter.py").write_text(HOSTILE_ADAPTER, "utf-8")
    return folder


def test_hostile_strings_give_whole_valid_reports(hostile_adapter, tmp_path):
    result = run_cli(
        "--impl", "hostile_adapter", "--json", "r.json", "--html", "r.html",
        "--", "-k", "test_extract_code and claude",
        pythonpath=hostile_adapter, cwd=tmp_path,
    )
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads((tmp_path / "r.json").read_bytes().decode("utf-8"))  # strict UTF-8
    actual = [failure["actual"] for failure in report["failures"]]
    assert "x" * 10_000_000 in actual
    assert sum(a.endswith("lone \ud800 \udfff, NUL \x00, bell \x07, esc \x1b[31m, c1 \x85")
               for a in actual) == len(actual) - 1 > 10
    page = (tmp_path / "r.html").read_bytes().decode("utf-8")  # strict UTF-8
    assert "\x00" not in page and "\x1b" not in page and "\x85" not in page
    assert "\\ud800" in page and "\\x00" in page  # shown as escapes
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".partial")]


def test_a_report_that_cannot_be_written_exits_6_and_the_other_is_written(tmp_path):
    (tmp_path / "taken").mkdir()  # a directory where the JSON report should go
    result = run_cli(
        "--impl", "lcb_prompts", "--json", "taken", "--html", "r.html",
        "--", "-k", "test_decode_context",
        cwd=tmp_path,
    )
    assert result.returncode == 6, result.stdout[-3000:] + result.stderr[-3000:]
    message = [line for line in result.stderr.splitlines() if "report not written" in line]
    assert message == [f"lcb-conformance: JSON report not written: cannot write taken: "
                       f"{os.strerror(21)}"], result.stderr
    assert "identical to lcb_runner" in result.stdout  # the verdict is still printed
    assert 'id="verdict-matrix"' in (tmp_path / "r.html").read_text("utf-8")
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".partial")]
    assert os.listdir(tmp_path / "taken") == []


DEBIAN_PYTHON = Path("/usr/bin/python3")  # Debian's, not the suite's (tox's) interpreter


def other_python(which: str) -> Path:
    if which != "debian":
        return interpreters.python(which)
    if not DEBIAN_PYTHON.is_file() or DEBIAN_PYTHON.resolve() == Path(sys.executable).resolve():
        pytest.skip(f"no Python besides {sys.executable} at {DEBIAN_PYTHON}")
    return DEBIAN_PYTHON


@pytest.mark.parametrize("which", ["3.10", "debian"])
def test_a_harness_in_its_own_environment_is_judged_through_the_generic_server(which, tmp_path):
    """A harness pinned to another Python, in a virtual environment of its own holding it
    (here lcb_prompts) and nothing of lcb-conformance, served by the generic server run by
    path with that environment's python: no code of ours copied into it."""
    from lcb_conformance.adapters import jsonl_server

    harness_python = interpreters.venv_with_lcb_prompts(other_python(which), tmp_path / "venv")
    assert not interpreters.imports(harness_python, "lcb_conformance")
    # relative to the working directory: made absolute, and still the venv's (not resolved)
    command = f"venv/bin/python {jsonl_server.PATH} lcb_prompts"
    result = run_cli(
        "--impl-cmd", command, "--json", "r.json",
        "--", "-k", "test_extract_code or test_decode_context",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["impl"]["name"] == f"cmd: {command}"
    assert report["impl"]["deviations"] == ["think"]
    assert report["tiers"]["declared_deviations"]["identical"]
    assert report["tiers"]["declared_deviations"]["run"] > 900


def test_a_hanging_or_crashing_adapter_process_fails_its_cases_and_the_suite_ends(tmp_path):
    (tmp_path / "bad_adapter.py").write_text(
        "import json, sys, time\n"
        "for line in sys.stdin:\n"
        "    request = json.loads(line)\n"
        "    if request['function'] == 'describe':\n"
        "        result = {'provides': ['decode_context']}\n"
        "        print(json.dumps({'id': request['id'], 'result': result}), flush=True)\n"
        "    elif request['args']['context'] == '':\n"
        "        sys.exit(9)  # crash\n"
        "    else:\n"
        "        time.sleep(3600)  # hang\n",
        "utf-8",
    )
    result = run_cli(
        "--impl-cmd", f"{sys.executable} bad_adapter.py", "--impl-timeout", "1",
        "--json", "r.json", "--", "-k", "test_decode_context and reference",  # the goldens
        cwd=tmp_path,
    )
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    reports = [failure["pytest_report"] for failure in report["failures"]]
    assert reports and all("--impl-cmd" in text for text in reports)
    assert any("no answer within 1 s (killed)" in text for text in reports)


def test_impl_path_makes_an_adapter_importable_and_a_failed_import_says_what_to_do(tmp_path):
    folder = tmp_path / "adapters"
    folder.mkdir()
    (folder / "path_adapter.py").write_text("from lcb_prompts import decode_context\n", "utf-8")
    missing = run_cli("--impl", "path_adapter", cwd=tmp_path)
    assert missing.returncode == 2
    assert "--impl-path DIR" in missing.stderr and "--impl-cmd" in missing.stderr
    found = run_cli(
        "--impl", "path_adapter", "--impl-path", str(folder), "--", "-k", "test_decode_context",
        cwd=tmp_path,
    )
    assert found.returncode == 0, found.stdout[-3000:] + found.stderr[-3000:]


def test_an_implementation_that_cannot_be_imported_exits_2(tmp_path):
    result = run_cli("--impl", "no_such_module_anywhere", cwd=tmp_path)
    assert result.returncode == 2
    assert "cannot import no_such_module_anywhere" in result.stderr


# --- the HTML page in a real browser ---------------------------------------------------------

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome", "headless_shell")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
PASS_GREEN = (45, 164, 78)  # report.CSS: td.pass
PARTIAL_GREEN = (143, 209, 158)  # td.pass.partial: identical where provided
FAIL_RED = (207, 34, 46)  # report.CSS: td.fail


@pytest.fixture(scope="module")
def chromium() -> str:
    explicit = os.environ.get("LCB_CHROMIUM")
    found = explicit or next(filter(None, map(shutil.which, CHROMIUM_NAMES)), None)
    if not found:
        pytest.skip(
            "Chromium is not installed: .ci/run installs it (apt-get install chromium); "
            "or set LCB_CHROMIUM to a Chromium/Chrome binary"
        )
    return found


def browse(chromium: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def decode_png(data: bytes) -> tuple[int, int, list[bytes], int]:
    """(width, height, rows of raw pixels, bytes per pixel) of an 8-bit RGB/RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, idat, header = 8, [], None
    while position < len(data):
        length = int.from_bytes(data[position : position + 4], "big")
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and not interlace, f"unexpected PNG format {header}"
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, previous = [], bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        if kind == 2:  # Up, the common case: no per-byte loop
            line = bytearray((a + b) & 255 for a, b in zip(line, previous, strict=True))
        for i in range(stride) if kind in (1, 3, 4) else ():
            left = line[i - bpp] if i >= bpp else 0
            up = previous[i]
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 255
            else:  # Paeth
                corner = previous[i - bpp] if i >= bpp else 0
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + predictor) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, rows, bpp


class MatrixParser(HTMLParser):
    """The classes of every cell of <table id="verdict-matrix">, per body row."""

    def __init__(self):
        super().__init__()
        self.in_matrix = self.in_body = False
        self.rows: list[list[str]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and attrs.get("id") == "verdict-matrix":
            self.in_matrix = True
        elif self.in_matrix and tag == "tbody":
            self.in_body = True
        elif self.in_body and tag == "tr":
            self.rows.append([])
        elif self.in_body and tag == "td":
            self.rows[-1].append(attrs.get("class", ""))

    def handle_endtag(self, tag):
        if tag == "table":
            self.in_matrix = self.in_body = False


def test_the_html_report_renders_in_chromium_with_the_matrix(chromium, broken_run, tmp_path):
    _, report, html_file = broken_run
    screenshot = tmp_path / "report.png"
    shot = browse(
        chromium,
        tmp_path,
        f"--screenshot={screenshot}",
        "--window-size=1400,1000",
        html_file.as_uri(),
    )
    assert screenshot.is_file(), f"no screenshot: {shot.stderr[-2000:]}"
    data = screenshot.read_bytes()
    assert len(data) > 20_000, f"a suspiciously small screenshot ({len(data)} bytes)"
    width, height, rows, bpp = decode_png(data)
    assert (width, height) == (1400, 1000)
    colours: dict[tuple, int] = {}
    for row in rows:
        for i in range(0, len(row), bpp):
            pixel = tuple(row[i : i + 3])
            colours[pixel] = colours.get(pixel, 0) + 1
    white = colours.get((255, 255, 255), 0)
    assert white < 0.95 * width * height, "the page rendered (almost) blank"
    # the matrix is on screen, coloured: green (identical) and red (failed) cells
    green = colours.get(PASS_GREEN, 0) + colours.get(PARTIAL_GREEN, 0)
    assert green > 2000 and colours.get(FAIL_RED, 0) > 2000, sorted(
        colours.items(), key=lambda item: -item[1]
    )[:8]

    dom = browse(chromium, tmp_path, "--dump-dom", html_file.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    parser = MatrixParser()
    parser.feed(dom.stdout)
    styles = [style for style in verdict.STYLE_ORDER if style != verdict.OTHER]
    assert len(parser.rows) == len(styles)
    assert all(len(row) == len(verdict.tokenizer_columns()) for row in parser.rows)
    failing_cells = sum(
        1 for c in report["cells"] if c["status"] == "fail" and c["style"] != verdict.OTHER
    )
    assert sum("fail" in classes.split() for row in parser.rows for classes in row) == (
        failing_cells
    )
    assert any("not-provided" in classes for row in parser.rows for classes in row)
