"""Filter methods: which tools the agent may see at one step.

Every filter is a function ``(registry, task, state, options) -> Visible`` and ``FILTERS`` maps
the method names of the paper's Table 3 to them. ``options`` has a default, so
``FILTERS[name](registry, task, state)`` works; it carries the planner (and tie policy) the
causal filters hand to :func:`planfilter.frontier.compute_frontier`.

The filters read the task's query and goal and the current state, never its gold chain or
mocks: what a filter shows must be computable by a deployed agent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from .contracts import Registry, Tool
from .errors import PlanfilterError
from .frontier import DEFAULT_TIMEOUT, FrontierResult, Ties, compute_frontier, executable
from .planners import DEFAULT_PLANNER
from .tasks import Task

_TOKEN = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Visible:
    """The tools shown at one step, in registry order (or score order for keyword filters)."""

    tools: tuple[str, ...]
    #: Why the set is what it is: planner and plan, or the reason it is empty.
    info: str = ""
    #: The planner that answered (causal filters only) and the ones that did not, with why.
    planner: str = ""
    fallbacks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Attempt:
    """One earlier step of the run, as a filter may see it: the call and what came of it."""

    tool: str
    #: The environment's error, None when the call succeeded.
    error: str | None = None
    #: Variables the call added to the state (a success that adds none changed nothing).
    new: frozenset[str] = frozenset()

    @property
    def failed(self) -> bool:
        return self.error is not None or not self.new


@dataclass(frozen=True)
class FilterOptions:
    planner: str = DEFAULT_PLANNER
    ties: Ties = "first"
    #: Seconds a planner may take before the fallback planner answers instead.
    timeout: float | None = DEFAULT_TIMEOUT
    #: The run's earlier steps, oldest first. The agent loop fills it in; filters that do not
    #: need it (all of the paper's) ignore it, so the filter signature stays the same.
    history: tuple[Attempt, ...] = ()


DEFAULT_OPTIONS = FilterOptions()


class FilterFn(Protocol):
    def __call__(self, registry: Registry, task: Task, state: Mapping[str, Any],
                 options: FilterOptions = DEFAULT_OPTIONS) -> Visible: ...


def tokens(text: str) -> frozenset[str]:
    """Lowercase alphanumeric words; ``_``, ``-`` and every other non-alphanumeric split words."""
    return frozenset(_TOKEN.findall(text.lower()))


def task_context(task: Task, state: Mapping[str, Any]) -> frozenset[str]:
    """Tokens of the query, the state's names and values, and the goal variables."""
    parts = [task.query, *state, *(str(v) for v in state.values()), *task.goal]
    return tokens(" ".join(parts))


def tool_metadata(tool: Tool) -> frozenset[str]:
    """Tokens of a tool's name, description, domain, requirements and effects."""
    parts = [tool.name, tool.description, tool.domain or "", *tool.requires, *tool.produces]
    return tokens(" ".join(parts))


@lru_cache(maxsize=16)
def _metadata_index(registry: Registry) -> tuple[tuple[str, frozenset[str]], ...]:
    return tuple((t.name, tool_metadata(t)) for t in registry)


def keyword_scores(registry: Registry, task: Task,
                   state: Mapping[str, Any]) -> list[tuple[str, int]]:
    """(tool, number of distinct tokens shared with the task context), best first.

    The sort is stable, so equal scores keep registry order.
    """
    context = task_context(task, state)
    scored = [(name, len(meta & context)) for name, meta in _metadata_index(registry)]
    return sorted(scored, key=lambda item: -item[1])


def keyword_filter(k: int) -> FilterFn:
    def keyword(registry: Registry, task: Task, state: Mapping[str, Any],
                options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
        top = keyword_scores(registry, task, state)[:k]
        return Visible(tuple(n for n, _ in top),
                       info="scores " + ", ".join(f"{n}={s}" for n, s in top))

    keyword.__name__ = f"keyword_{k}"
    keyword.__doc__ = f"The {k} tools sharing the most tokens with the task context."
    return keyword


def all_tools(registry: Registry, task: Task, state: Mapping[str, Any],
              options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
    """Every tool of the registry (the tool-overload baseline)."""
    return Visible(registry.names)


def state_aware(registry: Registry, task: Task, state: Mapping[str, Any],
                options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
    """Every tool whose requirements are known (the executability baseline)."""
    return Visible(executable(registry, state))


@lru_cache(maxsize=4096)
def _frontier(registry: Registry, known: frozenset[str], goal: frozenset[str],
              planner: str, ties: Ties, timeout: float | None = DEFAULT_TIMEOUT) -> FrontierResult:
    # The same (state, goal) recurs across models, seeds and the two causal filters; the
    # answer depends on nothing else, so it is computed once.
    return compute_frontier(registry, known, goal, planner=planner, ties=ties, timeout=timeout)


def frontier_for(registry: Registry, state: Mapping[str, Any], goal: frozenset[str],
                 options: FilterOptions = DEFAULT_OPTIONS, ties: Ties | None = None,
                 ) -> FrontierResult:
    """The (cached) frontier of ``state`` under ``options``; ``ties`` overrides theirs."""
    return _frontier(registry, frozenset(state), goal, options.planner,
                     ties or options.ties, options.timeout)


def _describe(result: FrontierResult) -> str:
    if result.plan:
        return f"{result.planner}: {' -> '.join(result.plan)}"
    return f"{result.planner}: {result.status.value}: {result.reason}"


def causal_path(registry: Registry, task: Task, state: Mapping[str, Any],
                options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
    """Every tool of the minimal causal path, future steps included, in plan order."""
    result = frontier_for(registry, state, task.goal, options)
    return Visible(tuple(dict.fromkeys(result.plan)), info=_describe(result),
                   planner=result.planner, fallbacks=result.fallbacks)


def cmtf(registry: Registry, task: Task, state: Mapping[str, Any],
         options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
    """The CMTF frontier: the first tool of the minimal causal path; empty when there is none."""
    result = frontier_for(registry, state, task.goal, options)
    return Visible(result.frontier, info=_describe(result), planner=result.planner,
                   fallbacks=result.fallbacks)


#: The methods of the paper's Table 3, in its order (reports list them in this order too).
FILTERS: dict[str, FilterFn] = {
    "all": all_tools,
    "keyword-5": keyword_filter(5),
    "keyword-10": keyword_filter(10),
    "state-aware": state_aware,
    "causal-path": causal_path,
    "cmtf": cmtf,
}
#: The paper's six methods: what `planfilter run` compares by default.
PAPER_METHODS: tuple[str, ...] = tuple(FILTERS)


def toolscope_filter(k: int) -> FilterFn:
    def toolscope(registry: Registry, task: Task, state: Mapping[str, Any],
                  options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
        # numpy, bm25s and (with the toolscope extra) torch load on first use only, so
        # commands that never retrieve, such as `planfilter frontier`, stay light.
        from .toolscope import toolscope_visible

        return toolscope_visible(k, registry, task, state)

    toolscope.__name__ = f"toolscope_{k}"
    toolscope.__doc__ = f"ToolScopeRetriever's top {k}: hybrid BM25 + dense retrieval."
    return toolscope


FILTERS["toolscope-5"] = toolscope_filter(5)
FILTERS["toolscope-10"] = toolscope_filter(10)


def get_filter(name: str) -> FilterFn:
    try:
        return FILTERS[name]
    except KeyError:
        raise PlanfilterError(
            f"unknown filter method {name!r}; choose from {', '.join(FILTERS)}"
        ) from None


# Extensions beyond the paper build on the filters above, so they register after them.
from .recovery import cmtf_recover  # noqa: E402

FILTERS["cmtf-recover"] = cmtf_recover
