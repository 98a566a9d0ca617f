"""``tool_filter``: AgentDojo's tool-filter defence as a filter method.

Before the run, the run's model is shown the request and every tool and asked to list the
tools the task needs (AgentDojo's ``TOOL_FILTER_PROMPT``; the call is made by the agent loop,
planfilter.bench.dialogue, since filters make no model calls). Every tool whose name the
answer contains is kept, as AgentDojo's ``OpenAILLMToolFilter`` keeps them, and that set is
shown at every step. Without a choice made (``options.preselected`` None) every tool is
shown, and the step's info says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.contracts import Registry
from .base import DEFAULT_OPTIONS, FilterOptions, FilterQuery, Visible


def kept_tools(names: tuple[str, ...], answer: str | None) -> tuple[str, ...]:
    """The tools whose names occur in the model's answer, in registry order (AgentDojo keeps
    a tool when its name is a substring of the answer)."""
    return tuple(n for n in names if answer is not None and n in answer)


def tool_filter(registry: Registry, task: FilterQuery, state: Mapping[str, Any],
                options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
    if options.preselected is None:
        return Visible(registry.names, "tool_filter: no tools were chosen; every tool shown")
    keep = frozenset(options.preselected)
    tools = tuple(n for n in registry.names if n in keep)
    return Visible(tools, f"tool_filter: the {len(tools)} tools the model listed")
