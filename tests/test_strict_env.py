"""Invented values are refused by Session.check under --env strict; the mocks answer an id
their task's world does not hold with an error result, as a service would; mocks fit the
`returns` schemas."""

from __future__ import annotations

import json

from click.testing import CliRunner
from test_agent import script  # noqa: F401  (the scripted litellm provider fixture)

from planfilter.bench.agent import AgentOptions, run_task
from planfilter.cli import cli
from planfilter.core.loading import load_registry, load_suite
from planfilter.core.resources import default_registry, default_suite
from planfilter.core.validate import validate_paths
from planfilter.live.goals import RESOLVERS, SET_GOAL
from planfilter.models import CallOptions
from planfilter.suites.mocked import execute

REGISTRY = load_registry(default_registry())
SUITE = load_suite(default_suite())
MOVE = SUITE.task("calendar-move-001")
OPTIONS = AgentOptions(call=CallOptions(sleep=lambda s: None))


def test_the_mocks_answer_an_unknown_id_with_an_error_and_lenient_takes_it():
    args = {"event_id": "evt_invented", "new_time": "16:00"}
    strict = execute(REGISTRY, MOVE, MOVE.state, "update_event", args)
    assert not strict.ok and strict.error == (
        "tool update_event failed: no event_id 'evt_invented' (argument 'event_id')")
    assert strict.state == dict(MOVE.state)  # a failed call changes nothing
    lenient = execute(REGISTRY, MOVE, MOVE.state, "update_event", args, strict=False)
    assert lenient.ok and lenient.produced["event_updated"] is True
    # a service knows the ids it issued, whether or not the caller has seen them: the
    # mocks judge no provenance (Session.check does)
    issued = MOVE.mocks["search_events"]["event_id"]
    fine = execute(REGISTRY, MOVE, MOVE.state, "update_event", {**args, "event_id": issued})
    assert fine.ok


def test_a_run_that_invents_an_id_is_refused_by_the_session_under_strict_only(script):  # noqa: F811
    for env, success, decision in (("strict", False, "invented"), ("lenient", True, "allowed")):
        script.call("update_event", event_id="evt_123", new_time="16:00")
        outcome = run_task(REGISTRY, MOVE, method="all", model="script/m",
                           options=AgentOptions(call=OPTIONS.call, env=env))
        assert outcome.run.success is success, env
        step = outcome.steps[0]
        # refused under strict; under lenient the session reports it and the call runs
        assert step.decision == decision and step.invented, env
        assert not step.tool_failed, env  # a refusal, never a failure of the tool


def test_an_issued_id_the_run_never_saw_is_refused_by_the_session_not_the_mock(script):  # noqa: F811
    issued = MOVE.mocks["search_events"]["event_id"]  # the mocks hold it; the run has not seen it
    script.call("update_event", event_id=issued, new_time="16:00")
    outcome = run_task(REGISTRY, MOVE, method="all", model="script/m", options=OPTIONS)
    step = outcome.steps[0]
    assert step.decision == "invented" and "event_id" in step.error
    assert not outcome.run.success and "event_updated" not in step.state_after


def test_every_bundled_mock_fits_its_tools_returns_schema(tmp_path):
    assert validate_paths([*default_registry(), default_suite()]).ok
    broken = tmp_path / "tasks.yaml"
    task = json.loads(MOVE.model_dump_json())
    task["mocks"]["search_events"] = {"event_id": 123}
    broken.write_text(json.dumps({"tasks": [task]}))
    report = validate_paths([*default_registry(), broken])
    assert any("mocks.search_events" in str(p) and "returns" in str(p) for p in report.problems)
    run = run_task(REGISTRY, load_suite(broken).tasks[0], method="cmtf", model="sim/careful",
                   options=OPTIONS)
    assert not run.run.success and "breaks its returns schema" in run.run.error


def _run_resolved(out, *extra: str) -> list[dict]:
    """`planfilter run --goal resolve` on one bundled calendar task with the scripted model;
    its trace lines."""
    result = CliRunner().invoke(cli, [
        "run", "--tasks", str(default_suite() / "calendar.yaml"), "--sample", "1",
        "--models", "script/m", "--methods", "cmtf", "--goal", "resolve", *extra,
        "--no-plots", "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in (out / "traces.jsonl").read_text().splitlines()]


def test_a_models_run_can_resolve_its_goal_by_retrieval(script, tmp_path):  # noqa: F811
    """--resolver retrieval: the goal is read from the request by retrieval, with no model
    call for it; the model's first call is a tool call."""
    script.call("search_events", date=MOVE.state["date"],
                event_description=MOVE.state["event_description"])
    script.call("update_event", event_id="evt_123", new_time="16:00")
    lines = _run_resolved(tmp_path / "run", "--resolver", "retrieval")
    run = next(line for line in lines if line["type"] == "run")
    assert run["goal_by"] == "retrieval"
    steps = [line for line in lines if line["type"] == "step"]
    assert steps[0]["chosen"] == "search_events"
    # every token the run spent was a step's: the goal took no model call
    assert run["input_tokens"] == sum(s["input_tokens"] for s in steps) > 0
    assert RESOLVERS == ("model", "retrieval")  # the choices the option offers


def test_run_resolves_goals_and_reports_goal_accuracy(script, tmp_path):  # noqa: F811
    script.call(SET_GOAL, goal="event_updated")
    script.call("search_events", date=MOVE.state["date"],
                event_description=MOVE.state["event_description"])
    script.call("update_event", event_id="evt_123", new_time="16:00")
    out = tmp_path / "run"
    lines = _run_resolved(out)
    run = next(line for line in lines if line["type"] == "run")
    assert run["goal"] == ["event_updated"] and run["goal_by"] == "model"
    assert run["goal_correct"] is True and run["success"] is True
    assert "Goal accuracy" in (out / "report.md").read_text()
    assert "goal_accuracy" in (out / "summary.csv").read_text()
