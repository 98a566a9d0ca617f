"""``planfilter run`` / ``planfilter report`` and the runner: outputs, errors, resume after kill."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import BENCH
from traceutil import steps_by_run

from planfilter.bench.runner import RunConfig, run_benchmark
from planfilter.cli import cli
from planfilter.core.loading import load_registry, load_suite
from planfilter.filters import PAPER_METHODS
from planfilter.models import DEFAULT_MODELS

REGISTRY = str(BENCH / "registry.yaml")
TASKS = str(BENCH / "tasks.yaml")
SMALL = ["--registry", REGISTRY, "--tasks", TASKS, "--no-plots"]


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_run_writes_traces_and_report_and_prints_the_table(tmp_path):
    out = tmp_path / "out"
    result = invoke("run", *SMALL, "--methods", "all,cmtf", "--models", "sim/careful",
                    "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "Summary by model and method" in result.output
    assert "sim/careful" in result.output and "wrote" in result.output
    lines = [json.loads(line) for line in (out / "traces.jsonl").read_text().splitlines()]
    runs = [line for line in lines if line["type"] == "run"]
    assert len(runs) == 6 * 2 and all(r["complete"] for r in runs)
    rows = (out / "summary.csv").read_text().splitlines()
    assert rows[0].startswith("model,method,tasks,success,clean_success,wrong_tools,premature,"
                              "tools_per_step,steps,input_tokens,output_tokens")
    assert [r.split(",")[:3] for r in rows[1:]] == [["sim/careful", "all", "6"],
                                                    ["sim/careful", "cmtf", "6"]]
    cmtf = next(r for r in rows if ",cmtf," in r).split(",")
    assert cmtf[3] == cmtf[4] == "1.0" and cmtf[7] == "1.0"  # success (clean), tools/step
    before = (out / "summary.csv").read_text()
    (out / "summary.csv").unlink()
    again = invoke("report", str(out), "--no-plots")
    assert again.exit_code == 0 and (out / "summary.csv").read_text() == before


def test_errors_are_messages_not_tracebacks(tmp_path):
    for args, message in [
        (["--methods", "all,bm25"], "unknown filter method 'bm25'"),
        (["--models", "sim/reckless"], "unknown simulated model 'sim/reckless'"),
        (["--models", "gpt-4o"], "provider/model"),
        (["--planner", "fast"], "unknown planner 'fast'"),
        (["--seeds", "0"], "'--seeds': 0 is not in the range"),
        (["--methods", ","], "give at least one name"),
    ]:
        result = invoke("run", *SMALL, "--out", str(tmp_path), *args)
        assert result.exit_code != 0, args
        assert message in result.output, (args, result.output)
        assert "Traceback" not in result.output
    result = invoke("report", str(tmp_path))
    assert result.exit_code == 1 and "no traces here" in result.output


def test_defaults_are_the_paper_setup():
    config = RunConfig(registry=load_registry(REGISTRY), suite=load_suite(TASKS))
    assert config.methods == PAPER_METHODS and config.models == DEFAULT_MODELS
    assert DEFAULT_MODELS == ("sim/careful", "sim/confusable")
    options = config.run_options
    assert (config.seeds, options.steps, options.filter.planner) == (1, 6, "auto")
    assert (options.goal, options.approve_risky, options.env) == ("given", "always", "strict")
    assert config.out == Path("runs/latest")


def test_report_does_not_depend_on_concurrency(tmp_path):
    registry, suite = load_registry(REGISTRY), load_suite(TASKS)
    outputs = []
    for concurrency in (1, 4):
        seen: list[int] = []
        result = run_benchmark(
            RunConfig(registry=registry, suite=suite, seeds=2, concurrency=concurrency,
                      out=tmp_path / str(concurrency), plots=False),
            progress=lambda done, total, outcome, seen=seen: seen.append(done),
        )
        assert result.total == result.ran == 6 * 6 * 2 * 2 and result.skipped == 0
        assert seen == list(range(0, result.total + 1))
        outputs.append([(result.out / n).read_text() for n in ("summary.csv", "report.md")])
    assert outputs[0] == outputs[1]


def test_resume_after_sigkill_equals_an_uninterrupted_run(tmp_path):
    args = [*SMALL, "--seeds", "4", "--concurrency", "2"]
    total = 6 * 6 * 2 * 4
    killed = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-c", "from planfilter.cli import main; main()", "run", *args,
         "--out", str(killed)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    traces = killed / "traces.jsonl"
    deadline = time.monotonic() + 90
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if traces.exists() and traces.read_bytes().count(b'"type": "run"') >= 20:
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.002)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    done_before = traces.read_bytes().count(b'"type": "run"')
    assert 20 <= done_before < total
    # what a kill in the middle of a write leaves: a torn line
    with traces.open("a") as f:
        f.write('{"type": "step", "task": "move-001", "model": "sim/car')

    resumed = invoke("run", *args, "--out", str(killed), "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert f"resumed: {done_before} runs were already complete" in resumed.output

    fresh = invoke("run", *args, "--out", str(tmp_path / "fresh"))
    assert fresh.exit_code == 0, fresh.output
    got, want = steps_by_run(traces), steps_by_run(tmp_path / "fresh" / "traces.jsonl")
    assert len(got) == len(want) == total
    assert got == want
    assert ((killed / "summary.csv").read_text()
            == (tmp_path / "fresh" / "summary.csv").read_text())
    again = invoke("run", *args, "--out", str(killed), "--resume")
    assert f"resumed: {total} runs were already complete, 0 ran now" in again.output
    assert len(steps_by_run(traces)) == total


@pytest.mark.parametrize("command", [
    ["frontier", "--registry", REGISTRY, "--state", "date", "--state", "event_description",
     "--state", "new_time", "--goal", "event_updated"],
    ["validate", str(BENCH)],
])
def test_cheap_commands_do_not_import_litellm(command):
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from planfilter.cli import cli\n"
        f"result = CliRunner().invoke(cli, {command!r})\n"
        "assert result.exit_code == 0, result.output\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'litellm', 'matplotlib', 'rich', 'openai'}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
