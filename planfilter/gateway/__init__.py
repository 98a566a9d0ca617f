"""``planfilter serve``: an MCP gateway that shows a client only the causal frontier of real
MCP servers, and refuses calls outside it.

Layout, protocol-free first: the ``mcpServers`` file is read by planfilter.core.servers
(``contracts infer`` reads the same files); ``coverage`` (upstream tools against contracts),
``tasks`` (handles, one Session per task), ``service`` (plan, call, status), then the SDK
side: ``upstream`` (clients of the upstream servers) and ``server`` (the MCP server
adapter). The MCP SDK is imported only by those two and by
:func:`planfilter.core.servers.client_target`, so ``import planfilter`` stays light;
:func:`mcp_missing` says how to install it.
"""

from __future__ import annotations

from ..core.servers import ConfigError, ServerSpec, load_config
from .coverage import Coverage, UpstreamTool, check_coverage, gateway_registry

INSTALL_HINT = "planfilter serve needs the MCP SDK: pip install 'planfilter[mcp]'"


def mcp_missing() -> str | None:
    """Why the MCP SDK cannot be used (None when it can)."""
    try:
        import mcp  # noqa: F401
        import mcp.server  # noqa: F401
    except ImportError as exc:
        return f"{INSTALL_HINT} ({exc})"
    return None


__all__ = ["INSTALL_HINT", "ConfigError", "Coverage", "ServerSpec", "UpstreamTool",
           "check_coverage", "gateway_registry", "load_config", "mcp_missing"]
