"""The values a session starts with: the user's, the request's, and the environment's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.contracts import Registry
from ..core.environment import Supplied, supply, tool_sources
from ..core.errors import PlanfilterError
from ..core.values import Source, SourceKind, ValueStore
from .records import Fact, FactKind, check_known, values_of


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
    store = ValueStore().with_text(request, Source(SourceKind.USER))
    for name, items in facts.items():
        for fact in items:
            kind = SourceKind.ENVIRONMENT if fact.kind is FactKind.ENVIRONMENT else \
                SourceKind.USER
            store = store.with_value(fact.value, Source(kind, variable=name))
    return store
