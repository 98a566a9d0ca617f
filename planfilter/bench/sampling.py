"""A deterministic stratified sample of a task suite, for runs that cannot afford every task.

The rule, with no randomness (so ``--resume`` of a sampled run sees the same tasks):

* Tasks are grouped by domain (tasks without a domain form their own group, ordered last);
  domains take turns in sorted order, one task per turn, so every domain gets an equal
  share until it runs out of tasks.
* Inside a domain, the families (in order of first appearance in the suite; tasks without a
  family form one family) take turns the same way: every family gives its first task before
  any family gives its second.
* Inside a family, tasks are taken in suite order.

The sample keeps the suite's task order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import chain, zip_longest

from ..core.errors import PlanfilterError
from ..core.tasks import Suite, Task


def stratified_sample(suite: Suite, n: int) -> Suite:
    """The first ``n`` tasks of :func:`sample_order`, in suite order; the suite if it is small."""
    if n < 1:
        raise PlanfilterError(f"the sample size (--sample) must be at least 1, not {n}")
    if n >= len(suite):
        return suite
    chosen = {task.id for task in sample_order(suite)[:n]}
    return Suite(
        tasks=tuple(task for task in suite if task.id in chosen),
        source=f"{suite.source or '<suite>'} (stratified sample of {n} of {len(suite)} tasks)",
    )


def sample_order(suite: Suite) -> tuple[Task, ...]:
    """Every task of the suite, in the order the sample takes them."""
    domains = _groups(suite.tasks, lambda task: task.domain)
    ordered = sorted(domains, key=lambda domain: (domain is None, domain or ""))
    return _round_robin(
        _round_robin(_groups(domains[d], lambda task: task.family).values()) for d in ordered
    )


def _groups(tasks: Iterable[Task], key: Callable[[Task], str | None]
            ) -> dict[str | None, tuple[Task, ...]]:
    """Tasks by ``key``, keys in order of first appearance, tasks in suite order."""
    groups: dict[str | None, list[Task]] = {}
    for task in tasks:
        groups.setdefault(key(task), []).append(task)
    return {k: tuple(v) for k, v in groups.items()}


def _round_robin(groups: Iterable[Sequence[Task]]) -> tuple[Task, ...]:
    """The first task of every group, then the second of every group that has one, ..."""
    rounds = zip_longest(*groups)
    return tuple(task for task in chain.from_iterable(rounds) if task is not None)
