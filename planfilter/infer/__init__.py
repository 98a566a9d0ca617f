"""Draft contracts from what tools already declare, and check contracts against traces.

``sources`` reads tool declarations (an MCP config, a saved ``tools/list`` result, an OpenAI
``tools`` array, function docs) into one :class:`ToolSpec` shape (``spec``), and
``python_tools`` reads Python callables into it too; ``vocabulary`` makes one
variable per meaning; ``rules``, ``risk`` and (optionally) ``model`` fill the contract fields;
``write`` turns the result into an ordinary registry file; ``check`` compares a registry with
``planfilter run`` traces; ``evaluate`` measures inference against hand-written contracts.

Imports ``planfilter.core``, ``planfilter.models`` (``--model``) and ``planfilter.retrieval``
(the dense embedder), nothing above them; the ``mcp`` client only when an MCP config is read.
"""

from __future__ import annotations

from .infer import Inference, InferOptions, infer_contracts
from .sources import read_sources
from .spec import ToolSpec

__all__ = ["InferOptions", "Inference", "ToolSpec", "infer_contracts", "read_sources"]
