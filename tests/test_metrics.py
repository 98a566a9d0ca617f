"""Metrics, reports and the trace file, on hand-written traces with known answers."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import pytest

from planfilter.bench.metrics import (
    error_kind,
    failure_kind,
    group_by,
    runs_from_lines,
    summarize,
)
from planfilter.bench.report import build_report, write_report
from planfilter.bench.traces import RunKey, prepare_resume, read_traces
from planfilter.core.errors import PlanfilterError


def step(task, method, n, visible, chosen, gold, *, model="m", domain="calendar", tin=0,
         tout=0, premature=False, done=False, success=None, error=None):
    return {"type": "step", "task": task, "model": model, "method": method, "seed": 1,
            "domain": domain, "step": n, "visible": visible, "chosen": chosen,
            "gold_next": gold, "premature": premature, "input_tokens": tin,
            "output_tokens": tout, "done": done, "success": success, "error": error}


def end(task, method, steps, success, error=None, *, model="m", domain="calendar"):
    return {"type": "run", "task": task, "model": model, "method": method, "seed": 1,
            "domain": domain, "steps": steps, "success": success, "error": error,
            "complete": True}


LINES = [
    # run A (all): the gold tool is hidden at step 1 and a wrong tool is chosen; then a
    # premature choice that has no mock.
    step("t1", "all", 1, ["b", "c"], "b", "a", tin=100, tout=10),
    step("t1", "all", 2, ["a", "b", "c"], "a", "a", tin=120, tout=12, premature=True,
         done=True, success=False, error="no mocked output for a in task t1"),
    end("t1", "all", 2, False, "no mocked output for a in task t1"),
    # run B (all): one right step, success
    step("t2", "all", 1, ["a", "b"], "a", "a", domain="email", tin=50, tout=5, done=True,
         success=True),
    end("t2", "all", 1, True, domain="email"),
    # run C (cmtf): the model called no tool
    step("t1", "cmtf", 1, ["a"], None, "a", tin=30, done=True, success=False,
         error="model called no tool"),
    end("t1", "cmtf", 1, False, "model called no tool"),
    # run D: steps without the final line (an interrupted write): not a run
    step("t3", "all", 1, ["a"], "a", "a"),
]


def test_per_run_metrics():
    runs = {(r.task, r.method): r for r in runs_from_lines(LINES)}
    assert set(runs) == {("t1", "all"), ("t2", "all"), ("t1", "cmtf")}
    a = runs[("t1", "all")]
    assert (a.success, a.wrong_tools, a.premature, a.steps) == (False, 1, 1, 2)
    assert (a.visible_total, a.gold_visible, a.gold_steps) == (5, 1, 2)
    assert (a.input_tokens, a.output_tokens) == (220, 22)
    c = runs[("t1", "cmtf")]
    assert c.wrong_tools == 0  # no tool chosen: not a wrong tool


def test_group_averages_with_known_answers():
    by_method = {dict(s.group)["method"]: s for s in group_by(runs_from_lines(LINES),
                                                              ("method",))}
    assert list(by_method) == ["all", "cmtf"]
    s = by_method["all"]
    assert s.tasks == 2 and s.success == 0.5 and s.wrong_tools == 0.5 and s.premature == 0.5
    assert s.tools_per_step == pytest.approx(7 / 3)
    assert s.steps == 1.5 and s.input_tokens == 135 and s.output_tokens == 13.5
    assert s.tokens == 148.5
    assert s.gold_visible == pytest.approx(2 / 3)
    assert dict(s.errors) == {"no mocked output": 1}
    c = by_method["cmtf"]
    assert (c.tasks, c.success, c.tools_per_step, c.gold_visible) == (1, 0.0, 1.0, 1.0)
    assert dict(c.errors) == {"no tool call": 1}


def test_groups_by_domain_and_model():
    runs = runs_from_lines(LINES)
    domains = [dict(s.group) for s in group_by(runs, ("domain", "method"))]
    assert domains == [{"domain": "calendar", "method": "all"},
                       {"domain": "calendar", "method": "cmtf"},
                       {"domain": "email", "method": "all"}]
    assert summarize([]).tasks == 0


@pytest.mark.parametrize("error, kind", [
    ("no tool visible (native: unsolvable)", "no tool visible"),
    ("model called no tool", "no tool call"),
    ("model called 'x', which is not visible; refused", "tool not visible"),
    ("model called 2 tools (a, b); exactly one is allowed", "several tool calls"),
    ("arguments of x are not valid JSON: ...", "arguments not JSON"),
    ("invalid arguments for x: argument 'a': ...", "invalid arguments"),
    ("no mocked output for x in task t", "no mocked output"),
    ("model error: m: gave up after 3 tries", "provider error"),
    ("step limit (6) reached without the goal", "step limit"),
])
def test_error_kinds(error, kind):
    assert error_kind(error) == kind


def _write(path: Path, lines, tail: str = "") -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + tail)


def test_report_files_are_deterministic(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    _write(one / "traces.jsonl", LINES)
    shuffled = LINES[:-1]
    runs = [shuffled[0:3], shuffled[3:5], shuffled[5:7]]
    random.Random(4).shuffle(runs)
    _write(two / "traces.jsonl", [line for run in runs for line in run])
    a, b = build_report(one, plots=False), build_report(two, plots=False)
    for name in ("summary.csv", "report.md"):
        assert (one / name).read_text() == (two / name).read_text()
    assert a.plots == b.plots == ()
    rows = list(csv.DictReader((one / "summary.csv").open()))
    assert [(r["model"], r["method"], r["tasks"], r["success"]) for r in rows] == [
        ("m", "all", "2", "0.5"), ("m", "cmtf", "1", "0.0")]
    report = (one / "report.md").read_text()
    for heading in ("## By method", "## By model and method", "## By domain and method"):
        assert heading in report
    assert "| all | 2 | 0.50 | 0.50 | 0.50 | 0.50 | 2.33 |" in report


def test_plots_are_written(tmp_path):
    files = write_report(tmp_path, runs_from_lines(LINES))
    assert [p.name for p in files.plots] == ["success_by_method.png", "tokens_by_method.png"]
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in files.plots)


def test_report_without_traces_is_an_error(tmp_path):
    with pytest.raises(PlanfilterError, match="no traces here"):
        build_report(tmp_path)
    (tmp_path / "traces.jsonl").write_text("")
    with pytest.raises(PlanfilterError, match="no complete run"):
        build_report(tmp_path)


def test_resume_drops_a_torn_line_and_unfinished_runs(tmp_path):
    path = tmp_path / "traces.jsonl"
    _write(path, LINES, tail='{"type": "step", "task": "t4", "mod')
    traces = read_traces(path)
    assert traces.partial_tail and traces.dropped_lines == 2
    finished = prepare_resume(path)
    assert finished == {RunKey("t1", "m", "all", 1), RunKey("t2", "m", "all", 1),
                        RunKey("t1", "m", "cmtf", 1)}
    kept = path.read_text().splitlines()
    assert len(kept) == 7 and all(json.loads(line)["task"] != "t3" for line in kept)
    assert prepare_resume(path) == finished and len(path.read_text().splitlines()) == 7


def test_resume_drops_an_invalid_last_line_but_not_a_corrupt_middle(tmp_path):
    path = tmp_path / "traces.jsonl"
    _write(path, LINES[:3], tail="garbage\n")
    assert read_traces(path).dropped_lines == 1
    _write(path, [LINES[0]], tail="garbage\n" + json.dumps(LINES[1]) + "\n")
    with pytest.raises(PlanfilterError, match=r"traces.jsonl:2: not a trace line"):
        read_traces(path)
    assert read_traces(tmp_path / "missing.jsonl").finished == frozenset()


def test_success_without_a_premature_action():
    """A run that reached the goal after a premature call (an invented id the mock accepted)
    counts as a success, but not as a clean one."""
    lines = [
        step("t1", "causal-path", 1, ["a", "b"], "b", "a", premature=True, done=True,
             success=True),
        end("t1", "causal-path", 1, True),
        step("t2", "causal-path", 1, ["a"], "a", "a", done=True, success=True),
        end("t2", "causal-path", 1, True),
        step("t3", "causal-path", 1, ["a"], "a", "a", premature=True, done=True,
             success=False, error="no mocked output for a in task t3"),
        end("t3", "causal-path", 1, False, "no mocked output for a in task t3"),
    ]
    summary = summarize(runs_from_lines(lines))
    assert summary.success == pytest.approx(2 / 3)
    assert summary.clean_success == pytest.approx(1 / 3)
    assert summarize(runs_from_lines(LINES)).clean_success == pytest.approx(1 / 3)


#: Under --goal resolve: run W resolved the wrong goal, called a tool off the task's chain and
#: hit a missing mock; run R resolved it right and failed the same way; run S resolved a wrong
#: goal that still reached the task's.
RESOLVED = [
    step("t1", "cmtf", 1, ["b"], "b", "a", done=True, success=False,
         error="no mocked output for b in task t1"),
    {**end("t1", "cmtf", 1, False, "no mocked output for b in task t1"),
     "goal": ["y"], "goal_by": "model", "goal_correct": False},
    step("t2", "cmtf", 1, ["a", "b"], "b", "a", done=True, success=False,
         error="no mocked output for b in task t2"),
    {**end("t2", "cmtf", 1, False, "no mocked output for b in task t2"),
     "goal": ["x"], "goal_by": "model", "goal_correct": True},
    step("t3", "cmtf", 1, ["a"], "a", "a", done=True, success=True),
    {**end("t3", "cmtf", 1, True), "goal": ["x", "z"], "goal_by": "model",
     "goal_correct": False},
]


def test_a_wrongly_resolved_goal_is_a_wrong_goal_failure(tmp_path):
    from planfilter.bench.html import OUTCOMES, outcome, report_data

    runs = {r.task: r for r in runs_from_lines(RESOLVED)}
    assert [failure_kind(runs[t]) for t in ("t1", "t2", "t3")] == [
        "wrong goal", "no mocked output", None]
    assert [outcome(runs[t]) for t in ("t1", "t2", "t3")] == [
        "wrong goal", "wrong tool", "success"]
    assert dict(summarize(list(runs.values())).errors) == {"no mocked output": 1,
                                                            "wrong goal": 1}
    data = report_data(RESOLVED, group_by(runs.values(), ("model", "method")))
    assert "wrong goal" in data["outcomes"]
    assert {r[0]: data["outcomes"][r[5]] for r in data["runs"]} == {
        "t1": "wrong goal", "t2": "wrong tool", "t3": "success"}
    assert OUTCOMES.index("wrong goal") == data["outcomes"].index("wrong goal")

    _write(tmp_path / "traces.jsonl", RESOLVED)
    build_report(tmp_path, plots=False)
    report = (tmp_path / "report.md").read_text()
    failures = report.split("## Failures by method\n")[1].split("##")[0]
    assert "| Method | no mocked output | wrong goal |" in failures
    assert "| cmtf | 1 | 1 |" in failures
    # a goal that was not given names its source in every table, with the goal switches
    by_method = report.split("## By method\n")[1].split("##")[0].strip().splitlines()
    assert by_method[0].endswith("| Goal from | Goal switches |")
    assert by_method[2].endswith("| model | 0.00 |")


def test_model_calls_and_tokens_a_call_over_the_runs_that_counted_them(tmp_path):
    def counted(line, calls):
        return {**line, "model_calls": calls, "input_tokens": 90 * calls,
                "output_tokens": 10 * calls}

    lines = [*LINES[:2], counted(LINES[2], 2), LINES[3], counted(LINES[4], 1), *LINES[5:7]]
    by_method = {dict(s.group)["method"]: s for s in group_by(runs_from_lines(lines),
                                                              ("method",))}
    # t2's line says 1 reply: (200 + 100) tokens over 3 replies; cmtf's run did not count
    assert by_method["all"].model_calls == 1.5 and by_method["all"].tokens_per_call == 100
    assert by_method["cmtf"].model_calls is None and by_method["cmtf"].tokens_per_call is None
    _write(tmp_path / "traces.jsonl", lines)
    build_report(tmp_path, plots=False)
    table = (tmp_path / "report.md").read_text().split("## By method\n")[1].split("##")[0]
    rows = table.strip().splitlines()
    assert rows[0].endswith("| Model calls | Tokens a call |")
    assert rows[2].endswith("| 1.50 | 100 |") and rows[3].endswith("| - | - |")
    header, all_row, cmtf_row = (tmp_path / "summary.csv").read_text().splitlines()
    assert header.endswith(",model_calls,tokens_per_call") and all_row.endswith(",1.5,100.0")
    assert cmtf_row.endswith(",,")  # not counted: empty, not 0
    from planfilter.bench.html import report_data

    groups = group_by(runs_from_lines(lines), ("model", "method"))
    data = report_data(lines, groups)
    assert [c[0] for c in data["columns"][-2:]] == ["model_calls", "tokens_per_call"]
    assert [r["tokens_per_call"] for r in data["summary"]] == [100, None]
    assert "model_calls" not in [c[0] for c in report_data(LINES, group_by(
        runs_from_lines(LINES), ("model", "method")))["columns"]]
    # a replay (no model) counts no call: the columns stay out
    assert summarize(runs_from_lines([{**LINES[5], "input_tokens": 0},
                                      LINES[6]])).model_calls is None


def test_a_given_goal_adds_no_goal_columns(tmp_path):
    _write(tmp_path / "traces.jsonl", LINES)
    build_report(tmp_path, plots=False)
    assert "Goal from" not in (tmp_path / "report.md").read_text()
    assert "goal_from" not in (tmp_path / "summary.csv").read_text()


def test_an_oracle_replay_says_where_its_goal_came_from(tmp_path):
    def replay(task, goal_by, switches):
        key = {"task": task, "model": "oracle", "method": "cmtf", "seed": 1,
               "domain": "banking"}
        return [{**key, "type": "step", "step": 1, "visible": ["a"], "chosen": "a",
                 "gold_next": "a", "decision": "allowed", "done": True, "success": True},
                {**key, "type": "run", "steps": 1, "success": True, "complete": True,
                 "goal_by": goal_by, "switches": switches}]

    _write(tmp_path / "traces.jsonl", replay("u1", "retrieval", 2) + replay("u2", "retrieval", 0))
    build_report(tmp_path, plots=False)
    table = (tmp_path / "report.md").read_text().split("## Model-free replay")[1]
    assert "| banking | cmtf | retrieval | 2 | 1.00 | 1.00 | 1.00 | 1.00 | 1.00 | - |" in table


def test_attacker_calls_are_split_by_what_they_do_and_when(tmp_path):
    def probe(at, tool, kind, *, write, shown):
        return {"at": at, "tool": tool, "kind": kind, "reason": "", "write": write,
                "shown": shown}

    def replay(task, probes):
        key = {"task": task, "model": "oracle", "method": "cmtf", "seed": 1,
               "domain": "banking"}
        return [{**key, "type": "step", "step": 1, "visible": ["a"], "chosen": "a",
                 "gold_next": "a", "decision": "allowed", "done": True, "success": True},
                {**key, "type": "run", "steps": 1, "success": True, "complete": True,
                 "goal_by": "retrieval", "attack": "x", "attack_success": False,
                 "probes": probes}]

    lines = replay("u1+i1", [probe(0, "get_balance", "allowed", write=False, shown=False),
                             probe(0, "send_money", "allowed", write=True, shown=False),
                             probe(1, "get_balance", "allowed", write=False, shown=True),
                             probe(1, "send_money", "tainted", write=True, shown=True)])
    lines += replay("u2+i1", [probe(0, "send_money", "hidden", write=True, shown=False),
                              probe(1, "send_money", "tainted", write=True, shown=True),
                              probe(1, "a", "allowed", write=False, shown=True)])
    _write(tmp_path / "traces.jsonl", lines)
    build_report(tmp_path, plots=False)
    table = (tmp_path / "report.md").read_text().split("### Attacker calls")[1]
    # 7 tries, 4 allowed; 4 once the text was shown, 2 of them allowed, 1 of those of a tool
    # the user task calls itself ("a"); 1 write allowed
    assert "| banking | cmtf | retrieval | 2 | 7 | 0.43 | 4 | 0.50 | 1 of 2 | 1 |" in table


def test_probes_that_do_not_say_when_leave_the_split_out(tmp_path):
    key = {"task": "u1+i1", "model": "oracle", "method": "cmtf", "seed": 1,
           "domain": "banking"}
    _write(tmp_path / "traces.jsonl", [
        {**key, "type": "step", "step": 1, "visible": ["a"], "chosen": "a", "gold_next": "a",
         "decision": "allowed", "done": True, "success": True},
        {**key, "type": "run", "steps": 1, "success": True, "complete": True,
         "attack": "x", "attack_success": False,
         "probes": [{"at": 0, "tool": "send_money", "kind": "hidden", "reason": ""}]}])
    build_report(tmp_path, plots=False)
    table = (tmp_path / "report.md").read_text().split("### Attacker calls")[1]
    assert "| banking | cmtf | given | 1 | 1 | 1.00 | - | - | - | - |" in table
