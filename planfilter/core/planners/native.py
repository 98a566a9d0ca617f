"""The native planner: Algorithm 1 of the CMTF paper over bitmasks, in pure Python.

Each call works on the goal-relevant part of the registry's bitmask index (``index.py``). It
is searched breadth first, expanding tools in registry order and skipping seen states: the
first plan found is the lexicographically smallest minimal plan (by registry positions), which
is the canonical plan every other backend is normalised to.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from fractions import Fraction

from ..compile import Objective, tool_cost
from ..contracts import Registry
from .base import Deadline, PlanResult, RegistryCache
from .call import Backend, PlanCall
from .index import NativeIndex, Problem, bits, index_for, reduce_problem


def successors(p: Problem, key: int) -> Iterator[tuple[int, int]]:
    """(tool, next state) for every relevant tool executable in state ``key``, in registry
    order: the expansion every search here shares."""
    req, add = p.req, p.add
    for t in p.tools:
        if not req[t] & ~key:
            yield t, key | add[t]


def bfs_plan(p: Problem, deadline: Deadline) -> tuple[int, ...] | None:
    """Algorithm 1: the lexicographically smallest shortest plan, as tool indices."""
    if not p.goal:
        return ()
    parent: dict[int, tuple[int, int]] = {0: (-1, -1)}
    frontier = [0]
    goal = p.goal
    while frontier:
        layer: list[int] = []
        for key in frontier:
            deadline.tick()
            for t, nk in successors(p, key):
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
    goal = p.goal
    depth = 0
    while layer:
        depth += 1
        nxt: dict[int, int] = {}
        for key, firsts in layer.items():
            deadline.tick()
            for t, nk in successors(p, key):
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
    while heap:
        cost, path, key = heapq.heappop(heap)
        if key in done:
            continue
        done.add(key)
        if not p.goal & ~key:
            return path, cost
        deadline.tick()
        for t, nk in successors(p, key):
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
        deadline.tick()
        for t, nk in successors(p, key):
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


class NativePlanner(Backend):
    name = "native"
    requirements = frozenset({"strips", "action-costs"})

    def unavailable_reason(self) -> str | None:
        return None

    def answer(self, call: PlanCall) -> PlanResult:
        index = index_for(call.registry)  # after the deadline started: building it counts

        def run() -> tuple[str, ...] | None:
            plan = self.plan_indices(index, call.known, call.goal, call.objective,
                                     call.risk_lambda, call.deadline)
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
