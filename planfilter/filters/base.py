"""What every filter method shares: the visible set, the run's history, options, the Protocol.

Every filter is a function ``(registry, task, state, options) -> Visible``. ``options`` has a
default, so ``filter(registry, task, state)`` works; it carries the planner (and tie policy)
the causal filters hand to :func:`planfilter.core.frontier.compute_frontier`.

The filters read the task's query and goal (:class:`FilterQuery`) and the current state,
never its gold chain or mocks: what a filter shows must be computable by a deployed agent.
A benchmark :class:`~planfilter.core.tasks.Task` is a ``FilterQuery``; a caller without one
(the guard, a deployed agent) passes a :class:`Query`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from ..core.contracts import Registry, Tool
from ..core.frontier import DEFAULT_TIMEOUT, FrontierResult, Ties, compute_frontier
from ..core.planners import DEFAULT_PLANNER
from ..core.text import words


class FilterQuery(Protocol):
    """What a filter reads of a task: the user's request and the goal variables."""

    @property
    def query(self) -> str: ...

    @property
    def goal(self) -> frozenset[str]: ...


@dataclass(frozen=True)
class Query:
    """A :class:`FilterQuery` that is not a benchmark task: a request and its goal."""

    query: str
    goal: frozenset[str]


@dataclass(frozen=True)
class Visible:
    """The tools shown at one step, in registry order (or score order for keyword filters)."""

    tools: tuple[str, ...]
    #: Why the set is what it is: planner and plan, or the reason it is empty.
    info: str = ""
    #: The planner that answered (causal filters only) and the ones that did not, with why.
    planner: str = ""
    fallbacks: tuple[str, ...] = ()
    #: Tools the filter chose that were left out because the user declined them
    #: (planfilter.live.Session.decline).
    declined: tuple[str, ...] = ()


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
    #: Tools chosen for the whole run before it starts (the ``tool_filter`` method: a model
    #: lists the tools it needs); None when no such choice was made.
    preselected: tuple[str, ...] | None = None


DEFAULT_OPTIONS = FilterOptions()


class FilterFn(Protocol):
    def __call__(self, registry: Registry, task: FilterQuery, state: Mapping[str, Any],
                 options: FilterOptions = DEFAULT_OPTIONS) -> Visible: ...


def tokens(text: str) -> frozenset[str]:
    """Lowercase alphanumeric words; ``_``, ``-`` and every other non-alphanumeric split words."""
    return frozenset(words(text))


def task_context(task: FilterQuery, state: Mapping[str, Any]) -> frozenset[str]:
    """Tokens of the query, the state's names and values, and the goal variables."""
    parts = [task.query, *state, *(str(v) for v in state.values()), *task.goal]
    return tokens(" ".join(parts))


def tool_metadata(tool: Tool) -> frozenset[str]:
    """Tokens of a tool's name, description, domain, requirements and effects."""
    parts = [tool.name, tool.description, tool.domain or "", *sorted(tool.pre), *sorted(tool.post)]
    return tokens(" ".join(parts))


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


def describe(result: FrontierResult) -> str:
    """A frontier result in one line: planner and plan, or why there is none."""
    if result.plan:
        return f"{result.planner}: {' -> '.join(result.plan)}"
    return f"{result.planner}: {result.status.value}: {result.reason}"
