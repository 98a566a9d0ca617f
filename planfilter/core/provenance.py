"""Argument provenance: a looked-up value must be one the state holds, never a made-up one.

A variable some tool produces (an id, a looked-up value) can only be known by calling that
tool or by being told it. So an argument named after such a variable must carry a value the
state holds for it; any other value was invented, and the call is refused, naming the
argument and the values that were known. Arguments named after user inputs (variables no
tool produces) and arguments that name no variable are taken as the model writes them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from .contracts import Registry

#: Variable -> every value the state holds for it (a search may hold several ids).
Held = Mapping[str, Iterable[Any]]


def held_values(state: Mapping[str, Any]) -> dict[str, tuple[Any, ...]]:
    """The values a plain ``{variable: value}`` state holds: the value, and each element of a
    list value (a search that returned several ids holds each of them)."""
    return {name: accepted(value) for name, value in state.items()}


def accepted(value: Any) -> tuple[Any, ...]:
    """A value and, for a list, its elements: each may be passed on as an argument."""
    if isinstance(value, list | tuple):
        return (value, *value)
    return (value,)


def same_value(a: Any, b: Any) -> bool:
    """Equal as JSON values; a number and its decimal text count as one (``42`` and ``"42"``),
    and text is compared without its whitespace: a small model copying a long text back
    drops or adds spaces as its tokenizer pleases ("Milestones ..." -> "Milestones..."), and
    no id differs from another by a space."""
    if a == b and type(a) is type(b):
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    if isinstance(a, int | float | str) and isinstance(b, int | float | str):
        return _squeezed(str(a)) == _squeezed(str(b))
    return _canonical(a) == _canonical(b)


def _squeezed(text: str) -> str:
    return "".join(text.split())


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def invented_arguments(registry: Registry, arguments: Mapping[str, Any],
                       held: Held) -> list[str]:
    """Why each invented argument is refused: its name is a produced variable and its value
    is none of the values the state holds for that variable (empty when none is invented)."""
    problems = []
    for name in sorted(arguments):
        if name not in registry.produced:
            continue
        value = arguments[name]
        known = tuple(held.get(name, ()))
        if any(same_value(value, k) for k in known):
            continue
        listed = ", ".join(_show(k) for k in known if not isinstance(k, list | tuple))
        where = f"known values: {listed}" if listed else f"no value of {name} is known yet"
        problems.append(f"argument '{name}' = {_show(value)} was not obtained from any tool "
                        f"or from the user ({where})")
    return problems


def _show(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
