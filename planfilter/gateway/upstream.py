"""Upstream MCP servers, behind one object: :class:`Upstreams`.

Each server is held open by a task of its own (an SDK ``Client`` must be entered and left in
the same task), started in the gateway's task group. A call that finds its server dead (the
process crashed, the connection closed) returns an error naming the server, and the server
is restarted once; the caller's task goes on. Calls have a timeout; an answer the SDK cannot
read is an error naming the server and the tool, never an exception that ends the gateway.

The MCP SDK is imported here, and only when a gateway starts.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.abc import TaskGroup, TaskStatus

from ..core.errors import PlanfilterError
from ..core.servers import ServerSpec, client_target
from .coverage import UpstreamTool

log = logging.getLogger("planfilter.gateway")
#: Seconds a server may take to start and list its tools.
START_TIMEOUT = 30.0


class UpstreamError(PlanfilterError):
    """An upstream server failed to start, or a call to it failed; names the server."""


@dataclass(frozen=True)
class Outcome:
    """What one upstream call gave: the parts of an MCP CallToolResult the gateway uses."""

    server: str
    tool: str
    #: Text of the text content blocks, joined.
    text: str = ""
    structured: Any = None
    is_error: bool = False
    #: Content blocks as JSON (for the client), after the text.
    content: tuple[dict[str, Any], ...] = ()
    #: Set when the call never got an answer: crash, timeout, malformed answer.
    failure: str | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None and not self.is_error

    @property
    def error(self) -> str | None:
        """Why the call failed, for Session.record (None when it succeeded)."""
        if self.failure is not None:
            return self.failure
        if self.is_error:
            return f"{self.server}.{self.tool}: {self.text or 'the server reported an error'}"
        return None

    @property
    def value(self) -> Any:
        """The result for the state: structuredContent, else the text (JSON text is parsed
        by Session.record)."""
        return self.structured if self.structured is not None else self.text


@dataclass
class Upstream:
    spec: ServerSpec
    client: Any = None
    tools: tuple[UpstreamTool, ...] = ()
    restarts: int = 0
    #: Calls sent to the server (what upstream received, for tests and the status tool).
    calls: int = 0
    down: str | None = None
    _stop: Any = None
    _lock: Any = field(default_factory=anyio.Lock)


class Upstreams:
    """Every upstream server, connected; tools named ``server.tool``."""

    def __init__(self, specs: Iterable[ServerSpec], *, timeout: float = 60.0,
                 max_restarts: int = 1, mode: str = "legacy"):
        self.servers = {s.name: Upstream(s) for s in specs}
        self.timeout = timeout
        self.max_restarts = max_restarts
        self.mode = mode
        self._tg: TaskGroup | None = None

    async def start(self, tg: TaskGroup) -> None:
        """Connect every server at once (each takes about a second to spawn)."""
        self._tg = tg
        errors: list[str] = []

        async def one(up: Upstream) -> None:
            try:
                await self._connect(up)
            except Exception as exc:  # reported together below
                errors.append(f"upstream '{up.spec.name}': cannot start: {_why(exc)}")

        async with anyio.create_task_group() as starting:
            for up in self.servers.values():
                starting.start_soon(one, up)
        if errors:
            await self.close()
            raise UpstreamError("\n".join(sorted(errors)))

    async def close(self) -> None:
        for up in self.servers.values():
            if up._stop is not None:
                up._stop.set()

    @property
    def tools(self) -> tuple[UpstreamTool, ...]:
        return tuple(t for up in self.servers.values() for t in up.tools)

    def tool(self, qualified: str) -> UpstreamTool | None:
        server, _, name = qualified.partition(".")
        up = self.servers.get(server)
        return next((t for t in up.tools if t.name == name), None) if up else None

    async def call(self, qualified: str, arguments: dict[str, Any]) -> Outcome:
        server, _, name = qualified.partition(".")
        up = self.servers.get(server)
        if up is None:
            return Outcome(server, name, failure=f"no upstream server named {server!r}")
        if up.client is None and up.down is None:  # the connection ended on its own
            note = await self._restart(up, None)
            if up.client is None:
                return Outcome(server, name, failure=f"upstream '{server}' had stopped; {note}")
        if up.down is not None or up.client is None:
            return Outcome(server, name, failure=f"upstream '{server}' is down: {up.down}")
        client = up.client
        up.calls += 1
        try:
            with anyio.fail_after(self.timeout):
                result = await client.call_tool(name, arguments)
        except TimeoutError:
            return Outcome(server, name, failure=f"upstream '{server}': {name} gave no answer "
                                                 f"within {self.timeout:g} s")
        except Exception as exc:
            if _closed(exc):
                note = await self._restart(up, client)
                return Outcome(server, name, failure=f"upstream '{server}' crashed during "
                                                     f"{name} ({_why(exc)}); {note}")
            return Outcome(server, name, failure=f"upstream '{server}': {_kind(exc)} "
                                                 f"{name}: {_why(exc)}")
        return _outcome(server, name, result)

    # -- connection lifecycle -------------------------------------------------------------

    async def _connect(self, up: Upstream) -> None:
        assert self._tg is not None
        up._stop = anyio.Event()
        with anyio.fail_after(START_TIMEOUT):
            await self._tg.start(self._hold, up, up._stop)

    async def _hold(self, up: Upstream, stop: Any, *,
                    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Keep one connection open until ``stop`` is set; a failure after start-up is
        logged, never raised into the gateway's task group."""
        from mcp import Client

        started = False
        try:
            async with client_target(up.spec) as target, Client(target, mode=self.mode) as client:
                listed = await client.list_tools()
                up.tools = tuple(_tool(up.spec.name, t) for t in listed.tools)
                up.client, up.down = client, None
                started = True
                task_status.started()
                await stop.wait()
        except Exception as exc:
            if not started:
                raise
            log.warning("upstream %s closed: %s", up.spec.name, _why(exc))
        finally:
            if up._stop is stop:
                up.client = None

    async def _restart(self, up: Upstream, dead: Any) -> str:
        async with up._lock:
            if up.client is not dead and up.client is not None:
                return "it was restarted"
            if up.restarts >= self.max_restarts:
                up.down = f"crashed again after {up.restarts} restart(s)"
                return "it is not restarted again"
            up.restarts += 1
            if up._stop is not None:
                up._stop.set()
            try:
                await self._connect(up)
            except Exception as exc:
                up.down = f"restart failed: {_why(exc)}"
                return f"the restart failed ({_why(exc)})"
            return "it was restarted; call again"


def _tool(server: str, tool: Any) -> UpstreamTool:
    annotations = getattr(tool, "annotations", None)
    return UpstreamTool(server=server, name=tool.name, description=tool.description or "",
                        input_schema=dict(tool.input_schema or {"type": "object"}),
                        output_schema=dict(tool.output_schema) if tool.output_schema else None,
                        destructive=bool(annotations and annotations.destructive_hint
                                         and not annotations.read_only_hint))


def _outcome(server: str, name: str, result: Any) -> Outcome:
    content = getattr(result, "content", None)
    if not isinstance(content, list):
        return Outcome(server, name, failure=f"upstream '{server}': malformed answer to "
                                             f"{name}: no content list")
    texts = [b.text for b in content if getattr(b, "type", None) == "text"]
    blocks = tuple(b.model_dump(by_alias=True, mode="json", exclude_none=True) for b in content)
    return Outcome(server, name, text="\n".join(texts), structured=result.structured_content,
                   is_error=bool(result.is_error), content=blocks)


def _closed(exc: BaseException) -> bool:
    """The connection is gone (the process died or the stream closed)."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    if isinstance(exc, MCPError):
        return exc.error.code == CONNECTION_CLOSED
    return isinstance(exc, anyio.ClosedResourceError | anyio.BrokenResourceError |
                      anyio.EndOfStream | BrokenPipeError | ConnectionError)


def _kind(exc: BaseException) -> str:
    """How a call that got no usable answer failed, in words."""
    from mcp.shared.exceptions import MCPError
    from pydantic import ValidationError

    if isinstance(exc, MCPError):
        return f"protocol error {exc.error.code} from"
    if isinstance(exc, ValidationError | RuntimeError | ValueError):
        return "malformed answer to"
    return "failure in"


def _why(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _why(exc.exceptions[0])
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."
