"""The agent loop and mocked environment, driven by a scripted model behind litellm.

The scripted provider (``script/...``) is registered with litellm exactly as the simulated
model is, so these tests exercise the real call path: litellm.completion, response parsing,
retries, usage. It replays queued replies: tool calls, text, malformed calls, exceptions.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

import pytest

from planfilter.bench.agent import AgentOptions, run_task, succeeded
from planfilter.core.schemas import argument_errors
from planfilter.core.tasks import Task
from planfilter.models import CallOptions, load_litellm, register_provider
from planfilter.suites.mocked import execute


class Scripted:
    """Builds the scripted provider lazily (litellm is imported on first use)."""

    def __init__(self) -> None:
        self.queue: deque[Any] = deque()
        self.seen: list[dict[str, Any]] = []

    def handler(self) -> Any:
        litellm = load_litellm()
        from litellm import CustomLLM

        from planfilter.models.sim_provider import build_response

        script = self

        class ScriptLLM(CustomLLM):
            def completion(self, model, messages, api_base="", custom_prompt_dict=None,  # type: ignore[override]
                           model_response=None, print_verbose=None, encoding=None,
                           api_key=None, logging_obj=None, optional_params=None, *args, **kw):
                params = optional_params or {}
                script.seen.append({"messages": messages, "tools": params.get("tools"),
                                    "seed": params.get("seed"),
                                    "tool_choice": params.get("tool_choice")})
                if not script.queue:
                    raise AssertionError("the script ran out of replies")
                item = script.queue.popleft()
                if isinstance(item, Exception):
                    raise item
                kind, payload = item
                if kind == "text":
                    return build_response(model, text=payload, prompt_tokens=100,
                                          completion_tokens=10)
                return build_response(model, calls=payload, prompt_tokens=100,
                                      completion_tokens=10)

        del litellm
        return ScriptLLM()

    # what the script can say
    def call(self, name: str, **arguments: Any) -> None:
        self.queue.append(("calls", [(name, json.dumps(arguments))]))

    def raw(self, name: str, arguments: str) -> None:
        self.queue.append(("calls", [(name, arguments)]))

    def calls(self, *names: str) -> None:
        self.queue.append(("calls", [(n, "{}") for n in names]))

    def text(self, content: str) -> None:
        self.queue.append(("text", content))

    def error(self, exc: Exception) -> None:
        self.queue.append(exc)


_SCRIPT = Scripted()


@pytest.fixture
def script():
    if not getattr(_SCRIPT, "registered", False):
        register_provider("script", _SCRIPT.handler())
        _SCRIPT.registered = True  # type: ignore[attr-defined]
    _SCRIPT.queue.clear()
    _SCRIPT.seen.clear()
    yield _SCRIPT
    assert not _SCRIPT.queue, "the script has unused replies"



def _run(registry, task, method="all", *, sleeps=None, max_steps=6, model="script/m"):
    options = AgentOptions(max_steps=max_steps, call=CallOptions(
        base_delay=0.25, sleep=(sleeps.append if sleeps is not None else lambda s: None)))
    return run_task(registry, task, method=method, model=model, seed=3, options=options)


MOVE_ARGS = {"date": "2026-12-01", "event_description": "dentist appointment"}


def test_success_updates_state_and_traces_every_step(script, registry, suite):
    task = suite.task("move-001")
    script.call("search_events", **MOVE_ARGS)
    script.call("update_event", event_id="evt_123", new_time="16:00")
    outcome = _run(registry, task)
    first, second = outcome.steps
    assert outcome.run.success and outcome.run.error is None and outcome.run.steps == 2
    assert first.visible == registry.names and first.chosen == "search_events"
    assert first.gold_next == "search_events" and second.gold_next == "update_event"
    assert first.produced == {"event_id": "evt_123"}
    assert second.state_before["event_id"] == "evt_123"
    assert second.state_after["event_updated"] is True
    assert (first.done, second.done, second.success) == (False, True, True)
    assert (outcome.run.input_tokens, outcome.run.output_tokens) == (200, 20)
    assert outcome.run.model_calls == 2 == len(script.seen)  # one reply a step
    # the model saw only the visible tools' schemas, the state, and the seed
    assert [t["function"]["name"] for t in script.seen[0]["tools"]] == list(registry.names)
    assert '- event_id: "evt_123"' in script.seen[1]["messages"][-1]["content"]
    assert script.seen[0]["seed"] == 3


def test_cmtf_shows_one_tool_per_step_on_the_running_example(script, registry, suite):
    script.call("search_events", **MOVE_ARGS)
    script.call("update_event", event_id="evt_123", new_time="16:00")
    outcome = _run(registry, suite.task("move-001"), "cmtf")
    assert [s.visible for s in outcome.steps] == [("search_events",), ("update_event",)]
    assert [[t["function"]["name"] for t in seen["tools"]] for seen in script.seen] == [
        ["search_events"], ["update_event"]]


def test_no_tool_call_fails(script, registry, suite):
    script.text("I would rather not.")
    outcome = _run(registry, suite.task("move-001"))
    assert not outcome.run.success
    assert outcome.run.error.startswith("model called no tool")
    assert outcome.steps[0].chosen is None and outcome.steps[0].done


def test_hallucinated_tool_is_refused(script, registry, suite):
    script.call("teleport_event", **MOVE_ARGS)
    step = _run(registry, suite.task("move-001")).steps[0]
    assert step.error == "'teleport_event' does not exist; refused"
    assert step.decision == "unknown" and step.faults == ("unknown tool",)
    assert step.produced == {} and step.state_after == step.state_before


def test_tool_not_visible_is_refused_never_executed(script, registry, suite):
    script.call("update_event", event_id="evt_guess", new_time="16:00")
    outcome = _run(registry, suite.task("move-001"), "cmtf")
    step = outcome.steps[0]
    assert step.error == "'update_event' is not visible in this state; refused"
    assert step.decision == "hidden"
    assert "event_updated" not in step.state_after and not outcome.run.success
    # update_event is side-effecting and event_id was unknown: a premature action
    assert step.premature and step.missing == ("event_id",)
    assert step.chosen == "update_event" and step.gold_next == "search_events"


def test_arguments_not_json_fail(script, registry, suite):
    script.raw("search_events", "{date: tomorrow")
    step = _run(registry, suite.task("move-001")).steps[0]
    assert step.error.startswith("arguments of search_events: not valid JSON")
    assert step.decision == "arguments" and step.faults == ("malformed JSON arguments",)
    assert step.arguments == "{date: tomorrow"


def test_arguments_failing_the_schema_name_tool_and_argument(script, registry, suite):
    script.call("search_events", date=20261201, event_description="dentist")
    step = _run(registry, suite.task("move-001")).steps[0]
    assert step.error == ("invalid arguments for search_events: argument 'date': 20261201 is "
                          "not of type 'string'")
    script.call("search_events", date="2026-12-01")
    step = _run(registry, suite.task("move-001")).steps[0]
    assert "'event_description' is a required property" in step.error


def test_several_tool_calls_fail_and_are_recorded(script, registry, suite):
    script.calls("search_events", "list_events")
    step = _run(registry, suite.task("move-001")).steps[0]
    assert step.calls == ("search_events", "list_events")
    assert step.error == ("model called 2 tools (search_events, list_events); exactly one is "
                          "allowed")


def test_tool_without_mock_fails(script, registry, suite):
    script.call("create_event", **MOVE_ARGS)
    step = _run(registry, suite.task("move-001")).steps[0]
    assert step.error == "no mocked output for create_event in task move-001"
    assert step.chosen == "create_event" and step.premature is False


def test_provider_errors_are_retried_with_backoff(script, registry, suite):
    litellm = load_litellm()
    script.error(litellm.RateLimitError("slow down", llm_provider="script", model="m"))
    script.error(litellm.InternalServerError("boom", llm_provider="script", model="m"))
    script.call("get_weather", city="Lisbon")
    sleeps: list[float] = []
    outcome = _run(registry, suite.task("weather-005"), sleeps=sleeps)
    assert outcome.run.success and outcome.steps[0].attempts == 3
    assert sleeps == [0.25, 0.5]


def test_provider_errors_exhausted_fail_the_run(script, registry, suite):
    litellm = load_litellm()
    for _ in range(3):
        script.error(litellm.Timeout("timed out", model="m", llm_provider="script"))
    sleeps: list[float] = []
    outcome = _run(registry, suite.task("weather-005"), sleeps=sleeps)
    assert not outcome.run.success and sleeps == [0.25, 0.5]
    assert outcome.run.error.startswith("model error: script/m: gave up after 3 tries: Timeout")


def test_permanent_provider_error_is_not_retried(script, registry, suite):
    litellm = load_litellm()
    script.error(litellm.AuthenticationError("bad key", llm_provider="script", model="m"))
    sleeps: list[float] = []
    outcome = _run(registry, suite.task("weather-005"), sleeps=sleeps)
    assert sleeps == [] and "AuthenticationError" in outcome.run.error


def test_no_tool_visible_fails_before_calling_the_model(script, registry):
    task = Task(id="stuck", query="q", state={"date": "d"}, goal=["never_produced"])
    outcome = _run(registry, task, "cmtf")
    assert outcome.run.error.startswith("no tool visible")
    assert "never_produced" in outcome.run.error and script.seen == []


def test_step_limit(script, registry):
    task = Task(id="loop", query="q", state={"date": "d"}, goal=["event_summary"],
                mocks={"list_events": {"event_list": "x"}})
    for _ in range(3):
        script.call("list_events", date="d")
    outcome = _run(registry, task, max_steps=3)
    assert outcome.run.steps == 3
    assert outcome.run.error == "step limit (3) reached without the goal"
    assert outcome.steps[-1].done and not outcome.run.success


def test_goal_false_is_not_success(script, registry, suite):
    task = suite.task("weather-005").model_copy(
        update={"mocks": {"get_weather": {"forecast": "false"}}})
    script.call("get_weather", city="Lisbon")
    outcome = _run(registry, task)
    assert outcome.steps[-1].done and not outcome.run.success
    assert not succeeded(task, {"forecast": False}) and succeeded(task, {"forecast": 0})


def test_goal_known_at_the_start_needs_no_step(script, registry):
    task = Task(id="done", query="q", state={"forecast": "rain"}, goal=["forecast"])
    outcome = _run(registry, task)
    assert outcome.steps == () and outcome.run.success and outcome.run.steps == 0


def test_environment_joins_mock_values_and_fills_unmocked_effects(registry, suite):
    task = suite.task("move-001").model_copy(update={"mocks": {"search_events": {}}})
    outcome = execute(registry, task, task.state, "search_events", MOVE_ARGS)
    assert outcome.ok and outcome.produced == {"event_id": True}
    assert outcome.state == {**task.state, "event_id": True}


def test_environment_errors_never_raise(registry, suite):
    task = suite.task("move-001")
    assert execute(registry, task, task.state, "nope", {}).error == "unknown tool 'nope'"
    assert argument_errors(registry.tool("search_events"), ["x"]) == [
        "arguments must be a JSON object, got list"]


def test_api_base_and_request_parameters_reach_litellm(monkeypatch):
    """openai/... models at --api-base: the same call, with api_base passed through."""
    litellm = load_litellm()
    sent: dict[str, Any] = {}

    def fake_completion(**kwargs: Any) -> Any:
        sent.update(kwargs)
        from planfilter.models.sim_provider import build_response

        return build_response(kwargs["model"], calls=[("t", "{}")], prompt_tokens=7,
                              completion_tokens=2)

    monkeypatch.setattr(litellm, "completion", fake_completion)
    from planfilter.models import complete

    tools = [{"type": "function", "function": {"name": "t", "parameters": {"type": "object"}}}]
    reply = complete("openai/local-model", [{"role": "user", "content": "hi"}], tools, seed=9,
                     options=CallOptions(api_base="http://127.0.0.1:9/v1"))
    assert sent["api_base"] == "http://127.0.0.1:9/v1" and sent["model"] == "openai/local-model"
    assert sent["tool_choice"] == "required" and sent["seed"] == 9 and sent["tools"] == tools
    assert sent["temperature"] == 0 and sent["drop_params"] is True
    assert "input_cost_per_token" not in sent  # only the free simulated model sets a price
    assert [c.name for c in reply.calls] == ["t"] and reply.input_tokens == 7
