"""The baselines that ignore the goal's causal structure: all tools, keyword top-k, state-aware."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from ..core.contracts import Registry
from ..core.errors import PlanfilterError
from ..core.frontier import executable
from .base import (
    DEFAULT_OPTIONS,
    FilterFn,
    FilterOptions,
    FilterQuery,
    Visible,
    task_context,
    tool_metadata,
)


@lru_cache(maxsize=16)
def _metadata_index(registry: Registry) -> tuple[tuple[str, frozenset[str]], ...]:
    return tuple((t.name, tool_metadata(t)) for t in registry)


def keyword_scores(registry: Registry, task: FilterQuery,
                   state: Mapping[str, Any]) -> list[tuple[str, int]]:
    """(tool, number of distinct tokens shared with the task context), best first.

    The sort is stable, so equal scores keep registry order.
    """
    context = task_context(task, state)
    scored = [(name, len(meta & context)) for name, meta in _metadata_index(registry)]
    return sorted(scored, key=lambda item: -item[1])


def keyword_filter(k: int) -> FilterFn:
    def keyword(registry: Registry, task: FilterQuery, state: Mapping[str, Any],
                options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
        top = keyword_scores(registry, task, state)[:k]
        return Visible(tuple(n for n, _ in top),
                       info="scores " + ", ".join(f"{n}={s}" for n, s in top))

    keyword.__name__ = f"keyword_{k}"
    keyword.__doc__ = f"The {k} tools sharing the most tokens with the task context."
    return keyword


def all_tools(registry: Registry, task: FilterQuery, state: Mapping[str, Any],
              options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
    """Every tool of the registry (the tool-overload baseline)."""
    return Visible(registry.names)


def state_aware(registry: Registry, task: FilterQuery, state: Mapping[str, Any],
                options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
    """Every tool whose requirements are known (the executability baseline)."""
    return Visible(executable(registry, state))


def baseline_filter(name: str) -> FilterFn:
    """The relevance baseline called ``name``: ``all``, ``state-aware`` or ``keyword-<k>``."""
    if name == "all":
        return all_tools
    if name == "state-aware":
        return state_aware
    prefix, _, k = name.partition("-")
    if prefix == "keyword" and k.isdigit() and int(k) > 0:
        return keyword_filter(int(k))
    raise PlanfilterError(f"fallback filter {name!r}: choose all, state-aware or keyword-<k>")
