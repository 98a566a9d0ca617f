"""The oracle's view of a task from its ground truth: the goal and the values the user gave.

A suite whose tasks come with ground-truth calls (AgentDojo's, the shop's) reads from them:

- the *oracle goal*: one step per ground-truth call that contributes, in order: what the
  call's tool produces that no later call's tool requires;
- the *oracle known* values: for each ground-truth argument whose value occurs in the prompt
  (text, case-insensitive; numbers by value), the variable its parameter carries and that
  value (the list of them when the prompt gives several, in call order); parameters the
  contract marks ``authored`` (the model writes them) are skipped, and so is a variable the
  ground truth also passes values of that the prompt does not give (which values it takes
  the user did not say).

Both are an upper bound (what a user does not say in so many words), hence ``--goal oracle``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..core.contracts import Registry, Steps
from ..core.errors import ContractError
from ..core.provenance import leaves
from .base import GroundCall

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def oracle_goal(registry: Registry, gold: Sequence[str]) -> Steps:
    """One step per ground-truth call that contributes: what its tool produces that no later
    call's tool requires."""
    steps = []
    for i, name in enumerate(gold):
        later = frozenset().union(*(registry.tool(n).pre for n in gold[i + 1:]))
        step = registry.tool(name).post - later
        if step:
            steps.append(frozenset(step))
    return tuple(steps)


def gold_goal(registry: Registry, gold: Sequence[str], what: str) -> Steps:
    """The oracle goal of the task ``what`` names, whose ground truth calls ``gold``; a
    ContractError names the task when a call's tool is not in the contracts or the ground
    truth produces nothing."""
    unknown = sorted({t for t in gold if t not in registry})
    if unknown:
        raise ContractError(f"{what}: its ground truth calls {unknown}, which the contracts "
                            f"({registry.source}) do not name")
    steps = oracle_goal(registry, gold)
    if not steps:
        raise ContractError(f"{what}: its ground truth produces nothing, so it has no goal")
    return steps


def _occurs(value: Any, prompt: str, numbers: frozenset[float]) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int | float):
        return float(value) in numbers
    if isinstance(value, str):
        text = value.strip().lower()
        return bool(text) and text in prompt.lower()
    return False


def oracle_known(registry: Registry, calls: Sequence[GroundCall], prompt: str) -> dict[str, Any]:
    """{variable: value} of every ground-truth argument whose value the prompt gives; a
    variable the prompt gives several values of (two cities, two web pages) gets the list of
    them, in the order of the calls. A variable the ground truth also passes values of that
    the prompt does not give (the user names their own line, the task changes their son's
    too, which the account lists) is left out: the user did not say which values it takes."""
    numbers = frozenset(float(n) for n in _NUMBER.findall(prompt))
    found: dict[str, list[Any]] = {}
    unsaid: set[str] = set()
    for call in calls:
        tool = registry.tool(call.tool)
        for parameter, value in (call.arguments or {}).items():
            if parameter in tool.authored:
                continue
            variable = tool.variable_of(parameter)
            if not _occurs(value, prompt, numbers):
                if any(not _occurs(v, prompt, numbers) for v in leaves(value)
                       if v is not None and not isinstance(v, bool)):
                    unsaid.add(variable)
                continue
            values = found.setdefault(variable, [])
            if value not in values:
                values.append(value)
    return {name: values[0] if len(values) == 1 else values for name, values in found.items()
            if name not in unsaid}
