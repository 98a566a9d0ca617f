"""ToolScopeRetriever: hybrid sparse + dense retrieval of the top-k tools for a request.

Per tool and query (ToolScope, section 3)::

    score = alpha * minmax(cosine(embed(query), embed(tool))) + (1 - alpha) * minmax(bm25)

over each tool's document (name, description, argument names); min-max runs over the
registry's tools for that query, so both terms lie in [0, 1] and ``alpha`` weighs like with
like. BM25 is the ``bm25s`` package's; the embedder is one of :data:`EMBEDDERS`.

Multi-tool requests are split into sub-queries (on "and", "then", commas, semicolons and
sentence ends). Each sub-query is scored on its own; the top-1 tool of every sub-query is
kept, then the remaining slots up to k are filled by the best score any sub-query gave a
tool (scores are normalised per sub-query, so they compare across sub-queries).

The paper reranks the top candidates with a cross-encoder. No cross-encoder installs with
its weights from PyPI for offline use, so none is registered: reranking is skipped and every
step's ``Visible.info`` says so. A :class:`Reranker` passed to :class:`ToolScopeRetriever`
is used as the paper describes (its scores, min-max normalised over the candidates, replace
the hybrid scores of the top ``rerank_top`` tools).

As a filter, the query of a step is the request plus the current state (names and values)
and the goal variables: the text :func:`planfilter.filters.base.task_context` reads (the
embedder gets the state's names without their values). Which
embedder the ``toolscope-k`` filters use is ``$PLANFILTER_EMBEDDER`` (default ``minilm``;
``none`` for sparse only); when it cannot load they run sparse-only and say why.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol, cast

import numpy as np

from ..core.contracts import Registry, Tool
from ..core.sentences import NOT_AN_ABBREVIATION
from ..core.text import STOP_WORDS
from ..core.text import words as split_words
from .embedders import Embedder, try_embedder

DEFAULT_ALPHA = 0.5
DEFAULT_EMBEDDER = "minilm"
EMBEDDER_ENV = "PLANFILTER_EMBEDDER"
NO_RERANKER = "skipped (no cross-encoder is available offline)"

_SPLIT = re.compile(
    r"\s*[,;]\s*(?:and\s+then\s+|and\s+|then\s+)?|\s+(?:and\s+then|and|then)\s+"
    r"|(?<=[.!?])" + NOT_AN_ABBREVIATION + r"\s+",
    re.IGNORECASE,
)


class Reranker(Protocol):
    name: str

    def score(self, query: str, documents: Sequence[str]) -> Sequence[float]: ...


def words(text: str) -> list[str]:
    """BM25 tokens: lowercase words without stop words, repeats kept (term frequency)."""
    return split_words(text, stop=STOP_WORDS)


def tool_document(tool: Tool) -> str:
    """What retrieval indexes: name, description and argument names, ``_`` read as spaces."""
    args = " ".join(tool.parameters.get("properties", {}))
    return " ".join([tool.name, tool.description, args]).replace("_", " ")


def split_subqueries(request: str) -> tuple[str, ...]:
    """The request's parts that ask for one thing each; the whole request when it has one."""
    parts = [p.strip(" .!?") for p in _SPLIT.split(request)]
    parts = [p for p in parts if words(p)]
    return tuple(parts) or (request,)


def minmax(values: np.ndarray) -> np.ndarray:
    """Scale to [0, 1]; all-equal scores carry no ranking signal and become zeros."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return values
    low, high = float(values.min()), float(values.max())
    if high - low <= 1e-12:
        return np.zeros_like(values)
    return (values - low) / (high - low)


def hybrid(dense: np.ndarray | None, sparse: np.ndarray, alpha: float) -> np.ndarray:
    """``alpha * minmax(dense) + (1 - alpha) * minmax(sparse)``; sparse alone without dense."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], not {alpha}")
    if dense is None:
        return minmax(sparse)
    return alpha * minmax(dense) + (1.0 - alpha) * minmax(sparse)


def select_top_k(names: Sequence[str], per_query: Sequence[np.ndarray], k: int) -> list[str]:
    """Every sub-query's top-1 first (in sub-query order), then the best remaining by the
    highest score any sub-query gave them; equal scores keep registry order."""
    chosen: list[str] = []
    for scores in per_query:
        if float(np.max(scores)) <= 0.0:  # a sub-query that matches nothing picks nothing
            continue
        best = names[int(np.argmax(scores))]  # argmax: the first of equal maxima
        if best not in chosen:
            chosen.append(best)
    overall = np.max(np.vstack(per_query), axis=0)
    for i in np.argsort(-overall, kind="stable"):
        if len(chosen) >= k:
            break
        if names[i] not in chosen:
            chosen.append(names[i])
    return chosen[:k]


@dataclass(frozen=True)
class Retrieval:
    tools: tuple[str, ...]
    #: Final normalised score of each chosen tool (the best over sub-queries).
    scores: tuple[float, ...]
    subqueries: tuple[str, ...]


class ToolScopeRetriever:
    """Hybrid retrieval over one registry; the tool index is built once, queries are cheap."""

    def __init__(self, registry: Registry, embedder: Embedder | None = None,
                 alpha: float = DEFAULT_ALPHA, reranker: Reranker | None = None,
                 rerank_top: int = 20):
        import bm25s

        self.registry = registry
        self.names = registry.names
        self.embedder = embedder
        self.alpha = alpha
        self.reranker = reranker
        self.rerank_top = rerank_top
        self.documents = tuple(tool_document(t) for t in registry)
        self._bm25 = bm25s.BM25()
        self._bm25.index([words(d) or ["<empty>"] for d in self.documents], show_progress=False)
        self._vectors = embedder.encode(self.documents) if embedder is not None else None
        self._lock = threading.Lock()  # bm25s keeps per-call state on the object

    def sparse(self, query: str) -> np.ndarray:
        tokens = words(query)
        if not tokens:
            return np.zeros(len(self.names))
        with self._lock:
            return np.asarray(self._bm25.get_scores(tokens), dtype=np.float64)

    def dense(self, query: str) -> np.ndarray | None:
        if self.embedder is None or self._vectors is None:
            return None
        return self._vectors @ _embed_query(self.embedder, query)

    def scores(self, query: str, dense_query: str | None = None) -> np.ndarray:
        """Normalised hybrid scores of every tool for one (sub-)query, reranked if possible.

        ``dense_query`` (default: ``query``) is what the embedder reads instead."""
        dense = self.dense(query if dense_query is None else dense_query)
        scores = hybrid(dense, self.sparse(query), self.alpha)
        if self.reranker is None:
            return scores
        top = np.argsort(-scores, kind="stable")[: self.rerank_top]
        raw = self.reranker.score(query, [self.documents[i] for i in top])
        reranked = np.zeros_like(scores)
        reranked[top] = minmax(np.asarray(raw, dtype=np.float64)) + 1e-9  # above the rest
        return reranked

    def retrieve(self, request: str, k: int, context: str = "",
                 dense_context: str | None = None) -> Retrieval:
        """Top-k for ``request``; each sub-query is extended by ``context`` (by
        ``dense_context`` for the embedder, when given)."""
        subqueries = split_subqueries(request)
        per_query = [
            self.scores(f"{sub} {context}".strip(),
                        None if dense_context is None else f"{sub} {dense_context}".strip())
            for sub in subqueries
        ]
        chosen = select_top_k(self.names, per_query, k)
        overall = np.max(np.vstack(per_query), axis=0)
        index = {n: i for i, n in enumerate(self.names)}
        return Retrieval(tuple(chosen), tuple(float(overall[index[n]]) for n in chosen),
                         subqueries)


@lru_cache(maxsize=8192)
def _embed_query_cached(embedder: Any, query: str) -> np.ndarray:
    return embedder.encode([query])[0]


def _embed_query(embedder: Embedder, query: str) -> np.ndarray:
    return _embed_query_cached(cast(Any, embedder), query)  # models hash by identity


def context_text(goal: Iterable[str], state: Mapping[str, Any], values: bool = True) -> str:
    """The step's context beside the request: state names (and values), then goal variables.

    The embedder reads it without values: dates and ids are noise to a sentence model (on
    the bundled suite, dense-with-values found the gold tool at fewer steps)."""
    parts = [*state, *(str(v) for v in state.values() if values), *sorted(goal)]
    return " ".join(parts).replace("_", " ")


_RETRIEVERS: dict[tuple[Registry, str], tuple[ToolScopeRetriever, str]] = {}
_RETRIEVERS_LOCK = threading.Lock()


def retriever_for(registry: Registry, embedder_name: str | None = None
                  ) -> tuple[ToolScopeRetriever, str]:
    """The (cached) retriever of ``registry`` and a note on its dense/rerank set-up."""
    name = embedder_name or os.environ.get(EMBEDDER_ENV) or DEFAULT_EMBEDDER
    with _RETRIEVERS_LOCK:
        key = (registry, name)
        if key not in _RETRIEVERS:
            if name == "none":
                embedder, why = None, "dense off ($PLANFILTER_EMBEDDER=none)"
            else:
                embedder, why = try_embedder(name)
                why = (f"dense {name}" if embedder is not None
                       else f"dense off, sparse only ({why.splitlines()[0][:160]})")
            note = f"{why}; alpha {DEFAULT_ALPHA if embedder else 0.0}; rerank {NO_RERANKER}"
            _RETRIEVERS[key] = (ToolScopeRetriever(registry, embedder), note)
        return _RETRIEVERS[key]
