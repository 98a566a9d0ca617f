"""Calls to make again, one per listed value: a read or a write made for one of several."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.provenance import accepted, listed_with, within
from .records import Call, json_key
from .request_values import LINKS, named_with, stated_for
from .snapshot import Snapshot


def _several(values: list[Any]) -> bool:
    return len({json_key(v) for v in values}) >= 2


def again(now: Snapshot, *, reads: bool) -> tuple[str, ...]:
    """The tools made before (reads, or with ``reads`` false, writes) to offer again, in the
    order of their first call: a call whose input a result or the request listed several
    values of (the items of each of several orders; the people of "invite Maria and Hannah"),
    or a read made for a link a result gave whose input the request states other links of,
    not every value taken yet. The value a goal needs may be in any of the pages read, and a
    request that asks for a write to each of several things is not done after the first."""
    out: list[str] = []
    for call in now.calls:
        if not call.ok or call.tool in out or call.tool not in now.registry:
            continue
        tool = now.registry.tool(call.tool)
        if tool.reads != reads:
            continue
        for param, argument in call.arguments.items():
            listed = _listed_for(now, call, param, argument, reads)
            if listed is None:  # some of the names a text listed: the read stays offered
                out.append(call.tool)
                break
            if not _several(listed):
                continue
            made = {json_key(c.arguments.get(param)) for c in now.calls
                    if c.ok and c.tool == call.tool}
            if {json_key(v) for v in listed} - made:
                out.append(call.tool)
                break
    return tuple(out)


def _listed_for(now: Snapshot, call: Call, param: str, argument: Any,
                reads: bool) -> list[Any] | None:
    """The values listed beside ``argument`` for the call's ``param`` (fewer than two:
    none); None when ``argument`` is a pick among the names a text listed."""
    tool = now.registry.tool(call.tool)
    variable = tool.variable_of(param)
    listed = [v for f in now.facts.get(variable, ()) if f.listed_by_others
              for v in accepted(f.value) if not isinstance(v, list | tuple | Mapping)]
    if not _several(listed):
        # a value the model wrote (an authored name) that a result listed beside others
        listed = list(next((found for facts in now.facts.values()
                            for f in facts if f.listed_by_others
                            for found in [listed_with(f.value, argument)]
                            if len(found) > 1), ()))
    if not _several(listed) and param in tool.authored:
        # several values the request states for a parameter the model writes
        # ("visit www.a.com and www.b.com")
        stated = stated_for(tool, param, now.request)
        listed = list(stated) if within(argument, stated) else []
        if reads and not listed:
            # a read the request links to ("visit www.a.com"), made first for a value a
            # result gave (a link in a message)
            linked = stated_for(tool, param, now.request, LINKS)
            listed = [argument, *linked] if linked else []
        if not _several(listed):
            # the names the request lists it with ("invite Maria and Hannah"), or a text the
            # request directs to ("the details are in the email": "share it in the 'Legal'
            # and 'Press' folders")
            listed = list(next(filter(None, (
                named_with(text, argument)
                for text in (now.request, *now.directed_texts))), ()))
    if not _several(listed) and picked_from_text(now, call, argument):
        # some of the names a text listed (the venues of a city's list): the text may
        # list others the goal needs, and no field says which
        return None
    return listed


def picked_from_text(now: Snapshot, call: Call, argument: Any) -> bool:
    """``argument`` is a list of names (one or more), each in a text an earlier call
    answered (a listing in prose): a pick among what the text lists."""
    if not isinstance(argument, list | tuple) or not argument or any(
            isinstance(v, list | tuple | Mapping) for v in argument):
        return False
    texts = [f.value for facts in now.facts.values() for f in facts
             if f.call is not None and f.call < call.index
             and f.listed_by_others and isinstance(f.value, str)]
    return any(all(str(v).lower() in text.lower() for v in argument) for text in texts)
