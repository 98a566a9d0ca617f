"""Precision and recall of the user's values read from the request by rule, against the
oracle known (the ground-truth arguments the request states), on AgentDojo's user tasks.

    python examples/known_accuracy.py          # the four suites, reviewed contracts
    python examples/known_accuracy.py --suite banking \
        --registry domains/agentdojo/drafted/banking.yaml

A value read is right when the oracle known holds the same value for its variable (strings
compared without case or surrounding space, numbers as numbers; a list read is right when one
of its values is). No agent runs and no model is called. Prints one line per suite and the
total; `--verbose` prints each task's misses.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planfilter.live.request_values import stated_values
from planfilter.suites.agentdojo import SUITES, load_agentdojo_suite
from planfilter.suites.base import SuiteOptions


def same(read: Any, truth: Any) -> bool:
    if isinstance(read, list):
        return any(same(r, truth) for r in read)
    if isinstance(read, int | float) and isinstance(truth, int | float):
        return float(read) == float(truth)
    return str(read).strip().lower() == str(truth).strip().lower()


def score(read: Mapping[str, Any], truth: Mapping[str, Any]) -> tuple[int, int, int]:
    """(values read that are right, values read, values the oracle known holds)."""
    right = sum(1 for k, v in read.items() if k in truth and same(v, truth[k]))
    return right, len(read), len(truth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", action="append", choices=sorted(SUITES))
    parser.add_argument("--registry", type=Path, help="contracts instead of the reviewed ones")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    totals = [0, 0, 0]
    for name in args.suite or sorted(SUITES):
        options = SuiteOptions(registry=(args.registry,) if args.registry else ())
        suite = load_agentdojo_suite(name, options)
        sums = [0, 0, 0]
        for task in suite.tasks:
            read = stated_values(suite.registry, task.query)
            truth = dict(task.state)
            counts = score(read, truth)
            sums = [a + b for a, b in zip(sums, counts, strict=True)]
            if args.verbose and counts[0] < max(counts[1], counts[2]):
                print(f"  {name} {task.id}: read {read}, oracle {truth}")
        totals = [a + b for a, b in zip(totals, sums, strict=True)]
        print(line(name, *sums))
    print(line("total", *totals))


def line(name: str, right: int, read: int, truth: int) -> str:
    precision = f"{right / read:.2f}" if read else "-"
    recall = f"{right / truth:.2f}" if truth else "-"
    return (f"{name:10} precision {precision} ({right}/{read})  "
            f"recall {recall} ({right}/{truth})")


if __name__ == "__main__":
    main()
