"""Measure `planfilter serve`: per-call overhead against calling the upstream directly, and
the tokens of the tool list a client receives. Prints JSON (the numbers on
docs/results/performance.md).

    python examples/mcp/measure.py --calls 200
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

import anyio

from planfilter.core.loading import load_registry
from planfilter.gateway import load_config
from planfilter.gateway.measure import list_tokens, overhead
from planfilter.gateway.upstream import Upstreams

HERE = Path(__file__).resolve().parent


async def main(calls: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        env = {"PLANFILTER_GIT_REPO": str(repo), "PLANFILTER_FS_ROOT": tmp, **os.environ}
        specs = load_config(HERE / "servers.json", environ=env)
        contracts = load_registry(HERE / "contracts.yaml")
        upstreams = Upstreams(specs)
        async with anyio.create_task_group() as tg:
            await upstreams.start(tg)
            tools = upstreams.tools
            await upstreams.close()
        tokens = list_tokens(tools)
        time_spec = next(s for s in specs if s.name == "time")
        timing = await overhead(time_spec, contracts.subset(["time.get_current_time"]),
                                "get_current_time", {"timezone": "UTC"}, "current_time",
                                {"timezone": "UTC"}, calls=calls)
    print(json.dumps({"tokens": tokens, "overhead": timing}, indent=1))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    anyio.run(main, parser.parse_args().calls)
