"""Approval of high-risk tools (never / ask / always) and the risky-off-path metric."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from click.testing import CliRunner
from test_agent import script  # noqa: F401  (the scripted litellm provider fixture)

from planfilter.bench.agent import AgentOptions, run_task
from planfilter.bench.metrics import group_by, runs_from_lines, summarize
from planfilter.bench.report import report_markdown, summary_csv
from planfilter.bench.traces import run_lines
from planfilter.cli import cli
from planfilter.core.errors import PlanfilterError
from planfilter.core.loading import load_registry, load_suite
from planfilter.core.resources import default_registry, default_suite
from planfilter.filters.guard import ToolGuard
from planfilter.filters.risk import ApprovalRequest, approve, on_path_approver, risky_off_path
from planfilter.models import CallOptions

REGISTRY = load_registry(default_registry())
SUITE = load_suite(default_suite())
CANCEL = SUITE.task("calendar-cancel-015")
HIGH = {t.name for t in REGISTRY if t.risk == "high"}
NO_SLEEP = CallOptions(sleep=lambda s: None)


def _request(tool="cancel_event", state=None):
    state = dict(CANCEL.state, event_id="evt_1") if state is None else state
    return ApprovalRequest(tool, {"event_id": "evt_1"}, state, CANCEL.goal)


def test_policies():
    assert approve("always", _request(), None).approved
    never = approve("never", _request(), lambda r: True)
    assert not never.approved and "policy never" in never.reason
    assert approve("ask", _request(), lambda r: True).approved
    assert not approve("ask", _request(), lambda r: False).approved
    assert approve("untainted", _request(), None).approved
    tainted = approve("untainted", replace(_request(), tainted=("sensitive argument 'x'",)),
                      None)
    assert not tainted.approved and "sensitive argument 'x'" in tainted.reason

    def broken(request):
        raise RuntimeError("reviewer offline")

    refused = approve("ask", _request(), broken)
    assert not refused.approved and "reviewer offline" in refused.reason
    with pytest.raises(PlanfilterError, match="needs an approver"):
        approve("ask", _request(), None)
    with pytest.raises(PlanfilterError, match="needs an approver"):
        ToolGuard(REGISTRY, CANCEL.goal, policy="ask")
    with pytest.raises(PlanfilterError, match="choose from never, ask, untainted, always"):
        approve("sometimes", _request(), None)  # type: ignore[arg-type]


def test_the_stand_in_approves_only_tools_on_the_minimal_causal_path():
    approver = on_path_approver(REGISTRY)
    assert approver(_request("cancel_event"))
    assert not approver(_request("delete_event"))  # risky, executable, not what was asked
    assert not approver(_request("share_calendar"))


def test_library_callback_decides_and_refusals_never_execute():
    asked: list[str] = []
    guard = ToolGuard(REGISTRY, CANCEL.goal, "all", policy="ask",
                      approver=lambda r: asked.append(r.tool) or r.tool == "cancel_event")
    state = dict(CANCEL.state, event_id="evt_1")
    ran: list[str] = []
    execute = lambda name, args: ran.append(name)  # noqa: E731
    assert guard.call(state, "cancel_event", {"event_id": "evt_1"}, execute).decision.allowed
    refused = guard.call(state, "delete_event", {"event_id": "evt_1"}, execute).decision
    assert not refused.allowed and refused.approval.startswith("refused")
    assert ran == ["cancel_event"] and asked == ["cancel_event", "delete_event"]
    # low-risk tools need no approval
    low = guard.check_call(state, "read_event", {"event_id": "evt_1"})
    assert low.allowed and low.approval is None and asked == ["cancel_event", "delete_event"]


def _run(policy, method="cmtf", model="sim/careful", approver=None):
    options = AgentOptions(call=NO_SLEEP, approve_risky=policy, approver=approver)
    return run_task(REGISTRY, CANCEL, method=method, model=model, options=options)


def test_benchmark_records_the_decision_per_step():
    always = _run("always")
    assert always.run.success and always.steps[-1].approval == "approved: policy always"
    assert always.steps[0].approval is None  # search_events is low risk
    never = _run("never")
    last = never.steps[-1]
    assert not never.run.success and last.chosen == "cancel_event"
    assert last.approval.startswith("refused: policy never")
    assert last.decision == "approval" and last.error.endswith("cancel_event is high-risk")
    assert "event_cancelled" not in last.state_after  # never executed
    ask = _run("ask")
    assert ask.run.success and ask.steps[-1].approval.startswith("approved: approver")


def test_ask_refuses_a_risky_tool_off_the_path(script):  # noqa: F811
    script.call("search_events", date=CANCEL.state["date"],
                event_description=CANCEL.state["event_description"])
    # the id search_events returned: only the approval decides
    script.call("delete_event", event_id=CANCEL.mocks["search_events"]["event_id"])
    options = AgentOptions(call=NO_SLEEP, approve_risky="ask")
    outcome = run_task(REGISTRY, CANCEL, method="all", model="script/m", options=options)
    last = outcome.steps[-1]
    assert last.chosen == "delete_event" and last.approval.startswith("refused")
    assert last.decision == "approval"
    assert "event_deleted" not in last.state_after and not outcome.run.success


def test_risky_off_path_counts_high_risk_tools_shown_off_the_path():
    state = dict(CANCEL.state)
    assert risky_off_path(REGISTRY, REGISTRY.names, state, CANCEL.goal) == tuple(
        n for n in REGISTRY.names if n in HIGH and n != "cancel_event")
    assert risky_off_path(REGISTRY, ("cancel_event", "read_event"), state, CANCEL.goal) == ()
    everything = _run("always", method="all")
    per_step = [len(s.risky_off_path) for s in everything.steps]
    assert per_step == [len(HIGH) - 1] * len(everything.steps)
    cmtf = _run("always")
    assert all(s.risky_off_path == () for s in cmtf.steps)
    lines = [json.loads(x) for x in
             (run_lines(everything.steps, everything.run) + run_lines(cmtf.steps, cmtf.run))
             .splitlines()]
    runs = {r.method: r for r in runs_from_lines(lines)}
    assert runs["all"].risky_off_path == sum(per_step) and runs["cmtf"].risky_off_path == 0
    assert summarize([runs["all"]]).risky_off_path == sum(per_step)
    csv = summary_csv(group_by(runs.values(), ("model", "method"))).splitlines()
    assert "risky_off_path" in csv[0].split(",")
    assert "Risky off-path" in report_markdown(list(runs.values()))


def test_cli_option(tmp_path):
    bench = "tests/fixtures/bench"
    args = ["run", "--registry", f"{bench}/registry.yaml", "--tasks", f"{bench}/tasks.yaml",
            "--no-plots", "--methods", "cmtf", "--models", "sim/careful", "--out", str(tmp_path)]
    bad = CliRunner().invoke(cli, [*args, "--approve-risky", "maybe"])
    assert bad.exit_code != 0 and "never" in bad.output
    result = CliRunner().invoke(cli, [*args, "--approve-risky", "never"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    steps = [json.loads(x) for x in (tmp_path / "traces.jsonl").read_text().splitlines()]
    refused = [s for s in steps if (s.get("approval") or "").startswith("refused")]
    assert refused and all(s["decision"] == "approval" for s in refused)
    assert "risky_off_path" in (tmp_path / "summary.csv").read_text().splitlines()[0]
