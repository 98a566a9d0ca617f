"""A hidden tool is never executed: the library guard and the benchmark loop both refuse it."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_agent import script  # noqa: F401  (the scripted litellm provider fixture)

import planfilter.suites.bundled as bundled_module
from planfilter.bench.agent import AgentOptions, run_task
from planfilter.core.contracts import Registry, Tool
from planfilter.core.loading import load_registry, load_suite
from planfilter.core.resources import default_registry, default_suite
from planfilter.filters import FILTERS, PAPER_METHODS, Attempt, FilterOptions
from planfilter.filters.guard import ToolGuard
from planfilter.models import CallOptions

REGISTRY = load_registry(default_registry())
SUITE = load_suite(default_suite())
MOVE = SUITE.task("calendar-move-001")


class Executor:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []

    def __call__(self, name, arguments):
        self.calls.append((name, dict(arguments)))
        return {"ran": name}


def _guard(method="cmtf", **kw):
    return ToolGuard(REGISTRY, MOVE.goal, method, query=MOVE.query, **kw)


def test_visible_is_the_filter_and_a_visible_valid_call_runs():
    guard = _guard()
    state = dict(MOVE.state)
    assert guard.visible(state).tools == ("search_events",)
    run = Executor()
    args = {"date": state["date"], "event_description": state["event_description"]}
    result = guard.call(state, "search_events", json.dumps(args), run)
    assert result.decision.allowed and result.result == {"ran": "search_events"}
    assert run.calls == [("search_events", args)]
    assert guard.log == [result.decision] and guard.refused == ()


@pytest.mark.parametrize("name, arguments, reason", [
    ("update_event", {"event_id": "e", "new_time": "16:00"}, "'update_event' is not visible"),
    ("delete_all", {}, "'delete_all' does not exist"),
    ("search_events", {"date": 20261201, "event_description": "x"}, "argument 'date'"),
    ("search_events", {"date": "2026-12-01"}, "'event_description' is a required property"),
    ("search_events", "{date: tomorrow", "not valid JSON"),
    ("search_events", "[1, 2]", "must be a JSON object"),
])
def test_refused_calls_never_reach_the_executor_and_are_recorded(name, arguments, reason):
    guard = _guard()
    run = Executor()
    result = guard.call(dict(MOVE.state), name, arguments, run)
    assert not result.decision.allowed and reason in result.decision.reason
    assert result.result is None and run.calls == []
    assert guard.refused == (result.decision,)


@settings(max_examples=50, deadline=None)
@given(method=st.sampled_from([*PAPER_METHODS, "cmtf-recover"]),
       known=st.sets(st.sampled_from(sorted(REGISTRY.variables)), max_size=6),
       name=st.sampled_from(REGISTRY.names + ("teleport", "rm_rf")))
def test_no_call_outside_the_visible_set_ever_runs(method, known, name):
    """For every method and state, a call to a tool outside visible() never executes."""
    guard = _guard(method, options=FilterOptions(planner="native"))
    state = {v: "x" for v in known}
    run = Executor()
    shown = guard.visible(state).tools
    result = guard.call(state, name, {}, run)
    if name not in shown:
        assert not result.decision.allowed and run.calls == []
    assert all(call[0] in shown for call in run.calls)


def test_recovering_guard_hides_a_tool_that_failed():
    guard = _guard("cmtf-recover")
    state = dict(MOVE.state)
    history = [Attempt("search_events", "tool search_events failed: down")]
    decision = guard.check_call(state, "search_events", {"date": "d", "event_description": "e"},
                                history)
    assert not decision.allowed and "not visible" in decision.reason


def test_benchmark_loop_never_executes_a_hidden_tool(script, monkeypatch):  # noqa: F811
    executed: list[str] = []
    real = bundled_module.execute  # the mocked environment the loop runs calls in

    def spy(registry, task, state, name, arguments, **options):
        executed.append(name)
        return real(registry, task, state, name, arguments, **options)

    monkeypatch.setattr(bundled_module, "execute", spy)
    options = AgentOptions(call=CallOptions(sleep=lambda s: None))
    for method in FILTERS:
        executed.clear()
        script.call("update_event", event_id="evt_123", new_time="16:00")  # hidden first
        outcome = run_task(REGISTRY, MOVE, method=method, model="script/m", options=options)
        step = outcome.steps[0]
        # the loop executes exactly what Session.check allowed: a hidden tool never, and
        # evt_123, an id no tool returned yet, is refused as invented where it is visible
        assert executed == (["update_event"] if step.decision == "allowed" else []), method
        if "update_event" in step.visible:
            assert step.decision == "invented", method
        else:
            assert step.decision == "hidden" and step.error.endswith(
                "is not visible in this state; refused"), method
        assert not outcome.run.success


PAY = Registry(tools=(Tool(
    name="pay", requires=["recipient"], produces=["paid"],
    parameters={"type": "object", "required": ["recipient", "amount", "times"], "properties": {
        "recipient": {"type": "string"},
        "amount": {"type": "number"},
        "times": {"type": "integer"},
        "fee": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        "note": {"type": "string"}}}),))


def _pay(arguments):
    guard = ToolGuard(PAY, frozenset({"paid"}), provenance=False)
    run = Executor()
    return guard.call({"recipient": "CH93"}, "pay", arguments, run), run


@settings(max_examples=200, deadline=None)
@given(amount=st.decimals(min_value=-10**6, max_value=10**6, places=2, allow_nan=False,
                          allow_infinity=False),
       times=st.integers(0, 10**6))
def test_a_quoted_number_is_the_number_where_the_schema_asks_for_one(amount, times):
    """A tool's own lax validation takes "19.5" for a float: the guard takes it too, and the
    tool runs with the number, never with the text."""
    text = format(amount, "f")
    result, run = _pay({"recipient": "CH93", "amount": text, "times": str(times),
                        "fee": text, "note": text})
    assert result.decision.allowed, result.decision.reason
    (_, ran), = run.calls
    assert isinstance(ran["amount"], int | float) and ran["amount"] == float(text)
    assert isinstance(ran["fee"], int | float) and ran["fee"] == float(text)
    assert ran["times"] == times and type(ran["times"]) is int
    assert ran["note"] == text  # a text parameter keeps its text


@pytest.mark.parametrize("field, text", [
    ("amount", "19.5 EUR"), ("amount", "1e3"), ("amount", "01"), ("amount", "nineteen"),
    ("amount", ""), ("times", "2.5"), ("times", "two"),
])
def test_text_that_is_not_a_plain_numeral_is_still_refused(field, text):
    arguments = {"recipient": "CH93", "amount": 19.5, "times": 2} | {field: text}
    result, run = _pay(arguments)
    assert not result.decision.allowed and result.decision.kind == "arguments"
    assert f"argument '{field}'" in result.decision.reason and run.calls == []


def test_a_goal_given_as_one_name_is_that_variable_not_its_letters():
    by_name = ToolGuard(REGISTRY, "event_updated")  # type: ignore[arg-type]
    assert by_name.goal == frozenset({"event_updated"})
    assert by_name.visible(MOVE.state).tools == ToolGuard(REGISTRY, MOVE.goal).visible(
        MOVE.state).tools == ("search_events",)
