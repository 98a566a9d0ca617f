"""Plan length, one definition (planfilter.core.frontier.plan_length): the number of steps
of a shortest causal path, None when there is none, stated against brute force."""

from __future__ import annotations

from hypothesis import given, settings
from strategies import brute_minimal, goals, registries, states

from planfilter.core.frontier import compute_frontier, minimal_plan, plan_cost, plan_length
from planfilter.core.planners import Status


@settings(max_examples=200, deadline=None)
@given(registry=registries(), known=states, goal=goals)
def test_plan_length_is_the_length_of_a_shortest_plan(registry, known, goal):
    best, _firsts = brute_minimal(registry, known, goal)
    assert minimal_plan(registry, known, goal) == best
    assert plan_length(registry, known, goal) == (None if best is None else len(best))
    result = compute_frontier(registry, known, goal, planner="native", fallback=None)
    if best is None:
        assert result.status == Status.UNSOLVABLE
    else:  # the frontier's plan, measured as plan_cost measures a plan, has that length
        assert plan_cost(registry, result.plan, "length", 0.0) == len(best)
