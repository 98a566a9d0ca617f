"""When a step of a goal in steps is reached: the rule the live Session and the check of gold
chains (planfilter.core.validate) share.

A variable of step ``k`` counts for that step when the user gave it, or when a call after
step ``k - 1`` was reached produced it (the call that reached step ``k - 1`` too, when that
step did not need the variable itself). Steps are reached in order, each at the call after
which all of its variables count. ``producers(name)`` gives the call (1-based; ``GIVEN`` for
the user's values) of every value the variable took; ``reached[k]`` is the call at which step
``k`` was reached.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

#: The "call" of a value the user gave.
GIVEN = 0
Producers = Callable[[str], Iterable[int]]


def counts(name: str, k: int, steps: Sequence[frozenset[str]], reached: Sequence[int],
           producers: Producers) -> bool:
    """``name``, a variable of step ``k``, counts for that step."""
    calls = tuple(producers(name))
    if k == 0:
        return bool(calls)
    after, previous = reached[k - 1], steps[k - 1]
    return any(c == GIVEN or c > after or (c == after and name not in previous) for c in calls)


def stale(k: int, steps: Sequence[frozenset[str]], reached: Sequence[int],
          producers: Producers) -> frozenset[str]:
    """Step ``k``'s variables that do not count for it yet (of the first step, those
    ``producers`` gives no call for)."""
    if k >= len(steps):
        return frozenset()
    return frozenset(v for v in steps[k] if not counts(v, k, steps, reached, producers))


def advance(steps: Sequence[frozenset[str]], reached: list[int], producers: Producers,
            done: int) -> None:
    """Mark every further step reached at call ``done``, in order, as far as the values go."""
    while len(reached) < len(steps) and all(
            counts(v, len(reached), steps, reached, producers) for v in steps[len(reached)]):
        reached.append(done)
