"""The causal filters: the full minimal causal path, and its first step (CMTF)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.contracts import Registry
from .base import DEFAULT_OPTIONS, FilterOptions, FilterQuery, Visible, describe, frontier_for


def causal_path(registry: Registry, task: FilterQuery, state: Mapping[str, Any],
                options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
    """Every tool of the minimal causal path, future steps included, in plan order."""
    result = frontier_for(registry, state, task.goal, options)
    return Visible(tuple(dict.fromkeys(result.plan)), info=describe(result),
                   planner=result.planner, fallbacks=result.fallbacks)


def cmtf(registry: Registry, task: FilterQuery, state: Mapping[str, Any],
         options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
    """The CMTF frontier: the first tool of the minimal causal path; empty when there is none."""
    result = frontier_for(registry, state, task.goal, options)
    return Visible(result.frontier, info=describe(result), planner=result.planner,
                   fallbacks=result.fallbacks)
