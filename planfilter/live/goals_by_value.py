"""Goals the request's values explain: each value it states in an input of the goal's own.

A request states values for a reason: "Move tomorrow's dentist appointment to 4 PM" gives
a day, a time and words that describe an event, and the goal it asks for is one whose plan
takes all of them, each in an input of its own (``event_updated``: search_events takes the
day and the description, update_event the new time). A goal that leaves a value unused
(``created_event_id`` has no input for the new time) or needs one value twice
(``move_event_to_another_day`` would need the same day as the event's and as the new one)
explains the request less well.

The values are the request's spans (planfilter.live.request_values), its relative dates and clock
times read against today (planfilter.live.dates), and the words that describe what it acts
on (planfilter.live.request_subjects). :func:`inputs_for` assigns them to the user's inputs a goal's
plan may need (variables no tool produces, carried by a parameter the user fills, not one
the model writes), one value to one input, as many as a matching can; a value fits an input
when a parameter that carries it fits the value (``request_values.fits``,
``request_subjects.describes``) and its schema takes it. :func:`explains` says whether every
value but the description is assigned and the goal is reachable from them and the known
values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache
from typing import Any

from ..core.contracts import Registry, Tool
from ..core.planners.index import index_for, reachable, reduce_problem
from ..core.schemas import value_errors
from . import dates
from .request_subjects import describes, description
from .request_values import Span, fits, spans

#: Values a request must state (the description aside) for them to choose its goal: one
#: value alone says little about which goal it serves.
MIN_VALUES = 2


@dataclass(frozen=True)
class Values:
    """What a request states: its typed values (``spans``) and the words that describe what
    it acts on (``described``, None when there are none)."""

    text: str
    spans: tuple[Span, ...]
    described: Span | None
    #: The spans read against today (planfilter.live.dates), a part of ``spans``.
    relative: tuple[Span, ...] = ()


def request_values(text: str, today: date) -> Values:
    """The request's values: relative dates and clock times first, then the other spans that
    do not overlap them, and the description."""
    relative = dates.spans(text, today)
    rest = tuple(s for s in spans(text)
                 if not any(s.start < r.end and r.start < s.end for r in relative))
    found = tuple(sorted((*relative, *rest), key=lambda s: s.start))
    return Values(text, found, description(text, found), relative)


@lru_cache(maxsize=16)
def user_inputs(registry: Registry) -> Mapping[str, tuple[tuple[Tool, str], ...]]:
    """Variable -> every (tool, parameter) that carries it, of the variables no tool
    produces, parameters the model writes (``authored``) aside."""
    out: dict[str, list[tuple[Tool, str]]] = {}
    for tool in registry:
        for param in tool.parameters.get("properties", {}):
            variable = tool.variable_of(param)
            if param not in tool.authored and variable not in registry.produced:
                out.setdefault(variable, []).append((tool, param))
    return {name: tuple(found) for name, found in out.items()}


def needed_inputs(registry: Registry, goal: frozenset[str]) -> frozenset[str]:
    """The user's inputs a plan for ``goal`` may need (its tools' requirements, and theirs)."""
    index = index_for(registry)
    need = frozenset(index.names_of(reduce_problem(index, frozenset(), goal).need))
    return need & frozenset(user_inputs(registry))


def _fits(registry: Registry, variable: str, span: Span, text: str) -> bool:
    places = user_inputs(registry).get(variable, ())
    if span.kind == "description":
        return bool(places) and all(describes(t, p) and not value_errors(t, p, span.value)
                                    for t, p in places)
    return bool(places) and all(fits(t, p, span, text) and not value_errors(t, p, span.value)
                                for t, p in places)


def inputs_for(registry: Registry, goal: frozenset[str], values: Values,
               known: Mapping[str, Any] = {}) -> dict[str, Span]:  # noqa: B006 (read only)
    """Input variable -> the value assigned to it: the largest assignment of the typed values
    to the goal's needed inputs the known values leave open, one value an input, then the
    description to one open describing input. Deterministic: values in text order, inputs
    by name."""
    open_inputs = sorted(needed_inputs(registry, goal) - set(known))
    fit = {k: [v for v in open_inputs if _fits(registry, v, s, values.text)]
           for k, s in enumerate(values.spans)}
    owner: dict[str, int] = {}

    def assign(k: int, seen: set[str]) -> bool:  # an augmenting path (Kuhn's algorithm)
        for variable in fit[k]:
            if variable in seen:
                continue
            seen.add(variable)
            if variable not in owner or assign(owner[variable], seen):
                owner[variable] = k
                return True
        return False

    for k in fit:
        assign(k, set())
    out = {v: values.spans[k] for v, k in sorted(owner.items())}
    if values.described is not None:
        free = [v for v in open_inputs if v not in out
                and _fits(registry, v, values.described, values.text)]
        if len(free) == 1:
            out[free[0]] = values.described
    return out


def explains(registry: Registry, goal: frozenset[str], values: Values,
             known: Mapping[str, Any] = {}) -> bool:  # noqa: B006 (read only)
    """At least :data:`MIN_VALUES` typed values, every one assigned to an input of its own
    (:func:`inputs_for`), and ``goal`` reachable from them and ``known``."""
    if len(values.spans) < MIN_VALUES:
        return False
    assigned = inputs_for(registry, goal, values, known)
    used = {(s.start, s.end) for s in assigned.values() if s.kind != "description"}
    if len(used) < len(values.spans):
        return False
    return goal <= reachable(index_for(registry), frozenset({*known, *assigned}))


def first_explained(registry: Registry, goals: Sequence[frozenset[str]], values: Values,
                    known: Mapping[str, Any] = {}) -> int | None:  # noqa: B006 (read only)
    """The position in ``goals`` (best first) of the first goal ``values`` explain, or None.
    A value the user gave already (equal to one in ``known``) is not the request's to
    place."""
    given = {str(v) for v in known.values()}
    values = replace(values, spans=tuple(s for s in values.spans if str(s.value) not in given))
    if len(values.spans) < MIN_VALUES:
        return None
    return next((k for k, goal in enumerate(goals) if explains(registry, goal, values, known)),
                None)


def read_for(registry: Registry, goal: frozenset[str], values: Values,
             known: Mapping[str, Any] = {}, *,  # noqa: B006 (read only)
             described: bool = False) -> dict[str, Any]:
    """The values read against today (and, with ``described``, the description) that
    :func:`inputs_for` assigns to the goal's inputs ``known`` leaves open: what the request
    says beyond the spans the request reader already binds (planfilter.live.request_values)."""
    own = {(s.start, s.end) for s in values.relative}
    return {v: s.value for v, s in inputs_for(registry, goal, values, known).items()
            if (s.start, s.end) in own or (described and s.kind == "description")}
