"""Nothing lost: SIGKILL at 20 seeded points, resume each time, and get exactly the traces of
an uninterrupted run (no duplicates, no gaps, torn last lines dropped)."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import BENCH
from traceutil import steps_by_run

from planfilter.bench.runner import RunConfig, run_benchmark
from planfilter.bench.traces import read_traces
from planfilter.core.loading import load_registry, load_suite

METHODS = ("all", "cmtf", "cmtf-recover")
MODELS = ("sim/careful",)
SEEDS = 8
TOTAL = 6 * len(METHODS) * len(MODELS) * SEEDS
KILLS = 20
ARGS = ["run", "--registry", str(BENCH / "registry.yaml"), "--tasks", str(BENCH / "tasks.yaml"),
        "--methods", ",".join(METHODS), "--models", ",".join(MODELS), "--seeds", str(SEEDS),
        "--concurrency", "1", "--no-plots", "--resume"]


def _runs_done(traces: Path) -> int:
    return traces.read_bytes().count(b'"type": "run"') if traces.exists() else 0


@pytest.mark.slow
def test_twenty_sigkills_then_resume_equals_an_uninterrupted_run(tmp_path):
    rng = random.Random(20261130)
    out = tmp_path / "killed"
    traces = out / "traces.jsonl"
    kills = torn = 0
    attempts = 0
    while kills < KILLS:
        attempts += 1
        assert attempts < 3 * KILLS, "could not kill the run often enough"
        before = _runs_done(traces)
        assert before < TOTAL, f"the run finished after only {kills} kills"
        # kill after a seeded number of further runs, plus a seeded delay so that some kills
        # land in the middle of a run (or a write) rather than right after one; a few
        # milliseconds, about a run on an idle machine (a longer one let an idle machine
        # finish all the runs before the twentieth kill)
        target = before + rng.randint(1, 3)
        delay = rng.uniform(0.0, 0.005)
        proc = subprocess.Popen([sys.executable, "-c", "from planfilter.cli import main; main()",
                                 *ARGS, "--out", str(out)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        try:
            while time.monotonic() < deadline and proc.poll() is None:
                if _runs_done(traces) >= target:
                    time.sleep(delay)
                    proc.send_signal(signal.SIGKILL)
                    break
                time.sleep(0.001)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        if proc.returncode != -signal.SIGKILL:
            continue
        kills += 1
        if rng.random() < 0.3:  # what a kill in the middle of a write leaves: a torn line
            with traces.open("ab") as f:
                f.write(b'{"type": "step", "task": "move-001", "model": "sim/car')
            assert read_traces(traces).partial_tail
            torn += 1
    assert kills == KILLS and torn >= 1
    finish = subprocess.run([sys.executable, "-c", "from planfilter.cli import main; main()",
                             *ARGS, "--out", str(out)], capture_output=True, text=True,
                            timeout=300)
    assert finish.returncode == 0, finish.stdout + finish.stderr
    assert f"{TOTAL} runs in" in finish.stdout

    fresh = run_benchmark(RunConfig(
        registry=load_registry(BENCH / "registry.yaml"), suite=load_suite(BENCH / "tasks.yaml"),
        methods=METHODS, models=MODELS, seeds=SEEDS, concurrency=1, out=tmp_path / "fresh",
        plots=False))
    got, want = steps_by_run(traces), steps_by_run(fresh.traces)
    assert len(got) == len(want) == TOTAL
    assert got == want
    assert (out / "summary.csv").read_text() == (tmp_path / "fresh" / "summary.csv").read_text()
    assert not read_traces(traces).partial_tail and read_traces(traces).dropped_lines == 0
