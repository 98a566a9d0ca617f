"""What a session knows, read-only: :class:`SessionViews`, the base of
:class:`~planfilter.live.session.Session`, whose methods change the state these views read.

Every view takes the session's lock and returns a copy or a frozen value: the goal and steps
of the leading candidate, the candidates, the state, the facts and calls, what the data-flow
checks know, and the state the planner sees. Before :meth:`Session.start
<planfilter.live.session.Session.start>` a view of the leading candidate raises
PlanfilterError.
"""

from __future__ import annotations

import threading
from typing import Any

from ..core.contracts import Registry, Steps
from ..core.environment import Supplied
from ..core.errors import PlanfilterError
from ..core.provenance import Flow
from ..filters import Visible
from . import dataflow, offers, progress, recognition, switching
from .goals import Resolution
from .opening import Opening
from .recognition import Belief, Origin, RecognitionOptions
from .records import Call, Fact, Log
from .snapshot import Snapshot, lead_of


class SessionViews:
    """The read-only views of a session's state. :class:`~planfilter.live.session.Session`
    sets every attribute below and changes them; this class only reads them."""

    registry: Registry
    method: str
    recognition: RecognitionOptions
    _lock: threading.RLock
    #: What the task started from (planfilter.live.opening): the request, its resolution,
    #: the values given.
    _opening: Opening
    #: The starting values and every call since, with what it gave (planfilter.live.records).
    _log: Log
    _beliefs: tuple[Belief, ...]
    _switches: list[str]
    #: Tool -> why it is refused from now on: the user declined it.
    _declined: dict[str, str]
    #: The call that read the document the request handed the task to, once it is read.
    _document: int | None
    #: The best weight at the first switch, and the goal the last switch left.
    _switched_from: float
    _left: tuple[str, tuple[str, ...]] | None
    #: The state's version, and what was worked out for it (see :meth:`_snapshot`).
    _version: int
    _cache: tuple[int, Snapshot, offers.Showing | None] | None
    #: The log the data-flow view was worked out for, and that view (see :meth:`flow`).
    _flow: tuple[Log, Flow] | None

    # -- what the session knows ------------------------------------------------------------

    @property
    def request(self) -> str:
        """The user's request the task started from ("" before :meth:`Session.start
        <planfilter.live.session.Session.start>`)."""
        return self._opening.request

    @property
    def resolution(self) -> Resolution | None:
        """How the goal was resolved from the request (None before a start)."""
        return self._opening.resolution

    @property
    def goal(self) -> frozenset[str]:
        """Every variable of the leading candidate's goal, all steps together."""
        return self._lead().candidate.goal

    @property
    def steps(self) -> Steps:
        """The leading candidate's steps in order (one step for a goal of variables)."""
        return self._lead().candidate.steps

    @property
    def step(self) -> int:
        """The index of the leading candidate's first step not reached (``len(steps)`` when
        all are)."""
        return self._lead().step

    @property
    def current_goal(self) -> frozenset[str]:
        """The variables of the step the session plans to now (empty when done)."""
        belief = self._lead()
        steps = belief.candidate.steps
        return steps[belief.step] if belief.step < len(steps) else frozenset()

    @property
    def candidates(self) -> tuple[Belief, ...]:
        """Every candidate goal and what the calls made say of it, in the resolver's order."""
        with self._lock:
            return self._beliefs

    @property
    def leading(self) -> Belief:
        """The candidate the calls made so far favour (its goal is :attr:`goal`)."""
        return self._lead()

    @property
    def switches(self) -> tuple[str, ...]:
        """Each time the model said the tools shown do not fit, what it gave as the reason."""
        with self._lock:
            return tuple(self._switches)

    @property
    def weighing(self) -> bool:
        """Several candidate goals are kept (a resolved goal): the model may switch."""
        with self._lock:
            return self._snapshot().weighing

    def switch_text(self, visible: Visible) -> str:
        """What the model is told after a switch: the goal the last switch left and its next
        tools, when it left the leading one, then the tools shown now."""
        with self._lock:
            return switching.switch_text(visible, self._left)

    def describe_candidates(self) -> tuple[str, ...]:
        """One line per candidate goal, by weight (for traces and reports)."""
        with self._lock:
            return recognition.describe_candidates(self._beliefs, self.recognition)

    @property
    def state(self) -> dict[str, Any]:
        """Each known variable's latest value."""
        with self._lock:
            return {name: facts[-1].value for name, facts in self._log.facts.items()}

    @property
    def facts(self) -> dict[str, tuple[Fact, ...]]:
        """Every value each variable has held, oldest first, with where it came from."""
        with self._lock:
            return dict(self._log.facts)

    @property
    def history(self) -> tuple[Call, ...]:
        """Every call recorded, oldest first."""
        with self._lock:
            return self._log.calls

    @property
    def environment(self) -> dict[str, Supplied]:
        """The values the environment supplied that this task took (the user's and the
        request's outrank them), each with where it came from."""
        with self._lock:
            return dict(self._opening.environment)

    @property
    def declined(self) -> dict[str, str]:
        """The tools the user declined in this session, each with why it is refused now."""
        with self._lock:
            return dict(self._declined)

    @property
    def done(self) -> bool:
        """Every step of the leading candidate's goal is reached: the task is done as far as
        the session can tell. A plausible candidate that asks for more (an action after the
        read the request asked for, another read beside it) stays visible, for a model that
        goes on. After the document the request handed the task to is read, one of the
        goals it gave must be reached too: the read was only the way to them."""
        with self._lock:
            lead = self._lead()
            if not lead.done or self._document is None:
                return lead.done
            return any(b.done for b in self._beliefs if b.candidate.origin == Origin.DOCUMENT
                       and b.candidate.call == self._document)

    def held(self) -> dict[str, tuple[Any, ...]]:
        """The values held for each variable: the state's, and those found inside results
        under a key of the variable. They say which value is meant; the data-flow checks ask
        the value store where a value was seen, whatever it is called."""
        with self._lock:
            return dataflow.held(self._log.facts, self._log.calls)

    def flow(self) -> Flow:
        """What the data-flow checks know now: values held, values given, outside content
        (worked out once per log: a call recorded makes a new one)."""
        with self._lock:
            if self._flow is None or self._flow[0] is not self._log:
                self._flow = (self._log, dataflow.flow(self.request, self._log))
            return self._flow[1]

    def planning_state(self) -> dict[str, Any]:
        """The state the planner sees for the leading candidate's current step: that step's
        variables that were not produced since the step before it count as not known yet."""
        with self._lock:
            return progress.planning_state(self._snapshot(), self._lead())

    # -- reading the state ------------------------------------------------------------------

    def _snapshot(self) -> Snapshot:
        """The state now, built once per version."""
        if self._cache is None or self._cache[0] != self._version:
            now = Snapshot(self.registry, self.method, self.recognition, self.request,
                           self._log.facts, self._log.calls, self._beliefs,
                           frozenset(self._declined), self._log.directed_texts,
                           self._switched_from)
            self._cache = (self._version, now, None)
        return self._cache[1]

    def _lead(self) -> Belief:
        """The leading candidate (when none is reachable, the first one not set aside)."""
        with self._lock:
            if not self._beliefs:
                self._started()
            return lead_of(self._beliefs, self.recognition)

    def _started(self) -> Resolution:
        if self.resolution is None:
            raise PlanfilterError("the session has not started: call start(request) first")
        return self.resolution
