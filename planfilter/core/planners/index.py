"""The bitmask view of a registry every planner call starts from, and what follows from it
without a search: the goal-relevant part of a call (``reduce_problem``), what can be reached
(``reachable``) and why a goal cannot be (``unreachable_reason``).

A registry is compiled once into bitmask indexes, cached per registry. ``reduce_problem`` keeps
only the tools relevant to the goal (backward from the goal: producers of needed variables,
then producers of their missing requirements). Every step of a minimal plan is needed, so no
minimal plan is lost; and two states that differ only in variables no relevant tool needs are
merged.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..contracts import Registry
from .base import RegistryCache


def bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


@dataclass(frozen=True)
class NativeIndex:
    registry: Registry
    names: tuple[str, ...]
    variables: tuple[str, ...]
    bit: dict[str, int]
    #: single[v] = 1 << bit[v], so that a mask costs one dict lookup per name.
    single: dict[str, int]
    req: tuple[int, ...]
    add: tuple[int, ...]
    #: producers[v] = indices of the tools producing variable bit v, in registry order.
    producers: tuple[tuple[int, ...], ...]

    @classmethod
    def build(cls, registry: Registry, _key: object = None) -> NativeIndex:
        variables = tuple(sorted(registry.variables))
        bit = {v: i for i, v in enumerate(variables)}
        req = tuple(sum(1 << bit[v] for v in t.pre) for t in registry)
        add = tuple(sum(1 << bit[v] for v in t.post) for t in registry)
        producers: list[list[int]] = [[] for _ in variables]
        for i, mask in enumerate(add):
            for v in bits(mask):
                producers[v].append(i)
        return cls(
            registry, registry.names, variables, bit, {v: 1 << b for v, b in bit.items()},
            req, add, tuple(tuple(p) for p in producers),
        )

    def mask(self, names: frozenset[str]) -> int:
        """The bits of ``names``; names no tool mentions have no bit and are left out."""
        # A plain loop: this runs twice per planner call, and sum() over a generator of
        # shifts costs about three times as much.
        single = self.single
        mask = 0
        for v in names:
            mask |= single.get(v, 0)
        return mask

    def names_of(self, mask: int) -> list[str]:
        return [self.variables[b] for b in bits(mask)]


INDEXES: RegistryCache[NativeIndex] = RegistryCache(NativeIndex.build)


def index_for(registry: Registry) -> NativeIndex:
    return INDEXES.get(registry)


# Not frozen: one is built per planner call and never escapes it, and a frozen dataclass's
# __init__ (object.__setattr__ per field) costs four times as much as a slotted one.
@dataclass(slots=True)
class Problem:
    """One call, reduced to the goal-relevant part of the registry."""

    index: NativeIndex
    known: int
    goal: int  # goal bits not yet known
    need: int  # variables worth tracking: missing goal bits and missing requirements
    tools: tuple[int, ...]  # relevant tools, registry order
    req: dict[int, int]  # missing requirements of each relevant tool
    add: dict[int, int]  # effects of each relevant tool, projected on `need`


def reduce_problem(index: NativeIndex, known: frozenset[str], goal: frozenset[str]) -> Problem:
    known_mask = index.mask(known)
    goal_mask = index.mask(goal) & ~known_mask
    need = goal_mask
    todo = goal_mask
    producers, all_req, all_add = index.producers, index.req, index.add
    relevant: set[int] = set()
    while todo:
        low = todo & -todo
        todo ^= low
        for t in producers[low.bit_length() - 1]:
            if t not in relevant:
                relevant.add(t)
                new = all_req[t] & ~known_mask & ~need
                need |= new
                todo |= new
    tools = tuple(sorted(relevant))
    unknown = ~known_mask
    req: dict[int, int] = {}
    add: dict[int, int] = {}
    for t in tools:
        req[t] = all_req[t] & unknown
        add[t] = all_add[t] & need
    return Problem(index, known_mask, goal_mask, need, tools, req, add)


def reachable(index: NativeIndex, known: frozenset[str]) -> frozenset[str]:
    """Every variable some sequence of tools can obtain from ``known``, and ``known`` itself
    (delete-free: a goal is reachable exactly when it is a subset of this)."""
    reach = index.mask(known)
    changed = True
    while changed:
        changed = False
        for req, add in zip(index.req, index.add, strict=True):
            if not req & ~reach and add & ~reach:
                reach |= add
                changed = True
    return known | frozenset(index.names_of(reach))


def _unreached(index: NativeIndex, known: frozenset[str], goal: frozenset[str]
               ) -> tuple[Problem, int]:
    """The reduced problem and the variables it needs that no tool sequence reaches from
    ``known`` (delete-free; 0 when the goal is reachable)."""
    p = reduce_problem(index, known, goal)
    reach = 0
    changed = True
    while changed:
        changed = False
        for t in p.tools:
            if not p.req[t] & ~reach and p.add[t] & ~reach:
                reach |= p.add[t]
                changed = True
    return p, (p.need & ~reach if p.goal & ~reach else 0)


def never_given(index: NativeIndex, known: frozenset[str], goal: frozenset[str]
                ) -> tuple[str, ...]:
    """The variables ``goal`` needs, itself or through the tools that would reach it, that
    no tool produces and ``known`` lacks: only the user can give them. Empty when the goal
    is reachable (or only tools that need one another stand in its way)."""
    unknown = [v for v in sorted(goal - known) if v not in index.bit]
    _, never = _unreached(index, known, goal & frozenset(index.bit))
    return (*unknown, *sorted(index.variables[b] for b in bits(never)
                              if not index.producers[b]))


def unreachable_reason(index: NativeIndex, known: frozenset[str], goal: frozenset[str]) -> str:
    """Why ``goal`` cannot be reached from ``known``, or "" when it can (delete-free)."""
    missing = sorted(
        v for v in goal - known if v not in index.bit or not index.producers[index.bit[v]]
    )
    if missing:
        return f"no tool produces goal variable(s) {', '.join(missing)}"
    p, never = _unreached(index, known, goal)
    if not never:
        return ""
    roots = [b for b in bits(never) if not index.producers[b]]
    goal_names = ", ".join(index.names_of(p.goal & never))
    if roots:
        parts = []
        for b in roots:
            users = [index.names[t] for t in p.tools if index.req[t] >> b & 1]
            needed_by = ", ".join(users)
            parts.append(f"{index.variables[b]} (no tool produces it; needed by {needed_by})")
        return (
            f"goal variable(s) {goal_names} cannot be reached: required variable(s) that can "
            f"never be obtained: {'; '.join(parts)}"
        )
    return (
        f"goal variable(s) {goal_names} cannot be reached: variables "
        f"{', '.join(index.names_of(never))} are only produced by tools that need one another"
    )
