"""What every planner backend shares: the result shape, the Protocol, the deadline a search
checks, per-registry caching."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Generic, Protocol, TypeVar

from ..compile import Objective
from ..contracts import Registry


class Status(StrEnum):
    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    TIMEOUT = "timeout"
    UNSUPPORTED = "unsupported"
    ERROR = "error"

    @property
    def definitive(self) -> bool:
        """Solved or proven unsolvable: an answer, as opposed to a failure to answer."""
        return self in (Status.SOLVED, Status.UNSOLVABLE)


@dataclass(frozen=True)
class PlanResult:
    status: Status
    planner: str
    plan: tuple[str, ...] = ()
    reason: str = ""
    elapsed_ms: float = 0.0
    #: True when the plan is already the canonical one (lexicographically smallest minimal plan).
    canonical: bool = False


class Planner(Protocol):
    """A planner backend. There is no base class: anything with these members plugs in."""

    name: str
    #: PDDL requirements the backend can solve, e.g. {"strips", "action-costs"}.
    requirements: frozenset[str]

    def unavailable_reason(self) -> str | None:
        """None when the backend can run here, else why it cannot (missing package, ...)."""
        ...

    def solve(
        self,
        registry: Registry,
        known: frozenset[str],
        goal: frozenset[str],
        *,
        objective: Objective = "length",
        risk_lambda: float = 0.0,
        timeout: float | None = None,
    ) -> PlanResult: ...


class PlannerTimeout(Exception):
    """Raised inside a search loop when its deadline passes."""


#: A search checks its deadline once per this many expanded states: often enough to stop
#: within milliseconds of it, rarely enough that the clock does not slow the search.
CHECK_EVERY = 512


@dataclass
class Deadline:
    seconds: float | None
    start: float = field(default_factory=time.perf_counter)
    #: States expanded so far under this deadline (see ``tick``).
    expanded: int = 0

    def expired(self) -> bool:
        return self.seconds is not None and time.perf_counter() - self.start > self.seconds

    def check(self) -> None:
        if self.expired():
            raise PlannerTimeout

    def tick(self) -> None:
        """One state expanded: every CHECK_EVERY of them, ``check`` the deadline."""
        self.expanded += 1
        if self.expanded % CHECK_EVERY == 0:
            self.check()

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.start) * 1000


K = TypeVar("K")
V = TypeVar("V")


class RegistryCache(Generic[V]):
    """Per-registry prepared data, keyed by identity so a lookup costs a dict access, not a
    comparison of every tool. Holds the registry itself so an id is never reused while cached."""

    def __init__(self, build: Callable[..., V], size: int = 8):
        self._build = build
        self._size = size
        self._entries: OrderedDict[tuple[int, object], tuple[Registry, V]] = OrderedDict()

    def get(self, registry: Registry, key: object = None) -> V:
        slot = (id(registry), key)
        entry = self._entries.get(slot)
        if entry is not None and entry[0] is registry:
            self._entries.move_to_end(slot)
            return entry[1]
        value = self._build(registry, key)
        self._entries[slot] = (registry, value)
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)
        return value
