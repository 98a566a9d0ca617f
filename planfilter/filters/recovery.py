"""``cmtf-recover``: CMTF that reacts to a failed step (paper, section 8.3).

Strict CMTF shows the first tool of the canonical minimal plan; when that tool fails (the
environment returns an error, or the call succeeds but adds nothing to the state) the state
is unchanged, so strict CMTF shows the same failing tool again. ``cmtf-recover`` reads the
run's earlier steps (``FilterOptions.history``) and, after a failure, shows a small recovery
set instead:

1. the other tools that start a minimal plan from the current state (``ties="all"``,
   minus every tool that failed in this run), then
2. the tools that start a minimal plan on the registry without the failed tools: the
   missing variables produced by other routes, possibly longer ones.

Tools that failed are never shown again in the run. Without a failure it is exactly CMTF.
When no causal path avoids the failed tools (or none exists at all), it falls back to a
named filter (``keyword-5`` by default, failed tools removed) and says why in ``info``.

The agent loop lets a run with this method continue after an environment error (within the
step limit); the paper's six methods keep the paper's rule that an error ends the run.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from ..core.contracts import Registry
from .base import DEFAULT_OPTIONS, FilterFn, FilterOptions, FilterQuery, Visible, frontier_for
from .relevance import baseline_filter

DEFAULT_FALLBACK = "keyword-5"


def failed_tools(options: FilterOptions) -> tuple[str, ...]:
    """Tools whose call failed earlier in the run, in the order they failed."""
    return tuple(dict.fromkeys(a.tool for a in options.history if a.failed))


@lru_cache(maxsize=256)
def _without(registry: Registry, names: frozenset[str]) -> Registry:
    # Cached so that the same pruned registry (and its planner grounding) is reused.
    return registry.subset(t.name for t in registry if t.name not in names)


def recover_filter(fallback: str = DEFAULT_FALLBACK) -> FilterFn:
    """A ``cmtf-recover`` filter whose last resort is the relevance baseline ``fallback``
    (``all``, ``state-aware`` or ``keyword-<k>``: a causal filter has nothing to show when
    there is no causal path)."""
    last_resort = baseline_filter(fallback)

    def cmtf_recover(registry: Registry, task: FilterQuery, state: Mapping[str, Any],
                     options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
        failed = failed_tools(options)
        last_failed = bool(options.history) and options.history[-1].failed
        if not failed:
            result = frontier_for(registry, state, task.goal, options)
            if result.frontier:
                return Visible(result.frontier, info=_plan_info(result),
                               planner=result.planner, fallbacks=result.fallbacks)
            return _fall_back(registry, task, state, options, fallback, last_resort, failed,
                              f"no causal path: {result.reason}")
        banned = frozenset(failed)
        same = frontier_for(registry, state, task.goal, options, ties="all")
        pruned = _without(registry, banned)
        # Right after a failure every route around it is offered; later, strict CMTF on the
        # registry without the failed tools.
        other = frontier_for(pruned, state, task.goal, options,
                             ties="all" if last_failed else options.ties)
        first = tuple(t for t in same.frontier if t not in banned) if last_failed else ()
        tools = tuple(dict.fromkeys(first + other.frontier))
        if not tools:
            why = other.reason or "goal reached"
            return _fall_back(registry, task, state, options, fallback, last_resort, failed,
                              f"no causal path avoiding failed {', '.join(failed)}: {why}")
        kind = "recovery set" if last_failed else "avoiding"
        info = (f"{kind} after failed {', '.join(failed)}: {other.planner}: "
                f"{' -> '.join(other.plan)}")
        return Visible(tools, info=info, planner=other.planner, fallbacks=other.fallbacks)

    cmtf_recover.__doc__ = (f"CMTF with a recovery set after a failed step; {fallback} "
                            "when no causal path exists.")
    return cmtf_recover


def _plan_info(result: Any) -> str:
    return f"{result.planner}: {' -> '.join(result.plan)}"


def _fall_back(registry: Registry, task: FilterQuery, state: Mapping[str, Any],
               options: FilterOptions, fallback: str, fallback_fn: FilterFn,
               failed: tuple[str, ...], reason: str) -> Visible:
    shown = fallback_fn(registry, task, state, options)
    tools = tuple(t for t in shown.tools if t not in failed)
    return Visible(tools, info=f"fallback {fallback}: {reason}")


cmtf_recover: FilterFn = recover_filter()
