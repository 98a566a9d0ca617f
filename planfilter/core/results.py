"""A tool's result into state: which produced variables it gives, and their values.

A result is a JSON object (or JSON text of one), other JSON, or plain text:

- JSON object or list: each produced variable from the JSON Pointer the contract declares in
  ``outputs`` (``*`` stands for every item of a list: ``/*/id`` is the list of the items'
  ids; ``~`` for the keys of an object: ``/payment_methods/~`` when they are keyed by id),
  or, for an object, from the key of its own name; when the object has no key of any
  variable without a pointer (and ``returns`` declares none and the object conforms to it),
  each such variable is the whole object, as a draft without an output schema means it
  (``order_details``); a variable found nowhere else is missing and stays unknown. Keys
  that name no produced variable are ignored: a result never sets a variable its contract
  does not produce.
- anything else (text, a number), and a list no pointer reads: every produced variable is
  set to the whole result, as an MCP tool that answers in words does.

When the contract declares ``returns``, an object result is checked against it first.

A fact the tool ``establishes`` holds (``True``) after any successful result: facts carry no
value, so no result is read for them and none is missing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .contracts import Tool
from .schemas import result_errors
from .values import token_key

_MISSING = object()
#: What :func:`resolve_pointer` returns where the document holds nothing.
MISSING = _MISSING


@dataclass(frozen=True)
class Extracted:
    #: Produced variables the result gives, with their values.
    values: Mapping[str, Any] = field(default_factory=dict)
    #: Produced variables the result does not give.
    missing: tuple[str, ...] = ()
    #: What is wrong with the result against ``returns`` (empty when it conforms).
    problems: tuple[str, ...] = ()


def parse_result(result: Any) -> Any:
    """JSON text becomes its value; anything else is returned as it is."""
    if isinstance(result, str | bytes):
        text = result.decode("utf-8", "replace") if isinstance(result, bytes) else result
        stripped = text.strip()
        if stripped[:1] in ("{", "["):
            try:
                return json.loads(stripped)
            except ValueError:
                return text
        return text
    return result


def resolve_pointer(document: Any, pointer: str) -> Any:
    """RFC 6901: the value at ``pointer`` in ``document``, or ``_MISSING``. A ``*`` token
    maps the rest of the pointer over every item of a list (or value of an object) and gives
    the list of what it finds there (items where it finds nothing are left out). A token
    that is only ``~`` (not a valid RFC 6901 token) gives the list of an object's keys: ids
    an object is keyed by are values too."""
    if pointer == "":
        return document
    return _resolve(document, [_KEYS if t == "~" else token_key(t)
                               for t in pointer.split("/")[1:]])


#: The ``~`` token, told apart from a key ``~`` (written ``~0``) before tokens are unescaped.
_KEYS = object()


def _resolve(current: Any, tokens: list[Any]) -> Any:
    for i, token in enumerate(tokens):
        if token == "*" and isinstance(current, list | tuple | Mapping):
            items = current.values() if isinstance(current, Mapping) else current
            found = [_resolve(item, tokens[i + 1:]) for item in items]
            return [f for f in found if f is not _MISSING]
        if token is _KEYS:
            if not isinstance(current, Mapping):
                return _MISSING
            keys = [str(k) for k in current]
            return keys if i == len(tokens) - 1 else _MISSING
        if isinstance(current, Mapping) and token in current:
            current = current[token]
        elif isinstance(current, list | tuple) and token.isdigit() and int(token) < len(current):
            current = current[int(token)]
        else:
            return _MISSING
    return current


def extract(tool: Tool, result: Any) -> Extracted:
    """The produced variables ``result`` gives, and the facts the tool establishes (see the
    module docstring)."""
    got = _values(tool, result)
    if not tool.establishes:
        return got
    return replace(got, values={**got.values, **dict.fromkeys(sorted(tool.establishes), True)})


def _values(tool: Tool, result: Any) -> Extracted:
    value = parse_result(result)
    structured = isinstance(value, Mapping) or (
        isinstance(value, list | tuple) and bool(tool.outputs))
    if not structured:
        return Extracted({name: value for name in sorted(tool.produces)})
    problems = tuple(result_errors(tool, _plain(value)))
    # an object keyed by none of the variables without a pointer, none of them declared by
    # ``returns``, and conforming to it, is their value itself (a draft's ``order_details``)
    bare = [n for n in tool.produces if n not in tool.outputs]
    whole = isinstance(value, Mapping) and not problems and not any(
        n in value or n in _declared(tool) for n in bare)
    found: dict[str, Any] = {}
    missing = []
    for name in sorted(tool.produces):
        if name in tool.outputs:
            got = resolve_pointer(value, tool.outputs[name])
            if got == [] and {"*", "~"} & set(tool.outputs[name].split("/")):
                got = _MISSING  # no item held it: nothing was found
        elif isinstance(value, Mapping):
            # no pointer and no key of its name: the whole result, as a draft without an
            # output schema means it (``order_details`` of a tool that answers an object);
            # a key ``returns`` declares but the result lacks is missing
            got = value.get(name, value if whole else _MISSING)
        else:  # a list, and the contract points into it for other variables
            got = value
        if got is _MISSING:
            missing.append(name)
        else:
            found[name] = got
    return Extracted(found, tuple(missing), problems)


def _declared(tool: Tool) -> frozenset[str]:
    props = (tool.returns or {}).get("properties")
    return frozenset(props) if isinstance(props, Mapping) else frozenset()


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
