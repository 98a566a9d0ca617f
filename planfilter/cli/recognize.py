"""``frontier --request``: the candidate goals of a request and the tools shown for it.

What a live agent's session would show first for a request in words (the goal resolved
from it, the values it states, the candidate goals weighed by the calls made so far), with
no model and no tool run: the calls are given on the command line, each with its result.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from ..core.contracts import Registry
    from ..live import Belief, Session


def parse_values(registry: Registry, items: tuple[str, ...]) -> dict[str, Any]:
    """``NAME=VALUE`` items as the user's values: VALUE as JSON when it is JSON (``100``,
    ``["a", "b"]``), else as text; as text, too, when every tool that takes the variable
    wants text there (an id of digits, ``event_id=123``)."""
    from ..core.schemas import value_errors
    from ..live.records import carriers
    from .app import check_names, known_names

    values: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not name or not sep:
            raise click.BadParameter(f"{item!r}: with --request, give NAME=VALUE",
                                     param_hint="--state")
        check_names([name], known_names(registry), "--state", registry.source or "the registry")
        try:
            values[name] = json.loads(text)
        except ValueError:
            values[name] = text
            continue
        taking = carriers(registry).get(name, ())
        if taking and not isinstance(values[name], str) and all(
                value_errors(t, p, values[name]) and not value_errors(t, p, text)
                for t, p in taking):
            values[name] = text
    return values


def parse_calls(registry: Registry, items: tuple[str, ...]) -> list[tuple[str, str | None]]:
    """``TOOL[=RESULT]`` items as (tool, result): RESULT as a tool would answer it in text
    (the session reads JSON in it as any result's); no RESULT, None (the call ran, its
    outputs unknown)."""
    calls = []
    for item in items:
        tool, sep, text = item.partition("=")
        if tool not in registry:
            where = registry.source or "the registry"
            raise click.BadParameter(f"{item!r}: no tool {tool!r} in {where}",
                                     param_hint="--called")
        calls.append((tool, text if sep else None))
    return calls


def request_session(registry: Registry, request: str, *, resolver: str, model: str | None,
                    known: Mapping[str, Any], calls: list[tuple[str, str | None]]) -> Session:
    """A session started on ``request`` (goal resolved by ``resolver``) with ``known`` as
    the user's values, after ``calls`` (tool, result) in order."""
    from ..core.environment import tool_sources
    from ..live import Session

    unread = sorted(n for n in tool_sources(registry) if n not in known)
    if unread:
        where = registry.source or "the registry"
        raise click.UsageError(
            f"{where}: the environment supplies {', '.join(repr(n) for n in unread)} by a tool "
            f"call; give its value with --state {unread[0]}=VALUE")
    session = Session(registry, resolver=resolver, model=model)
    session.start(request, known=dict(known))
    for tool, result in calls:
        session.record(tool, {}, result)
    return session


def report(session: Session) -> dict[str, Any]:
    """What the session shows now, and why: its goal, values, calls, candidates and tools."""
    resolution = session.resolution
    assert resolution is not None  # started by request_session
    from ..live.recognition import by_weight

    visible = session.visible()
    return {
        "request": session.request,
        "goal": resolution.name,
        "resolver": resolution.resolver,
        "fallback": fallback(session),
        "notes": list(resolution.notes),
        "values": {name: [{"value": f.value, "source": f.source} for f in facts]
                   for name, facts in sorted(session.facts.items())},
        "called": [{"tool": c.tool, "ok": c.ok, "produced": sorted(c.produced),
                    "missing": list(c.missing), "problems": list(c.problems)}
                   for c in session.history],
        "candidates": [_candidate(session, b)
                       for b in by_weight(session.candidates, session.recognition)],
        "shown": list(visible.tools),
        "info": visible.info,
        "done": session.done,
    }


def fallback(session: Session) -> str | None:
    """What failed and was replaced, when the goal resolver fell back (a model that erred or
    kept answering wrongly: retrieval read the goal instead); None when nothing did."""
    resolution = session.resolution
    assert resolution is not None
    if not any(n.startswith("fell back") for n in resolution.notes):
        return None
    why = [n for n in resolution.notes
           if n.startswith(("model error", "invalid answer"))]
    return (f"the {session.resolver} resolver ({session.model or 'no model'}) failed and "
            f"{resolution.resolver} resolved the goal instead"
            + (f": {'; '.join(why)}" if why else ""))


def _candidate(session: Session, belief: Belief) -> dict[str, Any]:
    from ..core.planners.index import index_for, never_given

    missing = never_given(index_for(session.registry), frozenset(session.state),
                          belief.candidate.goal) if belief.difference is None else ()
    return {"name": belief.candidate.name, "origin": belief.candidate.label,
            "steps": [sorted(step) for step in belief.candidate.steps],
            "weight": round(belief.weight(session.recognition), 6),
            "off_plan_calls": belief.difference, "state": belief.state,
            "inputs_missing": list(missing)}


def echo_report(session: Session, as_json: bool) -> None:
    from ..live.recognition import by_weight

    data = report(session)
    if data["fallback"]:
        click.echo(f"fallback: {data['fallback']}", err=True)
    if as_json:
        click.echo(json.dumps(data, indent=2, sort_keys=True, default=str))
        return
    click.echo(f"request:    {data['request']}")
    click.echo(f"goal:       {data['goal']} (resolved by {data['resolver']})")
    for name, facts in data["values"].items():
        for fact in facts:
            shown = json.dumps(fact["value"], ensure_ascii=False, default=str)
            click.echo(f"value:      {name} = {_short(shown)} ({fact['source']})")
    for call in data["called"]:
        gave = f"gave {', '.join(call['produced'])}" if call["produced"] else "gave nothing"
        short = f"; missing {', '.join(call['missing'])}" if call["missing"] else ""
        click.echo(f"called:     {call['tool']} ({gave}{short})")
        for problem in call["problems"]:
            click.echo(f"            {call['tool']}: {problem}")
    beliefs = by_weight(session.candidates, session.recognition)
    for k, (belief, c) in enumerate(zip(beliefs, data["candidates"], strict=True)):
        needs = f" (needs {', '.join(c['inputs_missing'])})" if c["inputs_missing"] else ""
        click.echo(f"{'candidates:' if k == 0 else '':12s}"
                   f"{belief.describe(session.recognition)}{needs}")
    if any(c["inputs_missing"] for c in data["candidates"]):
        click.echo("            (a value only the user can give: --state NAME=VALUE)")
    click.echo(f"shown:      {', '.join(data['shown']) if data['shown'] else '(none)'}")
    if not data["shown"] and data["info"]:
        click.echo(f"status:     {data['info']}")


def _short(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
