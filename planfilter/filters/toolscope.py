"""``toolscope-k``: ToolScopeRetriever's top k as a filter method (planfilter.retrieval)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.contracts import Registry
from .base import DEFAULT_OPTIONS, FilterFn, FilterOptions, FilterQuery, Visible


def toolscope_filter(k: int) -> FilterFn:
    def toolscope(registry: Registry, task: FilterQuery, state: Mapping[str, Any],
                  options: FilterOptions = DEFAULT_OPTIONS) -> Visible:
        # numpy, bm25s and (with the toolscope extra) torch load on first use only, so
        # commands that never retrieve, such as `planfilter frontier`, stay light.
        from ..retrieval.toolscope import context_text, retriever_for

        retriever, note = retriever_for(registry)
        found = retriever.retrieve(task.query, k, context_text(task.goal, state),
                                   context_text(task.goal, state, values=False))
        scores = ", ".join(f"{n}={s:.2f}"
                           for n, s in zip(found.tools, found.scores, strict=True))
        return Visible(found.tools, info=f"toolscope: {note}; {len(found.subqueries)} "
                                         f"sub-queries; scores {scores}")

    toolscope.__name__ = f"toolscope_{k}"
    toolscope.__doc__ = f"ToolScopeRetriever's top {k}: hybrid BM25 + dense retrieval."
    return toolscope
