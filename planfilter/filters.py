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
from .frontier import FrontierResult, Ties, compute_frontier, executable
from .planners import DEFAULT_PLANNER
from .tasks import Task

_TOKEN = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Visible:
    """The tools shown at one step, in registry order (or score order for keyword filters)."""

    tools: tuple[str, ...]
    #: Why the set is what it is: planner and plan, or the reason it is empty.
    info: str = ""


@dataclass(frozen=True)
class FilterOptions:
    planner: str = DEFAULT_PLANNER
    ties: Ties = "first"


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
              planner: str, ties: Ties) -> FrontierResult:
    # The same (state, goal) recurs across models, seeds and the two causal filters; the
    # answer depends on nothing else, so it is computed once.
    return compute_frontier(registry, known, goal, planner=planner, ties=ties)


def _describe(result: FrontierResult) -> str:
    if result.plan:
        return f"{result.planner}: {' -> '.join(result.plan)}"
    return f"{result.planner}: {result.status.value}: {result.reason}"


def causal_path(registry: Registry, task: Task, state: Mapping[str, Any],
                options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
    """Every tool of the minimal causal path, future steps included, in plan order."""
    result = _frontier(registry, frozenset(state), task.goal, options.planner, options.ties)
    return Visible(tuple(dict.fromkeys(result.plan)), info=_describe(result))


def cmtf(registry: Registry, task: Task, state: Mapping[str, Any],
         options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
    """The CMTF frontier: the first tool of the minimal causal path; empty when there is none."""
    result = _frontier(registry, frozenset(state), task.goal, options.planner, options.ties)
    return Visible(result.frontier, info=_describe(result))


#: The methods of the paper's Table 3, in its order (reports list them in this order too).
FILTERS: dict[str, FilterFn] = {
    "all": all_tools,
    "keyword-5": keyword_filter(5),
    "keyword-10": keyword_filter(10),
    "state-aware": state_aware,
    "causal-path": causal_path,
    "cmtf": cmtf,
}


def get_filter(name: str) -> FilterFn:
    try:
        return FILTERS[name]
    except KeyError:
        raise PlanfilterError(
            f"unknown filter method {name!r}; choose from {', '.join(FILTERS)}"
        ) from None
