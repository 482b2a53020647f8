"""upstream/grading.py: lcb_runner's judge, forked per sample from one pre-imported grading
process, held to what lcb_runner's own code gives -- the judge goldens (99 cases, every
verdict kind) and the regrade goldens (codegen_metrics on the fixture runs) -- and to its
promises: samples streamed, verdicts in the samples' order, a row upstream cannot read named,
a stand-in with another judge refused by name."""

from __future__ import annotations

import itertools
import json
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lcb_conformance.adapters import implementation, sandbox
from lcb_conformance.suite import families, goldens, judge_cases
from lcb_conformance.suite.families import regrade
from lcb_conformance.upstream import Upstream, grading, grading_process, judge, judge_aware
from lcb_conformance.upstream.source import UpstreamMissing

# lcb_runner's extraction and judge on the fixture runs: no tokenizer touches them (the
# compat-tf* envs leave them to the upstream env)
pytestmark = pytest.mark.transformers_independent

REGRADE_KEYS = families.expected_keys(regrade.FAMILY)


@pytest.mark.upstream  # lighteval's parquet details need pyarrow, in the upstream extra
def test_every_fixture_run_has_a_regrade_golden():
    """runs.jsonl is what fixtures/regrade/build.py writes from fixtures/audit/ today, and
    each of its runs has a golden."""
    build = runpy.run_path(str(regrade.RUNS_FILE.parent / "build.py"))
    runs = [*build["lcb_runner_runs"](), *build["self_repair_runs"](), *build["harness_runs"]()]
    lines = [json.dumps(run, ensure_ascii=True, sort_keys=True) for run in runs]
    assert regrade.RUNS_FILE.read_text("utf-8").splitlines() == lines
    assert {regrade.key_of(run["run"], run["scenario"]) for run in runs} == set(REGRADE_KEYS)
    assert all(goldens.read(key) is not None for key in REGRADE_KEYS)


@pytest.mark.upstream
@pytest.mark.parametrize("key", REGRADE_KEYS, ids=str)
def test_grade_reproduces_codegen_metrics_on_the_fixture_runs(key, upstream):
    """grade on the code lcb_runner extracted gives codegen_metrics' graded lists and
    metadata for every sample, byte for byte once normalised as the goldens are."""
    golden = json.loads(goldens.read(key))
    run = regrade.runs()[key]
    samples = [
        grading.Sample(problem, index, code)
        for problem in golden["problems"]
        for index, code in enumerate(golden["code"][problem])
    ]
    graded = list(grading.grade(run["rows"], samples, upstream=upstream, workers=2))
    assert [(g.problem_id, g.sample_index) for g in graded] == [
        (s.problem_id, s.sample_index) for s in samples
    ]
    for sample, answer in zip(samples, graded, strict=True):
        assert answer.graded == golden["graded"][sample.problem_id][sample.sample_index]
        assert (
            grading.comparable_metadata(answer.metadata)
            == (golden["metadata"][sample.problem_id][sample.sample_index])
        )
        assert answer.passed == all(result > 0 for result in answer.graded)
        assert answer.touched == {}  # honest programs: nothing named judge-aware


# Programs that change their own verdict inside the judge, each as a kind judge_aware names.
JUDGE_AWARE = {
    "frames": (  # the expected output read from grade_stdio's frame: passes printing 0s
        judge_aware.FRAMES,
        "import sys\nframe = sys._getframe()\nwhile 'gt_out' not in frame.f_locals:\n"
        "    frame = frame.f_back\nprint(frame.f_locals['gt_out'])\n",
    ),
    "inspect": (
        judge_aware.FRAMES,
        "import inspect\nprint(next(f.frame.f_locals['gt_out'] for f in inspect.stack()\n"
        "           if 'gt_out' in f.frame.f_locals))\n",
    ),
    "judge_module": (  # every output compares equal: the wrong answer passes
        judge_aware.PATCHES,
        "import sys\njudge = next(module for name, module in list(sys.modules.items())\n"
        # lcb_runner's testing_util, or the stand-in's
        "             if name.endswith('evaluation.testing_util'))\n"
        "judge.get_stripped_lines = lambda value: []\nprint(0)\n",
    ),
    "builtins": (
        judge_aware.PATCHES,
        "import builtins\nbuiltins.read_pair = lambda: map(int, input().split())\n"
        "a, b = read_pair()\nprint(a + b)\n",
    ),
    "writes": (
        judge_aware.WRITES,
        "open('/tmp/elsewhere.txt', 'w').write('x')\na, b = map(int, input().split())\n"
        "print(a + b)\n",
    ),
    "process": (  # reliability_guard's os.system is None; posix's is not
        judge_aware.PROCESSES,
        "import posix\nposix.system('true')\na, b = map(int, input().split())\nprint(a + b)\n",
    ),
    "altered_record": (  # the record lives in the program's process: a forged one is named
        judge_aware.PATCHES,
        "import gc\nfor o in gc.get_objects():\n    if type(o).__name__ == 'Recorder':\n"
        "        o.seen = {'nothing': 'here'}\na, b = map(int, input().split())\nprint(a + b)\n",
    ),
}


@pytest.mark.upstream
def test_judge_aware_programs_pass_as_under_lcb_runner_and_are_named(upstream):
    """Each program changing its verdict inside the judge gets lcb_runner's own verdict (its
    codegen_metrics on the same code: a pass) and is named for what it did, nothing else."""
    row = judge_cases.problems()["j_sum"]
    programs = [program for _, program in JUDGE_AWARE.values()]
    samples = [grading.Sample("j_sum", index, code) for index, code in enumerate(programs)]
    graded = list(grading.grade({"j_sum": row}, samples, upstream=upstream, workers=2))
    run = {"name": "judge-aware", "code": {"j_sum": programs}, "rows": {"j_sum": row}}
    try:
        _, results, _ = grading.codegen_metrics(upstream, [run])["judge-aware"]["scored"]
        verdicts = results["0"]
    except UpstreamMissing:  # a stand-in whose codegen_metrics is refused: the naming still holds
        verdicts = [None] * len(programs)
    for (name, (kind, _)), answer, lcb_runner in zip(
        JUDGE_AWARE.items(), graded, verdicts, strict=True
    ):
        assert lcb_runner is None or answer.graded == lcb_runner, name
        assert answer.passed, name
        assert set(answer.touched) == {kind}, (name, answer.touched)
        count, detail = answer.touched[kind]
        assert count >= 1 and len(detail) <= judge_aware.DETAIL_CHARS


# The judge corpus's programs that open a file for writing, which is named (nothing else is).
CORPUS_WRITERS = {"sum_writes_file", "two_sum_writes_file"}


@pytest.mark.upstream
def test_honest_programs_of_the_judge_corpus_are_named_nothing(upstream):
    """What lcb_runner's run_test raises itself (reliability_guard, compile_code, the mock
    patches, the interpreter's imports) is not the program's: every passing program of the
    judge corpus records nothing, but the two that write a scratch file, named for that."""
    rows = judge_cases.problems()
    named = {}
    by_timeout = itertools.groupby(
        sorted(judge.judge_cases().values(), key=lambda case: case.timeout),
        key=lambda case: case.timeout,
    )
    for timeout, group in by_timeout:
        cases = list(group)
        samples = (grading.Sample(c.problem, n, c.program) for n, c in enumerate(cases))
        answers = grading._outcomes(rows, samples, upstream, grading._Runs(2, timeout))
        for case, (_, answer) in zip(cases, answers, strict=True):
            if answer.get("passed") or answer.get("touched"):
                named[case.id] = set(answer["touched"])
    assert {case for case, kinds in named.items() if kinds} == CORPUS_WRITERS
    assert all(named[case] == {judge_aware.WRITES} for case in CORPUS_WRITERS)


@pytest.mark.parametrize("touched", [
    {"frames": [0, "x"]}, {"frames": [1, "x" * 121]}, {"elsewhere": [1, "x"]}, [],
    {"frames": [True, "x"]}, {"frames": [1, "x", 2]},
])  # fmt: skip
def test_an_answer_with_a_summary_the_recorder_cannot_give_is_refused(touched):
    answer = {"graded": [True], "metadata": "{}", "passed": True, "touched": touched,
              "timing": {"wall": 0.1, "cpu": 0.1, "execution": 0.0, "global_timeout": False}}
    with pytest.raises(grading.GradingFailed, match="not an answer"):
        grading._checked(grading.Sample("j_sum", 0, ""), json.dumps(answer).encode())
    answer.pop("touched")  # an answer must say what was seen, {} for nothing
    with pytest.raises(grading.GradingFailed, match="not an answer"):
        grading._checked(grading.Sample("j_sum", 0, ""), json.dumps(answer).encode())


@pytest.mark.upstream
def test_check_judge_finds_exactly_the_known_differences(upstream):
    """On the 99 judge cases (in parallel children, verdicts in order), a checkout of the
    pinned commit differs nowhere; the installed stand-in exactly where STAND_IN_GAPS says (the
    stdin-buffer cases), which is what require_pinned_judge refuses it for without
    grading."""
    differing = grading.check_judge(upstream)
    known, why = grading._known_differences(upstream)
    assert differing == known
    if upstream.is_pinned():
        assert differing == []
        grading.require_pinned_judge(upstream)
    elif known:
        with pytest.raises(grading.JudgeDiffers) as refused:
            grading.require_pinned_judge(upstream)
        assert all(case in str(refused.value) for case in known)
        assert "16de2a1" in why and "--upstream PATH" in str(refused.value)


@pytest.mark.upstream
def test_samples_are_streamed_and_answered_in_order(upstream):
    """The samples are pulled as the grading process has room, not all at once, and the
    verdicts come back in the samples' order."""
    row = judge_cases.problems()["j_sum"]
    programs = ["a, b = map(int, input().split())\nprint(a + b)\n", "print(0)\n"]
    padding = "#" + "x" * 4000 + "\n"  # big samples: the pipes hold few of them
    pulled = 0

    def samples():
        nonlocal pulled
        for index in range(300):
            pulled += 1
            yield grading.Sample("j_sum", index, padding + programs[index % 2])

    ahead = []
    for number, answer in enumerate(
        grading.grade({"j_sum": row}, samples(), upstream=upstream, workers=2)
    ):
        ahead.append(pulled - number)
        assert answer.sample_index == number
        assert answer.passed == (number % 2 == 0)
    assert max(ahead) < 100


# The first sample (j_sum) passes only if another problem's sample starts while it runs: it
# waits for that sample's folder, then answers; the other (j_words) makes the folder.
WAITS_FOR_THE_NEXT_PROBLEM = """import os, time
for _ in range(400):
    if os.path.isdir("next-problem-started"):
        break
    time.sleep(0.01)
a, b = map(int, input().split())
print(a + b if os.path.isdir("next-problem-started") else 0)
"""
STARTS_THE_NEXT_PROBLEM = 'import os\nos.makedirs("next-problem-started", exist_ok=True)\n'


@pytest.mark.upstream
def test_a_rows_decoding_waits_for_no_running_sample(upstream):
    """The next problem's row is decoded, and its samples started, while an earlier
    problem's sample runs: a run of one sample per problem is graded as many at once as a
    run of many (before, each new row waited for every running child to end)."""
    rows = judge_cases.problems()
    samples = [
        grading.Sample("j_sum", 0, WAITS_FOR_THE_NEXT_PROBLEM),
        grading.Sample("j_words", 0, STARTS_THE_NEXT_PROBLEM),
    ]
    graded = list(grading.grade(rows, samples, upstream=upstream, workers=2))
    assert graded[0].passed


# Each passes only if all of them run at once: it marks itself started, then waits (4 s at
# most) for the others' marks.
WAITS_FOR_ALL = """import os, time
os.makedirs(f"started/{os.getpid()}", exist_ok=True)
for _ in range(400):
    if len(os.listdir("started")) >= ALL:
        break
    time.sleep(0.01)
a, b = map(int, input().split())
print(a + b if len(os.listdir("started")) >= ALL else 0)
"""


@pytest.mark.upstream
def test_by_default_as_many_samples_run_at_once_as_under_codegen_metrics(upstream):
    """The default workers are lcb_runner's codegen_metrics' own (num_process_evaluate, 16 at
    28fef95), not this machine's cores: more samples than cores run at once, as lcb_runner
    runs them on the same machine (before, one per core)."""
    metrics = upstream.module("evaluation.compute_code_generation_metrics")
    at_once = grading_process.lcb_runner_workers(metrics)
    together = grading.WORKERS + 2
    if together > at_once:
        pytest.skip(f"{grading.WORKERS} cores: as many as lcb_runner's {at_once} run anyway")
    program = WAITS_FOR_ALL.replace("ALL", str(together))
    samples = [grading.Sample("j_sum", index, program) for index in range(together)]
    graded = list(grading.grade(judge_cases.problems(), samples, upstream=upstream))
    assert [answer.passed for answer in graded] == [True] * together


@pytest.mark.upstream
def test_a_decoder_that_cannot_import_lcb_runner_fails_the_grading_by_name(upstream, tmp_path):
    """A checkout whose benchmark module does not import: the row decoder ends, and grading
    fails saying why (GradingFailed naming the checkout and what the import raised; before,
    only "BrokenPipeError"), never hangs on a row's answer."""
    if upstream.checkout is not None:
        shutil.copytree(upstream.checkout / "lcb_runner", tmp_path / "lcb_runner")
    else:  # the installed stand-in laid out as a checkout's package (its imports renamed)
        installed = Path(upstream.module("benchmarks.code_generation").__file__).parents[1]
        shutil.copytree(installed, tmp_path / "lcb_runner", ignore=shutil.ignore_patterns("*.pyc"))
        for module in (tmp_path / "lcb_runner").rglob("*.py"):
            text = module.read_text("utf-8").replace(upstream.package, "lcb_runner")
            module.write_text(text, "utf-8")
    (tmp_path / "lcb_runner" / "benchmarks" / "code_generation.py").write_text(
        "raise ImportError('broken on purpose')\n"
    )
    samples = [grading.Sample("j_sum", 0, "print(3)")]
    broken = Upstream(str(tmp_path))
    with pytest.raises(grading.GradingFailed, match="decoder ended: .*broken on purpose") as raised:
        list(grading.grade(judge_cases.problems(), samples, upstream=broken))
    assert str(tmp_path) in str(raised.value)


@pytest.mark.upstream
def test_a_row_lcb_runner_cannot_read_is_named(upstream):
    rows = judge_cases.problems()
    samples = [grading.Sample("j_sum", 0, "print(3)"), grading.Sample("j_malformed_private", 0, "")]
    answers = grading.grade(rows, samples, upstream=upstream)
    assert next(answers).problem_id == "j_sum"
    with pytest.raises(grading.ProblemRejected, match="j_malformed_private"):
        next(answers)


def test_a_sample_of_an_unknown_problem_is_a_key_error():
    from lcb_conformance.upstream import INSTALLED, Upstream

    samples = itertools.repeat(grading.Sample("no_such_problem", 0, ""), 1)
    with pytest.raises(KeyError, match="no_such_problem"):
        list(grading.grade({}, samples, upstream=Upstream(INSTALLED)))


@pytest.mark.upstream
def test_the_stand_ins_codegen_metrics_gap_is_real(upstream):
    """STAND_IN_GAPS names a real difference: the installed stand-in's codegen_metrics on a
    fixture run is not the golden (else the entry is stale and hides drift)."""
    if upstream.checkout is not None or upstream.version() not in grading.STAND_IN_GAPS:
        pytest.skip(f"{upstream.describe_source()} has no codegen_metrics gap listed")
    key = regrade.key_of("lighteval/as-shipped")
    run = regrade.runs()[key]
    answer = grading._codegen_metrics_by(upstream.source, json.dumps([run], sort_keys=True))
    metrics = answer[run["name"]]["scored"][0]
    assert metrics != json.loads(goldens.read(key))["metrics"]
    assert "pass@1_stderr" in metrics


# In a fresh process (this one may hold lcb_runner's benchmark, imported with the real
# datasets): the grading process's row decoder, its answer for every judge corpus row.
DECODE_WITHOUT_DATASETS = """
import json, os, sys
from lcb_conformance.upstream import grading_process, judge
decoder = grading_process._Decoder(sys.argv[1], keep_open=())
answers = {problem: decoder.decode(row) for problem, row in judge.problems().items()}
os.close(decoder.rows)
os.waitpid(decoder.pid, 0)
print(json.dumps(answers))
"""


@pytest.mark.upstream
def test_the_row_decoder_without_datasets_decodes_as_lcb_runner_does(upstream):
    """The grading process's row decoder imports lcb_runner's benchmark with a stand-in for
    the datasets library (it never loads a dataset): every judge corpus row decodes to what
    upstream's own CodeGenerationProblem gives with the real library, and a row it cannot
    read is rejected the same way."""
    done = subprocess.run(
        [sys.executable, "-c", DECODE_WITHOUT_DATASETS, grading._source(upstream)],
        capture_output=True, text=True, check=True, env=sandbox.child_environment(),
    )  # fmt: skip
    decoded = json.loads(done.stdout)
    benchmark = upstream.module("benchmarks.code_generation")  # with the real datasets
    for problem, row in judge.problems().items():
        try:
            expected = {"sample": benchmark.CodeGenerationProblem(**row).get_evaluation_sample()}
        except Exception as error:
            expected = judge.rejected(implementation.raised(error))
        assert decoded[problem] == expected, problem
    assert any("rejected" in answer for answer in decoded.values())
