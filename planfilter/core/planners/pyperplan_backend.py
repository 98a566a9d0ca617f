"""pyperplan as a library: the rendered PDDL parsed and grounded once per registry.

Parsing and grounding dominate pyperplan's cost (tens of ms at 100 tools, seconds at 1,000),
and with 0-ary predicates the grounding does not depend on the problem. So it is done once per
registry, against a problem whose initial state holds every variable (so that pyperplan keeps
every operator). pyperplan then strips *static* preconditions (variables no tool produces) from
the operators; they are remembered here and checked per call, which restores the exact
semantics. Each call builds a small Task: operators relevant to the goal (the same fixpoint as
pyperplan's relevance analysis, without its in-place edits of shared operators), the initial
state and the goal, and runs pyperplan's breadth-first search. Operators stay in registry order,
so the plan is the canonical one (Algorithm 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..compile import CompiledDomain, compile_domain, compile_problem_for
from ..contracts import Registry
from .base import Deadline, PlanResult, RegistryCache, Status
from .call import Backend, PlanCall


@dataclass(frozen=True)
class Grounded:
    domain: CompiledDomain
    operators: tuple[Any, ...]
    static_pre: tuple[frozenset[str], ...]
    tool_of: dict[str, str]


def _ground(registry: Registry, _key: object = None) -> Grounded:
    from pyperplan import grounding
    from pyperplan.pddl.parser import Parser

    domain = compile_domain(registry)
    everything = frozenset(domain.predicates.to_pddl)
    probe = compile_problem_for(domain, everything, (), name="ground")
    parser = Parser(None)
    parser.domInput = domain.text
    parsed_domain = parser.parse_domain(read_from_file=False)
    parser.probInput = probe.text
    parsed_problem = parser.parse_problem(parsed_domain, read_from_file=False)
    task = grounding.ground(
        parsed_problem, remove_statics_from_initial_state=False, remove_irrelevant_operators=False
    )
    statics = set(grounding._get_statics(parsed_domain.predicates.values(),
                                         parsed_domain.actions.values()))
    static_pre = []
    tool_of = {}
    for op in task.operators:
        action = parsed_domain.actions[op.name.strip("()")]
        static_pre.append(frozenset(f"({p.name})" for p in action.precondition
                                    if p.name in statics))
        tool_of[op.name] = domain.actions.user(op.name.strip("()"))
    return Grounded(domain, tuple(task.operators), tuple(static_pre), tool_of)


GROUNDED: RegistryCache[Grounded] = RegistryCache(_ground)


class PyperplanPlanner(Backend):
    name = "pyperplan"
    requirements = frozenset({"strips"})

    def unavailable_reason(self) -> str | None:
        try:
            import pyperplan.search.breadth_first_search  # noqa: F401
        except ImportError as exc:
            return f"pyperplan is not installed ({exc}); pip install pyperplan"
        return None

    def prepare(self, registry: Registry) -> Grounded:
        return GROUNDED.get(registry)

    def answer(self, call: PlanCall) -> PlanResult:
        if call.objective != "length":
            return call.refused(Status.UNSUPPORTED,
                                "pyperplan's breadth-first search has no action costs")
        if not call.goal_is_mentioned:
            return call.unsolvable()
        grounded = self.prepare(call.registry)

        def run() -> tuple[str, ...] | None:
            ops = self._search(grounded, call.known, call.goal, call.deadline)
            return None if ops is None else tuple(grounded.tool_of[op.name] for op in ops)

        return call.search(run, canonical=True)

    @staticmethod
    def _search(grounded: Grounded, known: frozenset[str], goal: frozenset[str],
                deadline: Deadline) -> list[Any] | None:
        from pyperplan.search.breadth_first_search import breadth_first_search
        from pyperplan.task import Operator, Task

        to_pddl = grounded.domain.predicates.to_pddl
        init = frozenset(f"({to_pddl[v]})" for v in known if v in to_pddl)
        goals = frozenset(f"({to_pddl[v]})" for v in goal - known)
        usable = [op for op, static in zip(grounded.operators, grounded.static_pre, strict=True)
                  if static <= init]
        relevant = set(goals)
        changed = True
        while changed:
            size = len(relevant)
            for op in usable:
                if op.add_effects & relevant:
                    relevant |= op.preconditions
            changed = len(relevant) != size
        relevant -= init
        ops = []
        for op in usable:
            add = op.add_effects & relevant
            if add:
                ops.append(Operator(op.name, op.preconditions, add, frozenset()))

        task = Task("planfilter", relevant | init, init, goals, ops)
        expand = task.get_successor_states

        def timed_successors(state: frozenset[str]) -> list[Any]:
            # pyperplan's search has no deadline of its own; checking one per expansion lets
            # a timeout hold in-process, without a subprocess.
            deadline.check()
            return expand(state)

        task.get_successor_states = timed_successors  # type: ignore[method-assign]
        return breadth_first_search(task)
