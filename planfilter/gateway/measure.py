"""What the gateway costs and saves, measured with real servers and the real SDK client.

- :func:`overhead`: per-call latency of one upstream tool called directly and through the
  gateway (meta mode's ``call``), with the same client, calls interleaved so that load on
  the machine hits both alike; the gateway runs as a stdio subprocess (what a client sees)
  and in process (the gateway's own work, without the extra pipe hop).
- :func:`list_tokens`: tokens of the tool list a client puts in its prompt, meta mode's
  three tools against every upstream tool, counted with litellm's tokenizer.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..core.contracts import Registry
from ..core.servers import ServerSpec
from .coverage import UpstreamTool


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary(samples: Sequence[float]) -> dict[str, float]:
    return {"p50_ms": round(percentile(samples, 0.5) * 1000, 3),
            "p95_ms": round(percentile(samples, 0.95) * 1000, 3),
            "mean_ms": round(statistics.fmean(samples) * 1000, 3), "n": len(samples)}


async def overhead(spec: ServerSpec, contracts: Registry, tool: str, arguments: dict[str, Any],
                   goal: str, known: dict[str, Any], *, calls: int = 200,
                   warmup: int = 10) -> dict[str, Any]:
    """Latency of ``spec``'s ``tool`` direct vs through the gateway; ``goal``/``known`` start
    the task each gateway call runs in (one fresh task per call, started untimed)."""
    from mcp import Client, StdioServerParameters

    from ..core.servers import resolve_command
    from .server import build_server

    direct_target = StdioServerParameters(command=resolve_command(spec.command or ""),
                                          args=list(spec.args), env=dict(spec.env) or None)
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "servers.json"
        config.write_text(json.dumps({"mcpServers": {spec.name: {
            "command": spec.command, "args": list(spec.args), "env": dict(spec.env)}}}))
        contracts_file = Path(tmp) / "contracts.json"
        contracts_file.write_text(contracts.model_dump_json(exclude_unset=True,
                                                            exclude={"source"}))
        gateway_target = StdioServerParameters(
            command=sys.executable,
            args=["-m", "planfilter.cli", "serve", "--config", str(config),
                  "--contracts", str(contracts_file)])
        qualified = f"{spec.name}.{tool}"
        samples: dict[str, list[float]] = {"direct": [], "gateway_stdio": [],
                                           "gateway_in_process": []}
        async with Client(direct_target, mode="legacy") as direct, \
                Client(gateway_target, mode="legacy") as stdio, \
                Client(build_server((spec,), contracts), mode="legacy") as local:
            for i in range(warmup + calls):
                timed = i >= warmup
                t = time.perf_counter()
                result = await direct.call_tool(tool, arguments)
                if timed:
                    samples["direct"].append(time.perf_counter() - t)
                if result.is_error:
                    raise RuntimeError(f"direct call failed: {result.content}")
                for label, client in (("gateway_stdio", stdio), ("gateway_in_process", local)):
                    plan = await client.call_tool("plan", {"request": goal, "goal": goal,
                                                           "known": known})
                    task = (plan.structured_content or {}).get("task")
                    t = time.perf_counter()
                    result = await client.call_tool("call", {"task": task, "tool": qualified,
                                                             "arguments": arguments})
                    if timed:
                        samples[label].append(time.perf_counter() - t)
                    if result.is_error:
                        raise RuntimeError(f"gateway call failed: {result.content}")
    out: dict[str, Any] = {"tool": qualified, **{k: summary(v) for k, v in samples.items()}}
    for label in ("gateway_stdio", "gateway_in_process"):
        out[f"{label}_adds_p50_ms"] = round(out[label]["p50_ms"] - out["direct"]["p50_ms"], 3)
        out[f"{label}_adds_p95_ms"] = round(out[label]["p95_ms"] - out["direct"]["p95_ms"], 3)
    return out


def _openai(tools: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": t["name"],
                                              "description": t.get("description", ""),
                                              "parameters": t["inputSchema"]}} for t in tools]


def list_tokens(upstream: Iterable[UpstreamTool], model: str = "gpt-4o") -> dict[str, Any]:
    """Tokens the tool list adds to a prompt (tools in the OpenAI function shape, as a client
    hands them to its model): meta mode's fixed list vs every upstream tool as listed."""
    from ..models import load_litellm
    from .server import META_TOOLS

    litellm = load_litellm()
    messages = [{"role": "user", "content": "hi"}]
    base = litellm.token_counter(model=model, messages=messages)

    def cost(tools: list[dict[str, Any]]) -> int:
        return int(litellm.token_counter(model=model, messages=messages, tools=tools) - base)

    meta = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in META_TOOLS]
    listed = list(upstream)
    every = [{"name": t.name, "description": t.description, "inputSchema": dict(t.input_schema)}
             for t in listed]
    return {"model": model, "meta_tools": len(meta), "meta_tokens": cost(_openai(meta)),
            "upstream_tools": len(every), "upstream_tokens": cost(_openai(every))}
