"""Hypothesis strategies: small random registries, states and goals, and brute-force oracles
that state the paper's definitions directly (no search tricks)."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations

from hypothesis import event
from hypothesis import strategies as st

from planfilter.core.compile import tool_cost
from planfilter.core.contracts import Registry, Tool

VARIABLES = [f"v{i}" for i in range(6)]


@st.composite
def _tool_fields(draw, costs: bool = False) -> dict:
    return {"requires": draw(st.sets(st.sampled_from(VARIABLES), max_size=3)),
            "produces": draw(st.sets(st.sampled_from(VARIABLES), min_size=1, max_size=2)),
            **_cost_and_risk(draw, costs)}


def _cost_and_risk(draw, costs: bool) -> dict:
    if not costs:
        return {"cost": 1, "risk": "low"}
    return {"cost": draw(st.sampled_from([1, 2, 3, 0.5])),
            "risk": draw(st.sampled_from(["low", "medium", "high"]))}


def _registry(fields: list[dict]) -> Registry:
    return Registry(tools=tuple(Tool(name=f"t{i}", **f) for i, f in enumerate(fields)))


@st.composite
def registries(draw, max_tools: int = 6, costs: bool = False) -> Registry:
    """Any registry of up to ``max_tools`` tools over :data:`VARIABLES` (with a state and a goal
    drawn apart from it, most have no plan: see :func:`problems`)."""
    n = draw(st.integers(1, max_tools))
    return _registry([draw(_tool_fields(costs)) for _ in range(n)])


states = st.frozensets(st.sampled_from(VARIABLES), max_size=3)
goals = st.frozensets(st.sampled_from(VARIABLES), min_size=1, max_size=3)


@st.composite
def planted(draw, max_tools: int = 6, costs: bool = False):
    """``(registry, known, goal)`` with a plan to find: from the drawn state a chain of one to
    three tools, each needing something the one before gives, obtains a goal not yet held.
    The other tools are drawn as :func:`registries` draws them (they may open shorter or
    cheaper ways), and the names are shuffled, so the chain is not in registry order."""
    known = draw(states)
    held, last, chain = set(known), frozenset(), []
    for _ in range(draw(st.integers(1, min(3, max_tools)))):
        new = [v for v in VARIABLES if v not in held]
        if not new:
            break
        requires = set(draw(st.sets(st.sampled_from(sorted(held)), max_size=2))) if held \
            else set()
        if last:
            requires.add(draw(st.sampled_from(sorted(last))))
        last = draw(st.frozensets(st.sampled_from(new), min_size=1, max_size=2))
        chain.append({"requires": requires, "produces": last, **_cost_and_risk(draw, costs)})
        held |= last
    others = [draw(_tool_fields(costs))
              for _ in range(draw(st.integers(0, max_tools - len(chain))))]
    fields = draw(st.permutations(chain + others))
    goal = {draw(st.sampled_from(sorted(last)))} | \
        draw(st.sets(st.sampled_from(sorted(held - known)), max_size=2))
    return _registry(fields), known, frozenset(goal)


def problems(max_tools: int = 6, costs: bool = False):
    """``(registry, known, goal)``: mostly :func:`planted` (a plan to find); one draw in eight
    is a registry, state and goal drawn apart, which mostly has no plan or holds the goal
    already, so the tests about those cases still meet them."""
    free = st.tuples(registries(max_tools, costs), states, goals)
    return st.sampled_from(range(8)).flatmap(
        lambda i: free if i == 0 else planted(max_tools, costs))


#: The event a property test records once its drawn example reaches the assertions that state
#: the definition (``--hypothesis-show-statistics`` reports its share of the examples drawn).
REACHED = "reached the assertions"


def reached(detail: str = "") -> None:
    """Record that this example reached the assertions (and, if given, which case it is)."""
    event(REACHED)
    if detail:
        event(detail)


def closure(registry: Registry, known: frozenset) -> frozenset:
    """Every variable some sequence of calls can obtain from ``known`` (``known`` included)."""
    held = set(known)
    grown = True
    while grown:
        grown = False
        for tool in registry:
            if tool.pre <= held and not tool.post <= held:
                held |= tool.post
                grown = True
    return frozenset(held)


def case_of(registry: Registry, known: frozenset, goal: frozenset) -> str:
    """The kind of planning problem drawn: held already, no plan, or a plan to find."""
    if goal <= known:
        return "case: goal already held"
    if not goal <= closure(registry, known):
        return "case: no plan"
    return "case: a plan to find"


def note_case(registry: Registry, known: frozenset, goal: frozenset) -> str:
    """Record the problem's kind as a hypothesis event, and return it."""
    kind = case_of(registry, known, goal)
    event(kind)
    return kind


def is_plan(registry: Registry, known: frozenset, goal: frozenset, plan) -> bool:
    state = set(known)
    for name in plan:
        tool = registry.tool(name)
        if not tool.pre <= state:
            return False
        state |= tool.post
    return goal <= state


def all_plans(registry: Registry, known: frozenset, goal: frozenset):
    """Every valid plan without repeated tools, in (length, registry-lexicographic) order.
    A minimal plan never repeats a tool, since a repeat adds nothing."""
    names = registry.names
    for length in range(len(names) + 1):
        for combo in permutations(range(len(names)), length):
            plan = tuple(names[i] for i in combo)
            if is_plan(registry, known, goal, plan):
                yield plan


def brute_minimal(registry, known, goal):
    """(lexicographically smallest shortest plan, every first tool of a shortest plan)."""
    best = None
    firsts: set[str] = set()
    for plan in all_plans(registry, known, goal):
        if best is not None and len(plan) > len(best):
            break
        if best is None:
            best = plan
        if plan:
            firsts.add(plan[0])
    return best, firsts


def brute_cheapest(registry, known, goal, risk_lambda):
    def cost(plan):
        return sum((tool_cost(registry.tool(n), risk_lambda) for n in plan), Fraction(0))

    plans = list(all_plans(registry, known, goal))
    if not plans:
        return None, None, set()
    positions = {n: i for i, n in enumerate(registry.names)}
    best = min(plans, key=lambda p: (cost(p), tuple(positions[n] for n in p)))
    firsts = {p[0] for p in plans if p and cost(p) == cost(best)}
    return best, cost(best), firsts
