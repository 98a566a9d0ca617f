"""The native planner: Algorithm 1 of the CMTF paper over bitmasks, in pure Python.

A registry is compiled once into bitmask indexes. Each call first keeps only the tools relevant
to the goal (backward from the goal: producers of needed variables, then producers of their
missing requirements). Every step of a minimal plan is needed, so no minimal plan is lost; and
two states that differ only in variables no relevant tool needs are merged. What remains is
searched breadth first, expanding tools in registry order and skipping seen states: the first
plan found is the lexicographically smallest minimal plan (by registry positions), which is the
canonical plan every other backend is normalised to.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from ..compile import Objective, tool_cost
from ..contracts import Registry
from .base import Deadline, PlanCall, PlanResult, RegistryCache

CHECK_EVERY = 512


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
        req = tuple(sum(1 << bit[v] for v in t.requires) for t in registry)
        add = tuple(sum(1 << bit[v] for v in t.produces) for t in registry)
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


def unreachable_reason(index: NativeIndex, known: frozenset[str], goal: frozenset[str]) -> str:
    """Why ``goal`` cannot be reached from ``known``, or "" when it can (delete-free)."""
    missing = sorted(
        v for v in goal - known if v not in index.bit or not index.producers[index.bit[v]]
    )
    if missing:
        return f"no tool produces goal variable(s) {', '.join(missing)}"
    p = reduce_problem(index, known, goal)
    reach = 0
    changed = True
    while changed:
        changed = False
        for t in p.tools:
            if not p.req[t] & ~reach and p.add[t] & ~reach:
                reach |= p.add[t]
                changed = True
    if not p.goal & ~reach:
        return ""
    never = p.need & ~reach
    roots = [b for b in bits(never) if not index.producers[b]]
    goal_names = ", ".join(index.names_of(p.goal & ~reach))
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


def bfs_plan(p: Problem, deadline: Deadline) -> tuple[int, ...] | None:
    """Algorithm 1: the lexicographically smallest shortest plan, as tool indices."""
    if not p.goal:
        return ()
    parent: dict[int, tuple[int, int]] = {0: (-1, -1)}
    frontier = [0]
    tools, req, add, goal = p.tools, p.req, p.add, p.goal
    expanded = 0
    while frontier:
        layer: list[int] = []
        for key in frontier:
            expanded += 1
            if expanded % CHECK_EVERY == 0:
                deadline.check()
            for t in tools:
                if req[t] & ~key:
                    continue
                nk = key | add[t]
                if nk in parent:
                    continue
                parent[nk] = (key, t)
                if not goal & ~nk:
                    plan = []
                    while nk:
                        nk, tool = parent[nk]
                        plan.append(tool)
                    return tuple(reversed(plan))
                layer.append(nk)
        frontier = layer
    return None


def bfs_first_actions(p: Problem, deadline: Deadline) -> tuple[int, int]:
    """Every tool that starts some shortest plan (as a bitmask of tool indices), and the length.

    One layered search: each state carries the set of first actions of the shortest paths that
    reach it, so the answer costs one search, not one search per candidate. Returns (0, -1)
    when there is no plan.
    """
    if not p.goal:
        return 0, 0
    seen = {0}
    layer: dict[int, int] = {0: 0}
    tools, req, add, goal = p.tools, p.req, p.add, p.goal
    depth = 0
    expanded = 0
    while layer:
        depth += 1
        nxt: dict[int, int] = {}
        for key, firsts in layer.items():
            expanded += 1
            if expanded % CHECK_EVERY == 0:
                deadline.check()
            for t in tools:
                if req[t] & ~key:
                    continue
                nk = key | add[t]
                if nk in seen:
                    continue
                nxt[nk] = nxt.get(nk, 0) | (firsts if depth > 1 else 1 << t)
        goal_firsts = 0
        for key, firsts in nxt.items():
            if not goal & ~key:
                goal_firsts |= firsts
        if goal_firsts:
            return goal_firsts, depth
        seen.update(nxt)
        layer = nxt
    return 0, -1


def ucs_plan(
    p: Problem, weights: tuple[Fraction, ...], deadline: Deadline
) -> tuple[tuple[int, ...], Fraction] | None:
    """Uniform-cost search; among cheapest plans, the lexicographically smallest.

    The priority is (cost, path): with positive costs it only grows along a path, and it
    preserves order when two paths to one state are extended by the same tool, so the first
    plan popped at a goal state is the smallest cheapest plan.
    """
    heap: list[tuple[Fraction, tuple[int, ...], int]] = [(Fraction(0), (), 0)]
    done: set[int] = set()
    expanded = 0
    while heap:
        cost, path, key = heapq.heappop(heap)
        if key in done:
            continue
        done.add(key)
        if not p.goal & ~key:
            return path, cost
        expanded += 1
        if expanded % CHECK_EVERY == 0:
            deadline.check()
        for t in p.tools:
            if p.req[t] & ~key:
                continue
            nk = key | p.add[t]
            if nk not in done:
                heapq.heappush(heap, (cost + weights[t], path + (t,), nk))
    return None


def ucs_first_actions(
    p: Problem, weights: tuple[Fraction, ...], deadline: Deadline
) -> tuple[int, Fraction | None]:
    """Every tool that starts some cheapest plan (bitmask), and the cheapest cost."""
    dist: dict[int, Fraction] = {0: Fraction(0)}
    firsts: dict[int, int] = {0: 0}
    heap: list[tuple[Fraction, int]] = [(Fraction(0), 0)]
    done: set[int] = set()
    best: Fraction | None = None
    answer = 0
    expanded = 0
    while heap:
        cost, key = heapq.heappop(heap)
        if key in done or cost > dist[key]:
            continue
        if best is not None and cost > best:
            break
        done.add(key)
        if not p.goal & ~key:
            best = cost
            answer |= firsts[key]
            continue
        expanded += 1
        if expanded % CHECK_EVERY == 0:
            deadline.check()
        for t in p.tools:
            if p.req[t] & ~key:
                continue
            nk = key | p.add[t]
            if nk in done:
                continue
            nc = cost + weights[t]
            label = firsts[key] if key else 1 << t
            old = dist.get(nk)
            if old is None or nc < old:
                dist[nk] = nc
                firsts[nk] = label
                heapq.heappush(heap, (nc, nk))
            elif nc == old:
                firsts[nk] |= label
    return answer, best


class NativePlanner:
    name = "native"
    requirements = frozenset({"strips", "action-costs"})

    def unavailable_reason(self) -> str | None:
        return None

    def solve(
        self,
        registry: Registry,
        known: frozenset[str],
        goal: frozenset[str],
        *,
        objective: Objective = "length",
        risk_lambda: float = 0.0,
        timeout: float | None = None,
    ) -> PlanResult:
        deadline = Deadline(timeout)  # started first: building the index counts against it
        index = index_for(registry)
        call = PlanCall(self.name, deadline, lambda: unreachable_reason(index, known, goal))

        def run() -> tuple[str, ...] | None:
            plan = self.plan_indices(index, known, goal, objective, risk_lambda, call.deadline)
            return None if plan is None else tuple(index.names[t] for t in plan)

        return call.search(run, canonical=True)

    @staticmethod
    def plan_indices(
        index: NativeIndex, known: frozenset[str], goal: frozenset[str],
        objective: Objective, risk_lambda: float, deadline: Deadline,
    ) -> tuple[int, ...] | None:
        if goal <= known:
            return ()
        if not (goal - known) <= index.bit.keys():  # a goal variable no tool mentions
            return None
        p = reduce_problem(index, known, goal)
        if objective == "cost":
            found = ucs_plan(p, weights_for(registry=index.registry, risk_lambda=risk_lambda),
                             deadline)
            return None if found is None else found[0]
        return bfs_plan(p, deadline)

    def first_actions(
        self, registry: Registry, known: frozenset[str], goal: frozenset[str], *,
        objective: Objective = "length", risk_lambda: float = 0.0, timeout: float | None = None,
    ) -> tuple[str, ...] | None:
        """Every tool that starts some minimal plan, in registry order; None if no plan."""
        if goal <= known:
            return ()
        index = index_for(registry)
        if not (goal - known) <= index.bit.keys():  # a goal variable no tool mentions
            return None
        p = reduce_problem(index, known, goal)
        deadline = Deadline(timeout)
        if objective == "cost":
            mask, best = ucs_first_actions(p, weights_for(registry, risk_lambda), deadline)
            found = best is not None
        else:
            mask, depth = bfs_first_actions(p, deadline)
            found = depth >= 0
        return tuple(index.names[t] for t in bits(mask)) if found else None


_WEIGHTS: RegistryCache[tuple[Fraction, ...]] = RegistryCache(
    lambda registry, risk_lambda: tuple(tool_cost(t, risk_lambda) for t in registry)
)


def weights_for(registry: Registry, risk_lambda: float) -> tuple[Fraction, ...]:
    return _WEIGHTS.get(registry, risk_lambda)
