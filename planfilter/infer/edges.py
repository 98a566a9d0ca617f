"""Data-flow edges of a registry, and how a draft's edges compare with a reviewed registry's.

An edge is ``(producer, consumer, variable)``: ``producer`` produces ``variable`` and
``consumer``, another tool, requires it. A draft's recall is the share of the reviewed
edges it has, its precision the share of its edges the review kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.contracts import Registry

Edge = tuple[str, str, str]


def edges(registry: Registry) -> frozenset[Edge]:
    out = set()
    for producer in registry:
        for consumer in registry:
            if consumer.name == producer.name:
                continue
            for variable in producer.post & consumer.pre:
                out.add((producer.name, consumer.name, variable))
    return frozenset(out)


@dataclass(frozen=True)
class EdgeComparison:
    drafted: frozenset[Edge]
    reviewed: frozenset[Edge]

    @property
    def kept(self) -> frozenset[Edge]:
        return self.drafted & self.reviewed

    @property
    def missed(self) -> tuple[Edge, ...]:
        return tuple(sorted(self.reviewed - self.drafted))

    @property
    def extra(self) -> tuple[Edge, ...]:
        return tuple(sorted(self.drafted - self.reviewed))

    @property
    def recall(self) -> float:
        return len(self.kept) / len(self.reviewed) if self.reviewed else 1.0

    @property
    def precision(self) -> float:
        return len(self.kept) / len(self.drafted) if self.drafted else 1.0


def compare_edges(drafted: Registry, reviewed: Registry) -> EdgeComparison:
    """The edges of both, over the tools both name."""
    shared = set(drafted.names) & set(reviewed.names)
    return EdgeComparison(
        frozenset(e for e in edges(drafted) if e[0] in shared and e[1] in shared),
        frozenset(e for e in edges(reviewed) if e[0] in shared and e[1] in shared))
