"""ToolScopeMerger: contract check, Auto-Correction, relabelling, the bundled duplicates."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from planfilter.cli import cli
from planfilter.core.contracts import Registry, Tool
from planfilter.core.loading import load_registry, load_suite
from planfilter.core.resources import default_registry, default_suite
from planfilter.core.tasks import Task
from planfilter.models.sim_judge import judge as sim_judge
from planfilter.retrieval.embedders import HashingEmbedder
from planfilter.retrieval.merge import (
    MergeError,
    ModelJudge,
    auto_correct,
    components,
    contract_difference,
    judge_messages,
    merge_registry,
    relabel_suite,
    relabel_task,
    representative,
)

#: The near-duplicate pairs the bundled registry was built with (same requires and produces).
BUNDLED_DUPLICATES = {
    frozenset({"list_events", "get_day_agenda"}),
    frozenset({"invite_attendee", "add_event_guest"}),
    frozenset({"search_emails", "search_email_ids"}),
    frozenset({"extract_section", "get_section_text"}),
}


def tool(name: str, description: str = "Look up the thing by its key.",
         requires: tuple[str, ...] = ("key",), produces: tuple[str, ...] = ("thing",),
         **extra) -> Tool:
    props = {r: {"type": "string"} for r in requires}
    return Tool(name=name, description=description, requires=frozenset(requires),
                produces=frozenset(produces),
                parameters={"type": "object", "properties": props, "required": list(requires)},
                **extra)


class ScriptedJudge:
    """Says yes exactly for the listed pairs; records every question."""

    name = "scripted"

    def __init__(self, yes: set[frozenset[str]]):
        self.yes = yes
        self.asked: list[frozenset[str]] = []

    def __call__(self, a: Tool, b: Tool) -> tuple[bool, str]:
        pair = frozenset({a.name, b.name})
        self.asked.append(pair)
        return pair in self.yes, "scripted"


class Always:
    name = "always-yes"

    def __call__(self, a: Tool, b: Tool) -> tuple[bool, str]:
        return True, "the text says they are the same"


def test_different_contracts_are_never_merged_whatever_the_judge_says():
    registry = Registry(tools=(
        tool("get_thing"), tool("fetch_thing"),
        tool("get_thing_v2", produces=("thing", "etag")),  # same text, more effects
        tool("get_other_thing", requires=("key", "scope")),
    ))
    assert contract_difference(registry.tool("get_thing"), registry.tool("get_thing_v2")) \
        == "produces ['thing'] vs ['etag', 'thing']"
    result = merge_registry(registry, embedder=HashingEmbedder(), judge=Always(),
                            threshold=0.0)
    assert [c.members for c in result.clusters] == [("get_thing", "fetch_thing")]
    assert result.registry.names == ("get_thing", "get_thing_v2", "get_other_thing")
    for verdict in result.verdicts:
        if {verdict.a, verdict.b} & {"get_thing_v2", "get_other_thing"}:
            assert verdict.by == "contract" and not verdict.equivalent


def test_auto_correction_splits_a_chained_cluster_that_is_not_pairwise_equivalent():
    registry = Registry(tools=(tool("a"), tool("b"), tool("c"), tool("d")))
    # a~b and b~c make one connected component {a, b, c}, but a and c are not equivalent.
    judge = ScriptedJudge({frozenset("ab"), frozenset("bc")})
    result = merge_registry(registry, embedder=HashingEmbedder(), judge=judge, threshold=-1.0)
    assert [(c.members, c.status, c.proposed) for c in result.clusters] == [
        (("a", "b"), "split", ("a", "b", "c"))]
    assert any("a / c" in r for r in result.clusters[0].reasons)
    assert frozenset("ac") in judge.asked  # the non-edge pair was checked
    assert dict(result.mapping) == {"a": "a", "b": "a", "c": "c", "d": "d"}
    assert result.registry.names == ("a", "c", "d")


def test_components_and_greedy_split_keep_registry_order():
    names = ["a", "b", "c", "d", "e"]
    assert components(names, [("d", "b"), ("a", "e")]) == [("a", "e"), ("b", "d")]
    verdicts = {frozenset("ab"): True, frozenset("ac"): False, frozenset("bc"): True}

    def decide(x, y):
        from planfilter.retrieval.merge import Verdict
        return Verdict(x, y, verdicts[frozenset({x, y})], "t", "because")

    parts, reasons = auto_correct(["a", "b", "c"], decide)
    assert parts == [("a", "b"), ("c",)] and reasons == ["a / c: because"]


def test_representative_is_lowest_risk_then_best_documented():
    registry = Registry(tools=(tool("risky", risk="high"), tool("plain"),
                               tool("rich", requires=("key",)).model_copy(update={
                                   "parameters": {"type": "object", "properties": {
                                       "key": {}, "extra": {}}, "required": ["key"]}})))
    assert representative(registry, ["risky", "plain"]) == "plain"
    assert representative(registry, ["plain", "rich"]) == "rich"


def test_relabelling_maps_gold_and_mocks_to_the_merged_tools():
    task = Task(id="t1", query="q", goal=frozenset({"thing"}), gold=("find", "fetch_thing"),
                mocks={"find": {"key": "k"}, "fetch_thing": {"thing": 1},
                       "get_thing": {"thing": 1}})
    mapping = {"find": "find", "fetch_thing": "get_thing", "get_thing": "get_thing"}
    out = relabel_task(task, mapping)
    assert out.gold == ("find", "get_thing")
    assert dict(out.mocks) == {"find": {"key": "k"}, "get_thing": {"thing": 1}}
    assert relabel_task(task, {}) is task
    clash = task.model_copy(update={"mocks": {"fetch_thing": {"thing": 1},
                                              "get_thing": {"thing": 2}}})
    with pytest.raises(MergeError, match="'t1'.*fetch_thing.*get_thing"):
        relabel_task(clash, mapping)


def test_sim_judge_reads_only_the_prompt_and_follows_its_rule():
    registry = load_registry(default_registry())
    ask = lambda a, b: sim_judge(judge_messages(registry.tool(a), registry.tool(b)))  # noqa: E731
    assert ask("search_emails", "search_email_ids").startswith("yes")
    assert ask("update_event", "reschedule_event").startswith("no")
    # The prompt carries names, descriptions and schemas, not the contract.
    prompt = judge_messages(registry.tool("search_emails"), registry.tool("read_email"))
    assert "produces" not in prompt[1]["content"] and "requires" not in prompt[1]["content"]


def test_bundled_registry_merges_exactly_its_near_duplicate_pairs():
    registry = load_registry(default_registry())
    result = merge_registry(registry, embedder=HashingEmbedder(), judge=ModelJudge("sim/judge"),
                            threshold=0.35)
    assert {frozenset(c.members) for c in result.clusters} == BUNDLED_DUPLICATES
    for cluster in result.clusters:
        tools = [registry.tool(n) for n in cluster.members]
        assert len({(t.requires, t.produces) for t in tools}) == 1
    assert len(result.registry) == len(registry) - len(BUNDLED_DUPLICATES)
    assert set(result.mapping) == set(registry.names)  # one merged tool per original tool
    suite = relabel_suite(load_suite(default_suite()), result.mapping)
    for task in suite:
        assert all(name in result.registry for name in task.gold), task.id
        assert all(name in result.registry for name in task.mocks), task.id


def test_merge_command_writes_a_loadable_registry_tasks_and_reports(tmp_path: Path):
    out = tmp_path / "merged"
    res = CliRunner().invoke(cli, ["merge", "--embedder", "hashing", "--out", str(out)],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "100 tools -> 96 tools" in res.output
    merged = load_registry(out / "registry.yaml")
    tasks = load_suite(out / "tasks.yaml")
    assert len(merged) == 96 and len(tasks) == len(load_suite(default_suite()))
    report = (out / "merge_report.md").read_text()
    assert "search_emails" in report and "CMTF ties before and after merging" in report
    assert (out / "merge_report.json").is_file()


def test_run_with_merge_scores_on_the_merged_registry(tmp_path: Path, monkeypatch):
    from planfilter.retrieval import merge_io

    monkeypatch.setattr(merge_io, "default_embedder",
                        lambda: (HashingEmbedder(), "hashing (test)"))
    out = tmp_path / "run"
    res = CliRunner().invoke(cli, ["run", "--merge", "--methods", "cmtf", "--models",
                                   "sim/careful", "--no-plots", "--out", str(out)],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert (out / "merge" / "merge_report.md").is_file()
    traces = (out / "traces.jsonl").read_text()
    assert '"search_email_ids"' not in traces and '"get_day_agenda"' not in traces
    summary = (out / "summary.csv").read_text().splitlines()[1].split(",")
    assert summary[1] == "cmtf" and float(summary[3]) == 1.0  # every task still succeeds
