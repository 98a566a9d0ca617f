"""Small builders for the data-flow tests: a tool's parameters, a session started on a
request, and a decision's outcome in one word."""

from __future__ import annotations

from planfilter import Session
from planfilter.core.contracts import Registry


def params(properties: dict) -> dict:
    """A JSON schema object of these properties (name -> schema)."""
    return {"type": "object", "properties": properties}


def started(registry: Registry, request: str, *, policy: str = "always", **start) -> Session:
    """A session showing every tool (`all`) under `policy`, started on `request`."""
    session = Session(registry, method="all", policy=policy)
    session.start(request, **start)
    return session


def outcome(decision) -> str:
    """"allowed", or the kind of refusal (`invented`, `substituted`, `tainted`, ...)."""
    return "allowed" if decision.allowed else decision.kind
