"""A session's state at one point, as the pure functions of the live layer read it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.contracts import Registry
from ..filters import GOAL_DIRECTED_METHODS, Attempt
from .recognition import Belief, RecognitionOptions, leading
from .records import Call, Fact


@dataclass(frozen=True)
class Snapshot:
    """What the session holds now. Built by the session, read by the functions of
    planfilter.live.progress, .offers, .repeats and .joining; none of them changes it."""

    registry: Registry
    method: str
    recognition: RecognitionOptions
    request: str
    #: Every value each variable has held, oldest first.
    facts: Mapping[str, tuple[Fact, ...]]
    calls: tuple[Call, ...]
    beliefs: tuple[Belief, ...]
    #: The tools the user declined.
    declined: frozenset[str] = frozenset()
    #: The texts answered by the reads a sentence of the request directs to
    #: (planfilter.live.directions): where the user said the values are.
    directed_texts: tuple[str, ...] = ()
    #: The best candidate's weight when the model first switched (0: no switch yet).
    switched_from: float = 0.0

    @property
    def goal_directed(self) -> bool:
        """The method plans to a goal (``cmtf``, ``causal-path``, ``cmtf-recover``)."""
        return self.method in GOAL_DIRECTED_METHODS

    @property
    def weighing(self) -> bool:
        """Several candidate goals are kept under a goal-directed method: the model may
        switch between them, and what one candidate needs may be shown for another."""
        return len(self.beliefs) > 1 and self.goal_directed

    @property
    def lead(self) -> Belief:
        """The leading candidate (see :func:`lead_of`)."""
        return lead_of(self.beliefs, self.recognition)

    @property
    def attempts(self) -> tuple[Attempt, ...]:
        """The calls that ran or failed (a refused one never ran: no failure of its tool)."""
        return tuple(c.attempt for c in self.calls if not c.refused)

    def given(self) -> dict[str, Any]:
        """The variables the user, the request or the environment gave, each with its
        first such value."""
        return {n: next(f.value for f in facts if f.given) for n, facts in self.facts.items()
                if any(f.given for f in facts)}


def lead_of(beliefs: Sequence[Belief], options: RecognitionOptions) -> Belief:
    """The candidate the calls made favour; when none is reachable, the first one not set
    aside (the first of all when every one is). ``beliefs`` must not be empty."""
    return leading(beliefs, options) or next((b for b in beliefs if not b.dropped), beliefs[0])
