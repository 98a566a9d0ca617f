"""What a task starts from: its candidate goals, and its first values with their sources."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.contracts import Registry
from ..core.environment import Supplied, supply, tool_sources
from ..core.errors import PlanfilterError
from ..core.text import narrow
from ..core.values import Source, SourceKind, ValueStore
from ..filters import GOAL_DIRECTED_METHODS
from ..models import CallOptions
from . import joining
from .candidates import candidate_goals, directed_reads, request_parts
from .delegation import Delegation, delegation
from .goal_input import given_candidates, given_goal
from .goals import RESOLVERS, GoalOption, Resolution, resolve_goal
from .recognition import Belief, Candidate, RecognitionOptions
from .records import MAX_REQUEST_CHARS, Fact, FactKind, check_known, check_size, values_of


@dataclass(frozen=True)
class Opening:
    """What :func:`opening` worked out for a task; the session holds it from then on (an
    empty one, with no resolution, before it starts)."""

    request: str = ""
    resolution: Resolution | None = None
    #: The candidate goals in the resolver's order (a delegated document's read beside the
    #: first).
    beliefs: tuple[Belief, ...] = ()
    #: Each variable's values at the start (:func:`starting_facts`).
    facts: Mapping[str, tuple[Fact, ...]] = field(default_factory=dict)
    #: The environment's values this task took (the user's and the request's outrank them).
    environment: Mapping[str, Supplied] = field(default_factory=dict)
    #: The request's text and every starting fact under its source (:func:`starting_store`).
    store: ValueStore = field(default_factory=ValueStore)
    #: The request's later parts, weighed once the leading candidate is reached.
    parts: tuple[GoalOption, ...] = ()
    #: The document the request hands what to do to (planfilter.live.delegation).
    delegation: Delegation | None = None
    #: The reads a sentence of the request directs to (planfilter.live.directions).
    directed: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Resolving:
    """How a goal not given is resolved from the request, and under which filter method."""

    method: str
    resolver: str
    model: str | None
    seed: int | None
    call_options: CallOptions
    recognition: RecognitionOptions


def check_resolver(resolver: str) -> None:
    """Returns when ``resolver`` is a goal resolver (planfilter.live.goals.RESOLVERS); else
    raises PlanfilterError naming it and the choices."""
    if resolver not in RESOLVERS:
        raise PlanfilterError(f"Session: goal resolver {resolver!r}: choose "
                              f"{' or '.join(RESOLVERS)}")


def opening(registry: Registry, request: Any, how: Resolving, *, goal: Any = None,
            known: Mapping[str, Any] | None = None, candidates: Sequence[Any] | None = None,
            environment: Mapping[str, Supplied] | None = None) -> Opening:
    """Returns what a task starts from (the arguments are those of
    :meth:`planfilter.live.Session.start`): the goal given as ``goal`` or ``candidates``, or
    else resolved from ``request`` as ``how`` says; when a resolved goal leaves several
    candidates under a goal-directed method, also the request's later parts, the document
    it delegates to and the reads it directs to. Raises PlanfilterError for a request that
    is not text or too long, a known value that fits no tool, an environment value a tool
    call must supply, or a malformed goal. The request is read with the characters a
    keyboard types wide or a paste carries as the plain ones they stand for
    (:func:`~planfilter.core.text.narrow`)."""
    if not isinstance(request, str):
        raise PlanfilterError("the request must be text")
    check_size("the request", request, MAX_REQUEST_CHARS)
    request = narrow(request)  # as typed or pasted: "INV–2025–00417" is INV-2025-00417
    given = dict(known or {})
    check_known(registry, given)
    supplied = supplied_values(registry, given, environment)
    parts: tuple[GoalOption, ...] = ()
    delegated: Delegation | None = None
    directed: frozenset[str] = frozenset()
    found: Sequence[Candidate]
    if candidates is not None:
        resolution, found = given_candidates(registry, candidates, how.recognition, goal)
    elif goal is None:
        context = {**{n: s.value for n, s in supplied.items()}, **given}
        resolution = resolve_goal(registry, request, resolver=how.resolver, model=how.model,
                                  seed=how.seed, options=how.call_options, context=context)
        found = candidate_goals(registry, resolution, request, context, how.recognition)
        if len(found) > 1 and how.method in GOAL_DIRECTED_METHODS:
            parts = request_parts(registry, request)
            delegated = delegation(request)
            directed = frozenset(t.name for o in directed_reads(registry, request)
                                 for t in registry.producers(o.variables))
    else:
        resolution, found = given_goal(registry, goal)
    beliefs = [Belief(c) for c in found]
    if delegated is not None:  # the read of the document stands beside the first
        beliefs[1:1] = joining.delegated_reads(registry, delegated, found)
    facts = starting_facts(registry, given, resolution.known, supplied)
    return Opening(request, resolution, tuple(beliefs),
                   {name: tuple(items) for name, items in facts.items()},
                   {n: s for n, s in supplied.items() if n not in given
                    and n not in resolution.known},
                   starting_store(request, facts), parts, delegated, directed)


def supplied_values(registry: Registry, given: Mapping[str, Any],
                    environment: Mapping[str, Supplied] | None) -> dict[str, Supplied]:
    """The environment's values for the variables the user did not give: ``environment``'s,
    or by default the registry's that need no tool call. Raises PlanfilterError naming the
    variables a tool call must supply (when ``environment`` is None) and any value that does
    not fit a tool that takes it."""
    if environment is None:
        unread = sorted(f"'{n}' (tool {t})" for n, t in
                        tool_sources(registry).items() if n not in given)
        if unread:
            raise PlanfilterError(
                f"{registry.source or '<registry>'}: the environment supplies "
                f"{', '.join(unread)} by a tool call: pass what it returned "
                "(Session.start(environment=planfilter.core.environment.supply("
                "registry, run=...))), as the gateway does")
        environment = supply(registry, skip=frozenset(given))
    supplied = {n: s for n, s in environment.items() if n not in given}
    check_known(registry, {n: s.value for n, s in supplied.items()}, "environment value")
    return supplied


def starting_facts(registry: Registry, given: Mapping[str, Any], read: Mapping[str, Any],
                   supplied: Mapping[str, Supplied]) -> dict[str, list[Fact]]:
    """Each variable's facts at the start: the user's values (``given``), else the ones
    read from the request (``read``), else the environment's (``supplied``)."""
    facts = {name: [Fact(v, FactKind.USER) for v in values_of(registry, name, value)]
             for name, value in given.items()}
    for name, value in read.items():
        if name not in facts:
            facts[name] = [Fact(v, FactKind.REQUEST) for v in values_of(registry, name, value)]
    for name, item in supplied.items():
        if name not in facts:
            facts[name] = [Fact(v, FactKind.ENVIRONMENT, via=item.source)
                           for v in values_of(registry, name, item.value)]
    return facts


def starting_store(request: str, facts: Mapping[str, list[Fact]]) -> ValueStore:
    """The value store a session starts with: the request's text and every starting fact,
    each under its source (the user, or the environment for what it supplied)."""
    store = ValueStore().with_request(request)
    for name, items in facts.items():
        for fact in items:
            kind = SourceKind.ENVIRONMENT if fact.kind is FactKind.ENVIRONMENT else \
                SourceKind.USER
            store = store.with_value(fact.value, Source(kind, variable=name))
    return store
