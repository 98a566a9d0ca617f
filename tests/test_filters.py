"""Filter methods: each one's definition, on registries small enough to check by hand."""

from __future__ import annotations

import pytest

from planfilter.bench.traces import gold_next
from planfilter.core.contracts import Registry, Tool
from planfilter.core.errors import PlanfilterError
from planfilter.core.frontier import executable
from planfilter.core.tasks import Task
from planfilter.filters import (
    FILTERS,
    PAPER_METHODS,
    FilterOptions,
    get_filter,
    keyword_scores,
    task_context,
    tokens,
    tool_metadata,
)


def test_the_six_methods_of_table_3_in_order():
    assert list(PAPER_METHODS) == ["all", "keyword-5", "keyword-10", "state-aware",
                                   "causal-path", "cmtf"]
    assert list(FILTERS)[:6] == list(PAPER_METHODS)


def test_unknown_method_names_the_choices():
    with pytest.raises(PlanfilterError, match="unknown filter method 'bm25'.*cmtf"):
        get_filter("bm25")


def test_tokens_split_on_underscore_dash_and_punctuation():
    assert tokens("search_events-v2: Foo's BAR") == {"search", "events", "v2", "foo", "s", "bar"}


def _tool(name: str, description: str, requires=(), produces=("x",), domain=None) -> Tool:
    return Tool(name=name, description=description, requires=frozenset(requires),
                produces=frozenset(produces), domain=domain)


def test_keyword_scores_on_a_tiny_registry():
    registry = Registry(tools=(
        _tool("alpha", "Move a meeting", produces=["moved"]),                # move, meeting
        _tool("beta", "Dentist lookup", requires=["date"], produces=["y"]),  # dentist, date
        _tool("gamma", "Nothing related", produces=["z"]),                   # none
        _tool("delta", "Move the dentist meeting", produces=["w"]),  # move dentist meeting
        _tool("eps", "Weather", domain="meeting", produces=["v"]),           # meeting
    ))
    task = Task(id="t", query="Move my dentist meeting", state={"date": "2026-12-01"},
                goal=["moved"])
    assert task_context(task, task.state) == {"move", "my", "dentist", "meeting", "date", "2026",
                                              "12", "01", "moved"}
    # delta: move dentist meeting = 3; alpha: move meeting moved = 3 (tie: registry order);
    # beta: dentist date = 2; eps: meeting = 1; gamma: 0
    assert keyword_scores(registry, task, task.state) == [
        ("alpha", 3), ("delta", 3), ("beta", 2), ("eps", 1), ("gamma", 0)]
    assert FILTERS["keyword-5"](registry, task, task.state).tools == (
        "alpha", "delta", "beta", "eps", "gamma")


def test_keyword_metadata_covers_name_description_domain_requires_produces():
    tool = _tool("read_file", "Open it", requires=["file_id"], produces=["file-text"],
                 domain="files")
    assert tool_metadata(tool) == {"read", "file", "open", "it", "files", "id", "text"}


def test_keyword_k_is_exact_and_state_changes_scores(registry, suite):
    task = suite.task("move-001")
    top5 = FILTERS["keyword-5"](registry, task, task.state).tools
    top10 = FILTERS["keyword-10"](registry, task, task.state).tools
    assert len(top5) == 5 and len(top10) == 10 and top10[:5] == top5
    later = {**task.state, "event_id": "evt_123"}
    assert keyword_scores(registry, task, later) != keyword_scores(registry, task, task.state)


def test_all_and_state_aware(registry, suite):
    task = suite.task("move-001")
    assert FILTERS["all"](registry, task, task.state).tools == registry.names
    visible = FILTERS["state-aware"](registry, task, task.state).tools
    assert visible == executable(registry, task.state) == ("search_events", "list_events",
                                                          "create_event")
    for name in visible:
        assert registry.tool(name).requires <= task.known


def test_causal_path_shows_future_steps_cmtf_only_the_next(registry, suite):
    task = suite.task("summarize-002")
    path = FILTERS["causal-path"](registry, task, task.state)
    assert path.tools == ("search_events", "read_event", "summarize_event")
    frontier = FILTERS["cmtf"](registry, task, task.state)
    assert frontier.tools == ("search_events",)
    assert "pyperplan" in frontier.info


@pytest.mark.parametrize("planner", ["native", "pyperplan"])
def test_planner_option_flows_through(registry, suite, planner):
    task = suite.task("move-001")
    visible = FILTERS["cmtf"](registry, task, task.state, FilterOptions(planner=planner))
    assert visible.tools == ("search_events",)
    assert visible.info.startswith(f"{planner}:")


def test_cmtf_is_empty_and_says_why_without_a_path(registry):
    task = Task(id="t", query="q", state={"date": "d"}, goal=["never_produced"])
    visible = FILTERS["cmtf"](registry, task, task.state)
    assert visible.tools == ()
    assert "never_produced" in visible.info
    assert FILTERS["causal-path"](registry, task, task.state).tools == ()


def test_cmtf_shows_exactly_the_gold_next_tool_along_every_gold_chain(registry, suite):
    for task in suite:
        state = dict(task.state)
        for expected in task.gold:
            assert gold_next(registry, task, state) == expected
            assert FILTERS["cmtf"](registry, task, state).tools == (expected,), task.id
            state.update({v: True for v in registry.tool(expected).produces})
        assert gold_next(registry, task, state) is None
        assert FILTERS["cmtf"](registry, task, state).tools == ()


def test_filters_ignore_gold_and_mocks(registry, suite):
    task = suite.task("summarize-002")
    blind = task.model_copy(update={"gold": (), "mocks": {}})
    for name, fn in FILTERS.items():
        assert fn(registry, task, task.state) == fn(registry, blind, blind.state), name
