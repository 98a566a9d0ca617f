"""Filters: which tools the agent may see at one step, and the guard that holds it to them.

One module per family of methods (relevance baselines, causal, recovery, ToolScope), the
table ``FILTERS`` in ``registry``, risk approval and :class:`ToolGuard`. Imports
``planfilter.core`` and, for the toolscope methods, ``planfilter.retrieval``; no filter module
imports ``registry`` back.
"""

from __future__ import annotations

from .base import (
    DEFAULT_OPTIONS,
    Attempt,
    FilterFn,
    FilterOptions,
    FilterQuery,
    Query,
    Visible,
    frontier_for,
    task_context,
    tokens,
    tool_metadata,
)
from .guard import Decision, DecisionKind, GuardedCall, ToolGuard, parse_arguments
from .registry import (
    FILTERS,
    GOAL_DIRECTED_METHODS,
    PAPER_METHODS,
    PRESELECTING_METHODS,
    RECOVERING_METHODS,
    get_filter,
)
from .relevance import keyword_scores
from .risk import DEFAULT_POLICY, POLICIES, ApprovalPolicy

__all__ = [
    "DEFAULT_OPTIONS", "DEFAULT_POLICY", "FILTERS", "GOAL_DIRECTED_METHODS", "PAPER_METHODS",
    "POLICIES", "PRESELECTING_METHODS", "RECOVERING_METHODS",
    "ApprovalPolicy", "Attempt", "Decision", "DecisionKind", "FilterFn", "FilterOptions",
    "FilterQuery", "GuardedCall", "Query", "ToolGuard", "Visible",
    "frontier_for", "get_filter", "keyword_scores", "parse_arguments", "task_context", "tokens",
    "tool_metadata",
]
