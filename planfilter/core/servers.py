"""MCP servers from an ``mcpServers`` file, the format Claude Desktop, Cursor and VS Code
use, read one way for ``planfilter serve`` and ``planfilter contracts infer``::

    {"mcpServers": {
        "git":  {"command": "mcp-server-git", "args": ["--repository", "${REPO}"]},
        "docs": {"url": "http://127.0.0.1:8000/mcp"}}}

A server is stdio (``command``, ``args``, ``env``, ``cwd``) or streamable HTTP (``url``,
``headers``). VS Code's ``servers`` key and ``type`` field are read too. ``${NAME}`` in any
string is replaced by the environment variable NAME (so one file serves every machine); a
variable that is not set is an error naming the file, the server and the field.

:func:`client_target` turns a :class:`ServerSpec` into what the MCP SDK's ``Client``
connects to; the SDK is imported only then.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import PlanfilterError

#: Server names are the prefix of ``server.tool``, so they hold no dot.
SERVER_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$")
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_STDIO_FIELDS = frozenset({"command", "args", "env", "cwd", "type"})
_HTTP_FIELDS = frozenset({"url", "headers", "type"})
#: The keys that hold the servers: ``mcpServers``, or VS Code's ``servers``.
SERVERS_KEYS = ("mcpServers", "servers")


class ConfigError(PlanfilterError):
    """The servers file is malformed; the message names the file, server and field."""


@dataclass(frozen=True)
class ServerSpec:
    """One upstream server: stdio when ``command`` is set, streamable HTTP when ``url`` is."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"


def is_servers_document(doc: Any) -> bool:
    """``doc`` (a parsed JSON or YAML document) names MCP servers rather than tools."""
    return isinstance(doc, Mapping) and any(k in doc for k in SERVERS_KEYS) \
        and "tools" not in doc


def load_config(path: str | Path, environ: Mapping[str, str] | None = None
                ) -> tuple[ServerSpec, ...]:
    """Every server of the JSON file, in file order (``environ``: default ``os.environ``)."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read file: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    return parse_config(doc, str(path), os.environ if environ is None else environ)


def parse_config(doc: Any, where: str, environ: Mapping[str, str]) -> tuple[ServerSpec, ...]:
    """Every server of a parsed document, in order; ``where`` names it in errors."""
    if not isinstance(doc, Mapping):
        raise ConfigError(f"{where}: expected a JSON object with 'mcpServers'")
    servers = doc.get("mcpServers", doc.get("servers"))
    if not isinstance(servers, Mapping) or not servers:
        raise ConfigError(f"{where}: field 'mcpServers' must be an object naming at least one "
                          "server")
    return tuple(_server(name, entry, where, environ) for name, entry in servers.items())


def _server(name: str, entry: Any, where: str, environ: Mapping[str, str]) -> ServerSpec:
    at = f"{where}: server '{name}'"
    if not SERVER_NAME.fullmatch(name):
        raise ConfigError(f"{at}: a server name is letters, digits, '_' and '-' (no '.', which "
                          "separates server and tool)")
    if not isinstance(entry, Mapping):
        raise ConfigError(f"{at}: expected an object with 'command' or 'url'")

    def text(key: str, value: Any) -> str:
        if not isinstance(value, str):
            raise ConfigError(f"{at} field '{key}': expected a string (got {value!r})")

        def sub(m: re.Match[str]) -> str:
            if m.group(1) not in environ:
                raise ConfigError(f"{at} field '{key}': environment variable {m.group(1)} "
                                  "is not set")
            return environ[m.group(1)]

        return _PLACEHOLDER.sub(sub, value)

    def strings(key: str, kind: type) -> Any:
        value = entry.get(key, kind())
        if kind is list and isinstance(value, list):
            return tuple(text(f"{key}[{i}]", v) for i, v in enumerate(value))
        if kind is dict and isinstance(value, Mapping):
            return {str(k): text(f"{key}.{k}", v) for k, v in value.items()}
        raise ConfigError(f"{at} field '{key}': expected a JSON {kind.__name__} "
                          f"(got {value!r})")

    if "command" in entry and "url" in entry:
        raise ConfigError(f"{at}: give 'command' (stdio) or 'url' (HTTP), not both")
    if "command" in entry:
        unknown = sorted(set(entry) - _STDIO_FIELDS)
        if unknown:
            raise ConfigError(f"{at}: unknown field(s) {unknown} for a stdio server")
        cwd = entry.get("cwd")
        return ServerSpec(name, command=text("command", entry["command"]),
                          args=strings("args", list), env=strings("env", dict),
                          cwd=None if cwd is None else text("cwd", cwd))
    if "url" in entry:
        unknown = sorted(set(entry) - _HTTP_FIELDS)
        if unknown:
            raise ConfigError(f"{at}: unknown field(s) {unknown} for an HTTP server")
        url = text("url", entry["url"])
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"{at} field 'url': expected an http(s) URL (got {url!r})")
        return ServerSpec(name, url=url, headers=strings("headers", dict))
    raise ConfigError(f"{at}: needs 'command' (stdio) or 'url' (streamable HTTP)")


def resolve_command(command: str) -> str:
    """A bare command is looked up next to this Python first (a venv's console scripts need
    not be on PATH), then on PATH."""
    if os.sep in command:
        return command
    beside = os.path.join(os.path.dirname(sys.executable), command)
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    return shutil.which(command) or command


class client_target:
    """``async with client_target(spec) as target``: what ``mcp.Client(target)`` connects to.

    A stdio server is its ``StdioServerParameters`` (command, args, env, cwd), or, given
    ``errlog`` (a file for the server's stderr), a stdio transport writing there. An HTTP
    server is its URL, or a streamable HTTP transport that sends its ``headers``."""

    def __init__(self, spec: ServerSpec, errlog: Any = None):
        self.spec = spec
        self.errlog = errlog
        self._http: Any = None

    async def __aenter__(self) -> Any:
        spec = self.spec
        if spec.command:
            from mcp import StdioServerParameters

            params = StdioServerParameters(command=resolve_command(spec.command),
                                           args=list(spec.args), env=dict(spec.env) or None,
                                           cwd=spec.cwd)
            if self.errlog is None:
                return params
            from mcp.client.stdio import stdio_client

            return stdio_client(params, errlog=self.errlog)
        assert spec.url is not None
        if not spec.headers:
            return spec.url
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        self._http = httpx2.AsyncClient(headers=dict(spec.headers))
        return streamable_http_client(spec.url, http_client=self._http)

    async def __aexit__(self, *exc: object) -> None:
        if self._http is not None:
            await self._http.aclose()
