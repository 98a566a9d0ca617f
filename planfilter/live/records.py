"""What a session records: each value with where it came from, each call, and size limits."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import lru_cache
from typing import Any

from ..core.contracts import Registry, Tool
from ..core.errors import PlanfilterError
from ..core.provenance import found_under_keys, key_variables
from ..core.results import extract, parse_result
from ..core.schemas import accepts_list, value_errors
from ..core.values import Source, SourceKind, ValueStore
from ..filters import Attempt
from .delegation import document_text
from .request_values import links_in


class FactKind(StrEnum):
    """Where a value came from (``Fact.kind``). The values are the words traces carry."""

    #: Given to :meth:`planfilter.live.Session.start` as known.
    USER = "user"
    #: Read out of the request by the goal resolver.
    REQUEST = "request"
    #: Supplied by the system (planfilter.core.environment); ``Fact.via`` says how.
    ENVIRONMENT = "environment"
    #: A tool call's result.
    CALL = "call"
    #: Written by the model as an authored argument of a call.
    AUTHORED = "authored"


@dataclass(frozen=True)
class Fact:
    """One value of a variable and where it came from (a plain word is taken as its
    :class:`FactKind`)."""

    value: Any
    kind: FactKind
    #: The call that produced it (1-based), None for the user's, the request's and the
    #: environment's values.
    call: int | None = None
    #: It came from outside content: an untrusted tool's result, or what the model wrote
    #: after such content entered the state.
    untrusted: bool = False
    #: The links (web addresses and file names, planfilter.live.request_values.LINKS) an
    #: untrusted result states, read once when the result comes in.
    links: tuple[tuple[str, str], ...] = ()
    #: For an environment value: how the environment supplied it.
    via: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", FactKind(self.kind))

    @property
    def given(self) -> bool:
        """The user gave it (directly, or in the request), or the environment supplied it."""
        return self.call is None

    @property
    def source(self) -> str:
        """Where it came from, as traces show it: "user", "request", "environment (...)",
        "call N" or "authored (call N)"."""
        if self.kind is FactKind.ENVIRONMENT:
            return f"environment ({self.via})"
        if self.kind is FactKind.CALL:
            return f"call {self.call}"
        if self.kind is FactKind.AUTHORED:
            return f"authored (call {self.call})"
        return str(self.kind)

    @property
    def listed_by_others(self) -> bool:
        """A call's result or the user gave the value (not what the model wrote)."""
        return self.kind is not FactKind.AUTHORED


@dataclass(frozen=True)
class Call:
    """One call recorded in the session."""

    index: int
    tool: str
    arguments: Mapping[str, Any]
    ok: bool
    error: str | None = None
    #: Produced variables the result gave, with their values.
    produced: Mapping[str, Any] = field(default_factory=dict)
    #: Produced variables that were not known before this call.
    new: frozenset[str] = frozenset()
    #: Produced variables the result did not give.
    missing: tuple[str, ...] = ()
    #: Where the result breaks the contract's ``returns`` schema.
    problems: tuple[str, ...] = ()
    #: Values found inside the result under a key that is (or maps to) a variable: each
    #: counts as obtained for that variable (planfilter.core.provenance.found_under_keys).
    found: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    #: It never ran: the session's check refused it, and ``error`` is the refusal.
    refused: bool = False

    @property
    def unfilled(self) -> bool:
        """It succeeded, its tool produces something, and its result filled nothing."""
        return self.ok and not self.produced and bool(self.missing)

    @property
    def attempt(self) -> Attempt:
        return Attempt(self.tool, self.error, self.new)


def declined_error(tool: str, how: str = "") -> str:
    """The error of the call the user declined (``how``: their answer, e.g. "decline")."""
    return f"the user declined {tool}{f' ({how})' if how else ''}; the action is ended"


def declined_refusal(tool: str, call: int | None = None) -> str:
    """Why a later call of a tool the user declined (at ``call``) is refused."""
    at = f" at call {call}" if call is not None else ""
    return f"the user declined {tool}{at}; it is not asked again in this task; refused"


#: Characters of a request, and of one argument or known value, that a session accepts.
MAX_REQUEST_CHARS = 20_000
MAX_VALUE_CHARS = 100_000


def check_size(what: str, value: Any, limit: int) -> None:
    """Return when ``value`` (as text) is at most ``limit`` characters long; else raise a
    PlanfilterError naming ``what`` and the limit."""
    size = len(value) if isinstance(value, str) else len(repr(value))
    if size > limit:
        raise PlanfilterError(f"{what} is {size:,} characters long; the limit is {limit:,}")


def json_key(value: Any) -> str:
    """A value as comparable text (values may be lists or objects, which do not hash)."""
    return json.dumps(value, sort_keys=True, default=str)


@lru_cache(maxsize=16)
def result_keys(registry: Registry) -> dict[str, frozenset[str]]:
    """Result key -> the variables a value under it may be (one map per registry)."""
    return key_variables(registry)


@lru_cache(maxsize=16)
def carriers(registry: Registry) -> dict[str, tuple[tuple[Tool, str], ...]]:
    """Variable -> every (tool, parameter) whose argument carries it (authored ones aside)."""
    out: dict[str, list[tuple[Tool, str]]] = {}
    for tool in registry:
        for param in tool.parameters.get("properties", {}):
            if param not in tool.authored:
                out.setdefault(tool.variable_of(param), []).append((tool, param))
    return {name: tuple(found) for name, found in out.items()}


def values_of(registry: Registry, name: str, value: Any) -> list[Any]:
    """The values of one variable a given ``value`` holds: the items of a non-empty list
    when every tool that takes the variable takes one value, else ``[value]``."""
    if isinstance(value, list | tuple) and value and _takes_one(registry, name):
        return list(value)
    return [value]


def _takes_one(registry: Registry, name: str) -> bool:
    found = carriers(registry).get(name, ())
    return bool(found) and all(not accepts_list(tool, param) for tool, param in found)


def check_known(registry: Registry, given: Mapping[str, Any],
                what: str = "known value") -> None:
    """Return when each value fits the input schema of some tool parameter that carries its
    variable (each of several values, when the variable takes one value and a list is
    given): tools whose parameters share a name may take different values (a freeze's
    ``reason_category`` and a cancellation's), and the user's is for one of them; else raise
    one PlanfilterError naming every bad name, size and parameter."""
    problems = []
    for name, value in given.items():
        if not isinstance(name, str) or not name:
            problems.append(f"known: {name!r} is not a variable name")
            continue
        try:
            check_size(f"{what} '{name}'", value, MAX_VALUE_CHARS)
        except PlanfilterError as exc:
            problems.append(str(exc))
            continue
        places = carriers(registry).get(name, ())
        for item in values_of(registry, name, value):
            misfits = [[f"{what} '{name}' does not fit {tool.name}.{param}: {problem}"
                        for problem in value_errors(tool, param, item)]
                       for tool, param in places]
            if places and all(misfits):  # it fits no parameter that takes it
                problems += [misfit for each in misfits for misfit in each]
    if problems:
        raise PlanfilterError("; ".join(sorted(set(problems))))


def exposed(facts: Mapping[str, Sequence[Fact]]) -> bool:
    """Outside content has entered the state: a value some call gave (not one the model
    wrote) came from outside content."""
    return any(f.untrusted and f.call is not None and f.kind is not FactKind.AUTHORED
               for items in facts.values() for f in items)


def recorded(registry: Registry, facts: Mapping[str, Sequence[Fact]], store: ValueStore,
             index: int, tool: str, args: Mapping[str, Any], result: Any, parsed: Any,
             known: frozenset[str]) -> tuple[Call, dict[str, tuple[Fact, ...]], ValueStore]:
    """Returns call number ``index`` of ``tool`` (which must be in ``registry``) with
    ``args``, a success, with what its ``result`` gave (``parsed``: the result as
    planfilter.core.results.parse_result reads it), and the facts and value store with the
    call taken in: first the arguments the model authored, marked untrusted once outside
    content has entered the state (:func:`exposed`), then the values the result gives
    under the contract, marked untrusted for an untrusted tool's values it does not
    establish. ``known``: the variables known before the call (the others it produced are
    ``Call.new``). Nothing passed in is changed."""
    contract = registry.tool(tool)
    got = extract(contract, result)
    out = {name: list(items) for name, items in facts.items()}
    outside = exposed(facts)
    for name in sorted(contract.authored & set(args)):
        variable = contract.variable_of(name)
        out.setdefault(variable, []).append(Fact(args[name], FactKind.AUTHORED, index, outside))
        store = store.with_value(args[name], Source(SourceKind.MODEL, index, tool,
                                                    variable=variable, trusted=not outside))
    store = store.with_result(index, tool, parsed, trusted=not contract.untrusted)
    for name, value in got.values.items():  # a fact carries no outside content
        untrusted = contract.untrusted and name not in contract.establishes
        out.setdefault(name, []).append(Fact(value, FactKind.CALL, index, untrusted,
                                             links_in(value) if untrusted else ()))
    call = Call(index, tool, args, ok=True, produced=dict(got.values),
                new=frozenset(got.values) - known, missing=got.missing, problems=got.problems,
                found=found_under_keys(parsed, result_keys(registry)))
    return call, {name: tuple(items) for name, items in out.items()}, store


@dataclass(frozen=True)
class Log:
    """Everything a session recorded in one task, oldest first (:func:`logged` returns it
    with one call more)."""

    #: Every value each variable has held, with where it came from.
    facts: Mapping[str, tuple[Fact, ...]]
    #: Every value that entered the session, with its sources (planfilter.core.values).
    store: ValueStore = field(default_factory=ValueStore)
    calls: tuple[Call, ...] = ()
    #: Every successful call's arguments and result but those of a tool that changes
    #: something (planfilter.core.contracts.Tool.changes: its result echoes what it was
    #: given, it searched nothing): the searches an argument may have been picked from.
    searches: tuple[tuple[dict[str, Any], Any], ...] = ()
    #: The texts the reads a sentence of the request directs to answered
    #: (planfilter.live.directions): where the user said the values are.
    directed_texts: tuple[str, ...] = ()


def logged(registry: Registry, log: Log, tool: str, args: dict[str, Any], result: Any, *,
           error: str | None, refused: bool, known: frozenset[str], directed: bool) -> Log:
    """Returns ``log`` with one call of ``tool`` with ``args`` more. With an ``error`` it
    failed (``refused``: the session's check refused it, and it never ran) and nothing else
    changes. Else it succeeded (``tool`` must be in ``registry``): its ``result`` is taken
    into the facts and the store (:func:`recorded`; ``known``: the variables known before
    it) and, unless its tool changes something, kept among the searches, and its text among
    the directed texts when ``directed`` (a read a sentence of the request directs to)."""
    index = len(log.calls) + 1
    if error is not None:
        failed = Call(index, tool, args, ok=False, error=error, refused=refused)
        return replace(log, calls=(*log.calls, failed))
    parsed = parse_result(result)  # read once: the store, the keys, the answers
    call, facts, store = recorded(registry, log.facts, log.store, index, tool, args, result,
                                  parsed, known)
    texts = (*log.directed_texts, document_text(result)) if directed else log.directed_texts
    searches = log.searches if registry.tool(tool).changes else (*log.searches, (args, parsed))
    return Log(facts, store, (*log.calls, call), searches, texts)


def read_again(registry: Registry, calls: Sequence[Call]) -> bool:
    """The last of ``calls`` (there must be one) is a successful read of a tool that a
    successful call before it made: it gathers more for the same step (another value the
    read lists), and is no step off a plan."""
    *before, last = calls
    return last.ok and registry.tool(last.tool).reads and any(
        c.ok and c.tool == last.tool for c in before)
