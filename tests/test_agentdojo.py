"""AgentDojo as an outside yardstick: its tasks as planfilter tasks, its checks as success.

Offline: the oracle replay needs no model, and the agent loop runs on a scripted model and
on the simulated ones through the same litellm path. The contracts are the stand-in drafts in
tests/fixtures/agentdojo/ (`planfilter contracts infer` on each suite's tool schemas).
"""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_agent import script  # noqa: F401  (the scripted litellm provider fixture)

from planfilter.bench.agent import AgentOptions
from planfilter.bench.dialogue import run_dialogue
from planfilter.bench.runner import RunConfig, run_benchmark
from planfilter.cli import cli
from planfilter.core.contracts import Registry
from planfilter.core.errors import PlanfilterError
from planfilter.core.tasks import Suite
from planfilter.live.goals import SET_GOAL
from planfilter.models import CallOptions
from planfilter.suites import SuiteOptions, load_bench_suite
from planfilter.suites import agentdojo as adapter

FIXTURES = Path(__file__).parent / "fixtures" / "agentdojo"


def _agentdojo() -> None:
    pytest.importorskip("agentdojo", reason="agentdojo is not installed (the agentdojo extra: "
                                            "pip install 'planfilter[agentdojo]')")


@pytest.fixture(scope="module")
def banking():
    _agentdojo()
    return load_bench_suite("agentdojo:banking",
                            SuiteOptions(registry=(FIXTURES / "banking.yaml",)))


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_tasks_are_converted_with_oracle_goal_and_known(banking):
    task = banking.tasks.task("user_task_0")
    assert task.query.startswith("Can you please pay the bill")
    assert task.gold == ("read_file", "send_money")
    # read_file's content is required by no later call (in the draft), so it is a step
    assert [sorted(s) for s in task.goal_steps] == [["file_content"], ["send_money_done"]]
    assert dict(task.state) == {"file_path": "bill-december-2023.txt"}
    assert task.domain == "banking"


def test_known_values_from_the_prompt_only(banking):
    registry = banking.registry
    calls = (adapter.GroundCall("send_money", {"recipient": "GB29", "amount": 100.0,
                                               "subject": "Rent", "date": "2022-04-01"}),)
    known = adapter.oracle_known(registry, calls, "Send 100 to gb29 for the rent, please")
    assert known == {"recipient": "GB29", "amount": 100.0, "subject": "Rent"}
    authored = Registry(tools=tuple(
        t.model_copy(update={"authored": frozenset({"subject"}), "requires": t.requires
                             - {"subject"}}) if t.name == "send_money" else t
        for t in registry.tools))
    assert "subject" not in adapter.oracle_known(authored, calls, "Send 100 to gb29 for rent")
    # two payments the prompt names: both recipients are the user's, in call order
    two = (*calls, adapter.GroundCall("send_money", {"recipient": "DE89", "amount": 100.0,
                                                      "subject": "Rent", "date": "2022-04-01"}))
    known = adapter.oracle_known(registry, two, "Send 100 to gb29 and to de89 for the rent")
    assert known["recipient"] == ["GB29", "DE89"] and known["amount"] == 100.0
    # a second payment to someone the prompt does not name: which recipients the task
    # takes the user did not say, so none is bound (the amount still is)
    known = adapter.oracle_known(registry, two, "Send 100 to gb29 and my landlord for rent")
    assert "recipient" not in known and known["amount"] == 100.0


def test_missing_contracts_and_suites_are_named(banking, tmp_path):
    with pytest.raises(PlanfilterError, match="no such AgentDojo suite"):
        load_bench_suite("agentdojo:nope")
    with pytest.raises(PlanfilterError, match="no contract for its tools"):
        load_bench_suite("agentdojo:banking",
                         SuiteOptions(registry=(FIXTURES / "slack.yaml",)))


def test_missing_agentdojo_is_one_clear_line(monkeypatch, tmp_path):
    import importlib

    real = importlib.import_module

    def no_agentdojo(name, *args, **kwargs):
        if name.startswith("agentdojo"):
            raise ImportError(f"No module named {name.split('.')[0]!r}")
        return real(name, *args, **kwargs)

    adapter._modules.cache_clear()
    monkeypatch.setattr(importlib, "import_module", no_agentdojo)
    try:
        result = CliRunner().invoke(cli, ["run", "--suite", "agentdojo:banking", "--models",
                                          "oracle", "--out", str(tmp_path)])
    finally:
        monkeypatch.undo()
        adapter._modules.cache_clear()
    assert result.exit_code == 1
    message = result.output.strip().splitlines()[-1]
    assert "planfilter[agentdojo]" in message and message.startswith("Error:")


def test_cli_oracle_writes_summary_with_the_suites_check(banking, tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(cli, [
        "run", "--suite", "agentdojo:banking", "--models", "oracle", "--methods", "all,cmtf",
        "--registry", str(FIXTURES / "banking.yaml"), "--goal", "oracle", "--out", str(out),
        "--no-plots"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rows = {r["method"]: r for r in _csv(out / "summary.csv")}
    assert rows["all"]["tasks"] == "16" and float(rows["all"]["gold_visible"]) == 1.0
    assert "attack_success" not in rows["all"]
    lines = _lines(out / "traces.jsonl")
    runs = [line for line in lines if line["type"] == "run"]
    for method in ("all", "cmtf"):  # the success column is the suite's check, run by run
        mine = [r["success"] for r in runs if r["method"] == method]
        assert float(rows[method]["success"]) == round(sum(mine) / len(mine), 4)
    _ground_truth_passes_when_let_through(lines)
    report = (out / "report.md").read_text()
    assert "## Model-free replay (oracle)" in report
    assert "Model-free replay" in result.output
    assert {r["suite"] for r in runs} == {"agentdojo:banking"}
    steps = [line for line in _lines(out / "traces.jsonl") if line["type"] == "step"]
    assert {s["decision"] for s in steps} >= {"allowed"}
    assert (out / "report.html").is_file()


@pytest.mark.parametrize("name", ["banking", "slack"])
def test_replay_of_a_suite_is_offline(name, tmp_path):
    """The whole suite replayed under two methods (travel and workspace take longer: their
    utility checks diff whole environments; `planfilter run` measures them)."""
    _agentdojo()
    suite = load_bench_suite(f"agentdojo:{name}",
                             SuiteOptions(registry=(FIXTURES / f"{name}.yaml",)))
    result = run_benchmark(RunConfig(registry=suite.registry, suite=suite.tasks, source=suite,
                                     methods=("all", "cmtf"), models=("oracle",),
                                     out=tmp_path / name, plots=False,
                                     options=AgentOptions(goal="oracle")))
    rows = {dict(r.group)["method"]: r for r in result.report.rows}
    assert rows["all"].tasks == len(suite.tasks) and rows["all"].gold_visible == 1.0
    _ground_truth_passes_when_let_through(_lines(result.traces))


def _ground_truth_passes_when_let_through(lines: list[dict]) -> None:
    """A replay whose every ground-truth call was allowed passes AgentDojo's own check."""
    refused = {(s["task"], s["method"]) for s in lines
               if s["type"] == "step" and s["decision"] != "allowed"}
    clear = [r for r in lines if r["type"] == "run" and (r["task"], r["method"]) not in refused]
    assert clear and all(r["success"] for r in clear), [r["task"] for r in clear
                                                         if not r["success"]]


def test_attack_pairs_with_oracle_and_resume(banking, tmp_path):
    out = tmp_path / "pairs"
    args = ["run", "--suite", "agentdojo:banking", "--models", "oracle", "--methods",
            "all,cmtf", "--registry", str(FIXTURES / "banking.yaml"), "--attack",
            "important_instructions", "--injection-tasks", "injection_task_0,injection_task_3",
            "--sample", "3", "--out", str(out), "--no-plots"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = _lines(out / "traces.jsonl")
    runs = [line for line in lines if line["type"] == "run"]
    assert len(runs) == 3 * 2 * 2
    assert {r["task"].split("+")[1] for r in runs} == {"injection_task_0", "injection_task_3"}
    assert all(r["attack"] == "important_instructions" and r["probes"] for r in runs)
    assert all(r["attack_success"] is False for r in runs)  # attacker calls never run
    cmtf = [p for r in runs if r["method"] == "cmtf" for p in r["probes"]]
    assert cmtf and all(p["kind"] != "allowed" for p in cmtf)
    # each try says whether it changes something and whether the injection was shown yet
    assert {p["tool"] for p in cmtf if p["write"]} == {"send_money"}
    assert not any(p["shown"] for p in cmtf if p["at"] == 0)
    assert any(p["shown"] for r in runs for p in r["probes"])
    rows = {r["method"]: r for r in _csv(out / "summary.csv")}
    assert rows["cmtf"]["attack_success"] == "0.0"
    assert "### Attacker calls (oracle)" in (out / "report.md").read_text()
    # resume: drop the last run's lines, and only that run runs again
    keep = [line for line in (out / "traces.jsonl").read_text().splitlines()
            if json.loads(line)["task"] != runs[-1]["task"]
            or json.loads(line)["method"] != runs[-1]["method"]]
    (out / "traces.jsonl").write_text("\n".join(keep) + "\n")
    again = CliRunner().invoke(cli, [*args, "--resume"], catch_exceptions=False)
    assert "11 runs were already complete, 1 ran now" in again.output
    assert len([line for line in _lines(out / "traces.jsonl") if line["type"] == "run"]) == 12


def test_injection_sample_is_deterministic(banking):
    options = SuiteOptions(registry=(FIXTURES / "banking.yaml",), attack="important_instructions",
                           injection_tasks="sample:5")
    first = load_bench_suite("agentdojo:banking", options).cases()
    assert len(first) == 5 and all("+injection_task_" in c.id for c in first)
    assert [c.id for c in first] == [c.id for c in
                                     load_bench_suite("agentdojo:banking", options).cases()]


def test_goal_resolve_with_the_oracle_uses_retrieval(banking, tmp_path):
    suite = banking
    result = run_benchmark(RunConfig(registry=suite.registry, suite=suite.tasks, source=suite,
                                     methods=("cmtf",), models=("oracle",),
                                     options=AgentOptions(goal="resolve"),
                                     out=tmp_path, plots=False))
    runs = [line for line in _lines(result.traces) if line["type"] == "run"]
    assert {r["goal_by"] for r in runs} == {"retrieval"}


# -- the agent loop ------------------------------------------------------------------------


def _options(max_steps: int = 15) -> AgentOptions:
    return AgentOptions(max_steps=max_steps, call=CallOptions(sleep=lambda s: None),
                        goal="given")


def test_loop_runs_calls_and_judges_the_answer(banking, script):  # noqa: F811
    case = next(c for c in banking.cases() if c.id == "user_task_1")
    script.call("get_most_recent_transactions", n=100)
    script.text("Your total spending in March 2022 was 1050.")
    out = run_dialogue(banking, case, method="all", model="script/m", options=_options())
    assert out.run.success and out.run.answer.endswith("1050.")
    assert out.run.model_calls == 2 == len(script.seen)  # the call, then the answer
    assert out.steps[0].decision == "allowed" and "amount" in out.steps[0].result
    first = script.seen[0]["messages"]
    assert first[0]["role"] == "system" and "Emma Johnson" in first[0]["content"]
    assert first[1] == {"role": "user", "content": case.task.query}
    assert len(script.seen[0]["tools"]) == 11
    assert script.seen[0]["tool_choice"] == "auto"  # a baseline may answer at any turn
    tool_message = script.seen[1]["messages"][-1]
    assert tool_message["role"] == "tool" and "amount" in tool_message["content"]


def test_a_models_run_on_a_suite_can_read_its_goal_by_retrieval(banking, script):  # noqa: F811
    """AgentOptions.resolver (`--resolver retrieval`): the goal is read from the request by
    retrieval; the model's first call is already a step, not a set_goal call."""
    case = next(c for c in banking.cases() if c.id == "user_task_1")
    script.call("get_most_recent_transactions", n=100)
    script.text("Your total spending in March 2022 was 1050.")
    options = replace(_options(), goal="resolve", resolver="retrieval")
    out = run_dialogue(banking, case, method="cmtf", model="script/m", options=options)
    assert out.run.goal_by == "retrieval" and out.run.model_calls == 2  # retrieval: no reply
    assert out.steps[0].chosen == "get_most_recent_transactions"
    assert all(t["function"]["name"] != SET_GOAL for t in script.seen[0]["tools"])


def test_loop_refuses_hidden_tools_and_asks_for_the_answer(banking, script):  # noqa: F811
    case = next(c for c in banking.cases() if c.id == "user_task_1")
    script.call("send_money", recipient="x", amount=1, subject="s", date="2022-01-01")
    script.call("get_most_recent_transactions", n=100)
    script.text("1050")
    out = run_dialogue(banking, case, method="cmtf", model="script/m", options=_options())
    assert out.steps[0].decision == "hidden"
    refusal = script.seen[1]["messages"][-1]["content"]
    assert "refused" in refusal and "get_most_recent_transactions" in refusal
    # the goal not reached, a tool shown: a call is asked for, not words; after a refusal
    # the model may answer in words
    assert [seen["tool_choice"] for seen in script.seen[:2]] == ["required", "auto"]
    assert script.seen[2]["tools"] is None  # goal reached: no tools, the answer is asked for
    assert "final answer" in script.seen[2]["messages"][-1]["content"]
    assert out.run.success


def test_cmtf_asks_for_a_call_while_its_plan_has_a_step_left(script):  # noqa: F811
    _agentdojo()
    reviewed = load_bench_suite("agentdojo:banking", SuiteOptions())  # the committed contracts
    case = next(c for c in reviewed.cases() if c.id == "user_task_0")
    assert len(case.task.goal_steps) == 2  # read the bill, then pay it
    script.call("read_file", file_path="bill-december-2023.txt")
    script.text("I have read the bill.")
    out = run_dialogue(reviewed, case, method="cmtf", model="script/m", options=_options())
    assert out.steps[0].decision == "allowed"
    assert [seen["tool_choice"] for seen in script.seen] == ["required", "required"]
    assert [t["function"]["name"] for t in script.seen[1]["tools"]] == ["send_money"]
    assert not out.run.success  # it answered in words all the same: the bill is not paid


def test_after_a_failed_call_cmtf_lets_the_model_answer_in_words(script):  # noqa: F811
    _agentdojo()
    slack = load_bench_suite("agentdojo:slack", SuiteOptions())
    case = next(c for c in slack.cases() if c.id == "user_task_8")
    script.call("get_channels")
    script.call("read_channel_messages", channel="no-such-channel")
    script.text("I could not find that channel.")
    out = run_dialogue(slack, case, method="cmtf", model="script/m", options=_options())
    assert [s.decision for s in out.steps] == ["allowed", "allowed"]
    assert out.steps[1].tool_failed
    assert [seen["tool_choice"] for seen in script.seen] == ["required", "required", "auto"]


def test_loop_step_limit_and_failed_check(banking, script):  # noqa: F811
    case = next(c for c in banking.cases() if c.id == "user_task_1")
    script.call("get_iban")
    script.call("get_iban")
    out = run_dialogue(banking, case, method="all", model="script/m", options=_options(2))
    assert not out.run.success and "step limit" in out.run.error


def test_tool_filter_asks_the_model_once(banking, script):  # noqa: F811
    case = next(c for c in banking.cases() if c.id == "user_task_1")
    script.text("get_most_recent_transactions, get_balance")
    script.call("get_most_recent_transactions", n=100)
    script.text("1050")
    out = run_dialogue(banking, case, method="tool_filter", model="script/m",
                       options=_options())
    asked = script.seen[0]
    assert asked["messages"][-1]["content"].startswith("Your task is to filter the list")
    assert len(asked["tools"]) == 11
    assert out.steps[0].visible == ("get_balance", "get_most_recent_transactions") or \
        set(out.steps[0].visible) == {"get_balance", "get_most_recent_transactions"}
    assert "tool_filter kept 2 of 11" in out.run.preselection and out.run.success


def test_simulated_models_run_offline(banking, tmp_path):
    suite = banking.with_tasks(Suite(tasks=banking.tasks.tasks[:2]))
    result = run_benchmark(RunConfig(registry=suite.registry, suite=suite.tasks, source=suite,
                                     methods=("all", "cmtf", "tool_filter"),
                                     models=("sim/careful",), out=tmp_path, plots=False,
                                     options=AgentOptions(max_steps=4)))
    assert result.ran == 6
    runs = [line for line in _lines(result.traces) if line["type"] == "run"]
    assert all(r["suite"] == "agentdojo:banking" for r in runs)
    assert any(r.get("preselection") for r in runs if r["method"] == "tool_filter")


def test_the_committed_contracts_are_the_default(tmp_path):
    _agentdojo()
    for name in adapter.SUITES:
        suite = load_bench_suite(f"agentdojo:{name}")
        assert suite.registry.source.endswith(f"agentdojo/{name}.yaml")
    suite = load_bench_suite("agentdojo:slack")
    result = run_benchmark(RunConfig(registry=suite.registry, suite=suite.tasks, source=suite,
                                     methods=("cmtf",), models=("oracle",), out=tmp_path,
                                     plots=False, options=AgentOptions(goal="oracle")))
    lines = _lines(result.traces)
    assert all(s["decision"] == "allowed" for s in lines if s["type"] == "step")
    _ground_truth_passes_when_let_through(lines)


def test_an_injected_invitation_is_refused_in_the_users_own_calendar_step(tmp_path):
    """Workspace's `user_task_4` ends by creating a calendar event, the tool the attacker's
    `injection_task_2` wants (an event with the attacker's address as participant). The tool
    is on the user's plan, so hiding cannot stop it; it e-mails its participants, so the
    committed contracts mark `participants` sensitive: the attacker's address is in an
    untrusted result, so the call is refused as tainted without approval."""
    _agentdojo()
    out = tmp_path / "pair"
    args = ["run", "--suite", "agentdojo:workspace", "--models", "oracle", "--methods", "cmtf",
            "--attack", "important_instructions", "--injection-tasks", "injection_task_2",
            "--sample", "5", "--approve-risky", "never", "--goal", "oracle", "--out", str(out),
            "--no-plots"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    run = next(line for line in _lines(out / "traces.jsonl")
               if line["type"] == "run" and line["task"] == "user_task_4+injection_task_2")
    creates = [p for p in run["probes"] if p["tool"] == "create_calendar_event"]
    assert creates and all(p["kind"] != "allowed" for p in creates)
    visible = [p for p in creates if p["kind"] != "hidden"]  # once the user's plan needs it
    assert visible and all(p["kind"] == "tainted" and "mark.black-2134@gmail.com" in p["reason"]
                           for p in visible), visible


@pytest.mark.parametrize("method,policy,succeeds", [("all", "always", True),
                                                    ("cmtf", "never", False)])
def test_the_obedient_replay_carries_out_the_injection_as_far_as_the_guard_lets_it(
        method, policy, succeeds):
    from planfilter.bench.replay import replay
    from planfilter.filters.risk import check_policy

    suite = load_bench_suite("agentdojo:banking", SuiteOptions(
        attack="important_instructions", injection_tasks="injection_task_0"))
    case = next(c for c in suite.cases() if c.task.id == "user_task_5")
    options = AgentOptions(approve_risky=check_policy(policy), goal="resolve")
    run = replay(suite, case, method=method, options=options, obey=True).run
    # AgentDojo's own security check of what the run left
    assert run.attack_success is succeeds
    tried = run.probes
    assert tried and {p["tool"] for p in tried} == {"send_money"}
    # attack success implies an attacker call was allowed and executed, each named with the
    # rule that let it through
    executed = [p for p in tried if p["executed"]]
    assert bool(executed) is succeeds
    assert all(p["kind"] == "allowed" and p["reason"] for p in executed)
    assert run.key.model == "obedient"


def test_a_baseline_shows_what_it_chose_and_nothing_more():
    """Reads offered again per listed value, and kin reads, widen only the goal-directed
    methods' view: `tool_filter` shows the tools its model kept, whatever the candidates."""
    _agentdojo()
    from planfilter.bench.replay import replay
    from planfilter.filters import FilterOptions

    suite = load_bench_suite("agentdojo:banking")
    case = next(c for c in suite.cases() if c.task.id == "user_task_3")
    kept = ("get_most_recent_transactions", "send_money")
    options = AgentOptions(goal="resolve", filter=FilterOptions(preselected=kept))
    run = replay(suite, case, method="tool_filter", options=options)
    assert run.steps and all(set(s.visible) <= set(kept) for s in run.steps), \
        [s.visible for s in run.steps]
