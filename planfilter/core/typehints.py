"""A Python tool's type hints as pydantic reads them on every supported Python.

pydantic builds a schema or a validator of ``typing.TypedDict`` only on Python 3.12 and
later; before that it asks for ``typing_extensions.TypedDict``. A tool set written with the
standard library's ``TypedDict`` (``items: list[SeatRequest]``) is fine Python on 3.11,
so :func:`portable` rebuilds each such class, and every hint that holds one (``list[...]``,
``X | None``, ``Annotated[...]``, a field of another), as ``typing_extensions.TypedDict``
with the same name, fields and required keys. Every other hint is returned as it is.
"""

from __future__ import annotations

import functools
import inspect
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

import typing_extensions

#: pydantic reads the standard library's ``TypedDict`` from this version on.
NATIVE = (3, 12)

def portable(hint: Any) -> Any:
    """``hint`` with every standard-library ``TypedDict`` in it rebuilt as
    ``typing_extensions.TypedDict`` (before Python 3.12); ``hint`` itself when none is."""
    if sys.version_info >= NATIVE:
        return hint
    return _portable(hint)


def _portable(hint: Any) -> Any:
    if isinstance(hint, type) and typing.is_typeddict(hint):
        return _typeddict(hint)
    args = typing.get_args(hint)
    if not args:
        return hint
    new = tuple(_portable(a) for a in args)
    if all(n is a for n, a in zip(new, args, strict=True)):
        return hint
    origin = typing.get_origin(hint)
    try:
        if origin is typing.Annotated:
            return typing.Annotated[(new[0], *hint.__metadata__)]
        if origin is typing.Union or origin is types.UnionType:
            return typing.Union[new]  # noqa: UP007 (a tuple of members, built at run time)
        return origin[new if len(new) > 1 else new[0]]
    except TypeError:  # a generic that cannot be rebuilt stays as written
        return hint


@functools.cache
def _typeddict(cls: type) -> Any:
    """The ``typing_extensions`` twin of a standard-library ``TypedDict`` (one per class)."""
    if type(cls).__module__ != "typing":  # typing_extensions' own: pydantic reads it
        return cls
    hints = typing.get_type_hints(cls, include_extras=True)
    required = getattr(cls, "__required_keys__", frozenset(hints))
    fields = {name: _marked(hint, name in required) for name, hint in hints.items()}
    twin = typing_extensions.TypedDict(cls.__name__, fields)  # type: ignore[misc]
    twin.__doc__ = cls.__doc__
    twin.__module__ = cls.__module__
    return twin


def _marked(hint: Any, required: bool) -> Any:
    """A field's hint, rebuilt, marked ``Required`` or ``NotRequired``: as the hint says
    (under ``from __future__ import annotations`` Python 3.11 cannot see a ``NotRequired``
    written as text, and counts the key among the class's required ones), else as the class
    says (``required``)."""
    origin = typing.get_origin(hint)
    if origin is typing.Required or origin is typing.NotRequired:
        required, hint = origin is typing.Required, typing.get_args(hint)[0]
    mark = typing_extensions.Required if required else typing_extensions.NotRequired
    return mark[_portable(hint)]


def portable_function(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` itself when its hints are :func:`portable` already; else a wrapper that
    calls it, with the rebuilt hints in its signature (what ``pydantic.validate_call`` reads).
    """
    try:
        hints = typing.get_type_hints(function, include_extras=True)
        signature = inspect.signature(function)
    except (NameError, TypeError, ValueError):
        return function  # the caller names what it cannot read
    new = {name: portable(hint) for name, hint in hints.items()}
    if all(new[name] is hints[name] for name in hints):
        return function

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    call.__annotations__ = new
    call.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[p.replace(annotation=new.get(p.name, p.annotation))
                    for p in signature.parameters.values()],
        return_annotation=new.get("return", signature.return_annotation))
    return call


def gathered_hint(param: inspect.Parameter, hint: Any) -> Any:
    """The hint of what a call passes under a gathering parameter's name: the list a
    ``*line_ids: str`` takes (``list[str]``), the object a ``**filters: str`` takes
    (``dict[str, str]``); ``hint`` itself for any other parameter."""
    if param.kind is param.VAR_POSITIONAL:
        return list[hint]  # type: ignore[valid-type]
    if param.kind is param.VAR_KEYWORD:
        return dict[str, hint]  # type: ignore[valid-type]
    return hint


def bound_call(function: Callable[..., Any], arguments: typing.Mapping[str, Any]
               ) -> tuple[list[Any], dict[str, Any]]:
    """A call's arguments, named as its schema names them, as the positional and keyword
    arguments ``function``'s signature takes: a positional-only parameter by its name
    (``get_order(order_id, /)``), a ``*line_ids`` as the list under ``line_ids``, a
    ``**filters`` as the object under ``filters`` and any key no parameter is named for.
    What does not fit is passed as named, for the function's validation to name; a
    TypeError names a missing argument that must go by position."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return [], dict(arguments)
    left = dict(arguments)
    gathered = next((p for p in parameters if p.kind is p.VAR_POSITIONAL), None)
    spread = gathered is not None and left.get(gathered.name) not in (None, [], ())
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for param in parameters:
        if param.kind is param.VAR_KEYWORD:
            continue
        if param.kind is param.VAR_POSITIONAL:
            items = left.pop(param.name, ())
            args.extend(items if isinstance(items, list | tuple) else [items])
        elif param.kind is param.POSITIONAL_ONLY or (
                spread and param.kind is param.POSITIONAL_OR_KEYWORD):
            if param.name in left:
                args.append(left.pop(param.name))
            elif param.default is not param.empty:
                args.append(param.default)
            else:
                raise TypeError(f"missing required argument {param.name!r}")
        elif param.name in left:
            kwargs[param.name] = left.pop(param.name)
    extra = next((p for p in parameters if p.kind is p.VAR_KEYWORD), None)
    if extra is not None and isinstance(left.get(extra.name), typing.Mapping) \
            and extra.name not in {p.name for p in parameters if p is not extra}:
        kwargs.update(left.pop(extra.name))
    kwargs.update(left)
    return args, kwargs
