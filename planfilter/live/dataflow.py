"""What the data-flow checks know of a session's records: values held, given and seen."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.provenance import Flow, accepted
from .records import Call, Fact, Log, exposed


def held(facts: Mapping[str, Sequence[Fact]], calls: Sequence[Call]
         ) -> dict[str, tuple[Any, ...]]:
    """Returns the values held for each variable: every value of its facts (and every
    scalar inside one, planfilter.core.provenance.accepted), then those the calls found
    inside results under a key of the variable. They say which value is meant; the
    data-flow checks ask the value store where a value was seen, whatever it is called."""
    out: dict[str, list[Any]] = {}
    for name, items in facts.items():
        values: list[Any] = []
        for fact in items:
            values.extend(accepted(fact.value))
        out[name] = values
    for call in calls:
        for name, found in call.found.items():
            out.setdefault(name, []).extend(found)
    return {name: tuple(values) for name, values in out.items()}


def flow(request: str, log: Log) -> Flow:
    """Returns what the data-flow checks know of a session's ``log``: the values held
    (:func:`held`), the values given (by the user, the request or the environment), the
    values from outside content and whether any entered the state, everything the model
    could have read (``request``, the values given, each result), each successful call's
    arguments and result but a change's (the searches), and the value store. Every variable
    of the registry is checked (``scope="all"``)."""
    # a list the user gave binds the variable to any of its items (or the whole list)
    given = {name: tuple(v for f in items if f.given for v in accepted(f.value))
             for name, items in log.facts.items()}
    outside = tuple(f.value for items in log.facts.values() for f in items if f.untrusted)
    return Flow(held=held(log.facts, log.calls), given={k: v for k, v in given.items() if v},
                outside=outside, exposed=exposed(log.facts), scope="all", request=request,
                read_all=True, answers=log.searches, store=log.store)
