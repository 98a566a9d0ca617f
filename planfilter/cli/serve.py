"""``planfilter serve``: the MCP gateway, a thin command over planfilter.gateway."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..core.errors import PlanfilterError
from .app import Finite, paths_option


def _address(value: str | None) -> tuple[str, int] | None:
    if value is None:
        return None
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter(f"{value!r}: expected HOST:PORT, e.g. 127.0.0.1:8765",
                                 param_hint="--http")
    return host.strip("[]"), int(port)


def _planfilter_error(exc: BaseException) -> PlanfilterError | None:
    """The library error inside what a task group raised, if any."""
    if isinstance(exc, PlanfilterError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _planfilter_error(inner)
            if found is not None:
                return found
    return None


@click.command()
@click.option("--config", "config_path", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Upstream servers: an mcpServers JSON file (Claude Desktop / Cursor format).")
@paths_option("--contracts", "contracts_path",
              "Contracts naming upstream tools as server.tool (repeatable).", required=True)
@click.option("--mode", type=click.Choice(["meta", "dynamic"]), default="meta",
              show_default=True, help="meta: fixed tools plan/call/status (every client); "
              "dynamic: plan + the frontier, with list_changed (clients that refresh).")
@click.option("--http", "http", metavar="HOST:PORT",
              help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--uncontracted", type=click.Choice(["hide", "expose"]), default="hide",
              show_default=True, help="Upstream tools without a contract: hidden, or always "
              "shown outside the plan.")
@click.option("--approve-risky", type=click.Choice(["never", "untainted", "always"]),
              default="never", show_default=True,
              help="High-risk calls when the client cannot be asked (no elicitation); "
              "untainted: approve a contracted call unless an argument is tainted.")
@click.option("--timeout", type=Finite(0.1, 86_400.0), default=60.0, show_default=True,
              help="Seconds an upstream call may take.")
@click.option("--model", default=None, help="litellm model that resolves a goal from the "
              "request when plan gets none (sim/careful offline).")
@click.option("--resolver", type=click.Choice(["model", "retrieval"]), default=None,
              help="Goal resolver (default: model when --model is given, else retrieval).")
@click.option("--method", default="cmtf", show_default=True, help="Filter method.")
def serve(config_path: Path, contracts_path: tuple[Path, ...], mode: str, http: str | None,
          uncontracted: str, approve_risky: str, timeout: float, model: str | None,
          resolver: str | None, method: str) -> None:
    """Run the MCP gateway: upstream MCP servers behind it, and a client shown only the
    tools the plan needs next. The start-up report goes to stderr.

    \b
    Example:
      planfilter serve --config examples/mcp/servers.json \\
                       --contracts examples/mcp/contracts.yaml --http 127.0.0.1:8765
    """
    address = _address(http)  # the options first, before the MCP libraries load
    if model is not None:
        from ..models import check_model

        check_model(model)
    from ..gateway import mcp_missing

    missing = mcp_missing()
    if missing:
        raise click.ClickException(missing)
    import anyio

    from ..core.loading import load_registry
    from ..gateway import load_config
    from ..gateway.server import build_server, serve_http, serve_stdio
    from ..gateway.service import GatewayOptions

    specs = load_config(config_path)
    contracts = load_registry(list(contracts_path))
    options = GatewayOptions(mode=mode, uncontracted=uncontracted,  # type: ignore[arg-type]
                             approve_risky=approve_risky,  # type: ignore[arg-type]
                             method=method, model=model,
                             resolver=resolver or ("model" if model else "retrieval"))

    def report(coverage: Any) -> None:
        for line in coverage.lines(uncontracted):
            click.echo(f"planfilter serve: {line}", err=True)

    server = build_server(specs, contracts, options, timeout=timeout, report=report)
    try:
        if address is None:
            anyio.run(serve_stdio, server)
        else:
            click.echo(f"planfilter serve: http://{address[0]}:{address[1]}/mcp ({mode} mode)",
                       err=True)
            anyio.run(serve_http, server, *address)
    except KeyboardInterrupt:
        pass
    except BaseException as exc:
        found = _planfilter_error(exc)
        if found is None:
            raise
        raise click.ClickException(str(found)) from None
