"""The lcb-conformance command and its reports, each run a subprocess as a user runs it: the
reference passes (exit 0); a one-character mutant fails with red cells and diffs in the JSON and
HTML reports; a correct adapter declaring a style subset passes with the rest "not provided";
hostile answers give whole reports and no traceback on a terminal and on a strict pipe; every
exit code is held to a miniature (miniatures.py); the results file is the same serial, in two
workers and over --impl-cmd; the HTML page renders in headless Chromium with the matrix in it.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import pty
import select
import shutil
import struct
import subprocess
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path

import interpreters
import jsonschema
import miniatures
import pytest
from golden_snapshot import NEVER_WRITTEN

from lcb_conformance.common import exit_codes, paths
from lcb_conformance.runner import results
from lcb_conformance.suite import cases, index
from lcb_conformance.suite.families.judge import JUDGE_COLUMN
from lcb_conformance.suite.families.reference import DECODE_COLUMN
from lcb_conformance.upstream import PINNED_COMMIT

pytestmark = pytest.mark.selftest

TESTS = Path(__file__).parent
# the mutant's golden cases: prompts, extraction, prefix and decode_context (a few seconds)
GOLDEN_SUBSET = (
    "--only", "prompt", "--only", "chat-prompt", "--only", "extract",
    "--only", "reference-impl/extract_code_prefix", "--only", "reference-impl/decode_context",
)  # fmt: skip


def run_cli(
    *args: str, pythonpath: Path | None = None, cwd: Path, env: dict | None = None
) -> subprocess.CompletedProcess:
    environment = dict(os.environ) | (env or {})
    environment.pop("NO_COLOR", None)
    if pythonpath is not None:
        environment["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(pythonpath), environment.get("PYTHONPATH")])
        )
    return subprocess.run(
        [sys.executable, "-m", "lcb_conformance.cli", *args],
        cwd=cwd,  # not the repository: the command finds its suite itself
        env=environment,
        capture_output=True,
        text=True,
        errors="backslashreplace",
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
        "--impl", "subset_adapters:broken", "--json", str(out / "report.json"),
        "--html", str(out / "report.html"), "--color", "always", "--no-contract", *GOLDEN_SUBSET,
        pythonpath=adapters, cwd=out,
    )  # fmt: skip
    report = json.loads((out / "report.json").read_text("utf-8"))
    jsonschema.validate(report, json.loads(paths.REPORT_SCHEMA.read_text("utf-8")))
    return result, report, out / "report.html"


def cell(report: dict, style: str, tokenizer: str) -> dict:
    return next(c for c in report["cells"] if (c["style"], c["tokenizer"]) == (style, tokenizer))


def test_the_console_script_is_declared():
    scripts = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="console_scripts")}
    assert scripts.get("lcb-conformance") == "lcb_conformance.cli:main"


def test_the_reference_passes_the_whole_suite(tmp_path):
    result = run_cli(
        "--impl", "lcb_prompts", "--json", "r.json", "--html", "r.html", "--results", "r.jsonl",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # its declared </think> deviation is the only difference from lcb_runner (tier 1), and
    # it is identical to every golden once that deviation is declared (tier 2).
    # tests the console's contract: the tiers' headline wording (docs/verdict.md), no colour
    # off a terminal; the report below holds the same facts as data
    # the verdict first (exit 0 never reads as a failure), then what the deviations differ by
    assert "lcb_prompts: PASSED: identical except its declared deviations (think): yes" in (
        result.stdout
    )
    assert "; against lcb_runner itself, " in result.stdout
    assert "cases differ, all by its declared deviations" in result.stdout
    assert "NOT identical" not in result.stdout
    assert "\x1b[" not in result.stdout  # not a terminal: no colour
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    jsonschema.validate(report, json.loads(paths.REPORT_SCHEMA.read_text("utf-8")))
    assert report["verdict"] == "pass" and report["exit_code"] == 0
    tiers = report["tiers"]
    assert tiers["upstream"]["differing"] == tiers["upstream"]["differing_by_declared_deviations"]
    assert tiers["upstream"]["differing"] > 0 and tiers["declared_deviations"]["identical"]
    assert tiers["api_contract"]["failed"] == 0 and tiers["api_contract"]["run"] > 0
    assert report["failures"] == [] and report["failure_groups"] == []
    assert report["totals"]["identical"] > 2000 and report["totals"]["passed"] > 100
    # lcb_prompts has no judge: its judge row is the one cell not provided
    assert {c["status"] for c in report["cells"] if c["style"] != JUDGE_COLUMN} == {"pass"}
    assert cell(report, JUDGE_COLUMN, index.NO_TOKENIZER)["status"] == "not provided"
    assert cell(report, "generic", cases.LLAMA3_TOKENIZER)["checks"] == [
        "chat-prompt",
        "token-audit",
    ]
    assert report["goldens"]["upstream"]["commit"] == PINNED_COMMIT
    assert report["comparability_matrix"]["text"].startswith("Comparability with lcb_runner")
    assert 'id="verdict-matrix"' in (tmp_path / "r.html").read_text("utf-8")
    # the results file is the run, complete, case by case
    run = results.read(tmp_path / "r.jsonl")
    assert run.complete and len(run.results) == report["totals"]["cases"]
    again = run_cli("report", "r.jsonl", "--json", "again.json", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    rendered = json.loads((tmp_path / "again.json").read_text("utf-8"))
    assert rendered["tiers"] == report["tiers"] and rendered["cells"] == report["cells"]


def test_a_broken_implementation_fails_with_red_cells_and_diffs(broken_run):
    result, report, html_file = broken_run
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    # tests the console's contract: the headline, red rows (--color always), a diff shown
    assert "NOT identical to lcb_runner" in result.stdout
    assert "\x1b[31;1mgeneric" in result.stdout  # --color always: the failing rows are red
    assert "first difference at offset" in result.stdout
    assert report["verdict"] == "fail"
    assert not report["tiers"]["upstream"]["identical"]
    assert report["tiers"]["upstream"]["differing_by_declared_deviations"] > 0  # think
    assert {f["tier"] for f in report["failures"]} == {"upstream"}
    # one more space: whitespace only, one group per family
    assert {f["status"] for f in report["failures"]} == {results.WHITESPACE}
    assert [(g["family"], g["kind"]) for g in report["failure_groups"]] == [
        ("prompt", "interior whitespace"),
        ("chat-prompt", "interior whitespace"),
    ]

    # exactly the generic prompts fail: untemplated and through every chat template (the
    # Llama-3 rendering and LLaMa3's prompt are one golden, one case)
    failed = {failure["case"] for failure in report["failures"]}
    expected = {
        f"{folder}/{question_id}"
        for folder in (
            "prompt/generic",
            *(f"chat-prompt/{rendering.name}" for rendering in cases.CHAT_RENDERINGS),
        )
        for question_id in cases.problems()
    }
    assert failed == expected
    assert cell(report, "generic", index.NO_TEMPLATE)["status"] == "fail"
    assert cell(report, "generic", cases.LLAMA3_TOKENIZER)["not_ok"] == len(cases.problems())
    assert cell(report, "codeqwen", index.NO_TOKENIZER)["status"] == "pass"
    # not provided, not failed: other styles, extract_code_prefix, decode_context
    for style in ("deepseek", "genericbase", DECODE_COLUMN):
        assert cell(report, style, index.NO_TOKENIZER)["status"] == "not provided"
    generic = cell(report, "generic", index.NO_TOKENIZER)  # extract passes, prefix n/p
    assert generic["not_ok"] == 0 and generic["ok"] and generic["not_provided"]

    failure = next(f for f in report["failures"] if f["case"].startswith("prompt/generic/"))
    assert failure["golden_file"] == f"conformance/goldens/{failure['case']}.txt"
    assert "programmer. You" in failure["golden"]
    assert "programmer.  You" in failure["actual"]
    assert failure["difference"]["offset"] == failure["golden"].index(" You") + 1
    assert "first difference at offset" in failure["report"]
    assert any(line.startswith("+") and "programmer.  You" in line for line in failure["diff"])

    page = html_file.read_text("utf-8")
    assert page.count('class="failure"') == len(expected)
    assert page.count('<table class="diff"') == min(len(expected), 100)
    assert "programmer.&nbsp;&nbsp;You" in page or "programmer.  You" in page
    assert "http://" not in page.replace("http://www.w3.org", "") and "<script" not in page


def test_a_correct_adapter_declaring_a_style_subset_passes(adapters, tmp_path):
    result = run_cli(
        "--impl", "subset_adapters:correct", "--json", "r.json", *GOLDEN_SUBSET,
        pythonpath=adapters, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["totals"]["differs"] == report["totals"]["whitespace"] == 0
    assert report["totals"]["not-provided"] > report["totals"]["identical"] > 0
    assert report["impl"]["styles_not_provided"] == [
        style for style in cases.EXTRACTION_LMSTYLES if style != "generic"
    ]
    assert cell(report, "codeqwen", index.NO_TOKENIZER)["status"] == "not provided"


# --- every outcome, held to a miniature -------------------------------------------------------


def miniature(name: str, *args: str, cwd: Path, env: dict | None = None):
    return run_cli(
        "--impl", f"miniatures:{name}", "--impl-path", str(TESTS), *args, cwd=cwd, env=env
    )


HOSTILE_REPORTS = ("--only", "extract", "--json", "r.json", "--html", "r.html")


def _check_hostile_reports(folder: Path) -> None:
    report = json.loads((folder / "r.json").read_bytes().decode("utf-8"))  # strict UTF-8
    assert {f["actual"] for f in report["failures"] if f["tier"] != "contract"} == {
        miniatures.HOSTILE
    }
    page = (folder / "r.html").read_bytes().decode("utf-8")  # strict UTF-8
    assert "\x00" not in page and "\x1b" not in page and "\x85" not in page
    assert "\\ud800" in page and "\\x00" in page  # shown as escapes
    assert not [name for name in os.listdir(folder) if name.endswith(".partial")]


def test_hostile_answers_on_a_strict_pipe_give_both_reports_and_no_traceback(tmp_path):
    # tests the console's contract: encoding safety on an ASCII pipe (and both reports)
    result = miniature(
        "hostile", *HOSTILE_REPORTS, cwd=tmp_path, env={"PYTHONIOENCODING": "ascii:strict"}
    )
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Traceback" not in result.stdout + result.stderr
    assert "NOT identical to lcb_runner" in result.stdout
    assert "\\ud800" in result.stdout and "\x1b[31m" not in result.stdout
    _check_hostile_reports(tmp_path)


def test_hostile_answers_on_a_terminal_give_both_reports_and_no_traceback(tmp_path):
    # tests the console's contract: encoding safety on a terminal (and both reports)
    primary, secondary = pty.openpty()
    environment = dict(os.environ) | {"PYTHONPATH": str(TESTS), "TERM": "xterm"}
    process = subprocess.Popen(
        [sys.executable, "-m", "lcb_conformance.cli", "--impl", "miniatures:hostile",
         "--color", "never", *HOSTILE_REPORTS],
        cwd=tmp_path, env=environment, stdin=subprocess.DEVNULL, stdout=secondary,
        stderr=secondary,
    )  # fmt: skip
    os.close(secondary)
    shown = b""
    while True:
        ready, _, _ = select.select([primary], [], [], 300)
        if not ready:
            break
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the terminal closed: the command is done
            break
        if not chunk:
            break
        shown += chunk
    os.close(primary)
    assert process.wait(timeout=60) == 1, shown[-3000:]
    text = shown.decode("utf-8", "replace")
    assert "Traceback" not in text and "NOT identical to lcb_runner" in text
    _check_hostile_reports(tmp_path)


@pytest.mark.parametrize(
    ("impl", "family"),
    [("miniatures:trailing_newline", "extract"), ("miniatures:hostile", "extract"),
     ("miniatures:not_text", "extract"), ("miniatures:raises", "extract"),
     ("miniatures:scorer_not_provided", "test-output/score"),
     ("miniature_judges:own", "judge")],
)  # fmt: skip
def test_a_run_of_every_outcome_is_reported_again_as_it_ran(impl, family, tmp_path):
    """report re-derives every status from the answers the file holds (false_greens/views.py
    holds the forgeries it refuses): whitespace, differences, answers that are no text,
    raises, an adapter's own NotProvided and a judge's verdicts are what the run found."""
    ran = run_cli("--impl", impl, "--impl-path", str(TESTS), "--only", family, "--results",
                  "r.jsonl", cwd=tmp_path)  # fmt: skip
    assert ran.returncode in (exit_codes.OK, exit_codes.DIFFERS, exit_codes.INCOMPLETE), ran.stderr
    again = run_cli("report", "r.jsonl", cwd=tmp_path)
    assert (again.returncode, again.stderr) == (ran.returncode, ""), again.stderr


def test_an_adapter_whose_import_raises_is_unusable_in_one_line(tmp_path):
    # tests the console's contract: an unusable adapter is one line on stderr
    result = run_cli(
        "--impl", "miniature_needs_gpu", "--impl-path", str(TESTS), "--json", "r.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 2, result.stdout[-3000:] + result.stderr[-3000:]
    assert result.stderr.splitlines() == [
        "lcb-conformance: cannot load miniature_needs_gpu: RuntimeError: this harness needs a "
        "GPU (CUDA_VISIBLE_DEVICES is empty)"
    ]
    assert "Traceback" not in result.stdout and not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("code", ["'bye'", "0", "None"])
@pytest.mark.parametrize("route", ["--impl", "--impl-cmd"])
def test_an_adapter_exiting_at_import_is_unusable_in_one_line(tmp_path, route, code):
    # tests the console's contract: an adapter ending the process is one line on stderr, exit 2
    # (sys.exit(0) in-process was a silent exit 0)
    (tmp_path / "exiting.py").write_text(f"import sys\nsys.exit({code})\n", "utf-8")
    given = ["--impl", "exiting", "--impl-path", str(tmp_path)]
    if route == "--impl-cmd":
        given = ["--impl-cmd", f"{sys.executable} {tmp_path / 'exiting.py'}"]
    result = run_cli(*given, "--json", "r.json", cwd=tmp_path)
    assert result.returncode == exit_codes.UNUSABLE, result.stdout[-3000:] + result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith("lcb-conformance: cannot load ")
    said = {"'bye'": "sys.exit('bye')", "0": "sys.exit(0)", "None": "sys.exit(None)"}[code]
    if route == "--impl-cmd":
        said = "before answering"
    assert said in line and not result.stdout and not (tmp_path / "r.json").exists()


def test_the_suites_own_session_stops_at_an_adapter_it_cannot_load(tmp_path):
    # tests the console's contract: `tox -e conformance -- --impl X` is one line and exit 2,
    # not an error per case
    (tmp_path / "exiting.py").write_text("import sys\nsys.exit('bye')\n", "utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", str(TESTS / "test_conformance.py"), "-p", "no:randomly",
         "-n", "0", "-q", "--impl", "exiting", "--impl-path", str(tmp_path)],
        capture_output=True, text=True, cwd=TESTS.parent.parent,
    )  # fmt: skip
    assert result.returncode == exit_codes.UNUSABLE, result.stdout[-3000:]
    assert "Traceback" not in result.stdout + result.stderr
    assert " passed" not in result.stdout and " error" not in result.stdout
    said = [line for line in result.stdout.splitlines() if "cannot load exiting" in line]
    assert said == [
        "! _pytest.outcomes.Exit: cannot load exiting: --impl exiting: importing exiting called "
        "sys.exit('bye') !"
    ], result.stdout[-3000:]


SUITES_OPTIONS = "(the suite's options: pytest --help)"


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (["--bogus"], f"pytest: unrecognized arguments: --bogus {SUITES_OPTIONS}"),
        (["--case-timeout", "x"],
         f"pytest: argument --case-timeout: invalid float value: 'x' {SUITES_OPTIONS}"),
        (["--snapshot-update"], f"Exit: {NEVER_WRITTEN}"),
    ],
)  # fmt: skip
def test_a_bad_option_to_the_suites_own_pytest_is_one_line_and_exit_2(given, said):
    # tests the console's contract: `tox -e conformance -- --bogus` is the gate's usage error
    # (lcb_conformance_dev.suite_usage; the conftest's refusal to write goldens), not pytest's
    # usage block and its exit 4
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", str(TESTS / "test_exit_codes.py"),
         *given],
        capture_output=True, text=True, cwd=TESTS.parent.parent, timeout=120,
    )  # fmt: skip
    assert done.returncode == exit_codes.UNUSABLE, done.stdout[-2000:] + done.stderr
    assert not done.stdout and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr == f"{said}\n"


def test_help_asked_beside_an_unknown_option_is_shown():
    # tests the console's contract: --help wins, as in the commands' parsers
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--bogus", "--help"],
        capture_output=True, text=True, cwd=TESTS.parent.parent, timeout=120,
    )  # fmt: skip
    assert done.returncode == exit_codes.OK, done.stderr
    assert "lcb-conformance suite:" in done.stdout and "--case-timeout" in done.stdout


def test_a_broken_contract_is_apart_unless_strict(tmp_path):
    prompts = ("--only", "prompt", "--json", "r.json")
    apart = miniature("reads_private_tests", *prompts, cwd=tmp_path)
    assert apart.returncode == 0, apart.stdout[-3000:] + apart.stderr[-3000:]
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["tiers"]["api_contract"]["failed"] > 0 and report["verdict"] == "pass"
    assert report["tiers"]["api_contract"]["counts_in_exit_code"] is False  # apart
    strict = miniature("reads_private_tests", *prompts, "--strict-contract", cwd=tmp_path)
    assert strict.returncode == 1, strict.stdout[-3000:]


def test_a_trailing_newline_is_said_to_differ_in_whitespace_only(tmp_path):
    result = miniature(
        "trailing_newline", "--only", "extract", "--no-contract", "--json", "r.json", cwd=tmp_path
    )
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert result.returncode == report["exit_code"] == 1
    assert {f["status"] for f in report["failures"]} == {results.WHITESPACE}
    assert [(g["family"], g["kind"]) for g in report["failure_groups"]] == [
        ("extract", "trailing newline added")
    ]


def test_an_unknown_family_is_unusable_input(tmp_path):
    # tests the console's contract: an input error is one line naming the option
    result = run_cli("--only", "prompts", cwd=tmp_path)
    assert result.returncode == 2 and "--only prompts: no such golden family" in result.stderr


def test_a_report_that_cannot_be_written_exits_6_and_the_other_is_written(tmp_path):
    (tmp_path / "taken").mkdir()  # a directory where the JSON report should go
    result = run_cli(
        "--impl", "lcb_prompts", "--json", "taken", "--html", "r.html",
        "--only", "reference-impl/decode_context", "--no-contract",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 6, result.stdout[-3000:] + result.stderr[-3000:]
    # tests the console's contract: one line says the report was not written, the verdict shows
    message = [line for line in result.stderr.splitlines() if "report not written" in line]
    assert message == [f"lcb-conformance: JSON report not written: cannot write taken: "
                       f"{os.strerror(21)}"], result.stderr
    assert "identical to lcb_runner" in result.stdout  # the verdict is still printed
    assert 'id="verdict-matrix"' in (tmp_path / "r.html").read_text("utf-8")
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".partial")]
    assert os.listdir(tmp_path / "taken") == []


def _results_without_timing(path: Path) -> list[dict]:
    """The results, their timing and the implementation's name (in reasons) left out."""
    lines = [json.loads(line) for line in path.read_text("ascii").splitlines()]
    name = lines[0]["header"]["impl"]["name"]
    kept = [
        line["result"] | {"seconds": 0, "reason": line["result"]["reason"].replace(name, "IMPL")}
        for line in lines
        if "result" in line
    ]
    assert "footer" in lines[-1]
    return kept


def test_the_results_are_the_same_serial_in_workers_and_over_impl_cmd(tmp_path):
    """lcb_prompts' results file, timings aside: in-process, in two workers, and served by
    the generic --impl-cmd server (whose contract cases needing Python objects skip)."""
    from lcb_conformance.adapters import jsonl_server

    runs = {
        "serial": (),
        "workers": ("--jobs", "2"),
        "impl-cmd": ("--impl-cmd", f"{sys.executable} {jsonl_server.PATH} lcb_prompts"),
    }
    found = {}
    for name, args in runs.items():
        result = run_cli(*args, "--results", f"{name}.jsonl", cwd=tmp_path)
        assert result.returncode == 0, name + result.stdout[-3000:] + result.stderr[-3000:]
        found[name] = _results_without_timing(tmp_path / f"{name}.jsonl")
    assert found["workers"] == found["serial"]
    # over the process boundary: the contract cases passing Python objects skip
    over_process = [r for r in found["impl-cmd"] if r["status"] != results.SKIPPED]
    skipped = {r["id"] for r in found["impl-cmd"]} - {r["id"] for r in over_process}
    assert skipped and all(case.startswith("contract/") for case in skipped)
    assert over_process == [r for r in found["serial"] if r["id"] not in skipped]


@pytest.mark.parametrize("which", ["3.10", "debian"])
def test_a_harness_in_its_own_environment_is_judged_through_the_generic_server(which, tmp_path):
    """A harness pinned to another Python, in a virtual environment of its own holding it
    (here lcb_prompts) and nothing of lcb-conformance, served by the generic server run by
    path with that environment's python: no code of ours copied into it."""
    from lcb_conformance.adapters import jsonl_server

    harness_python = interpreters.venv_with_lcb_prompts(
        interpreters.other_python(which), tmp_path / "venv"
    )
    assert not interpreters.imports(harness_python, "lcb_conformance")
    # relative to the working directory: made absolute, and still the venv's (not resolved)
    command = f"venv/bin/python {jsonl_server.PATH} lcb_prompts"
    result = run_cli(
        "--impl-cmd", command, "--json", "r.json", "--only", "extract",
        "--only", "reference-impl/decode_context", "--no-contract",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["impl"]["name"] == f"cmd: {command}"
    assert report["impl"]["deviations"] == ["think"]
    assert report["tiers"]["declared_deviations"]["identical"]
    assert report["tiers"]["declared_deviations"]["run"] > 900


def test_a_hanging_or_crashing_adapter_process_fails_its_cases_and_the_run_ends(tmp_path):
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
        "--json", "r.json", "--only", "reference-impl/decode_context", "--no-contract",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    reasons = [failure["reason"] for failure in report["failures"]]
    assert reasons and all("--impl-cmd" in text for text in reasons)
    assert {failure["status"] for failure in report["failures"]} == {results.ERROR}
    assert any("no answer within 1 s (killed)" in text for text in reasons)
    assert any("exited with code 9" in text for text in reasons)


def test_impl_path_makes_an_adapter_importable_and_a_failed_import_says_what_to_do(tmp_path):
    # tests the console's contract: a failed import is one line saying what to pass
    folder = tmp_path / "adapters"
    folder.mkdir()
    (folder / "path_adapter.py").write_text("from lcb_prompts import decode_context\n", "utf-8")
    missing = run_cli("--impl", "path_adapter", cwd=tmp_path)
    assert missing.returncode == 2
    assert "--impl-path DIR" in missing.stderr and "--impl-cmd" in missing.stderr
    assert len(missing.stderr.splitlines()) == 1
    found = run_cli(
        "--impl", "path_adapter", "--impl-path", str(folder),
        "--only", "reference-impl/decode_context", cwd=tmp_path,
    )  # fmt: skip
    assert found.returncode == 0, found.stdout[-3000:] + found.stderr[-3000:]


def test_an_implementation_that_cannot_be_imported_exits_2(tmp_path):
    # tests the console's contract: an input error is one line naming the module
    result = run_cli("--impl", "no_such_module_anywhere", cwd=tmp_path)
    assert result.returncode == 2
    assert "cannot import no_such_module_anywhere" in result.stderr


def test_a_results_file_that_is_not_one_is_unusable_input(tmp_path):
    # tests the console's contract: an input error is one line naming file and line
    (tmp_path / "x.jsonl").write_text('{"header": {"schema": "something else"}}\n', "ascii")
    result = run_cli("report", "x.jsonl", cwd=tmp_path)
    assert result.returncode == 2
    assert f"x.jsonl:1: not a results file of schema {results.SCHEMA}" in result.stderr


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
    styles = {c["style"] for c in report["cells"]}
    columns = {c["tokenizer"] for c in report["cells"]}
    assert len(parser.rows) == len(styles)
    assert all(len(row) == len(columns) for row in parser.rows)
    failing_cells = sum(1 for c in report["cells"] if c["status"] == "fail")
    assert sum("fail" in classes.split() for row in parser.rows for classes in row) == (
        failing_cells
    )
    assert any("not-provided" in classes for row in parser.rows for classes in row)
