"""Reading traces back for comparison in the resume tests."""

from __future__ import annotations

import json
from pathlib import Path


def steps_by_run(path: Path) -> dict[tuple, list[dict]]:
    """Step lines by run; fails on a run written twice or a step without its run line."""
    steps: dict[tuple, list[dict]] = {}
    ends: list[tuple] = []
    for raw in path.read_text().splitlines():
        line = json.loads(raw)
        key = (line["task"], line["model"], line["method"], line["seed"])
        if line["type"] == "run":
            ends.append(key)
        else:
            line.pop("latency_ms")
            steps.setdefault(key, []).append(line)
    assert len(ends) == len(set(ends)), "a run was written twice"
    assert set(steps) <= set(ends), "steps of an unfinished run were kept"
    for key, lines in steps.items():
        numbers = [s["step"] for s in lines]
        assert numbers == list(range(1, len(numbers) + 1)), f"steps lost or repeated in {key}"
    return {key: steps.get(key, []) for key in ends}
