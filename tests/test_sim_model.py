"""The simulated model: honest (sees only messages and tool schemas), seeded, litellm-native."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

import pytest

from planfilter.bench.agent import AgentOptions, build_messages, run_task
from planfilter.core.errors import PlanfilterError
from planfilter.models import PROFILES, check_model, complete, decide, load_litellm
from planfilter.models.sim import features, parse_prompt, words


def _prompt(registry, task, state=None, history=(), names=None):
    state = dict(task.state if state is None else state)
    names = list(names or registry.names)
    messages = build_messages(task, state, list(history), 1 + len(history), len(names), 6)
    return messages, [registry.tool(n).function_schema() for n in names]


def test_decide_sees_only_messages_tools_profile_and_seed():
    assert list(inspect.signature(decide).parameters) == ["messages", "tools", "profile", "seed"]


def test_prompt_is_parsed_back(registry, suite):
    task = suite.task("move-001")
    history = [{"tool": "search_events", "produced": ["event_id"]}]
    messages, _ = _prompt(registry, task, {**task.state, "event_id": "evt_123"}, history)
    prompt = parse_prompt(messages)
    assert prompt.request == task.query
    assert prompt.state == {**task.state, "event_id": "evt_123"}
    assert prompt.called == {"search_events"} and prompt.learned == {"event_id"}


def test_words_drop_stop_words_and_plurals():
    assert words("Search the events of my_calendar") == {"search", "event", "calendar"}


def test_features_are_computed_from_the_schema(registry, suite):
    task = suite.task("move-001")
    messages, _ = _prompt(registry, task)
    prompt = parse_prompt(messages)
    update = features(prompt, registry.tool("update_event").function_schema())
    search = features(prompt, registry.tool("search_events").function_schema())
    assert (update["fill"], search["fill"]) == (0.5, 1.0)
    assert update["verb"] == 1.0 and search["verb"] == 0.0  # "Move" asks for an action
    assert update["repeat"] == search["repeat"] == 0.0


def test_same_inputs_same_decision_and_seeds_matter(registry, suite):
    task = suite.task("move-001")
    messages, tools = _prompt(registry, task)
    profile = PROFILES["confusable"]
    assert decide(messages, tools, profile, 1) == decide(messages, tools, profile, 1)
    picks = {decide(messages, tools, profile, seed).tool for seed in range(30)}
    assert len(picks) > 1


def test_a_tools_noise_does_not_depend_on_the_other_tools(registry, suite):
    task = suite.task("move-001")
    messages, tools = _prompt(registry, task)
    full = dict(decide(messages, tools, PROFILES["confusable"], 5).scores)
    part = dict(decide(messages, tools[:3], PROFILES["confusable"], 5).scores)
    assert all(full[name] == part[name] for name in part)


def test_careful_waits_for_requirements_confusable_acts_early(registry, suite):
    task = suite.task("move-001")
    messages, tools = _prompt(registry, task, names=["search_events", "update_event"])
    careful = {decide(messages, tools, PROFILES["careful"], s).tool for s in range(30)}
    confusable = [decide(messages, tools, PROFILES["confusable"], s).tool for s in range(30)]
    assert careful == {"search_events"}
    assert "update_event" in confusable


def test_arguments_are_filled_from_state_values(registry, suite):
    task = suite.task("move-001")
    messages, tools = _prompt(registry, task, names=["search_events"])
    decision = decide(messages, tools, PROFILES["careful"], 0)
    assert decision.tool == "search_events"
    assert decision.arguments == {"date": "2026-12-01",
                                  "event_description": "dentist appointment"}
    assert decide(messages, [], PROFILES["careful"], 0) is None


def test_the_sim_never_sees_gold(registry, suite):
    """Changing the gold chain (and nothing the model is shown) changes no decision."""
    task = suite.task("summarize-002")
    other = task.model_copy(update={"gold": ("list_events", "create_event")})
    for model in ("sim/careful", "sim/confusable"):
        for method in ("all", "state-aware", "keyword-5"):
            a = run_task(registry, task, method=method, model=model, seed=2)
            b = run_task(registry, other, method=method, model=model, seed=2)
            assert [s.chosen for s in a.steps] == [s.chosen for s in b.steps]
            assert [s.arguments for s in a.steps] == [s.arguments for s in b.steps]


def test_through_litellm_one_tool_call_and_offline_usage(registry, suite):
    litellm = load_litellm()
    task = suite.task("move-001")
    messages, tools = _prompt(registry, task)
    reply = complete("sim/careful", messages, tools, seed=4)
    assert len(reply.calls) == 1 and reply.calls[0].name in registry.names
    expected = decide(messages, tools, PROFILES["careful"], 4)
    assert reply.calls[0].name == expected.tool
    assert reply.input_tokens == litellm.token_counter(model="sim/careful", messages=messages,
                                                       tools=tools)
    assert reply.input_tokens > litellm.token_counter(model="sim/careful", messages=messages)
    assert 0 < reply.output_tokens < 100


NETWORK_PROBE = """
import socket
tried = []
def refuse(*args, **kwargs):
    tried.append(args[:1])
    raise OSError("no network in this test")
socket.getaddrinfo = refuse
socket.socket.connect = refuse
import planfilter.models.sim_provider
print(len(tried))
"""


def test_importing_a_provider_module_on_its_own_touches_no_network():
    """litellm fetches its model cost map from GitHub on import unless told not to; every
    import of planfilter.models tells it, whichever submodule is imported first."""
    env = {k: v for k, v in os.environ.items() if k != "LITELLM_LOCAL_MODEL_COST_MAP"}
    done = subprocess.run([sys.executable, "-c", NETWORK_PROBE], capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0"], done.stdout + done.stderr


def test_seed_in_the_model_name(registry, suite):
    task = suite.task("move-001")
    messages, tools = _prompt(registry, task)
    for seed in range(5):
        named = complete(f"sim/confusable@{seed}", messages, tools)
        given = complete("sim/confusable", messages, tools, seed=seed)
        assert named.calls == given.calls


def test_model_names_are_checked():
    check_model("sim/careful")
    check_model("openai/gpt-4o-mini")
    with pytest.raises(PlanfilterError, match="unknown simulated model 'sim/reckless'"):
        check_model("sim/reckless")
    with pytest.raises(PlanfilterError, match="provider/model"):
        check_model("gpt-4o")


def test_careful_succeeds_with_cmtf_on_every_fixture_task(registry, suite):
    for task in suite:
        for model in ("sim/careful", "sim/confusable"):
            outcome = run_task(registry, task, method="cmtf", model=model,
                               options=AgentOptions())
            assert outcome.run.success, (task.id, model, outcome.run.error)
            assert all(len(s.visible) == 1 for s in outcome.steps)


def test_the_prompt_reader_takes_mcp_style_dotted_names():
    from planfilter.models.sim import parse_prompt

    prompt = parse_prompt([{"role": "user", "content":
                            "Request: commit\n\nKnown state:\n- git.repo_path: \"/r\"\n\n"
                            "Steps so far:\n1. git.git_add -> git.staged\n"}])
    assert prompt.state == {"git.repo_path": "/r"}
    assert prompt.called == {"git.git_add"} and prompt.learned == {"git.staged"}
