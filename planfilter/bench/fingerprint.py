"""The fingerprint of a benchmark run's settings: everything that changes what a run does.

``planfilter run`` keeps it in the output folder's manifest; ``--resume`` compares it with
the settings given now and refuses, naming each setting that differs, rather than mix runs
made with other contracts, tasks, goal mode, environment or limits into one report.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Set
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from pydantic import BaseModel


def canonical(value: Any) -> Any:
    """``value`` as plain JSON data that does not depend on set order or hash seeds."""
    if isinstance(value, BaseModel):
        return canonical(value.model_dump(mode="python"))
    if isinstance(value, Mapping):
        return {str(k): canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, Set):
        return sorted((canonical(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if hasattr(value, "__dataclass_fields__"):
        return canonical({f: getattr(value, f) for f in value.__dataclass_fields__})
    return repr(value)


def digest(value: Any) -> str:
    text = json.dumps(canonical(value), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def planfilter_version() -> str:
    try:
        return version("planfilter")
    except PackageNotFoundError:  # run from a source tree
        return "unknown"


def run_fingerprint(config: Any) -> dict[str, str]:
    """Setting -> its value (long ones as a digest), for every setting that changes a run of
    ``config`` (a :class:`~planfilter.bench.runner.RunConfig`, not imported: the runner
    imports this module)."""
    from ..retrieval.toolscope import EMBEDDER_ENV

    bench = config.bench
    cases = bench.cases()
    options = config.run_options
    return {
        "registry": digest(bench.registry),
        "suite": f"{bench.kind}:{bench.name}",
        "tasks": digest(bench.tasks),
        "cases": digest([(c.id, c.injection) for c in cases]),
        "attack": str(bench.attack),
        "methods": ",".join(config.methods),
        "models": ",".join(config.models),
        "seeds": str(config.seeds),
        "goal": str(options.goal),
        "resolver": options.resolver,
        "env": options.env,
        "approve_risky": options.approve_risky,
        "max_steps": str(options.max_steps),
        "planner": options.filter.planner,
        "api_base": str(options.call.api_base),
        "recognition": digest(options.recognition),
        "replay_switches": str(options.replay_switches),
        "chooser": str(options.chooser),
        "embedder": os.environ.get(EMBEDDER_ENV, ""),
        "planfilter": planfilter_version(),
    }
