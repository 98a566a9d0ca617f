"""How far each candidate goal is: the steps reached, the state its planner sees, its cost."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..core.steps import GIVEN, advance, stale
from .candidates import kin_of_variables
from .recognition import Belief, observe, remaining_cost
from .snapshot import Snapshot


def producers(now: Snapshot, name: str) -> list[int]:
    """The call that produced each value of ``name`` (GIVEN for a given one); while several
    candidates are weighed, also each call of a kin of its producers (shown in their place:
    a search of the messages made for the received messages reaches the step that reads
    them)."""
    calls = [f.call or GIVEN for f in now.facts.get(name, ())]
    if not now.weighing:
        return calls
    kin = kin_of_variables(now.registry).get(name, frozenset())
    if not kin:
        return calls
    return sorted({*calls, *(c.index for c in now.calls if c.ok and c.tool in kin)})


def counted(now: Snapshot, belief: Belief) -> Callable[[str], list[int]]:
    """:func:`producers` as the candidate counts them: a later part of the request counts
    only the calls made since it is weighed (and the given values)."""
    if not belief.since:
        return lambda name: producers(now, name)
    return lambda name: [c for c in producers(now, name) if c == GIVEN or c > belief.since]


def stale_variables(now: Snapshot, belief: Belief) -> frozenset[str]:
    """The variables of the candidate's current step not produced since the step before it
    was reached (for a later part of the request, its first step's not produced since it
    is weighed)."""
    return stale(belief.step, belief.candidate.steps, belief.reached, counted(now, belief))


def planning_state(now: Snapshot, belief: Belief) -> dict[str, Any]:
    """Each variable's latest value, less the candidate's stale ones: the state its planner
    sees for its current step."""
    state = {name: facts[-1].value for name, facts in now.facts.items()}
    for name in stale_variables(now, belief):
        state.pop(name, None)
    return state


def advanced(now: Snapshot, *, ran: bool) -> tuple[Belief, ...]:
    """Every candidate with each step reached in order, as far as the state reaches, and
    weighed by its plan length from here (one more observation when a call ran)."""
    given = frozenset(now.given())
    beliefs = []
    for belief in now.beliefs:
        reached = list(belief.reached)
        advance(belief.candidate.steps, reached, counted(now, belief), len(now.calls))
        moved = replace(belief, reached=tuple(reached))
        cost = remaining_cost(now.registry, planning_state(now, moved),
                              belief.candidate.steps, moved.step, given)
        beliefs.append(observe(belief, reached=reached, cost=cost, ran=ran))
    return tuple(beliefs)
