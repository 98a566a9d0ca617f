"""Data flow: where an argument's value came from, and whether it may go where it goes.

Provenance is decided by the value, not by its name. Every value that entered the session is
in one :class:`~planfilter.core.values.ValueStore` with its sources (the user, a result at a
JSON path, trusted or not, the environment, the model), and every rule below asks it where
a value was seen; a parameter's name and a result's key only say which of several values is
meant and fill the planner's state. Three rules, each a refusal kind (the guard runs them in
this order, after the schema):

- **invented**: an argument that carries a variable of the registry (which variables is a
  choice of the caller: the ones tools produce, the paper's environment, or every one, the
  guard of a live session) holds a value seen nowhere: not in the request or a value the user
  gave, not in the environment, not anywhere inside any result (a leaf at any depth, a list
  item, an object's key, or spelled out in a result's text as whole words). A value only the
  model wrote, for another parameter, was not seen either. A value seen in some result, under
  whatever key, was obtained. A list or an object is checked by the scalars inside it (a
  booking's legs by their sailing codes), and only by those that identify something
  (:func:`identifies`: not blank text, a yes/no, a member of the parameter's ``enum``, a
  measure or an amount of money, a count or a date; a small number is an id when a
  high-risk call acts on it, and seen when the request writes it: "set my retirement age
  to 62").
- **substituted**: when the user gave a value for a variable (``known``, or read out of the
  request), an argument of that variable must carry that value (a list argument must lie
  within the given list), or text the request spells out around it ("New York, NY 10001"
  for "New York": a rule reads a part of it), or a field of the record a trusted result
  holds for it or for a name the request spells out (:func:`named_record`: the station the
  user named, by its code; the colleague the user named, by their e-mail address); a tool's
  result does not override what the user said; nor does another value the request lists
  beside the user's, written like it (:func:`listed_with_given`: "two codes, PHOTOBOOK20
  and AUTUMN15"), differ from it. But what the user has is not what they ask
  for: a parameter that takes the value a change sets (:func:`sets_new`: "the new room
  number"; the name of a record a call creates, a guest added to a booking) is not bound by
  the values the user gave when the thing the call changes holds them now, as a trusted
  read of it shows (:func:`held_now`: "I'm in room 203, move me"; "this is Rachel ... add
  our daughter Noa"); its value must still have been obtained.
  And an item searched for by name is not swapped for another the same search returned: when
  a call's result lists several items and some of them have a field equal to one of the
  call's own arguments (the file name searched for; the others matched it only in part), an
  argument that carries a field of another item of that list is **substituted** too
  (:func:`unasked_item`): the run holds both ids, the search asked for one. Not in a trusted
  listing by what its items belong to (a domain's records, one of which points at the
  domain), where the item taken does not match the argument at all.
- **tainted** (needs the user's approval, it is no refusal by itself):

  - a *sensitive* argument (where a call sends: a recipient, a channel, an address) whose
    value an *untrusted* result holds (as a value, or inside its text), or that the model
    wrote after such content entered the state, and that the user did not give. A value the
    user's request spells out, as whole words ("send it to Alice"), is the user's (a
    word of it is no address of theirs: an e-mail parameter takes one with an ``@``,
    :func:`of_its_kind`);
  - an argument of a write (a tool that is not a plain read) whose value was seen only
    spelled out inside untrusted text (an id in a message's body, an account in a web page):
    planted there, for all the run can tell. A read may take it (looking changes nothing);
  - what a high-risk call acts on (a parameter neither sensitive nor authored: the file it
    deletes, the order it refunds; :func:`acted_on`) when an untrusted result holds the
    value or names it, and the user did not give it or spell it out. Outside content lists
    the items it could be; which one is the user's to say, and a text planted beside them
    could have chosen it.
  - what a write acts on (a parameter neither sensitive nor authored), when it is one of
    several items a search returned in an untrusted result that all match the search's
    words only in part, none by name (:func:`open_choice`: two events whose descriptions
    mention "quarterly review"), and the request does not spell it out: the search did not
    say which item the user meant, and outside content can be written so as to match it.

Parameters the contract marks *authored* (a message body, a date) are written by the model:
neither invented nor substituted applies to them; tainted still does when they are
sensitive. Where something goes is not made up either: when the store holds what the model
could have read (``read_all``: the request, the values given, every result), a sensitive
authored argument that carries a datum (an address, a code, an id: :func:`unseen_datum`)
found in none of it is **invented** (an event's participant the request never named and no
result showed). Names and sentences the model composes; a datum it can only have read.
And **tainted** applies to what a call sends too: a call whose sensitive argument has a
value sends something somewhere (a payment's recipient, a message's channel, a page's
address, an event's participants); once untrusted content has entered the state, an authored
text argument of such a call that carries a line of that content (:data:`MIN_CARRIED_CHARS`
or more, not spelled out in the request) needs approval: read data does not leave through a
message body, a payment's subject or an event's description unasked (the readers of a value,
as CaMeL tracks them).

Every refusal names the value, where it was seen (call k's result at path p, trusted or
not; the request; the user) or that it was seen nowhere, and the rule that decided.

Arguments that carry no variable of the registry are taken as the model writes
them, and so is a field mask that names only fields the call's own record holds
(:func:`field_mask`: its values are the record's, each checked). Values are matched by
:func:`planfilter.core.values.normal`; the user's bound values are compared as JSON
values, a number and its decimal text being one value and text being compared without its
whitespace (see :func:`same_value`).
"""

from __future__ import annotations

import json
import locale
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from functools import lru_cache
from typing import Any

from . import spoken
from .contracts import Registry, Tool
from .schemas import (
    argument_fields,
    description_of,
    examples,
    glossed,
    glossed_in,
    named_by,
    named_in,
    without_examples,
)
from .text import (
    COURTESY_TITLES,
    ID_WORDS,
    LIST_JOIN,
    MEASURE,
    MINOR_UNIT,
    UNIT_SIZES,
    amounts_written,
    changes_stated,
    currencies_named,
    fold,
    has_digit,
    measures_said,
    name_parts,
    names_money,
    narrow,
    singular,
    unit_named,
    without_numbering,
    words,
)
from .values import (
    MIN_MENTION_DIGITS,
    PHONE_DIGITS,
    Source,
    SourceKind,
    ValueStore,
    code_key,
    elided_as,
    national_number,
    normal,
    phone_key,
    same_code,
    token_key,
)

#: Variable -> every value the state holds for it (a search may hold several ids).
Held = Mapping[str, Iterable[Any]]
#: Refusal kinds of the data-flow checks, in the order they are checked.
FLOW_KINDS = ("invented", "substituted", "tainted")
#: Text shorter than this never counts as occurring in other text (a two-letter id would
#: occur everywhere).
MIN_TEXT_CHARS = 3
#: A line of outside content at least this long, found in a sent text, was carried there
#: (shorter ones, a name or a date, occur in any text).
MIN_CARRIED_CHARS = 8
#: How the concerns of tainted arguments begin (the rest are a tool's risk).
TAINT_CONCERNS = ("sensitive argument", "sent argument", "write argument", "acted-on argument")
#: The risk of a tool whose acted-on item is held to the user's word (see :func:`acted_on`).
ACTING_RISK = "high"
#: A date, a month, a quarter, an ISO week or a time of day, ISO-style or with slashes or dots
#: ("10/03/2025", "2025-Q4", "2025-W17"): what a model writes from the user's words.
_MOMENT = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"
                     r"(?:Z|[+-]\d{2}:?\d{2})?|\d{1,2}:\d{2}(?::\d{2})?"
                     r"(?:\s?[-–]\s?\d{1,2}:\d{2})?|\d{4}-(?:0[1-9]|1[0-2])"
                     r"|\d{1,2}([/.])\d{1,2}\1\d{4}(?:[ T]\d{1,2}:\d{2})?|\d{4}/\d{1,2}/\d{1,2}"
                     r"|\d{4}[- ]?Q[1-4]|Q[1-4][- ]?\d{4}"
                     r"|\d{4}-?W(?:0[1-9]|[1-4]\d|5[0-3])(?:-?[1-7])?"
                     # a part of a weekday ("Fri AM", "Wed full"), an iCalendar recurrence
                     r"|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?\s+(?:am|pm|full|morning|"
                     r"afternoon|evening|day)|FREQ=[A-Z]+(?:;[A-Z]+=[\w,+-]+)*"
                     # a term or a season of a year ("2025-SUM", "2024/25-AUT", "2025-T2")
                     r"|\d{4}(?:/\d{2})?[-/ ]?(?:spr|sum|aut|win|fall|spring|summer|autumn|"
                     r"winter|[tsh][1-3])|(?:spr|sum|aut|win)[-/ ]?\d{2}(?:\d{2})?",
                     re.IGNORECASE)
#: Words of a name that say its whole number is a moment, not a count nor an id: ``hour``
#: (a clock's), ``new_day`` (a day of the month), ``start_minute``, ``delivery_date`` (a
#: day as a spreadsheet counts it, ``45821``, or a calendar's day number); and a moment as
#: a clock counts it since 1970 (``passedAtMs``, ``from_ms``, ``created_at``,
#: ``timestamp``: ``1764716400000``), which the model works out from the user's "on the 3rd
#: around 8:15" as it writes a date.
_MOMENT_WORDS = frozenset({"hour", "minute", "day", "weekday", "month", "year", "date",
                           "ms", "millis", "timestamp", "epoch", "ts", "at", "time"})
#: Sources named in a refusal (the rest are counted).
SHOWN_SOURCES = 2


@dataclass(frozen=True)
class Flow:
    """What the data-flow checks know of a state: values held, values given, outside text."""

    #: Variable -> every value obtained for it (from tools, the user, the request).
    held: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    #: Variable -> the values the user gave for it (``known``, or read out of the request).
    given: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    #: Every value that came from outside content: untrusted results, and what the model
    #: wrote after such content entered the state.
    outside: tuple[Any, ...] = ()
    #: Some untrusted content has entered the state.
    exposed: bool = False
    #: Which variables ``invented`` checks: "produced" (by some tool) or "all" of the registry.
    scope: str = "produced"
    #: The user's request: a sensitive value it spells out is the user's, not outside content.
    request: str = ""
    #: The store holds everything the model could have read (the request, the values given,
    #: each result), as a session's does; False for a plain state, and then no sensitive
    #: authored argument is held to it (:func:`unseen_datum`).
    read_all: bool = False
    #: Each successful call's arguments and result, in order, but those of a tool that
    #: changes something: the searches an argument may have been picked from.
    answers: tuple[tuple[Mapping[str, Any], Any], ...] = ()
    #: Every value seen, with its sources (a session keeps one); None for a plain state:
    #: then :func:`flow_store` builds one from ``held``, ``given``, ``outside`` and
    #: ``request``.
    store: ValueStore | None = None


@dataclass(frozen=True)
class FlowProblem:
    kind: str
    parameter: str
    message: str


def held_values(state: Mapping[str, Any]) -> dict[str, tuple[Any, ...]]:
    """The values a plain ``{variable: value}`` state holds: the value, and every scalar
    inside it (a search that returned several ids holds each of them)."""
    return {name: accepted(value) for name, value in state.items()}


def accepted(value: Any) -> tuple[Any, ...]:
    """A value and every scalar inside it, at any depth (object fields, list items): each
    may be passed on as an argument. Lists are kept whole too (a list argument)."""
    out: list[Any] = [value]
    if isinstance(value, list | tuple | Mapping):
        out.extend(_scalars(value))
    return tuple(out)


def leaves(value: Any) -> list[Any]:
    """The scalars inside ``value`` (each item of a list, each field of an object, at any
    depth), in document order; ``[value]`` for a scalar."""
    return [item for item in _scalars(value) if not isinstance(item, list | tuple)]


def _scalars(value: Any) -> Iterable[Any]:
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _scalars(item)
    elif isinstance(value, list | tuple):
        for item in value:
            if isinstance(item, list | tuple):
                yield item
            yield from _scalars(item)
    else:
        yield value


def listed_with(value: Any, target: Any) -> tuple[Any, ...]:
    """The values listed beside ``target`` in ``value``, target included: the scalar items of
    the first list that holds it, or, in a list of objects, what each object holds under the
    key ``target`` is under (the name of every channel, the id of every order). Empty when
    ``value`` does not list ``target``."""
    if isinstance(value, list | tuple):
        if any(item == target for item in value):
            return tuple(i for i in value if not isinstance(i, list | tuple | Mapping))
        for key in {k for item in value if isinstance(item, Mapping)
                    for k, v in item.items() if v == target}:
            return tuple(item[key] for item in value
                         if isinstance(item, Mapping) and key in item)
    items = value.values() if isinstance(value, Mapping) else \
        value if isinstance(value, list | tuple) else ()
    for item in items:
        found = listed_with(item, target)
        if found:
            return found
    return ()


def key_variables(registry: Registry) -> dict[str, frozenset[str]]:
    """Result key -> the variables a value under it may be: every variable of the registry
    by its own name, every parameter name by the variable it carries, and the one item of
    a list variable (``item_id`` for ``item_ids``)."""
    out: dict[str, set[str]] = {}
    for tool in registry:
        for param in tool.parameters.get("properties") or {}:
            out.setdefault(str(param), set()).add(tool.variable_of(str(param)))
    for variable in registry.variables:
        out.setdefault(variable, set()).add(variable)
        if variable.endswith("s") and len(variable) > 1:
            out.setdefault(variable[:-1], set()).add(variable)
    return {k: frozenset(v) for k, v in out.items()}


def found_under_keys(result: Any, keys: Mapping[str, frozenset[str]]
                     ) -> dict[str, tuple[Any, ...]]:
    """Variable -> the values found anywhere inside ``result`` (objects and lists, at any
    depth) under a key that is, or maps to, that variable (see :func:`key_variables`): a
    scalar, or each item of a list of scalars. Values under other keys are not found."""
    found: dict[str, list[Any]] = {}
    stack = [result]
    while stack:  # an explicit stack: a deep result cannot exhaust the call stack
        node = stack.pop()
        if isinstance(node, Mapping):
            for key, value in node.items():
                names = keys.get(str(key), frozenset())
                scalars = _scalar_items(value)
                for variable in names:
                    found.setdefault(variable, []).extend(scalars)
                if isinstance(value, Mapping | list | tuple):
                    stack.append(value)
        elif isinstance(node, list | tuple):
            stack.extend(node)
    return {k: tuple(v) for k, v in found.items() if v}


def _scalar_items(value: Any) -> list[Any]:
    if isinstance(value, Mapping):
        return []
    if isinstance(value, list | tuple):
        return [v for v in value if not isinstance(v, Mapping | list | tuple)]
    return [value]


def same_value(a: Any, b: Any) -> bool:
    """Equal as JSON values; a number and its decimal text count as one (``42`` and ``"42"``),
    and text is compared without its whitespace: a small model copying a long text back
    drops or adds spaces as its tokenizer pleases ("Milestones ..." -> "Milestones..."), and
    no id differs from another by a space. Two texts are one as the value store keys them
    (:func:`~planfilter.core.values.normal`: case, an id's leading ``#``, a number's
    thousands separators, a telephone number however it is written)."""
    if a == b and type(a) is type(b):
        return True
    if type(a) is str and type(b) is str:  # the common case, decided as below
        return _squeezed(a) == _squeezed(b) or normal(a) == normal(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    if isinstance(a, int | float | str) and isinstance(b, int | float | str):
        if _squeezed(str(a)) == _squeezed(str(b)):
            return True
        number = a if isinstance(a, int | float) else b  # one side is a number: by value
        text = b if number is a else a
        return isinstance(number, int | float) and _number(text) == float(number)
    return _canonical(a) == _canonical(b)


_NUMBER_TEXT = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?")


def _number(text: Any) -> float | None:
    """The number a text spells in plain decimal (``"98.70"``), else None (``"01"``, ``"1e3"``,
    ``"nan"`` spell no number here: ids are often digits)."""
    squeezed = _squeezed(str(text))
    return float(squeezed) if _NUMBER_TEXT.fullmatch(squeezed) else None


def _squeezed(text: str) -> str:
    return "".join(text.split())


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def within(value: Any, allowed: Iterable[Any]) -> bool:
    """``value`` is one of ``allowed``, or a list whose every item is."""
    pool = tuple(allowed)
    if any(same_value(value, k) for k in pool):
        return True
    if isinstance(value, list | tuple) and value:
        return all(any(same_value(v, k) for k in pool) for v in value)
    return False


def occurs_in(value: Any, outside: Iterable[Any]) -> bool:
    """``value`` (or, for a list, one of its items) appears in outside content: equal to a
    scalar in it, or, as text of three characters or more, inside its text (case and
    whitespace ignored); a number only as a whole number in the text, never as digits of
    another (``10`` is not in ``100``)."""
    items = value if isinstance(value, list | tuple) else (value,)
    texts = [_squeezed(_as_text(o)).lower() for o in outside]
    for item in items:
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, int | float):
            pattern = re.compile(_whole_number(item))
            if any(pattern.search(t) for t in texts):
                return True
            continue
        needle = _squeezed(str(item)).lower()
        if len(needle) >= MIN_TEXT_CHARS and any(needle in t for t in texts):
            return True
    return False


def _whole_number(value: float | int) -> str:
    """A pattern for ``value`` as a whole number in text, never as digits of another."""
    return rf"(?<![\d.]){re.escape(_number_text(value))}(?![\d])"


def _number_text(value: float | int) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                            default=str)


def flow_store(flow: Flow) -> ValueStore:
    """The values ``flow`` knows, with their sources: the session's store, or, for a plain
    state, one built from it (each held value as the state's, trusted; each value the user
    gave as the user's; the request's text; outside content as untrusted)."""
    if flow.store is not None:
        return flow.store
    store = ValueStore()
    for variable, values in sorted(flow.held.items()):
        for value in values:
            store = store.with_value(value, Source(SourceKind.RESULT, variable=variable))
    for variable, values in sorted(flow.given.items()):
        for value in values:
            store = store.with_value(value, Source(SourceKind.USER, variable=variable))
    for value in flow.outside:
        store = store.with_value(value, Source(SourceKind.RESULT, trusted=False))
    return store.with_request(flow.request)


def writes(tool: Tool) -> bool:
    """A call of ``tool`` may change something: it is not a plain read, or it is risky."""
    return not tool.reads or tool.risk != "low"


def obtained(source: Source, variable: str) -> bool:
    """``source`` makes a value obtained for an argument of ``variable``: the user's, the
    environment's, any result's (a field, a key, or, for a trusted result, its text), or what
    the model wrote for that same variable (a date it wrote once it may pass on). Untrusted
    text is not enough: see :func:`check_flow`."""
    if source.kind is SourceKind.MODEL:
        return source.variable == variable
    if source.kind is SourceKind.RESULT and source.part == "text":
        return source.trusted
    return True


def where_seen(value: Any, store: ValueStore) -> tuple[Source, ...]:
    """Every source of ``value`` (of each scalar inside it, for a list or an object), in the
    order seen."""
    out: list[Source] = []
    for item in leaves(value):
        out.extend(s for s in store.seen(item) if s not in out)
    return tuple(out)


def outside_sources(value: Any, store: ValueStore) -> tuple[Source, ...]:
    """Where outside content holds ``value`` (or, for a list or an object, a scalar inside
    it): an untrusted result's field, key or text (text of three characters or more inside
    it, case and whitespace ignored; a number only as a whole number, never as digits of
    another), or what the model wrote after untrusted content entered the state."""
    found: list[Source] = []
    for item in leaves(value):
        if item is None or isinstance(item, bool):
            continue
        found.extend(s for s in store.sources(item) if not s.trusted and s not in found)
        if isinstance(item, int | float):
            pattern = re.compile(_whole_number(item))
            needle = ""
        else:
            pattern, needle = None, _squeezed(str(item)).lower()
            if len(needle) < MIN_TEXT_CHARS:
                continue
        for text, source in store.texts:
            if source.trusted or source in found:
                continue
            squeezed = text.replace(" ", "")
            if (pattern.search(squeezed) if pattern is not None else needle in squeezed):
                found.append(source)
    return tuple(found)


def describe_sources(sources: Iterable[Source]) -> str:
    """The first :data:`SHOWN_SOURCES` sources in words, and how many more."""
    listed = list(dict.fromkeys(sources))
    shown = "; ".join(s.describe() for s in listed[:SHOWN_SOURCES])
    more = len(listed) - SHOWN_SOURCES
    return shown + (f"; and {more} more" if more > 0 else "")


def _seen_at(value: Any, store: ValueStore) -> str:
    sources = where_seen(value, store)
    return f"seen at {describe_sources(sources)}" if sources else "seen nowhere"


def check_flow(registry: Registry, tool: Tool, arguments: Mapping[str, Any],
               flow: Flow) -> list[FlowProblem]:
    """Every data-flow problem of one call (see the module docstring), argument by argument
    in name order; empty when the call's values may go where they go."""
    store = flow_store(flow)
    return [problem for name in sorted(arguments)
            for problem in argument_problems(registry, tool, name, arguments, flow, store)]


def argument_problems(registry: Registry, tool: Tool, name: str, arguments: Mapping[str, Any],
                      flow: Flow, store: ValueStore | None = None) -> list[FlowProblem]:
    """The data-flow problems of one argument, ``name``, of a call (:func:`check_flow` asks
    this of each); ``store``: the flow's, when the caller has it already."""
    checked = registry.produced if flow.scope == "produced" else registry.variables
    store = flow_store(flow) if store is None else store
    variable = tool.variable_of(name)
    document = document_record(arguments[name])
    arg = _Argument(name, arguments[name] if document is None else document, variable,
                    tuple(flow.given.get(variable, ())),
                    name in tool.authored and document is None)
    if arg.given and sets_new(tool, name) and held_now(tool, name, arguments, flow, store,
                                                       arg.given):
        arg = replace(arg, given=())  # the user named what they leave, not what they take
    if field_mask(tool, name, arguments):
        return []  # it names fields of the call's other arguments, whose values are checked
    # an argument's checks stop at the first that finds a problem
    return (_origin_problems(tool, arg, flow, store, checked, registry)
            or _unseen_problems(tool, arg, flow, store)
            or _outbound_problems(tool, arg, arguments, flow, store, checked))


#: The longest text read as a document (:func:`document_record`).
MAX_DOCUMENT_CHARS = 100_000
#: Elements of a web page or a message's markup: text so marked is prose, not a record.
_MARKUP_TAGS = frozenset("html head body div span p br a b i u em strong table tr td th ul ol "
                         "li h1 h2 h3 h4 h5 h6 img font blockquote pre code hr".split())


def document_record(value: Any) -> dict[str, Any] | None:
    """``value``, an XML document a call carries as text (``request_xml:
    "<CollectionRequest><ShipmentRef>SHP-448120</ShipmentRef>..."``), as the record it
    writes: each element with children an object of them by tag (a tag repeated, a list),
    each other element its text, each attribute a field (``Amount_currency`` beside
    ``Amount``). Its values are checked as a record's fields are, each by where it was
    seen; its tags, like a result's keys, are names, not values. None for any other value:
    text that is no well-formed document, an element alone, markup of a web page or a
    message (prose), or text with words between its elements."""
    if not isinstance(value, str) or not value.lstrip().startswith("<") \
            or len(value) > MAX_DOCUMENT_CHARS:
        return None
    try:
        root = ElementTree.fromstring(value.strip())
    except ElementTree.ParseError:
        return None
    elements = list(root.iter())
    if not len(root) or any(_local(e.tag).lower() in _MARKUP_TAGS for e in elements) \
            or any(len(e) and (e.text or "").strip() for e in elements) \
            or any((e.tail or "").strip() for e in elements if e is not root):
        return None  # markup, or words between elements: prose
    record = _element_record(root)
    return record if isinstance(record, dict) else None


def _local(tag: Any) -> str:
    """An element's tag without its namespace (``{urn:x}ShipmentRef`` is ``ShipmentRef``)."""
    return str(tag).rsplit("}", 1)[-1]


def _element_record(element: ElementTree.Element) -> Any:
    """An element with children as an object (its attributes among its fields), else its
    text; a leaf's attributes are fields beside it, named for it (``Amount_currency``)."""
    if not len(element):
        return (element.text or "").strip()
    fields: dict[str, Any] = {_local(k): v for k, v in element.attrib.items()}
    for child in element:
        tag, value = _local(child.tag), _element_record(child)
        if not len(child):
            fields.update({f"{tag}_{_local(k)}": v for k, v in child.attrib.items()})
        if tag in fields:
            held = fields[tag]
            fields[tag] = [*held, value] if isinstance(held, list) else [held, value]
        else:
            fields[tag] = value
    return fields


#: A field's path as a mask names it: names joined by dots (``delivery_address.postcode``).
_FIELD_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
#: A parameter that names fields, by its name or description: ``update_mask``, ``fields``,
#: "Comma separated field paths to write".
_NAMES_FIELDS = re.compile(r"\b(?:fields?|masks?)\b", re.IGNORECASE)


def field_mask(tool: Tool, name: str, arguments: Mapping[str, Any]) -> bool:
    """The argument ``name`` is a field mask over the call's other arguments: the parameter
    names fields (:data:`_NAMES_FIELDS`), and its value (field paths parted by commas, or a
    list of them) names only fields another argument holds, each path's names keys nested
    there: ``"delivery_address.postcode,delivery_day"`` beside ``{"delivery_day": ...,
    "delivery_address": {"postcode": ...}}``. It carries no value of its own; the values it
    picks are the other argument's, each checked as any is."""
    beside = [v for key, v in arguments.items() if key != name and isinstance(v, Mapping)]
    if not beside:  # asked of every argument: no record beside it, no mask (the common case)
        return False
    schema = tool.parameters.get("properties", {}).get(name)
    spelled = " ".join(name_parts(name))  # ``updateMask``, ``update_mask``
    if not _NAMES_FIELDS.search(f"{spelled} {description_of(schema)}"):
        return False
    value = arguments[name]
    paths = value.split(",") if isinstance(value, str) else value \
        if isinstance(value, list) and all(isinstance(v, str) for v in value) else []
    return bool(paths) and all(
        _FIELD_PATH.fullmatch(path.strip())
        and any(_holds_path(other, path.strip().split(".")) for other in beside)
        for path in paths)


def _holds_path(node: Any, names: list[str]) -> bool:
    for key in names:
        if not isinstance(node, Mapping) or key not in node:
            return False
        node = node[key]
    return True


#: A parameter that takes the value a change sets, by its name or its description: "The new
#: room number", "code of the target unit", ``new_plan``, "the replacement card".
_NEW_VALUE = re.compile(r"\b(?:new|target|replacement)\b", re.IGNORECASE)


def sets_new(tool: Tool, name: str) -> bool:
    """The tool's parameter ``name`` takes the value its change sets (:data:`_NEW_VALUE`),
    or the name a record the tool creates gets (``first_name`` of a guest added to a
    booking: the guest's, not the name of the user who books)."""
    schema = tool.parameters.get("properties", {}).get(name)
    said = schema.get("description") if isinstance(schema, Mapping) else None
    return bool(_NEW_VALUE.search(f"{name.replace('_', ' ')} {said or ''}")) or (
        tool.action == "create" and "name" in _name_words(name))


def held_now(tool: Tool, name: str, arguments: Mapping[str, Any], flow: Flow,
             store: ValueStore, given: Iterable[Any]) -> bool:
    """Every value the user gave for the argument ``name`` of a call is one the thing the
    call changes holds now: it identifies something (:func:`identifies`: a room, a unit; not
    an amount or a small number, which any record may hold by chance), a trusted result
    shows it, and a read that took another of the call's arguments (the reservation a room
    move is for, by its id) answered with it. The user named what they have ("I'm in room
    203, it's noisy"), so it does not bind a parameter that takes the new value
    (:func:`sets_new`); which value that is, the run must still have obtained. A value the
    user asks for is no record's yet, and binds as ever ("move me to 206": only 206)."""
    schema = tool.parameters.get("properties", {}).get(name)
    schema = schema if isinstance(schema, Mapping) else {}
    others = [v for key, value in arguments.items() if key != name
              for v in leaves(value) if identifies(v, {})]
    reads = [result for asked, result in flow.answers
             if any(same_value(a, o) for a in leaves(dict(asked)) for o in others)]
    return bool(reads) and all(
        identifies(value, schema, name=name)
        and any(s.kind is SourceKind.RESULT and s.trusted for s in store.seen(value))
        and any(same_value(value, r) for result in reads for r in leaves(result))
        for value in given)


@dataclass(frozen=True)
class _Argument:
    """One argument of a call: its parameter, its value, the variable it carries, the values
    the user gave for that variable, and whether the model writes it (``authored``)."""

    name: str
    value: Any
    variable: str
    given: tuple[Any, ...]
    authored: bool


def _origin_problems(tool: Tool, arg: _Argument, flow: Flow, store: ValueStore,
                     checked: frozenset[str], registry: Registry | None = None
                     ) -> list[FlowProblem]:
    """Where a value the model does not write came from: not the value the user gave
    (``substituted``), obtained nowhere (``invented``), seen only inside untrusted text
    (``tainted``), or the wrong item of a search (``substituted``)."""
    name, value, variable, given = arg.name, arg.value, arg.variable, arg.given
    if arg.authored:
        return []
    if given and not within(value, given) and not extends(value, given, flow.request) \
            and not any(same_code(value, g) for g in _plain_values(given)) \
            and not named_record(value, given, store, flow.request) \
            and not at_given_time(value, given) \
            and not any(elided_as(value, g) for g in given) \
            and not listed_with_given(value, given, flow.request) \
            and not worked_out(value, (*given, *amounts_written(flow.request)),
                               (name, variable)) \
            and not changed_by(value, (name, variable), store, flow.request) \
            and not _converted(value, flow.request, name, variable) \
            and not same_clock(value, given) \
            and not _stay_away(value, given, flow.request) \
            and not _national_as_given(value, given) \
            and not _read_first_hand(tool, name, value, store):
        return [FlowProblem("substituted", name, (
            f"argument '{name}' = {_show(value)} is not the value the user gave for "
            f"{variable} ({', '.join(_show(g) for g in _plain_values(given))}); it was "
            f"{_seen_at(value, store)}"))]
    if variable not in checked or given:
        return []
    problem = _invented(tool, name, variable, value, store, flow,
                        service_named(registry, variable) if registry is not None
                        else frozenset(), registry.descriptions if registry is not None
                        else ())
    found = [problem] if problem is not None else []
    if problem is not None and problem.kind == "invented":
        return found
    searched = tuple(searched_lists(value, flow.answers))  # one walk for both rules below
    asked = unasked_item(searched, trusted=bool(searched) and all(
        s.trusted for s in store.seen(value) if s.kind is SourceKind.RESULT),
        request=flow.request)
    if asked is not None:
        found.append(FlowProblem("substituted", name, (
            f"argument '{name}' = {_show(value)} is not the item searched for: the "
            f"search for {_show(asked)} returned it beside one that is (it was "
            f"{_seen_at(value, store)})")))
    elif not found and writes(tool) and name not in tool.sensitive \
            and not spelled_out(value, flow.request):
        query = open_choice(searched)
        outside = outside_sources(value, store) if query is not None else ()
        if outside:
            found.append(FlowProblem("tainted", name, (
                f"write argument '{name}' = {_show(value)} of {tool.name} is one of several "
                f"items the search for {_show(query)} returned, none named by it, each "
                f"matching it only in part, in an untrusted result "
                f"({describe_sources(outside)}): which one a write acts on is the user's to "
                f"say")))
    return found


def _short_figures(value: Any) -> bool:
    """``value`` is text of fewer than :data:`MIN_MENTION_DIGITS` figures: in a field of a
    record (an address's ``floor: "3"``, a seat's ``row: "12"``) a number beside the
    fields that say which thing the record is, as a whole number there is."""
    return isinstance(value, str) and value.strip().isdigit() \
        and len(value.strip()) < MIN_MENTION_DIGITS


#: The fewest figures of a telephone number written as its national number alone.
_NATIONAL_DIGITS = 8


def _national_as_given(value: Any, given: Iterable[Any]) -> bool:
    """``value``, a telephone number, is one the user wrote as its national number's
    figures alone ("mobile 6932551840" for ``+306932551840``), which no pattern reads as a
    telephone number."""
    key = phone_key(value) if isinstance(value, str) else None
    return key is not None and any(
        isinstance(g, int | str) and not isinstance(g, bool)
        and str(g).strip().isdigit() and len(str(g).strip()) >= _NATIONAL_DIGITS
        and national_number(str(g).strip())[-PHONE_DIGITS:] == key.removeprefix("tel:")
        for g in given)


def _read_first_hand(tool: Tool, name: str, value: Any, store: ValueStore) -> bool:
    """A read (no write, nothing sent) takes ``value``, which the user or a trusted result
    gave: looking up the Bradford branch where the user named Bradford and Thornbury, or a
    vehicle by the plate a trusted passage shows, acts on nothing, whichever of the user's
    values the request reader bound to the parameter."""
    return not writes(tool) and name not in tool.sensitive and not isinstance(
        value, Mapping | list | tuple) and first_hand(store.seen(value))


def _unseen_problems(tool: Tool, arg: _Argument, flow: Flow,
                     store: ValueStore) -> list[FlowProblem]:
    """A sensitive value the model writes that carries a datum nothing has shown
    (``invented``)."""
    name, value, given = arg.name, arg.value, arg.given
    if not (arg.authored and name in tool.sensitive and flow.read_all
            and not (given and within(value, given))):
        return []
    datum = unseen_datum(value, store)
    if datum is None:
        return []
    return [FlowProblem("invented", name, (
        f"sensitive argument '{name}' carries {datum!r}, which neither the request "
        f"nor any result has shown: where {tool.name} sends was made up"))]


def of_its_kind(name: str, value: Any) -> bool:
    """``value`` may be what the parameter ``name`` names: an e-mail address for a parameter
    named for one (``user_email``) holds an ``@``. A word the request spells out ("the
    'general' channel") is the user's word, not the user's address."""
    mail = {"email", "mail", "emails"} & _name_words(name)
    return not mail or all(isinstance(v, str) and "@" in v for v in leaves(value))


def acted_on(tool: Tool, name: str) -> bool:
    """``name`` says what a call of ``tool`` acts on: the tool is of :data:`ACTING_RISK` (an
    irreversible or costly act: deleting a file, refunding an order) and the parameter is
    neither sensitive (where it sends, checked on its own) nor written by the model."""
    return tool.risk == ACTING_RISK and name not in tool.sensitive \
        and name not in tool.authored


def _outbound_problems(tool: Tool, arg: _Argument, arguments: Mapping[str, Any], flow: Flow,
                       store: ValueStore, checked: frozenset[str]) -> list[FlowProblem]:
    """Outside content deciding where the tool sends or what a risky call acts on
    (``tainted``): a sensitive value, or the item a high-risk call acts on
    (:func:`acted_on`: outside content lists the items it could be, and which one is the
    user's to say), that the user did not give, found in an untrusted result (or, for a
    sensitive value the model writes, written after one); or text of an untrusted result
    in an argument the tool sends."""
    name, value, given, authored = arg.name, arg.value, arg.given, arg.authored
    acting = acted_on(tool, name) and arg.variable in checked
    if (name in tool.sensitive or acting) and not (given and within(value, given)) \
            and not (spelled_out(value, flow.request) and of_its_kind(name, value)):
        outside = outside_sources(value, store)
        source = (f"it occurs in an untrusted result: {describe_sources(outside)}"
                  if outside else
                  "the model wrote it after untrusted content entered the state"
                  if authored and flow.exposed else "")
        if source and acting:
            alias = f" (carries {arg.variable})" if arg.variable != name else ""
            return [FlowProblem("tainted", name, (
                f"acted-on argument '{name}'{alias} = {_show(value)} of {tool.name} (risk "
                f"{tool.risk}) was not given by the user and {source}; which item a risky "
                f"call acts on is the user's to say"))]
        if source:
            return [FlowProblem("tainted", name, (
                f"sensitive argument '{name}' = {_show(value)} was not given by the "
                f"user and {source}"))]
    elif authored and name not in tool.sensitive and flow.exposed \
            and isinstance(value, str) and sends(tool, arguments):
        carried = carried_text(value, flow.outside, flow.request)
        if carried is not None:
            return [FlowProblem("tainted", name, (
                f"sent argument '{name}' carries {_show(carried)}, read in an untrusted "
                f"result, to where {tool.name} sends it "
                f"({', '.join(sorted(tool.sensitive))})"))]
    return []


def service_named(registry: Registry, variable: str) -> frozenset[str | None]:
    """The values the description of any parameter that carries ``variable`` names as the
    service's own (:func:`~planfilter.core.schemas.named_by`): a trade a search lists
    (``e.g. ``plumbing``, ``electrical``, ``carpentry````) is one the form that posts a job
    takes, whose own description says only "see search_tradespeople for the list"; and
    what the tool set's descriptions name as a thing of the kind a parameter's name ends in
    (:func:`named_as`: the ``Agencies`` of "as on the Agencies sheet", for ``sheet``)."""
    carriers = registry.carriers.get(variable, ())
    heads = {singular(found[-1]) for _, param in carriers
             if (found := words(param, digits=False))}
    return frozenset().union(*(named_by(tool.parameters["properties"][param])
                               for tool, param in carriers),
                             *(named_as(registry.descriptions, head) for head in sorted(heads)))


@lru_cache(maxsize=1024)
def named_as(texts: tuple[str, ...], head: str) -> frozenset[str | None]:
    """The names ``texts`` (a tool set's descriptions) give things of the kind ``head``
    (a parameter's last word) with a capital, right before it: "the referring agency's name
    as on the Agencies sheet", "Row number on the Shifts sheet" name the sheets
    ``Agencies`` and ``Shifts``. The service names its own parts."""
    found = re.compile(rf"\b(?:the|on|in|to|from)\s+([A-Z][\w&'-]*(?:\s[A-Z][\w&'-]*){{0,2}})"
                       rf"\s+{re.escape(head)}s?\b")
    return frozenset(normal(m.group(1)) for text in texts for m in found.finditer(text))


def _kin_named(tool: Tool, name: str) -> frozenset[str | None]:
    """What the descriptions of the tool's other parameters of the same kind name as the
    service's own (:func:`~planfilter.core.schemas.named_by`): those whose descriptions open
    with the same two words as this one's ("Airport code (LHR, LGW, STN) or a saved
    address's id" for ``pickup``, "Airport code or a saved address's id" for ``dropoff``)."""
    properties = tool.parameters.get("properties", {})
    opening = _opening(properties.get(name))
    if not opening:
        return frozenset()
    return frozenset().union(*(named_by(schema) for other, schema in properties.items()
                               if other != name and _opening(schema) == opening))


def _opening(schema: Any) -> tuple[str, ...]:
    """The first two words of a parameter's description, lower-cased; () when it has fewer."""
    said = schema.get("description") if isinstance(schema, Mapping) else None
    found = tuple(words(said, digits=False)[:2]) if isinstance(said, str) else ()
    return found if len(found) == 2 else ()


def _invented(tool: Tool, name: str, variable: str, value: Any, store: ValueStore,
              flow: Flow, vocabulary: frozenset[str | None] = frozenset(),
              service: tuple[str, ...] = ()) -> FlowProblem | None:
    """The problem of an argument that carries ``variable`` and no value the user gave for
    it: ``invented`` when some value of it that :func:`identifies` something (the argument,
    or a scalar inside it: an item of a list, a field of an object, at any depth) was seen
    nowhere the run obtains values from; ``tainted`` when it was seen only spelled out
    inside untrusted text and the tool writes; None when it was obtained. The values the
    state holds for ``variable`` are named in the refusal as the ones the call could take.

    Not held to a source: a value the parameter's description names as the service's own
    (:func:`~planfilter.core.schemas.named_in`: among its choices, ``"scratch"|"dent"``, or
    alone against another way to fill it, ``"store_credit"`` or a card's id), or that of
    another parameter of the same variable (``vocabulary``: :func:`service_named`), as one
    its schema lists, or the tool's own description lists (``Codes must come from the
    desk's list: vegetarian, vegan, ...``, a payment split's methods in bullets: the
    service publishes them, as it does its schema); and text of several words in a field
    of an object (an item's ``desc``, an incident's ``location``, a friend's ``name``), or
    prose anywhere (:func:`_prose`: a complaint's resolution, a refund's reason): what a
    record the call writes says, in the model's words, unless it carries a datum
    (a code, an address: :func:`unseen_datum`) nothing showed, or a line of untrusted
    content. Nor is text of several words each of which the request spells out
    (:func:`in_users_words`: a child's name, their first name and the family's surname)."""
    alias = f" (carries {variable})" if variable != name else ""
    planted: list[tuple[Any, tuple[Source, ...]]] = []
    # a number is what a high-risk call acts on when it is the argument (or an item of a
    # list of them), not a field of a record beside the fields that say which thing it is
    acting = acted_on(tool, name) and not _holds_record(value)
    choices = named_by(tool.parameters.get("properties", {}).get(name)) \
        | named_in(tool.description) | vocabulary | _kin_named(tool, name)
    for item, schema, key in argument_fields(tool, name, value):
        if not identifies(item, schema, acting=acting, name=name if key is None else key) \
                or isinstance(item, str) and normal(item) in choices | named_by(schema) \
                or key is not None and _short_figures(item):
            continue
        sources = store.seen(item)
        if any(obtained(s, variable) for s in sources):
            continue
        if _number_written(item, flow.request) or _capitals_written(item, flow.request) \
                or _padded_as_seen(item, store) \
                or _written_apart(item, flow.request) or _code_written(item, flow.request) \
                or _three_and_two(item, flow.request) \
                or _converted(item, flow.request, name, key or "") \
                or _currency_named(item, flow.request, name, variable, key or "") \
                or _zone_named(item, flow.request) \
                or _phrase_code(item, flow.request) \
                or _abbreviated(item, flow.request, schema,
                                tool.parameters.get("properties", {}).get(name)) \
                or _language_named(item, flow.request, name, variable, key or "") \
                or _composed(item, store, described := (
                    f"{description_of(schema)} "
                    f"{description_of(tool.parameters.get('properties', {}).get(name))}")) \
                or _keyed_like(item, store, f"{described} {tool.description}") \
                or _prefixed_as_described(item, store, f"{described} {tool.description}") \
                or _measures_joined(item, flow.request) \
                or _service_token(item, (described, tool.description, *service)) \
                or _built_of_seen(item, store, (described, tool.description, *service)) \
                or _pointer_into_read(item, store) \
                or _path_given(item, store, flow.request, f"{described} {tool.description}"):
            continue  # "my retirement age to 62", "I'm an M", "a full groom", "Italian"
        if _glossed_as_said(item, tool, name, schema, flow.request):
            continue  # "electric hook-up", and the description's "EHU" (electric hook-up)
        outside = tuple(s for s in sources
                        if s.kind is SourceKind.RESULT and not s.trusted)
        if outside:
            planted.append((item, outside))
            continue
        if _words(item) and in_users_words(item, flow.request) \
                or inflected_in(item, flow.request):
            continue  # "do Anny Nowak w Krakowie": ``Anna Nowak``, ``Kraków``
        what = _show(value) if item is value else f"{_show(value)}: its item {_show(item)}"
        if (key is not None or _prose(item)) and _words(item):
            carried = carried_text(item, _untrusted_texts(store), flow.request) \
                if writes(tool) else None
            datum = unseen_datum(item, store) if flow.read_all else None
            if carried is not None:
                return FlowProblem("tainted", name, (
                    f"write argument '{name}'{alias} = {what} carries {_show(carried)}, read "
                    f"in an untrusted result"))
            if datum is None:
                continue
            return FlowProblem("invented", name, (
                f"argument '{name}'{alias} = {what} carries {datum!r}, which neither the "
                f"request nor any result has shown"))
        written = [s for s in sources if s.kind is SourceKind.MODEL]
        only = f"; only the model wrote it, at {describe_sources(written)}" if written else ""
        once: dict[str | None, Any] = {}
        for k in _plain_values(flow.held.get(variable, ())):  # each value once, as held
            once.setdefault(normal(k), k)
        listed = ", ".join(_show(k) for k in once.values())
        known = f" (values held for {variable}: {listed})" if listed else ""
        return FlowProblem("invented", name, (
            f"argument '{name}'{alias} = {what} was seen nowhere: not in the request, a value "
            f"the user gave, the environment or any result{only}{known}"))
    if not planted or not writes(tool):
        return None
    item, outside = planted[0]
    what = _show(value) if item is value else f"{_show(value)}: its item {_show(item)}"
    return FlowProblem("tainted", name, (
        f"write argument '{name}'{alias} = {what} was not given by the user and is spelled "
        f"out only inside untrusted content ({describe_sources(outside)}): a value planted in "
        f"outside content is not the user's"))


def listed_with_given(value: Any, given: Iterable[Any], request: str) -> bool:
    """``value`` (or each item of it) is text the request lists together with a value the
    user gave, by a comma, "and" or "or", and written like it (with digits, or without:
    "I've got two codes, PHOTOBOOK20 and AUTUMN15" when a rule read only the first as the
    code): two values of one kind, either the user's. Text the request sets apart otherwise
    ("from Porto Airport to Lisbon"), or another part of what it lists ("New York, NY
    10001": no city), stays another value."""
    items = leaves(value)
    texts = [g for g in leaves(list(given)) if isinstance(g, str) and g.strip()]
    if not items or not texts or not request:
        return False
    spaced = _words_of(request)
    return all(isinstance(item, str) and item.strip() and any(
        has_digit(g) == has_digit(item) and _listed_together(item, g, spaced) for g in texts)
        for item in items)


def _listed_together(one: str, other: str, spaced: str) -> bool:
    """``spaced`` (a text as :func:`_words_of` gives it) lists ``one`` and ``other`` next to
    each other, in either order, joined as a list's items are (:data:`LIST_JOIN`)."""
    a, b = (re.escape(" ".join(t.split()).lower()) for t in (one, other))
    return any(re.search(rf"(?<!\w){x}(?:{LIST_JOIN}){y}(?!\w)", spaced)
               for x, y in ((a, b), (b, a)))


def _glossed_as_said(value: Any, tool: Tool, name: str, schema: Mapping[str, Any],
                     request: str) -> bool:
    """``value`` is one the parameter's description (or the tool's) quotes with its meaning
    in brackets, and the request spells that meaning out: the user named the extra ("can we
    have electric hook-up"), the service says how its tools name it (``"EHU"`` (electric
    hook-up)), as a catalogue's record would."""
    if not isinstance(value, str) or not request:
        return False
    said = tool.parameters.get("properties", {}).get(name)
    pairs = (*glossed(said), *glossed(schema), *glossed_in(tool.description))
    return any(code == value.strip() and spelled_out(meaning, request)
               for code, meaning in pairs)


def _number_written(value: Any, request: str) -> bool:
    """``value`` is a number (or text of digits) the request writes on its own: not as part
    of a date, a telephone number or a code ("2025-06-17" writes no 17). A number the call
    passes as a number is written with any zeros before it too (a meter's "08812" is the
    reading 8812); text of digits keeps its zeros (``"0042"`` is no ``"42"``); an ordinal
    writes its number ("to the 28th": 28)."""
    zeros = "0*" if isinstance(value, int | float) else ""
    if isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
        value = int(value.strip())
    if not isinstance(value, int | float) or isinstance(value, bool) or not request:
        return False
    text = _number_text(value)
    return re.search(rf"(?<![\w.\-/:]){zeros}{re.escape(text)}(?:st|nd|rd|th)?"
                     rf"(?![\w]|[.\-/:]\d)", _words_of(request)) is not None


#: The most groups a code is written in (a payment slip's line: eight).
MAX_CODE_GROUPS = 8


def _code_written(value: Any, request: str) -> bool:
    """The request writes ``value``, a code, grouped or typed otherwise (:func:`same_code`):
    in a run of up to :data:`MAX_CODE_GROUPS` groups parted only by dashes, slashes, dots
    or spaces; or spells it out ("s w four oh l for lima q" for ``SW4 0LQ``:
    :func:`~planfilter.core.spoken.written`)."""
    key = code_key(value)
    if key is None:
        return False
    return any(key[0] in groups or key[1] in runs for groups, runs in (
        _codes_written(request), _codes_written(spoken.written(narrow(request)))))


@lru_cache(maxsize=256)
def _codes_written(request: str) -> tuple[frozenset[tuple[str, ...]], frozenset[str]]:
    """The :func:`~planfilter.core.values.code_key` parts of every code the request writes
    (runs of up to :data:`MAX_CODE_GROUPS` groups on one line, parted only by dashes,
    slashes, dots or spaces), worked out once per request."""
    groups: set[tuple[str, ...]] = set()
    runs: set[str] = set()
    tokens = list(re.finditer(r"[^\W_]+", request))
    for i, first in enumerate(tokens):
        for last in tokens[i:i + MAX_CODE_GROUPS]:
            written = request[first.start():last.end()]
            if re.search(r"[^\w\s./-]", written) or "\n" in written:
                break
            if (key := code_key(written)) is not None:
                groups.add(key[0])
                runs.add(key[1])
    return frozenset(groups), frozenset(runs)


#: Five figures written as three and two, as Sweden, Czechia, Slovakia and Greece write a
#: postcode ("TK 106 76", "114 55 Stockholm"); not a part of a longer run of groups.
_THREE_AND_TWO = re.compile(r"(?<![\w.,])(?<!\d\s)(\d{3}) (\d{2})(?![\w.,]|\s\d)")


def _three_and_two(value: Any, request: str) -> bool:
    """``value``, five figures, is written in the request as three and two
    (:data:`_THREE_AND_TWO`: ``10676`` of "TK 106 76"), too few figures to be a code
    :func:`_code_written` finds however grouped."""
    return isinstance(value, str) and re.fullmatch(r"\d{5}", value.strip()) is not None \
        and any(a + b == value.strip() for a, b in _THREE_AND_TWO.findall(request))


def _written_apart(value: Any, request: str) -> bool:
    """``value`` is a code of letters then digits (or digits then letters) that the request
    writes with a space or a dash between the two (``TP88`` of "the flight TP 88",
    ``BA2490`` of "BA-2490"): the user's code, as the service writes it."""
    runs = re.fullmatch(r"([A-Za-z]+)(\d+)|(\d+)([A-Za-z]+)", value.strip()) \
        if isinstance(value, str) else None
    if runs is None:
        return False
    first, second = (g for g in runs.groups() if g is not None)
    return re.search(rf"(?<![\w-]){re.escape(fold(first))}[\s-]{re.escape(fold(second))}"
                     rf"(?![\w-])", _words_of(request)) is not None


#: A short code of capitals (a size, a grade, a row: ``M``, ``XL``, ``N``) written alone.
_CAPITALS = re.compile(r"[A-Z]{1,3}")


def first_hand(sources: Iterable[Source]) -> bool:
    """Some of ``sources`` is the user's, the environment's or a trusted result's: what the
    model may build a value of (not the model's own text, nor outside content)."""
    return any(s.kind is not SourceKind.MODEL and (s.kind is not SourceKind.RESULT
                                                   or s.trusted) for s in sources)


def _padded_as_seen(value: Any, store: ValueStore) -> bool:
    """``value``, figures alone, is one the user or a trusted result shows with more or
    fewer zeros before it (``20577310`` of the account ``0020577310`` a host pads to ten
    figures, ``000418273`` of ``418273``): one number, written to another width."""
    if not isinstance(value, str) or not value.strip().isdigit():
        return False
    bare = value.strip().lstrip("0")
    if len(bare) < MIN_MENTION_DIGITS:
        return False
    return any(first_hand(store.sources(bare.zfill(width)))
               for width in range(len(bare), len(bare) + 8) if bare.zfill(width) != value.strip())


def _capitals_written(value: Any, request: str) -> bool:
    """``value`` is a short code of capitals (:data:`_CAPITALS`) the request writes alone,
    in capitals: a ring's size "N" of "she needs an N", a shirt's "XL". Not the pronoun
    "I", nor the article "A" ("A friend of mine": a word follows it)."""
    if not isinstance(value, str) or not _CAPITALS.fullmatch(value.strip()) or not request:
        return False
    code = value.strip()
    return code != "I" and any(
        code != "A" or not re.match(r" [a-z]", request[m.end():m.end() + 2])
        for m in re.finditer(rf"(?<![\w'’-]){code}(?![\w'’-])", request))


#: A code of words joined by underscores or hyphens, in capitals (``FULL_GROOM``), or by
#: underscores in small letters (``grand_cru``).
_PHRASE_CODE = re.compile(r"[A-Z][A-Z0-9]*(?:[_-][A-Z][A-Z0-9]*)+"
                          r"|[a-z][a-z0-9]*(?:_[a-z][a-z0-9]*)+")


def _phrase_code(value: Any, request: str) -> bool:
    """``value`` is a code of words (:data:`_PHRASE_CODE`) the request says as a phrase, in
    order: ``FULL_GROOM`` of "a full groom with a nail grind", ``PUPPY_INTRO`` of "her puppy
    intro groom", ``grand_cru`` of "the Grand Cru box". What the user asked for, in the
    service's spelling."""
    if not isinstance(value, str) or not _PHRASE_CODE.fullmatch(value.strip()) or not request:
        return False
    phrase = r"[\s-]+".join(map(re.escape, re.split(r"[_-]", value.strip().lower())))
    return re.search(rf"(?<![\w-]){phrase}(?![\w-])", request.lower()) is not None


#: A code of capital letters that shortens a word: ``TURT``, ``SEAH``.
_LETTER_CODE = re.compile(r"[A-Z]{3,6}")


def _abbreviated(value: Any, request: str, *schemas: Any) -> bool:
    """``value`` is the start of a word the request says, in capitals, as long as each of the
    codes the description of the first of ``schemas`` that gives examples shows, all of
    that form: ``TURT`` of "the Turtle class" where levels are ``e.g. "SEAH", "TURT",
    "DOLP"``. The user's word in the service's shortening, which the examples spell out."""
    if not isinstance(value, str) or not _LETTER_CODE.fullmatch(value):
        return False
    shown = next((e for e in map(examples, schemas) if e), ())
    if not shown or not all(_LETTER_CODE.fullmatch(e) and len(e) == len(value) for e in shown):
        return False
    return re.search(rf"(?<![\w'’-]){re.escape(value.lower())}[a-z]+", fold(request)) \
        is not None


#: A language's name -> its ISO 639 code, from the standard library's table of locale
#: aliases ("italian" -> "it", "portuguese" -> "pt"): a name of letters alone, longer than
#: a code.
LANGUAGE_CODES: Mapping[str, str] = {
    name: alias.split("_")[0].split(".")[0].lower()
    for name, alias in locale.locale_alias.items()
    if name.isalpha() and len(name) > 4 and re.fullmatch(r"[a-z]{2,3}(?:_\w+)?(?:\..*)?",
                                                          alias)}
#: A language's code, perhaps with its region: ``it``, ``pt-BR``, ``zh_CN``.
_LANGUAGE_CODE = re.compile(r"([a-z]{2,3})(?:[-_][A-Za-z]{2,4})?", re.IGNORECASE)


def _language_named(value: Any, request: str, *names: str) -> bool:
    """``value`` is the code of a language the request names in words, for a parameter one
    of whose ``names`` (its own, its variable's) says language: ``it`` of "we now also need
    an Italian version". The user named it; the code is the service's spelling."""
    code = _LANGUAGE_CODE.fullmatch(value.strip()) if isinstance(value, str) else None
    if code is None or not any({"language", "languages", "lang", "langs", "locale"}
                               & _name_words(n) for n in names):
        return False
    said = {LANGUAGE_CODES.get(word) for word in words(request, digits=False)}
    return code.group(1).lower() in said


def _converted(value: Any, request: str, *names: str) -> bool:
    """``value`` is a measure the request says, in the unit one of ``names`` ends with,
    rounded to the unit: 1880 for ``width_mm`` of "6 foot 2 wide", 120 for
    ``duration_min`` of "for two hours". The user's measure, in the service's unit."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return False
    number = _number(normal(value))
    if number is None:
        return False
    for name in names:
        unit = unit_named(name)
        if unit is None or unit[1] not in UNIT_SIZES:
            continue
        for kind, size in measures_said(request):
            if kind == unit[0] and abs(size / UNIT_SIZES[unit[1]] - number) < 1:
                return True
    return False


#: A time zone's name in the IANA database: an area and a place, the place's words joined
#: by ``_`` (``America/New_York``, ``America/Argentina/Buenos_Aires``).
_ZONE = re.compile(r"(?:Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian"
                   r"|Pacific)/(?:[A-Za-z_-]+/)?([A-Za-z][A-Za-z_-]+)")


def _zone_named(value: Any, request: str) -> bool:
    """``value`` is the IANA time zone of a place the request names, written as the zone
    writes it (``America/Toronto`` of "I've moved to Toronto", ``America/New_York`` of
    "she lives in New York"). The user named the place; the zone is the service's
    spelling of it."""
    zone = _ZONE.fullmatch(value.strip()) if isinstance(value, str) else None
    return zone is not None and bool(re.search(
        rf"(?<![^\W\d_]){re.escape(fold(zone.group(1).replace('_', ' ')))}(?![^\W\d_])",
        fold(request)))


def _currency_named(value: Any, request: str, *names: str) -> bool:
    """``value`` is the ISO 4217 code of a currency the request names in words or by its
    sign (:func:`~planfilter.core.text.currencies_named`: ``JPY`` of "a yen wallet"), for a
    parameter one of whose ``names`` says currency. The user named it; the code is the
    service's spelling."""
    return isinstance(value, str) and bool(re.fullmatch(r"[A-Za-z]{3}", value.strip())) \
        and any({"currency", "currencies", "ccy"} & _name_words(n) for n in names) \
        and value.strip().upper() in currencies_named(request)


#: One part of a reference made of parts: ``kind:value`` (``acct:4411``, ``asset:SN-C02XK8``).
_KIND_PART = re.compile(r"([A-Za-z][A-Za-z_-]*):([^/\s]+)")
#: A short prefix of capitals a service puts before a value (``SN-`` before a serial).
_PREFIXED = re.compile(r"[A-Z]{1,4}-(.+)")


def _composed(value: Any, store: ValueStore, described: str) -> bool:
    """``value`` is a reference of parts joined by "/", each ``kind:value``, in a form the
    parameter's description shows (``described``: its examples, ``"acct:4411/asset:SN-..."``)
    or a trusted result's references take (the same kinds in the same order), each part's
    value shown by the user or a trusted result, whole or after a short prefix of capitals
    (``acct:3308/asset:SN-C02FK3ABQ6L4`` of the account ``acct:3308`` a read showed and the
    serial C02FK3ABQ6L4 the user gave): the model wrote the service's reference from parts it
    was given."""
    parts = [_KIND_PART.fullmatch(p) for p in value.split("/")] \
        if isinstance(value, str) else []
    if len(parts) < 2 or not all(parts):
        return False
    form = "/".join(f"{re.escape(m.group(1).lower())}:[^/\\s\"'`]+" for m in parts if m)
    if not re.search(rf"(?<![\w:/]){form}(?![\w/])", described.lower()) and not any(
            re.fullmatch(form, key) and any(s.kind is SourceKind.RESULT and s.trusted
                                            for s in sources)
            for key, sources in store.index.items() if key):
        return False

    def given(text: str) -> bool:
        return first_hand(store.seen(text))
    return all(m is not None and (given(m.group(0)) or given(m.group(2)) or bool(
        (bare := _PREFIXED.fullmatch(m.group(2))) and given(bare.group(1)))) for m in parts)


#: An id of a few letters and figures (``JBP-458217``, ``ORD58213``): the letters and what
#: joins them, then the figures.
_LETTERED_NUMBER = re.compile(r"([A-Za-z]{1,5}[-_/#]?)(\d+)")


def _prefixed_as_described(value: Any, store: ValueStore, described: str) -> bool:
    """``value`` is figures the user or a trusted result gave, after the letters the
    parameter's description shows every such id starts with, in an example of as many
    figures (``JBP-458217`` of "order number 458217", where the description says ``"JBP-"``
    followed by six digits, e.g. ``"JBP-458390"``): the model wrote the service's form of
    the number it was given."""
    found = _LETTERED_NUMBER.fullmatch(value.strip()) if isinstance(value, str) else None
    if found is None or len(found.group(2)) < MIN_MENTION_DIGITS:
        return False
    prefix, figures = found.groups()
    shown = rf"(?<![\w-]){re.escape(prefix)}\d{{{len(figures)}}}(?!\w)"
    return re.search(shown, described) is not None and first_hand(store.seen(figures))


def _service_token(value: Any, described: tuple[str, ...]) -> bool:
    """``value`` is written whole in the descriptions of the tool, its parameter or the tool
    set (``described``), one token of them (:func:`_described_tokens`): a word of the
    service's own vocabulary, which the model takes from the tools it calls (a table's
    name, ``sc_req_item`` of "Useful tables: ..., sc_req_item (RITM numbers)"; an entity
    set's, ``SalesInvoices``; a code system's address), outside their examples. Not text
    of several words, nor a value with :data:`MIN_MENTION_DIGITS` figures or more: an id a
    description shows (``LT-20931``) is no value of the user's."""
    if not isinstance(value, str):
        return False
    token = value.strip()
    return len(token) >= MIN_TEXT_CHARS and not re.search(r"\s", token) \
        and sum(c.isdigit() for c in token) < MIN_MENTION_DIGITS \
        and token in _described_tokens(described)


#: The parts of a key or a path a protocol writes of names and values, and what only such a
#: key holds (a bracket, a quote, an equals sign: no address nor e-mail address):
#: ``SalesOrders('SO-104882')``, ``Lines(DocumentNo='SO-1',LineNo=20000)``,
#: ``Items('LT-5204')/Microsoft.NAV.getAvailability(quantity=8)``.
_KEY_PARTS = re.compile(r"[^\w-]+")
_KEY_SYNTAX = re.compile(r"[(='\"]")


def _built_of_seen(value: Any, store: ValueStore, described: tuple[str, ...]) -> bool:
    """``value`` is a key or a path the model writes in the service's syntax
    (:data:`_KEY_SYNTAX`) of parts each of which is a token of the descriptions
    (:func:`_service_token`: an entity set's, a field's or an action's name), a value the
    user or a trusted result gave (an order's number, a field's name a record shows), or a
    number too short to be an id; one part at least a value so given. An OData key
    ``SalesOrders('SO-104882')`` of the order SO-104882 a read showed."""
    if not isinstance(value, str) or re.search(r"\s", value.strip()) \
            or not _KEY_SYNTAX.search(value):
        return False
    parts = [p for p in _KEY_PARTS.split(value.strip()) if p]
    given = [p for p in parts if first_hand(store.seen(p))]
    return len(parts) > 1 and bool(given) and all(
        p in given or _service_token(p, described)
        or p.isdigit() and len(p) < MIN_MENTION_DIGITS for p in parts)


#: A JSON Pointer as a patch writes one: ``/telecom/0/value``, ``/address/line``.
_POINTER = re.compile(r"(?:/[\w~.-]+)+")


def _pointer_into_read(value: Any, store: ValueStore) -> bool:
    """``value`` is a JSON Pointer to a value a trusted result holds, from that result's
    record down (``/telecom/0/value`` of a patient read at ``/entry/0/resource``): a patch
    names the field of the record the model read that it changes."""
    if not isinstance(value, str) or not _POINTER.fullmatch(value.strip()):
        return False
    tail = value.strip()
    return any(s.kind is SourceKind.RESULT and s.trusted and s.part == "value"
               and s.path.endswith(tail) for sources in store.index.values() for s in sources)


@lru_cache(maxsize=64)
def _described_tokens(described: tuple[str, ...]) -> frozenset[str]:
    """The tokens of descriptions outside their examples
    (:func:`~planfilter.core.schemas.without_examples`: an example's code is one the user
    must ask for): each run between spaces, quotes and brackets (:data:`_SHOWN`, without
    the stop that ends a sentence after one), and each word in it (``Microsoft``, ``NAV``
    of ``Microsoft.NAV.{action}``)."""
    found: set[str] = set()
    for text in described:
        found |= _text_tokens(text)
    return frozenset(found)


@lru_cache(maxsize=4096)
def _text_tokens(text: str) -> frozenset[str]:
    """:func:`_described_tokens` of one description."""
    plain = without_examples(text)
    shown = {t.rstrip(".:") for t in _SHOWN.findall(plain)}
    return frozenset(shown | {w for t in shown for w in _KEY_PARTS.split(t) if w})


#: Counts and measures joined as a cut list or a size writes them: ``6 @ 900``, ``2 @
#: 800x500``, ``3 x 2.4m``: figures, perhaps a unit after each, and the marks between them.
_MEASURE_FIGURES = r"\d+(?:[.,]\d+)?(?:\s?(?:mm|cm|m|in|ft|kg|g|ml|l))?"
_MEASURES_JOINED = re.compile(rf"{_MEASURE_FIGURES}(?:\s*[@x×*]\s*{_MEASURE_FIGURES})+",
                              re.IGNORECASE)
_JOINED_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def _measures_joined(value: Any, request: str) -> bool:
    """``value`` is counts and measures joined (:data:`_MEASURES_JOINED`: ``6 @ 900`` of
    "six pieces at 900mm"), each number of fewer than :data:`MIN_MENTION_DIGITS` figures (a
    count) or one the request writes, perhaps with its unit after it: how many of what size
    is never which thing."""
    if not isinstance(value, str) or not _MEASURES_JOINED.fullmatch(value.strip()):
        return False
    said = _words_of(request) if request else ""
    return all(len(number) < MIN_MENTION_DIGITS or re.search(
        rf"(?<![\w.\-/:]){re.escape(number)}(?:\s?[a-z]{{1,2}})?(?![\w]|[.\-/:]\d)", said)
        for number in _JOINED_NUMBER.findall(value))


#: What joins the parts of a key a service builds of parts ("CRT-A/2025-05-22/1900",
#: "HALL2:2025-05-14T18:00", "BLK-0147#2"); a date or a time inside one stays whole.
_KEY_JOINS = re.compile(r"[/:#|]")
_MOMENT_INSIDE = re.compile(rf"(?<![\w-])(?:{_MOMENT.pattern})(?!\w)", _MOMENT.flags)
#: A time of day in four figures, as a key writes it ("1900").
_CLOCK_FIGURES = re.compile(r"(?:[01]\d|2[0-3])[0-5]\d")
#: Where a description shows a key: a run of characters that are not spaces, quotes or
#: brackets.
_SHOWN = re.compile(r"[^\s\"'`,;()\[\]{}]+")


def key_parts(value: str) -> tuple[tuple[str, ...], str] | None:
    """The parts of a key a service builds of parts and what joins them, in order
    (``CRT-A/2025-05-22/2100``: ``CRT-A``, ``2025-05-22``, ``2100`` and ``//``); None for
    a value of one part or with an empty one."""
    moments: list[str] = []

    def keep(match: re.Match[str]) -> str:
        moments.append(match.group(0))
        return "\0"
    masked = _MOMENT_INSIDE.sub(keep, value)
    joins = "".join(_KEY_JOINS.findall(masked))
    if not joins:
        return None
    found = iter(moments)
    parts = tuple(re.sub("\0", lambda _: next(found), p) for p in _KEY_JOINS.split(masked))
    return None if not all(p.strip() for p in parts) else (parts, joins)


def _keyed_like(value: Any, store: ValueStore, described: str) -> bool:
    """``value`` is a key a service builds of parts (:func:`key_parts`), in the form of a
    key a trusted result holds or ``described`` (the parameter's and the tool's
    descriptions) shows: as many parts, joined the same way, each one the user or a trusted
    result shows, the trusted key's own part there, or, where the other key has one too, a
    date or a time (``2025-05-22``, ``2100``) or a number of fewer than
    :data:`MIN_MENTION_DIGITS` figures (a session's place in its block). The slot
    ``CRT-A/2025-05-22/2100`` of the court a read showed, at the hour the user asks for,
    beside ``CRT-A/2025-05-22/2000`` it read: the model wrote the service's key from parts
    it was given. A part nothing showed (an example's court) is no more the user's inside a
    key than alone."""
    mine = key_parts(value.strip()) if isinstance(value, str) else None
    if mine is None:
        return False
    parts, joins = mine

    def fits(part: str, other: str, trusted: bool) -> bool:
        return trusted and normal(part) == normal(other) or first_hand(store.seen(part)) or bool(
            _MOMENT.fullmatch(part) and _MOMENT.fullmatch(other)
            or _CLOCK_FIGURES.fullmatch(part) and _CLOCK_FIGURES.fullmatch(other)
            or part.isdigit() and other.isdigit() and len(part) < MIN_MENTION_DIGITS)

    written = [(key, False) for key in _SHOWN.findall(described)]
    held = [(key, True) for key, sources in store.index.items()
            if key and _KEY_JOINS.search(key)
            and any(s.kind is SourceKind.RESULT and s.trusted for s in sources)]
    for key, trusted in (*written, *held):
        other = key_parts(key)
        if other is not None and other[1] == joins and all(
                fits(part, them, trusted)
                for part, them in zip(parts, other[0], strict=True)):
            return True
    return False


#: A path of folders, perhaps ending in a file: ``/Clients/Café Lumière/``,
#: ``/HR/Contracts/offer.pdf``.
_PATH = re.compile(r"/(?:[^/\n]+/)*[^/\n]*")


def _path_given(value: Any, store: ValueStore, request: str, described: str) -> bool:
    """``value`` is a path (:data:`_PATH`) whose every folder and file the user's words
    spell out, each word whole ("our HR Contracts folder" for ``/HR/Contracts/``),
    the user or a trusted result shows, or, for the top folder alone, a path the
    descriptions show begins with (``/Clients/`` of ``e.g. "/Clients/Harlow & Sons/2025/"``:
    the service's own arrangement, where each folder below is the user's or a read's, never
    an example's): ``/Clients/Café Lumière/`` of "the owner of Café Lumière"."""
    if not isinstance(value, str) or not _PATH.fullmatch(value.strip()):
        return False
    names = [n for n in value.strip().split("/") if n]
    tops = {fold(m.group(1)) for m in re.finditer(r"(?<![\w/])/([^/\s\"'`]+)/", described)}
    said = set(re.findall(r"\w+", fold(request)))

    def given(name: str, depth: int) -> bool:
        named = re.findall(r"\w+", fold(name))  # "HR" of "our HR Contracts folder" too
        return bool(named) and all(w in said for w in named) \
            or depth == 0 and fold(name) in tops or first_hand(store.seen(name))
    return bool(names) and all(given(n, depth) for depth, n in enumerate(names))


def in_users_words(value: str, request: str) -> bool:
    """Each word of ``value`` (a run of letters or digits) the request spells out as a whole
    word: the user's words put together ("my twins Noah and Ella", from Sarah Whitfield:
    ``Noah Whitfield``). What the user wrote is theirs to have the model pass on."""
    found = re.findall(r"\w+", value)
    return bool(found) and all(spelled_out(word, request) for word in found)


#: The most words of a name or a place the request may write inflected, and the most
#: letters an ending may change at each side: the value's word keeps all but
#: :data:`_ENDING_DROPPED` of its letters as the stem, the request's adds at most
#: :data:`_ENDING_ADDED` after it ("Anna" / "Anny", "Kraków" / "Krakowie", "Gdańsk" /
#: "Gdańska", "Lewandowska" / "Lewandowskiej").
MAX_INFLECTED_WORDS = 3
_ENDING_DROPPED = 1
_ENDING_ADDED = 3
#: The fewest letters of a word that may be inflected, and of the stem it keeps: a word of
#: fewer letters is matched whole, and one of :data:`_SHORT_WORD` only beside a longer
#: word of the same name that matched ("Anna Nowak", "Zielona Góra").
_MIN_WORD = 5
_SHORT_WORD = 4


def inflected_in(value: Any, request: str) -> bool:
    """``value``, a name or a place of up to :data:`MAX_INFLECTED_WORDS` words of letters,
    is written in the request with its words inflected, as languages that decline names
    write them ("paczka do Anny Nowak", "w Krakowie": ``Anna Nowak``, ``Kraków``): each
    word, accents folded, is a word of the request or shares a stem with one, the value's
    word ending at most :data:`_ENDING_DROPPED` letter after it and the request's at most
    :data:`_ENDING_ADDED`; a stem of all but one letter of a word of :data:`_SHORT_WORD`
    letters counts only beside a longer word of the value. The user's words, in the form
    a record holds them."""
    if not isinstance(value, str) or not request:
        return False
    found = fold(value).split()
    if not 0 < len(found) <= MAX_INFLECTED_WORDS or not all(w.isalpha() for w in found) \
            or any(w.isupper() for w in value.split()):  # "TURTL" is a code, no name
        return False
    said = _folded_words(request)
    longer = any(len(w) >= _MIN_WORD for w in found)
    return any(w not in said for w in found) and all(
        w in said or any(_one_word_inflected(w, r, short=longer) for r in said)
        for w in found)


def _one_word_inflected(word: str, other: str, *, short: bool) -> bool:
    """``word`` and ``other`` are one word in two forms (see :func:`inflected_in`)."""
    if len(word) < (_SHORT_WORD if short else _MIN_WORD):
        return False
    for size in (len(word), len(word) - _ENDING_DROPPED):
        if other.startswith(word[:size]) and 0 < len(other) - size <= _ENDING_ADDED:
            return True
    return False


@lru_cache(maxsize=256)
def _folded_words(text: str) -> frozenset[str]:
    """The words of letters of ``text``, accents folded and lower-cased."""
    return frozenset(re.findall(r"[^\W\d_]+", fold(text)))


def _untrusted_texts(store: ValueStore) -> tuple[str, ...]:
    """Every text an untrusted result held."""
    return tuple(text for text, source in store.texts
                 if source.kind is SourceKind.RESULT and not source.trusted)


def _words(value: Any) -> bool:
    """Text of several words, at least one of them of letters (a description, a place, a
    name; not a telephone number written in groups)."""
    return isinstance(value, str) and len(parts := value.split()) > 1 \
        and any(sum(c.isalpha() for c in p) > 1 for p in parts)


#: Words a text needs to be prose the model writes, wherever it goes (fewer may be a name).
PROSE_WORDS = 6


def _prose(value: Any) -> bool:
    """Text of at least :data:`PROSE_WORDS` words: what the model writes (a resolution, a
    reason), no name of one thing."""
    return isinstance(value, str) and len(value.split()) >= PROSE_WORDS


def _holds_record(value: Any) -> bool:
    """``value`` is an object, or a list holding one (the items of an order, its payments)."""
    return isinstance(value, Mapping) or isinstance(value, list | tuple) and \
        any(isinstance(v, Mapping | list | tuple) and _holds_record(v) for v in value)


def identifies(value: Any, schema: Mapping[str, Any], *, acting: bool = False,
               name: str | None = None) -> bool:
    """``value`` (a scalar, typed by ``schema``) can say which thing a call acts on, so
    where it came from matters. What cannot, and so is never ``invented``:

    - nothing, blank text and a yes/no (None, ``""``, a boolean): an empty second line of
      an address names nothing; nor does a courtesy title (``Mrs``, ``Dr``,
      :data:`~planfilter.core.text.COURTESY_TITLES`), how a traveller is addressed;
    - one of the values the parameter's own schema lists (``enum``, ``const``): the tool
      offers it;
    - a measure: a number with a fraction, or one the schema types as a real number
      (``number``, not ``integer``): no identifier is a fraction, and a model works prices
      and totals out from the ones it read;
    - a whole number of fewer than :data:`MIN_MENTION_DIGITS` digits: a count (bags, nights,
      guests) as often as an id, and whether some result holds one proves nothing (the
      store never looks for one in text either). Except what a high-risk call acts on
      (``acting``, see :func:`acted_on`): there a number is the item's id, and an item
      the run never saw is a guess (an attacker's first: "delete item 6"). A number inside
      a record (an order's items, each a product and a quantity) is a field beside the
      ones that say which thing it is, and stays a count;
    - an amount of money: a number, or a number written as text, in a parameter or field
      ``name`` names for money (:func:`~planfilter.core.text.names_money`: ``amount_minor``,
      ``price_cents``, ``refund``): the model converts ("£450" is ``45000`` pence), splits
      and totals amounts, and none says which thing a call acts on; so too where the
      description says it is one (:data:`_AMOUNT_DESCRIBED`: "amount of each payment,
      pence, 10 digits" for ``AMT``: ``"0000045000"`` is £450);
    - a count: a whole number in a parameter or field named for one (``quantity``,
      ``qty``, ``count``, ``seats_count``, ``num_guests``, ``number_of_nights``) or that its
      description says is "how many" or "the number of" something (``points: how many
      points to convert; a multiple of 500``, "The total number of baggage items"): the
      model works it out ("as many as possible, in blocks of 500"), and how many is never
      which, not even of what a high-risk call acts on;
    - a date, a month, a quarter, an ISO week or a time (``2025-06-17``, ``2025-06``,
      ``2025-06-17 09:30``, ``09:30``, ``17:00-21:00``, ``17/06/2025``, ``2025-Q4``,
      ``2025-W17``): the model
      writes them from the user's words ("June 17", "last month", "after the autumn", "the
      week of 21 April"); and in eight figures where the description says a date
      (``20250301``, "date the member moved, CCYYMMDD"); and a length of time as ISO 8601
      writes it (``PT45M`` of "45 minutes"), or in seconds where a name says a length of
      time (``outageDuration: "5400s"``, as a protocol buffer's JSON writes one);
    - a measure with its unit (``8in``, ``128 GB``, ``500ml``,
      :data:`~planfilter.core.text.MEASURE`), but where a name says an identifier
      (``code``: ``12KG`` may be one): the model writes "an 8 inch" as the tool does;
    - a part of a weekday (``Fri AM``) or an iCalendar recurrence
      (``FREQ=WEEKLY;BYDAY=TH;BYHOUR=14``): the model writes "Thursdays at two" so; and a
      whole number a name says is a moment (``hour``, ``new_day``, ``delivery_date``,
      ``passedAtMs``:
      :data:`_MOMENT_WORDS`).
    """
    if value is None or isinstance(value, bool) or isinstance(value, str) and (
            not value.strip() or value.strip(" .").lower() in COURTESY_TITLES):
        return False
    listed = schema.get("enum")
    if isinstance(listed, list | tuple) and any(same_value(value, v) for v in listed) \
            or "const" in schema and same_value(value, schema["const"]):
        return False
    if isinstance(value, float) and not value.is_integer():
        return False
    if name is not None and names_money(name) and _number(normal(value)) is not None:
        return False
    described = description_of(schema)
    if (_AMOUNT_DESCRIBED.match(described) or MINOR_UNIT.search(described)) and (
            _number(normal(value)) is not None
            or isinstance(value, str) and value.strip().isdigit()):
        return False  # "0000045000": pence, padded to ten figures
    if isinstance(value, str) and _COMPACT_DATE.fullmatch(value.strip()) \
            and _DATE_DESCRIBED.search(described):
        return False
    if isinstance(value, int) and (_counts(name, schema) or _moment_named(name)):
        return False
    if isinstance(value, int | float):
        return schema.get("type") != "number" and \
            (acting or len(_number_text(abs(value))) >= MIN_MENTION_DIGITS)
    return not (isinstance(value, str) and (
        _MOMENT.fullmatch(value.strip()) or _DURATION.fullmatch(value.strip())
        or _SECONDS.fullmatch(value.strip()) and _head(name) in _LENGTH_WORDS
        or MEASURE.fullmatch(value.strip()) and not set(words(name or "")) & ID_WORDS))


#: A description that opens by saying its value is an amount of money, whatever the
#: parameter is called (``AMT``: "amount of each payment", "new amount per payment"); one
#: that names a currency's minor unit says so too (:data:`~planfilter.core.text.MINOR_UNIT`:
#: "overpayment, pence, 10 digits").
_AMOUNT_DESCRIBED = re.compile(r"\s*(?:the\s+|an?\s+)?(?:new\s+)?(?:amount|price|fee|cost|"
                               r"total)s?\b", re.IGNORECASE)
#: A length of time as ISO 8601 writes it: ``PT45M``, ``P2D``, ``P1Y2M``, ``PT1H30M``.
_DURATION = re.compile(r"P(?=\d|T\d)(?:\d+Y)?(?:\d+M)?(?:\d+W)?(?:\d+D)?"
                       r"(?:T(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)?")
#: A length of time in seconds, as a protocol buffer's JSON writes a ``Duration``
#: (``5400s``, ``1.5s``), and the last words of names that say a value is one.
_SECONDS = re.compile(r"\d+(?:\.\d+)?s")
_LENGTH_WORDS = frozenset({"duration", "length", "timeout", "ttl", "interval", "delay", "period"})
#: A date written in eight figures, year first (``20250301``), and a description that says
#: its value is a date in them ("date the member moved, CCYYMMDD").
_COMPACT_DATE = re.compile(r"(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])")
_DATE_DESCRIBED = re.compile(r"\bdate\b|\b(?:CC|YY)YYMMDD\b", re.IGNORECASE)


def _head(name: str | None) -> str | None:
    """The last word of a parameter's or a field's name (``new_day``, ``newDay``: ``day``),
    if any."""
    last = name_parts(name)[-1:] if name else []
    return last[0] if last else None


def _moment_named(name: str | None) -> bool:
    """The last word of ``name`` says its number is a moment (:data:`_MOMENT_WORDS`)."""
    return _head(name) in _MOMENT_WORDS


#: A name that says its number is a count: ``quantity``, ``qty``, ``count``, ``*_count``,
#: ``num_*``, ``number_of_*``.
_COUNT_NAME = re.compile(r"(?:^|_)(?:quantity|qty|count)$|^(?:quantity|qty|count)_|"
                         r"^(?:num|number_of|how_many)_", re.IGNORECASE)
#: A description that says its number is a count: "how many", "(the, total) number of
#: items" (not "the account number of", nor "the number of the booking").
_COUNT_SAID = re.compile(
    r"\bhow many\b|(?:^|\b(?:the|a|total|maximum|minimum|max|min)\s+)number\s+of\s+"
    r"(?!(?:the|a|an|this|that|these|those|their|his|her|its|your|my|our)\b)\w",
    re.IGNORECASE)


def _counts(name: str | None, schema: Mapping[str, Any]) -> bool:
    """A number of ``name`` (a parameter or a field) typed by ``schema`` is a count (see
    :func:`identifies`): by its name (:data:`_COUNT_NAME`, or a plural noun's: ``copies``,
    ``nights``, ``adults``, no ``ids``) or its description (:data:`_COUNT_SAID`)."""
    said = schema.get("description")
    head = _head(name)
    return bool(name and _COUNT_NAME.search(name)) or \
        head is not None and singular(head) != head and singular(head) not in ID_WORDS or \
        isinstance(said, str) and bool(_COUNT_SAID.search(said))


#: A list of several items a call returned that hold a value (see :func:`searched_lists`):
#: the call's text arguments (squeezed, lower-cased -> as given), the items, which of them
#: hold the value, and the words of each argument's name (squeezed text -> words).
Searched = tuple[dict[str, str], list[Mapping[str, Any]], set[int], dict[str, frozenset[str]]]


def unasked_item(searched: Iterable[Searched], trusted: bool = False,
                 request: str = "") -> str | None:
    """When the value of ``searched`` (:func:`searched_lists`) is a field of an item of a
    list of several items (objects) a call returned, and some items of that list, not this
    one, have a field equal to one of the call's own text arguments (case and whitespace
    ignored: the file name searched for, the others matched only in part): that argument.
    None otherwise. Not when only trusted results hold the value (``trusted``), this item
    does not match the argument even in part, and the field equal to it is named with no
    word of the argument's name: a trusted service listed the items by criteria of its own
    (the records of a domain, one of which points at the domain; the sitters who serve an
    area, beside the one who lives there), and the argument was what they belong to, not
    the name of one. Nor when only trusted results hold it and this item's text that holds
    the argument is the user's words (:func:`in_users_words`): a search for "dewy fix
    setting spray" that found it and its "Travel Size", which the request asks for in those
    words. Outside content can list anything beside what was searched for."""
    for asked, items, mine, named in searched:
        exact = {i: (key, field) for i, item in enumerate(items) for field, f in item.items()
                 if isinstance(f, str) and (key := _squeezed(f).lower()) in asked}
        if exact and trusted and any(
                isinstance(f, str) and any(_in_part(key, _squeezed(f).lower()) for key in asked)
                and in_users_words(f, request) for i in mine for f in items[i].values()):
            continue  # the item the request names, beside the one named as searched
        if exact and len(exact) < len(items) and not mine & set(exact):
            for key, field in dict.fromkeys(exact.values()):
                if not (trusted and not named.get(key, frozenset()) & _name_words(field)
                        and not any(isinstance(f, str) and _in_part(key, _squeezed(f).lower())
                                    for i in mine for f in items[i].values())):
                    return asked[key]
    return None


def _name_words(name: Any) -> frozenset[str]:
    """The words of letters of a parameter's or a field's name (``user_email``)."""
    return frozenset(words(str(name), digits=False))


def _in_part(asked: str, field: str) -> bool:
    """One text holds the other (both squeezed and lower-cased; a field shorter than
    :data:`MIN_TEXT_CHARS` counts as in any text)."""
    return asked in field or len(field) >= MIN_TEXT_CHARS and field in asked


def open_choice(searched: Iterable[Searched]) -> str | None:
    """When the value of ``searched`` (:func:`searched_lists`) is a field of an item of a
    list of several items (objects) a call returned, no item of that list has a field equal
    to one of the call's own text arguments, and two or more have a text field that holds
    it (a search for "quarterly review" that found two events whose descriptions mention
    it): that argument. The search did not say which item was meant, and outside content can
    be written so as to match a search. Dates and times are no search words here (a day's
    listing holds them all). None otherwise."""
    for asked, items, mine, _ in searched:
        fields = [[_squeezed(f).lower() for f in item.values() if isinstance(f, str)]
                  for item in items]
        for key, text in asked.items():
            if _MOMENT.fullmatch(text.strip()):
                continue  # a date or a time is no search word
            if any(key == f for texts in fields for f in texts):
                continue  # the search names an item
            matched = {i for i, texts in enumerate(fields) if any(key in f for f in texts)}
            if len(matched) >= 2 and mine & matched:
                return text
    return None


def searched_lists(value: Any, answers: Iterable[tuple[Mapping[str, Any], Any]]
                   ) -> Iterable[Searched]:
    """Each list of several items (objects) a call of ``answers`` returned, some of which
    have ``value`` as a field: the call's own text arguments of :data:`MIN_TEXT_CHARS` or
    more (by their text without whitespace, lower-cased -> as given), the items, and which
    of them hold ``value``."""
    for arguments, result in answers:
        asked = {_squeezed(a).lower(): a for a in texts_in(
            {k: v for k, v in arguments.items() if not range_bound(k, arguments)}, keys=False)
                 if len(a) >= MIN_TEXT_CHARS}
        if not asked:
            continue
        named: dict[str, frozenset[str]] | None = None  # worked out once a list holds it
        for items in _item_lists(result):
            mine = _holding(items, value)
            if mine:
                named = _argument_names(arguments) if named is None else named
                yield asked, items, mine, named


#: Pairs of words that make two parameters the ends of one range (``date_from`` and
#: ``date_to``, ``min_price`` and ``max_price``).
RANGE_ENDS = (("from", "to"), ("start", "end"), ("min", "max"), ("after", "before"),
              ("since", "until"), ("earliest", "latest"), ("lower", "upper"))


def range_bound(name: str, arguments: Mapping[str, Any]) -> bool:
    """``name`` is one end of a range whose other end ``arguments`` also gives: their
    names differ in one word, a pair of :data:`RANGE_ENDS` (``date_from`` beside
    ``date_to``). Every item a search in that range returns is within what was asked, the
    ones at its ends no more than the rest."""
    mine = words(name, digits=False)
    for low, high in RANGE_ENDS:
        for this, other in ((low, high), (high, low)):
            if this in mine:
                twin = [other if w == this else w for w in mine]
                if any(words(n, digits=False) == twin for n in arguments if n != name):
                    return True
    return False


def _argument_names(arguments: Mapping[str, Any]) -> dict[str, frozenset[str]]:
    """Each text argument (squeezed, lower-cased) -> the words of the names it was given
    under."""
    named: dict[str, frozenset[str]] = {}
    for name, given in arguments.items():
        for text in texts_in(given, keys=False):
            key = _squeezed(text).lower()
            named[key] = named.get(key, frozenset()) | _name_words(name)
    return named


def _holding(items: list[Mapping[str, Any]], value: Any) -> set[int]:
    """The items of ``items`` that have ``value`` (a text or a number) as one of their
    fields; none for anything else (nothing, a yes/no, a list)."""
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        return set()
    return {i for i, item in enumerate(items)
            if any(isinstance(f, str | int | float) and not isinstance(f, bool)
                   and same_value(value, f) for f in item.values())}


def _item_lists(value: Any) -> Iterable[list[Mapping[str, Any]]]:
    """Every list of two or more objects inside ``value`` (the items a search returned)."""
    if isinstance(value, Mapping):
        for item in value.values():
            if isinstance(item, Mapping | list | tuple):
                yield from _item_lists(item)
    elif isinstance(value, list | tuple):
        items = [v for v in value if isinstance(v, Mapping)]
        if len(items) >= 2:
            yield items
        for item in value:
            if isinstance(item, Mapping | list | tuple):
                yield from _item_lists(item)


def unseen_datum(value: Any, store: ValueStore) -> str | None:
    """A datum in ``value``'s text that nothing in ``store`` but the model showed
    (:meth:`~planfilter.core.values.ValueStore.shows`): a word of letters and digits (a
    code, an IBAN, an id) or an e-mail address, case ignored. A model composes sentences and
    fills in dates, but it cannot write a code it never read. None when every datum was
    seen."""
    for text in texts_in(value):
        for word in _DATUM.findall(text):
            word = word.strip(".-+")
            if _is_datum(word) and not store.shows(word):
                return word
    return None


_DATUM = re.compile(r"[\w.@+-]{4,}")
#: Text that is a whole number (no leading zero: ``"007"`` is an id, and stays text).
_DIGITS = re.compile(r"0|[1-9]\d*")


#: A number joined to the word of what it counts: ``14-day``, ``90-pack``, ``6-month``: a
#: phrase of the model's sentence, not a code it copied.
_COUNTED = re.compile(r"\d+(?:[.,]\d+)?(?:-[a-z]+)+")


def _is_datum(word: str) -> bool:
    return "@" in word or (any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
                           and not _COUNTED.fullmatch(word))


def texts_in(value: Any, *, keys: bool = True) -> Iterable[str]:
    """Every text inside ``value`` (object fields, list items, at any depth; with ``keys``,
    the objects' keys too: an address can be a key, as in a file's ``shared_with``); an
    object of another kind is read as its text."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if keys:
                yield from texts_in(key)
            yield from texts_in(item, keys=keys)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from texts_in(item, keys=keys)
    elif value is not None and not isinstance(value, bool | int | float):
        yield str(value)


def sends(tool: Tool, arguments: Mapping[str, Any]) -> bool:
    """The call sends something somewhere: one of the tool's sensitive arguments (a
    recipient, a channel, an address, participants) has a value."""
    return any(arguments.get(p) not in (None, "", [], {}) for p in tool.sensitive)


def is_taint(concern: str) -> bool:
    """The concern (a reason a call needs approval) is a tainted argument."""
    return concern.startswith(TAINT_CONCERNS)


def carried_text(text: str, outside: Iterable[Any], request: str = "") -> str | None:
    """The first line of outside content (each text inside it, line by line) of
    :data:`MIN_CARRIED_CHARS` or more that ``text`` contains (case and whitespace ignored),
    unless the request spells it out; None when it carries none."""
    haystack = _squeezed(text).lower()
    for value in outside:
        for item in _scalars(value) if isinstance(value, list | tuple | Mapping) else (value,):
            if not isinstance(item, str):
                continue
            for line in item.splitlines():
                needle = _squeezed(line).lower()
                if len(needle) >= MIN_CARRIED_CHARS and needle in haystack \
                        and not spelled_out(line.strip(), request):
                    return line.strip()
    return None


def named_record(value: Any, given: Iterable[Any], store: ValueStore,
                 request: str = "") -> bool:
    """``value`` is a field of a record in a trusted result another field of which is a
    value the user gave for the same variable, or a name of several words the request
    spells out; or it is kept in a trusted result under a key (or in a record under a key)
    that spells out a value the user gave: the user named the thing (a station, "Porto
    Campanhã"; a colleague, "Jasper Quint"; a city, "Chicago"), its record or a catalogue
    says how tools name it (``OPO-CMP``; ``jasper.quint@...``; ``{"Chicago O'Hare":
    "ORD"}``). A list passes when each of its items does."""
    items = value if isinstance(value, list | tuple) else (value,)
    if not items:
        return False
    plain = [g for g in _plain_values(given) if isinstance(g, str) and g.strip()]
    named = {at for g in _plain_values(given) for s in store.sources(g)
             if (at := _record_of(s)) is not None}
    named |= {(call, holder) for call, path in named
              if (holder := _holding_record(path)) is not None}
    if all(any(_record_of(s) in named or _keyed_by(s, plain) for s in store.sources(item))
           or _longer_name(item, plain, store) for item in items):
        return True
    spoken = _records_named_in(store, request)
    return bool(spoken) and all(any(_record_of(s) in spoken for s in store.sources(item))
                                for item in items)


#: Words a name may have beyond the user's part of it ("Bath" of "Bath Spa", "Paddington" of
#: "London Paddington"): more is another thing that mentions it.
MAX_NAME_WORDS = 4


def _longer_name(value: Any, given: list[str], store: ValueStore) -> bool:
    """``value`` is a name a trusted result shows (a field, or whole words of its text) that
    begins or ends with a name the user gave, as whole words of letters: the user named a
    station, a branch, a venue by part of its name, the service by all of it."""
    if not isinstance(value, str) or len(parts := value.split()) > MAX_NAME_WORDS \
            or not any(s.kind is SourceKind.RESULT and s.trusted for s in store.seen(value)):
        return False
    folded = [w.casefold() for w in parts]
    for g in given:
        part = [w.casefold() for w in g.split()]
        if part and len(part) < len(folded) and all(w.isalpha() for w in part) \
                and part in (folded[:len(part)], folded[-len(part):]):
            return True
    return False


def _records_named_in(store: ValueStore, request: str) -> set[tuple[int | None, str]]:
    """The records of trusted results a field of which is a name of several words that
    ``request`` spells out (a person's, a product's: one word, "general", names too many)."""
    return {at for text, source in store.texts
            if (at := _record_of(source)) is not None and _words(text)
            and spelled_out(text, request)} if request else set()


def _keyed_by(source: Source, given: list[str]) -> bool:
    """``source`` is a trusted result's value whose key, or whose record's key, spells out
    one of ``given`` (``/Chicago O'Hare`` or ``/Chicago O'Hare/code`` for "Chicago")."""
    if source.kind is not SourceKind.RESULT or not source.trusted or source.part != "value":
        return False
    tokens = [token_key(t) for t in source.path.split("/")[1:]]
    keys = [t for t in tokens[-2:] if t and not t.isdigit()]
    return any(spelled_out(g, key) for g in given for key in keys)


def _record_of(source: Source) -> tuple[int | None, str] | None:
    """(call, pointer) of the record a trusted result's field is in; None for anything else
    (a list's item, a key, text, another kind of source)."""
    if source.kind is not SourceKind.RESULT or not source.trusted or source.part != "value":
        return None
    parent, _, key = source.path.rpartition("/")
    return None if not key or key.isdigit() else (source.call, parent)


#: A record's place inside the record that holds it: a field of its own (``/identifier``)
#: or an item of a list field (``/identifier/0``).
_SUB_RECORD = re.compile(r"/[^/]*[^/\d][^/]*(?:/\d+)?$")


def _holding_record(path: str) -> str | None:
    """The pointer of the record that holds the record at ``path`` as a field or an item of
    a list field (``/entry/0/resource`` of ``/entry/0/resource/identifier/0``, where a
    resource keeps its numbers as ``{"system": ..., "value": ...}``; ``/0`` of
    ``/0/address``); None where the top of the result holds it (``/orders/0``)."""
    found = _SUB_RECORD.search(path)
    return path[:found.start()] or None if found else None


def extends(value: Any, given: Iterable[Any], request: str) -> bool:
    """``value`` is text the request spells out that spells out a value the user gave, or
    that one spells out: what the rules read out of a request may be part of the value the
    user meant ("New York" of "New York, NY 10001"), or the user's value may name more than
    the call takes ("Porto" of "Porto Airport"). Only text with letters is a part: digits
    of a date are no value of their own. Or ``value`` is a value the user gave with words
    around it, each a word the request spells out: the user's words put together ("It's
    Aviva, policy number AV-99812" for ``Aviva AV-99812``). A list does when each of its
    items is a value the user gave or does."""
    if isinstance(value, list | tuple) and value:
        pool = tuple(given)
        return all(within(item, pool) or extends(item, pool, request) for item in value)
    if not isinstance(value, str):
        return False
    texts = [g for g in given if isinstance(g, str) and g.strip()]
    if not spelled_out(value, request):
        return any(_joined(value, g, request) for g in texts)
    part = any(c.isalpha() for c in value)
    return any(spelled_out(g, value) or part and spelled_out(value, g) for g in texts)


def _joined(value: str, given: str, request: str) -> bool:
    """``value`` holds ``given`` as whole words, and each other part of it (the words between
    its punctuation) the request spells out as one phrase, perhaps in the plural, with a
    word of at least :data:`MIN_TEXT_CHARS` letters or digits: ``Row E, seat 7`` of "row
    E, seats 7 and 8", where the rules read 7."""
    match = re.search(rf"(?<!\w){re.escape(given.strip())}(?!\w)", value, re.IGNORECASE)
    if match is None:
        return False
    rest = [p.strip() for p in re.split(r"[^\w\s]+", value[:match.start()] + " , "
                                         + value[match.end():]) if p.strip()]
    return bool(rest) and all(
        any(len(w) >= MIN_TEXT_CHARS for w in re.findall(r"\w+", part))
        and (spelled_out(part, request) or spelled_out(f"{part}s", request))
        for part in rest)


def worked_out(value: Any, given: Iterable[Any], names: Iterable[str]) -> bool:
    """``value`` is an amount of money (one of ``names`` names money:
    :func:`~planfilter.core.text.names_money`) that is the difference or the sum of two
    amounts the user gave (or wrote with their currency): "I was charged £95 but my excess
    is £60, refund the difference" gives 95 and 60, and the call refunds 35. No one else
    can make it so."""
    if not any(names_money(n) for n in names) or isinstance(value, bool):
        return False
    amount = _number(normal(value))
    stated = [n for g in given if not isinstance(g, bool)
              and (n := _number(normal(g))) is not None]
    return amount is not None and any(
        abs(abs(a - b) - amount) < 0.005 or abs(a + b - amount) < 0.005
        for i, a in enumerate(stated) for b in stated[i + 1:])


def changed_by(value: Any, names: Iterable[str], store: ValueStore, request: str) -> bool:
    """``value`` is an amount of money (one of ``names`` names money) that a trusted result
    shows changed by an amount the request gives as a change: "put Sam's limit up by £500"
    makes a limit of 2000 one of 2500, beside "bring Lee's down to £800", which binds 800
    (a change binds nothing: planfilter.live.request_values)."""
    if not any(names_money(n) for n in names) or isinstance(value, bool):
        return False
    amount = _number(normal(value))
    if amount is None:
        return False
    return any(s.kind is SourceKind.RESULT and s.trusted
               for change in changes_stated(request)
               for before in (amount - change, amount + change) if before > 0
               for s in store.seen(round(before, 2)))


def same_clock(value: Any, given: Iterable[Any]) -> bool:
    """``value`` is a time the user gave written with its seconds, or without them: "3:10"
    is ``3:10:00``, a finish time or a time of day alike; or the afternoon's or evening's
    of an hour the user wrote on a twelve-hour clock, without saying which half of the day
    ("7:30" is ``19:30`` as much as ``07:30``; "07:30" and "19:30" are one each)."""
    clock = _clock_of(value) if isinstance(value, str) else None
    if clock is None:
        return False
    hour, minute = clock.split(":")
    evening = f"{int(hour) - 12:02d}:{minute}" if 13 <= int(hour) <= 23 else None
    return any(isinstance(g, str) and (
        _clock_of(g) == clock or evening is not None and _clock_of(g) == evening
        and re.fullmatch(r"[1-9]:\d{2}|1[0-2]:\d{2}", g.strip()) is not None)
        for g in given)


#: A length of a stay the request says: "for 3 nights", "two nights", "a week".
_STAY = re.compile(r"\b(\d{1,2}|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                   r"twelve|thirteen|fourteen)\s+(nights?|days?|weeks?)\b", re.IGNORECASE)
_STAY_COUNTS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
                "thirteen": 13, "fourteen": 14}


def _stay_away(value: Any, given: Iterable[Any], request: str) -> bool:
    """``value`` is a date as many nights, days or weeks after or before a date the user
    gave as the request says a stay lasts ("Friday 23rd May for 3 nights": the 26th is the
    day out; "2 nights ... to Friday 11th April": the 9th is the day in)."""
    day = _iso_day(value)
    if day is None or not request:
        return False
    lengths = {(int(n) if n.isdigit() else _STAY_COUNTS[n.lower()])
               * (7 if unit.lower().startswith("week") else 1)
               for n, unit in _STAY.findall(request)}
    return any((start := _iso_day(g)) is not None and abs((day - start).days) in lengths
               for g in given)


def _iso_day(value: Any) -> date | None:
    """The day an ISO date (perhaps with a time after it) names, else None."""
    if not isinstance(value, str) or not re.match(r"\d{4}-\d{2}-\d{2}(?![\d])", value.strip()):
        return None
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        return None


def at_given_time(value: Any, given: Iterable[Any]) -> bool:
    """``value`` is a date and a time of day, the time one the user gave, the date one the
    user gave or, when they gave none, the model's: the user said the day and the time
    apart ("on 14 July at 11:00"), or only when in the day ("at 13:30") and the model
    wrote the day from their words ("tomorrow", "30 June") or from the record it changes,
    as it writes any date (:func:`identifies`)."""
    moment = _DATE_TIME.fullmatch(value.strip()) if isinstance(value, str) else None
    texts = [g.strip() for g in given if isinstance(g, str)]
    if moment is None:
        return False
    days = [g for g in texts if _DAY.fullmatch(g)]
    return (not days or moment.group(1) in days) \
        and any(_clock_of(g) == _clock_of(moment.group(2)) for g in texts)


#: A date and a time of day, ISO-style (``2025-06-30T10:00``, ``2025-03-15 13:30:00``).
_DATE_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})[ T](\d{1,2}:\d{2})(?::\d{2}(?:\.\d+)?)?"
                        r"(?:Z|[+-]\d{2}:?\d{2})?")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _clock_of(text: str) -> str | None:
    """``HH:MM`` of a text that is a time of day (``8:00``, ``08:00``), else None."""
    found = re.fullmatch(r"(\d{1,2}):(\d{2})(?::00)?", text.strip())
    return f"{int(found.group(1)):02d}:{found.group(2)}" if found else None


def spelled_out(value: Any, text: str) -> bool:
    """``value`` (or, for a list, every item) is written in ``text`` as whole words (case
    and runs of whitespace ignored; ``Alice`` in "send it to Alice", not ``Ali``); a number,
    or text of digits that is one (``"13"``, as :func:`~planfilter.core.values.normal` reads
    it), only as a whole number (``10`` is not in ``100``), and not as the number of an item
    of the request's own list ("do these in order: 1. ... 2. ...":
    :func:`~planfilter.core.text.numbering`)."""
    if not text:
        return False
    items = value if isinstance(value, list | tuple) else (value,)
    spaced = _words_of(text)
    for item in items:
        if item is None or isinstance(item, bool | Mapping | list | tuple):
            return False
        if isinstance(item, str) and _DIGITS.fullmatch(item.strip()):
            item = int(item.strip())
        if isinstance(item, int | float):
            pattern = _whole_number(item) + r"(?!\.\d)"  # 50 is not spelled in 50.5
        else:
            needle = " ".join(fold(str(item)).split())
            if len(needle) < MIN_TEXT_CHARS:
                return False
            pattern = rf"(?<!\w){re.escape(needle)}(?!\w)"
        if not re.search(pattern, spaced):
            return False
    return bool(items)


@lru_cache(maxsize=256)
def _words_of(text: str) -> str:
    """``text`` as :func:`spelled_out` reads it: its list's numbering left out, runs of
    whitespace made one space, lower-cased (once per text: a check asks it of the same
    request for every argument)."""
    return " ".join(fold(without_numbering(text)).split())


def invented_arguments(registry: Registry, arguments: Mapping[str, Any],
                       held: Held) -> list[str]:
    """Why each invented argument is refused (the paper's environment: variables some tool
    produces, checked by the argument's own name; empty when none is invented)."""
    flow = Flow(held={k: tuple(v) for k, v in held.items()})
    problems = []
    for name in sorted(arguments):
        if name not in registry.produced:
            continue
        known = tuple(flow.held.get(name, ()))
        if any(same_value(arguments[name], k) for k in known):
            continue
        listed = ", ".join(_show(k) for k in _plain_values(known))
        where = f"known values: {listed}" if listed else f"no value of {name} is known yet"
        problems.append(f"argument '{name}' = {_show(arguments[name])} was not obtained "
                        f"from any tool or from the user ({where})")
    return problems


def _plain_values(values: Iterable[Any]) -> list[Any]:
    return [v for v in values if not isinstance(v, list | tuple | Mapping)]


def _show(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
