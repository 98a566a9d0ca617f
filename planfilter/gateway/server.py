"""The MCP server over :class:`~planfilter.gateway.service.Gateway`: a thin adapter.

``meta`` mode lists three fixed tools, byte for byte the same all session long, so the
client's prompt prefix never changes and hidden tools never enter its context:

- ``plan(request, goal?, known?)``: start a task; its handle, the frontier tools with their
  input schemas, the plan behind them, and the values the contracts' ``environment`` supplied
  (its ``tool:`` sources called upstream first);
- ``call(task, tool, arguments)``: the guard, then the upstream call; the result and the
  next frontier, or "goal reached";
- ``status(task)``: state, plan, history.

``dynamic`` mode lists ``plan`` and the current frontier of the client's latest task, calls
frontier tools by name, advertises ``tools.listChanged`` and, after each step, notifies both
ways: the session notification (2025-era clients) and the subscription bus (2026-era
clients, over ``subscriptions/listen``).

A high-risk call is approved by the user through MCP elicitation when the client declares
it (a server request on 2025-era connections, an input-required round on 2026-era ones),
else by ``approve_risky``. Any answer but "approve" (decline, cancel, or approve unticked)
is the user declining: the call is refused as ``declined``, and that tool is not asked about
again in the task (``Gateway.decline``).
"""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ..core.contracts import Registry
from ..core.errors import PlanfilterError
from ..core.servers import ServerSpec
from .coverage import Coverage, check_coverage, gateway_registry
from .service import Checked, Gateway, GatewayOptions, unattended
from .tasks import Task
from .upstream import Upstreams

log = logging.getLogger("planfilter.gateway")
NAME = "planfilter"
APPROVAL_KEY = "approval"
APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approve": {"type": "boolean", "title": "Run this call?"}},
    "required": ["approve"],
}

PLAN = types.Tool(
    name="plan",
    description=("Start a task for the user's request. Returns a task handle and the only "
                 "tools that can move the task forward now (with their input schemas), and "
                 "the plan behind them. Call those tools with `call`. When none of the tools "
                 "returned fits what the request needs, call `plan` again with the task "
                 "handle (and no request) to be shown the next most likely goal's tools."),
    input_schema={"type": "object", "properties": {
        "request": {"type": "string", "description": "The user's request, in words."},
        "goal": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
                 "description": "Optional: the goal (a goal name or variable names)."},
        "known": {"type": "object", "description": "Optional: values the user gave, by "
                                                   "variable name (e.g. repo_path)."},
        "task": {"type": "string", "description": "Optional: a task handle from plan, to set "
                                                  "its goal aside for the next candidate."},
        "reason": {"type": "string", "description": "Optional, with task: what the request "
                                                    "needs that no tool shown does."},
    }},
)
CALL = types.Tool(
    name="call",
    description=("Call one of the tools `plan` (or the previous `call`) returned, in a task. "
                 "Returns the tool's result and the next tools, or 'goal reached'."),
    input_schema={"type": "object", "properties": {
        "task": {"type": "string", "description": "The task handle from plan."},
        "tool": {"type": "string", "description": "A tool name from the latest list."},
        "arguments": {"type": "object", "description": "The tool's arguments."},
    }, "required": ["task", "tool"]},
)
STATUS = types.Tool(
    name="status",
    description="A task's state (known values and where they came from), plan and history.",
    input_schema={"type": "object", "properties": {
        "task": {"type": "string", "description": "The task handle from plan."},
    }, "required": ["task"]},
)
META_TOOLS = (PLAN, CALL, STATUS)


@dataclass(frozen=True)
class Declined:
    """The user was asked and did not approve; ``answer`` is how they said it."""

    answer: str


@dataclass
class GatewayState:
    gateway: Gateway
    upstreams: Upstreams
    coverage: Coverage


class GatewayServer(Server[GatewayState]):
    """Advertises ``tools.listChanged`` to 2025-era clients on every transport in dynamic
    mode (the SDK passes notification options only through ``Server.run``)."""

    dynamic = False

    def create_initialization_options(self, notification_options: Any = None,
                                      experimental_capabilities: Any = None,
                                      extensions: Any = None) -> Any:
        if notification_options is None and self.dynamic:
            notification_options = NotificationOptions(tools_changed=True)
        return super().create_initialization_options(notification_options,
                                                      experimental_capabilities, extensions)


def owner_of(ctx: ServerRequestContext[Any]) -> str:
    """The client a request comes from: its HTTP session, else this process's one client.
    (2026-era HTTP has no session: there the unguessable task handle is the only key.)"""
    request = ctx.request
    if request is not None:
        session = request.headers.get("mcp-session-id")
        if session:
            return f"http:{session}"
    return "local"


def build_server(specs: tuple[ServerSpec, ...], contracts: Registry,
                 options: GatewayOptions | None = None, *, timeout: float = 60.0,
                 report: Callable[[Coverage], None] | None = None,
                 holder: dict[str, Any] | None = None) -> GatewayServer:
    """The gateway as an MCP server. Upstreams start in its lifespan (once per stdio
    process, once per HTTP app); ``report`` receives the coverage report then; ``holder``
    (tests, benchmarks) receives the live :class:`GatewayState` under ``"state"``."""
    options = options or GatewayOptions()
    handlers = Handlers(specs, contracts, options, timeout, report,
                        {} if holder is None else holder)
    server = GatewayServer(NAME, version=_version(), lifespan=handlers.lifespan,
                           on_list_tools=handlers.list_tools, on_call_tool=handlers.call_tool,
                           on_subscriptions_listen=ListenHandler(handlers.bus)
                           if handlers.dynamic else None,
                           get_tool_input_schema=handlers.input_schema)
    server.dynamic = handlers.dynamic
    return server


def listed(gw: Gateway, name: str) -> types.Tool:
    """Frontier tool ``name`` as dynamic mode lists it: the gateway's schema, the upstream's
    output schema."""
    upstream = gw.tools.get(name)
    schema = gw.tool_schema(name)
    return types.Tool(name=name, description=schema["description"],
                      input_schema=schema["inputSchema"],
                      output_schema=dict(upstream.output_schema)
                      if upstream is not None and upstream.output_schema else None)


@dataclass(frozen=True)
class Target:
    """What a tool call asks the gateway to run: a tool of a task, with its arguments, as the
    client sent them (the guard checks them)."""

    task: Task
    tool: Any
    arguments: Any


class Handlers:
    """The MCP handlers of one server: what they share is the upstreams' specs, the
    contracts, the options, the holder of the live state and the subscription bus."""

    def __init__(self, specs: tuple[ServerSpec, ...], contracts: Registry,
                 options: GatewayOptions, timeout: float,
                 report: Callable[[Coverage], None] | None, holder: dict[str, Any]) -> None:
        self.specs = specs
        self.contracts = contracts
        self.options = options
        self.timeout = timeout
        self.report = report
        self.holder = holder
        self.bus = InMemorySubscriptionBus()
        self.dynamic = options.mode == "dynamic"

    @asynccontextmanager
    async def lifespan(self, server: Server[GatewayState]) -> AsyncIterator[GatewayState]:
        upstreams = Upstreams(self.specs, timeout=self.timeout)
        async with anyio.create_task_group() as tg:
            await upstreams.start(tg)
            tools = upstreams.tools
            coverage = check_coverage(self.contracts, tools)
            if self.report is not None:
                self.report(coverage)
            registry = gateway_registry(self.contracts, tools)
            state = GatewayState(Gateway(registry, upstreams, tools, self.options), upstreams,
                                 coverage)
            self.holder["state"] = state
            try:
                yield state
            finally:
                await upstreams.close()

    async def list_tools(self, ctx: ServerRequestContext[GatewayState],
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        if not self.dynamic:
            return types.ListToolsResult(tools=list(META_TOOLS))
        gw = ctx.lifespan_context.gateway
        task = gw.tasks.latest(owner_of(ctx))
        return types.ListToolsResult(tools=[PLAN, *(listed(gw, n)
                                                    for n in gw.visible_now(task))])

    def input_schema(self, name: str) -> Any:
        for tool in META_TOOLS:
            if tool.name == name:
                return tool.input_schema
        state = self.holder.get("state")
        if state is not None and name in state.gateway.tools:
            return state.gateway.tool_schema(name)["inputSchema"]
        return None

    async def call_tool(self, ctx: ServerRequestContext[GatewayState],
                        params: types.CallToolRequestParams
                        ) -> types.CallToolResult | types.InputRequiredResult:
        gw = ctx.lifespan_context.gateway
        owner = owner_of(ctx)
        args = params.arguments or {}
        try:
            if params.name == "plan":
                return await self.plan(ctx, gw, owner, args)
            if not self.dynamic and params.name == "status":
                return _result(gw.status(owner, args.get("task")))
            return await self.run(ctx, params, gw, owner,
                                  self.target(gw, owner, params.name, args))
        except MCPError:
            raise
        except PlanfilterError as exc:
            return _error(f"{params.name}: {exc}")
        except Exception as exc:  # nothing a client sends may end the gateway
            log.exception("tool %s failed", params.name)
            return _error(f"{params.name}: internal error: {type(exc).__name__}: {exc}")

    async def plan(self, ctx: ServerRequestContext[GatewayState], gw: Gateway, owner: str,
                   args: dict[str, Any]) -> types.CallToolResult:
        """``plan``: a new task for a request, or (with ``task``) its next candidate goal."""
        if args.get("task") is not None:
            payload = gw.switch(owner, args.get("task"), args.get("reason"))
        else:
            environment = await gw.supplied(args.get("known"))
            payload = await anyio.to_thread.run_sync(
                gw.plan, owner, args.get("request"), args.get("goal"),
                args.get("known"), environment)
        await self.notify(ctx)
        return _result(payload)

    def target(self, gw: Gateway, owner: str, name: str,
               args: dict[str, Any]) -> Target:
        """The task, tool and arguments a ``call`` (meta mode) or a frontier tool's name
        (dynamic mode) asks for; an error (a result naming the tool) when dynamic mode has no
        task yet."""
        if not self.dynamic and name == "call":
            return Target(gw.tasks.get(owner, args.get("task")), args.get("tool"),
                          args.get("arguments"))
        if self.dynamic and (name in gw.tools):
            latest = gw.tasks.latest(owner)
            if latest is None:
                raise PlanfilterError("no task yet; call plan first")
            return Target(latest, name, args)
        raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {name}")

    async def run(self, ctx: ServerRequestContext[GatewayState],
                  params: types.CallToolRequestParams, gw: Gateway, owner: str,
                  target: Target) -> types.CallToolResult | types.InputRequiredResult:
        """The guard, the user's approval when the call needs it, then the upstream call."""
        async with target.task.lock:  # one call of a task at a time, from check to state
            checked = gw.check(owner, target.task.handle, target.tool, target.arguments)
            verdict = await self.approval(ctx, params, gw, checked)
            if isinstance(verdict, types.InputRequiredResult):
                return verdict
            if isinstance(verdict, Declined):
                payload = gw.decline(checked, verdict.answer)
            elif verdict is not None:
                payload = gw.refuse(checked, checked.refusal_kind, verdict)
            else:
                payload = await gw.execute(checked)
        if self.dynamic and checked.refused is None:
            await self.notify(ctx)
        return _dynamic_result(payload) if self.dynamic else _result(payload)

    async def notify(self, ctx: ServerRequestContext[GatewayState]) -> None:
        if not self.dynamic:
            return
        try:
            await ctx.session.send_tool_list_changed()
        except Exception as exc:  # 2026 connections drop it; the bus carries the change
            log.debug("list_changed notification not sent: %s", exc)
        await self.bus.publish(ToolsListChanged())

    async def approval(self, ctx: ServerRequestContext[GatewayState],
                       params: types.CallToolRequestParams, gw: Gateway,
                       checked: Checked) -> str | Declined | types.InputRequiredResult | None:
        """None when the call may run; else why not without asking, the user's no, or a
        request to ask the user."""
        if checked.refused is not None or not checked.risky:
            return None
        caps = ctx.session.client_capabilities
        why = "; ".join(checked.concerns) or f"{checked.tool} is high-risk"
        if caps is None or caps.elicitation is None:
            return unattended(gw.options.approve_risky, checked, why)
        message = (f"{why}. {checked.tool} arguments: "
                   f"{json.dumps(checked.arguments, ensure_ascii=False, default=str)[:500]}. "
                   "Run it?")
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            answers = params.input_responses or {}
            answer = answers.get(APPROVAL_KEY)
            if answer is None:
                return types.InputRequiredResult(input_requests={APPROVAL_KEY: types.ElicitRequest(
                    params=types.ElicitRequestFormParams(message=message,
                                                         requested_schema=APPROVAL_SCHEMA))})
        else:
            answer = await ctx.session.elicit_form(message, APPROVAL_SCHEMA,
                                                   related_request_id=ctx.request_id)
        action = getattr(answer, "action", None)
        content = getattr(answer, "content", None) or {}
        if action == "accept" and content.get("approve") is True:
            return None
        return Declined("answered no" if action == "accept" else str(action))


def _json(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=False, default=str)


def _result(payload: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=_json(payload))],
                                structured_content=payload,
                                is_error=payload.get("ok") is False)


def _dynamic_result(payload: dict[str, Any]) -> types.CallToolResult:
    """A frontier tool's answer: the upstream result first, then what the gateway adds."""
    blocks: list[types.ContentBlock] = []
    if "text" in payload:
        blocks.append(types.TextContent(text=payload["text"]))
    elif payload.get("structuredContent") is not None:
        blocks.append(types.TextContent(text=_json(payload["structuredContent"])))
    note = {k: v for k, v in payload.items() if k not in ("text", "structuredContent")}
    blocks.append(types.TextContent(text=_json(note)))
    return types.CallToolResult(content=blocks,
                                structured_content=payload.get("structuredContent"),
                                is_error=payload.get("ok") is False)


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("planfilter")
    except PackageNotFoundError:
        return "0"


async def serve_stdio(server: GatewayServer) -> None:
    """Serve one client over stdin/stdout until it closes the pipe."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def check_free(host: str, port: int) -> None:
    """Raise, naming the address, when nothing can listen on ``host:port`` (a port another
    process holds, a host that is not this machine's)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise PlanfilterError(f"--http {host}:{port}: {exc.strerror or exc}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            raise PlanfilterError(f"--http {host}:{port}: cannot listen there: "
                                  f"{exc.strerror or exc}") from None


async def serve_http(server: GatewayServer, host: str, port: int,
                     started: Any = None) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` (DNS-rebinding protection on for a
    loopback host); ``started`` (an anyio Event) is set once it listens."""
    import uvicorn

    check_free(host, port)
    app = server.streamable_http_app(streamable_http_path="/mcp", host=host)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    http = uvicorn.Server(config)
    async with anyio.create_task_group() as tg:
        tg.start_soon(http.serve)
        while not http.started:
            if http.should_exit:
                break
            await anyio.sleep(0.02)
        if started is not None:
            started.set()
