"""Goals handed to a session (a goal's name, its variables, or steps), read as steps."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core.contracts import Registry, Steps, goal_steps, show_steps
from ..core.errors import PlanfilterError
from .goals import Resolution
from .recognition import Candidate, Origin, RecognitionOptions, candidates_from


def goal_name(steps: Steps) -> str:
    """A goal's name: its steps shown in order, or one step's variables joined by commas."""
    return show_steps(steps) if len(steps) > 1 else ",".join(sorted(steps[0]))


def steps_of(registry: Registry, goal: Any) -> Steps:
    """The steps of ``goal``: a registry goal's name, a variable, a list of variables, or a
    list of steps (each a name or a list of variables; a step that is one registry goal's
    name is that goal's steps). A goal no tool can reach is kept: the frontier is then empty
    and says why. Raises PlanfilterError for a goal that names no variable or is not of
    these shapes."""
    named = {g.name: g.goal_steps for g in registry.goals}
    if isinstance(goal, str):
        if not goal.strip():
            raise PlanfilterError("the goal names no variable")
        return named.get(goal, (frozenset({goal}),))
    items = list(goal) if isinstance(goal, Iterable) else None
    if not items:
        raise PlanfilterError("the goal names no variable")
    if all(isinstance(i, str) for i in items) and len(items) == 1 and items[0] in named:
        return named[items[0]]
    try:
        steps = goal_steps(items)
    except (TypeError, ValueError) as exc:
        raise PlanfilterError(f"goal {goal!r}: {exc}") from None
    out: list[frozenset[str]] = []
    for step in steps:
        if len(step) == 1 and next(iter(step)) in named and len(steps) > 1:
            out.extend(named[next(iter(step))])
        else:
            out.append(step)
    return tuple(out)


def given_goal(registry: Registry, goal: Any) -> tuple[Resolution, tuple[Candidate, ...]]:
    """The resolution and the one candidate of a goal given to the session (see
    :func:`steps_of` for the shapes accepted and refused)."""
    steps = steps_of(registry, goal)
    name = goal_name(steps)
    resolution = Resolution(frozenset().union(*steps), name,
                            steps=steps if len(steps) > 1 else ())
    return resolution, (Candidate(name, steps, 1.0, Origin.GIVEN),)


def given_candidates(registry: Registry, candidates: Sequence[Any],
                     recognition: RecognitionOptions, goal: Any = None
                     ) -> tuple[Resolution, tuple[Candidate, ...]]:
    """The resolution (the first goal) and the candidates of a list of goals given best
    first, weighed as a resolved goal's are. Raises PlanfilterError for text or a mapping in
    place of a list, for an empty list, and when a ``goal`` is given as well."""
    if isinstance(candidates, str | Mapping):
        raise PlanfilterError("candidates: a list of goals, best first (each a "
                              "goal's name, variables, or steps)")
    if goal is not None or not candidates:
        raise PlanfilterError("give either a goal or a non-empty list of candidate goals")
    listed = [(goal_name(s), s, Origin.GIVEN) for s in
              (steps_of(registry, c) for c in candidates)]
    found = candidates_from(listed, replace(recognition, candidates=len(listed)))
    first = found[0]
    resolution = Resolution(first.goal, first.name,
                            steps=first.steps if len(first.steps) > 1 else ())
    return resolution, found
