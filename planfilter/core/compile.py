"""Contracts + state + goal -> STRIPS PDDL, rendered by the Jinja templates in templates/.

The domain depends on the registry only and is compiled once; problems are cheap. Actions are
rendered in registry order (the tie-break order); everything else is sorted, so the same input
gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, reduce
from math import lcm
from typing import Literal

import jinja2

from .contracts import Registry, Tool
from .errors import CompileError
from .naming import NameMap
from .resources import data_dir

Objective = Literal["length", "cost"]
#: Weight of each risk level in the cost objective: c = cost + lambda * weight.
RISK_WEIGHTS = {"low": 0, "medium": 1, "high": 3}
MAX_COST_SCALE = 1000


def tool_cost(tool: Tool, risk_lambda: float = 0.0) -> Fraction:
    """Exact cost of a tool under the cost objective (exact so that ties stay ties)."""
    return Fraction(str(tool.cost)) + Fraction(str(risk_lambda)) * RISK_WEIGHTS[tool.risk]


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
    )


def render(template: str, **context: object) -> str:
    return _environment().get_template(template).render(**context)


@dataclass(frozen=True)
class CompiledDomain:
    """A registry as PDDL, with the name maps to read plans back."""

    registry: Registry
    text: str
    actions: NameMap
    predicates: NameMap
    objective: Objective
    risk_lambda: float
    cost_scale: int

    @property
    def name(self) -> str:
        return "planfilter"

    def action_cost(self, tool: Tool) -> int:
        return round(tool_cost(tool, self.risk_lambda) * self.cost_scale)


@dataclass(frozen=True)
class PddlProblem:
    domain: CompiledDomain
    text: str
    init: frozenset[str]
    goal: frozenset[str]


def _cost_scale(costs: Iterable[Fraction]) -> int:
    scale = reduce(lcm, (c.denominator for c in costs), 1)
    return scale if scale <= MAX_COST_SCALE else MAX_COST_SCALE


def compile_domain(
    registry: Registry,
    *,
    objective: Objective = "length",
    risk_lambda: float = 0.0,
    extra_variables: Iterable[str] = (),
) -> CompiledDomain:
    variables = sorted(registry.variables | frozenset(extra_variables))
    predicates = NameMap.build("variable", variables, prefix="v")
    actions = NameMap.build("tool", registry.names, prefix="t")
    cost_aware = objective == "cost"
    scale = _cost_scale(tool_cost(t, risk_lambda) for t in registry) if cost_aware else 1
    rows = []
    for tool in registry:
        cost = round(tool_cost(tool, risk_lambda) * scale) if cost_aware else 1
        rows.append(
            {
                "tool": tool.name,
                "name": actions.to_pddl[tool.name],
                "pre": sorted(predicates.to_pddl[v] for v in tool.pre),
                "add": sorted(predicates.to_pddl[v] for v in tool.post),
                "cost": cost,
            }
        )
    text = render(
        "domain.pddl.j2",
        name="planfilter",
        predicates=sorted(predicates.to_user),
        actions=rows,
        cost_aware=cost_aware,
    )
    return CompiledDomain(registry, text, actions, predicates, objective, risk_lambda, scale)


def compile_problem_for(
    domain: CompiledDomain, known: Iterable[str], goal: Iterable[str], name: str = "task"
) -> PddlProblem:
    """Render a problem against an already compiled domain.

    Variables the domain does not declare are dropped from the initial state (no tool reads
    them) and from the goal when already known; an undeclared goal variable that is not known
    is an error, since the problem could not say it.
    """
    known_set = frozenset(known)
    goal_set = frozenset(goal)
    declared = frozenset(domain.predicates.to_pddl)
    undeclared = sorted(goal_set - declared - known_set)
    if undeclared:
        raise CompileError(
            f"goal variables {undeclared} are not declared in the compiled domain; "
            "compile it with extra_variables"
        )
    init = known_set & declared
    goal_set &= declared
    text = render(
        "problem.pddl.j2",
        name=_problem_name(name),
        domain=domain.name,
        init=sorted(domain.predicates.to_pddl[v] for v in init),
        goal=sorted(domain.predicates.to_pddl[v] for v in goal_set),
        cost_aware=domain.objective == "cost",
    )
    return PddlProblem(domain, text, init, goal_set)


def compile_problem(
    registry: Registry,
    known: Iterable[str],
    goal: Iterable[str],
    *,
    objective: Objective = "length",
    risk_lambda: float = 0.0,
    name: str = "task",
) -> PddlProblem:
    """Domain and problem for one state and goal, every state and goal variable declared."""
    known_set, goal_set = frozenset(known), frozenset(goal)
    domain = compile_domain(
        registry, objective=objective, risk_lambda=risk_lambda,
        extra_variables=known_set | goal_set,
    )
    return compile_problem_for(domain, known_set, goal_set, name=name)


def _problem_name(name: str) -> str:
    from .naming import pddl_identifier

    return pddl_identifier(name, prefix="p")
