"""Goal recognition: several candidate goals, weighed by the calls the agent makes.

Nobody hands a live agent its goal. A resolver reads the request once, before any call, and
a goal it commits to then is often wrong; a filter that shows only that goal's next step fails
the task whatever it does after. So a session keeps a ranked set of candidate goals (single
goals and goals in steps), shows the union of the next steps of the plausible ones, and
re-weighs them after every call. This is plan recognition as planning (Ramírez and Geffner,
IJCAI 2009; probabilistic, AAAI 2010): a goal explains the calls observed so far as well as a
plan for it that starts with those calls is as cheap as its best plan. With ``O`` the calls
made and ``c(G)`` the length of a minimal plan for ``G`` from the state before them, the cost
difference is

    delta(G, O) = |O| + c(G from the state after O) - c(G)

which is 0 exactly when the calls made are the start of some minimal plan for ``G`` and grows
by one for every call such a plan did not need; the candidate's weight is
``prior(G) * exp(-beta * delta(G, O))``, their Boltzmann form with ``beta`` the agent's assumed
rationality. Calls are observed in the order they are made, a prefix of the plan, so one plan
per candidate and call is all it takes: no planner call for plans that avoid the observations
(their ``c(G, not O)``). A plan for a goal of a few tools costs the native planner hundredths
of a millisecond, so the exact difference is cheap, and it is what landmark-based recognition
(Pereira, Oren and Meneguzzi, AAAI 2017) gives up for speed: the share of a goal's landmarks
achieved rises when a call helps the goal but does not fall when a call is off every minimal
plan of it, and on registries where most tools need nothing (every tool is executable at once)
a goal's landmarks are little more than its own producer, so a call that serves another goal
would leave every candidate's score where it was.

Only the calls that ran count as observations: a refused or failed call changed nothing.

The frontier is the union of the next steps of the plausible candidates (weight at least
``plausible`` times the best), in order of weight, bounded: the leading candidate's next step
is shown whole (with one candidate the frontier is exactly the single goal's), the others add
tools until ``tools`` are shown. The data-flow checks of a call (invented, substituted,
tainted, approval, arguments) do not depend on the candidates; only what is visible does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from ..core.contracts import Registry, Steps
from ..core.frontier import plan_length


@dataclass(frozen=True)
class RecognitionOptions:
    """How many candidates are kept and shown, and how fast an off-plan call lowers one."""

    #: Candidate goals a resolved session keeps (1: the resolver's goal alone, as before).
    candidates: int = 8
    #: Tools the union shows at most (the leading candidate's next step is always whole).
    tools: int = 3
    #: Each call off every minimal plan of a candidate divides its weight by ``exp(beta)``.
    beta: float = math.log(4)
    #: A candidate is plausible (shown, and able to keep the session going) while its weight
    #: is at least this share of the best candidate's.
    plausible: float = 0.25
    #: The prior of the candidate ranked ``i`` (0 first) is ``decay ** i``.
    decay: float = 0.5
    #: When a model read the request and named its goal, the other candidates' priors are
    #: multiplied by this: below ``plausible``, they are not shown until the calls made speak
    #: against the model's goal (one call off its plans) or it cannot be reached.
    after_model: float = 0.2

    def __post_init__(self) -> None:
        if self.candidates < 1 or self.tools < 1:
            raise ValueError("candidates and tools must be at least 1")
        if not 0 < self.plausible <= 1 or not 0 < self.decay <= 1 or self.beta < 0 \
                or not 0 < self.after_model <= 1:
            raise ValueError("plausible, decay and after_model must lie in (0, 1], beta must "
                             "be >= 0")


DEFAULT_RECOGNITION = RecognitionOptions()
#: One candidate: the resolver's goal alone (what a session given its goal uses).
SINGLE = RecognitionOptions(candidates=1, tools=1)


class Origin(StrEnum):
    """Where a candidate goal came from (``Candidate.origin``). The values are the words
    traces and reports carry."""

    #: Given to the session (a goal or a list of candidates).
    GIVEN = "given"
    #: The model resolver's answer.
    MODEL = "model"
    #: Ranked by retrieval (the retrieval resolver's answer, or an option ranked next).
    RETRIEVAL = "retrieval"
    #: A read that can inform an action, then the action, as a goal in two steps.
    READ_THEN_ACT = "read then act"
    #: The listing of a kind of thing, then the read that takes one of the names it lists.
    LIST_THEN_USE = "list then use"
    #: That listing, the read, then an action on the one thing the read singles out.
    LIST_READ_ACT = "list, read, act"
    #: Several reads the request asks for, as one goal.
    READS_TOGETHER = "reads together"
    #: The lookups of several kinds of thing the request names, as one goal.
    KINDS_NAMED = "kinds named"
    #: The read of the document the request hands what to do to.
    DELEGATED = "delegated"
    #: A later sentence's action, weighed once the leading candidate is reached.
    LATER_PART = "later part"
    #: A goal the text of that document gave (``Candidate.call``: the call that read it).
    DOCUMENT = "document"


@dataclass(frozen=True)
class Candidate:
    """A candidate goal: a goal the request may ask for, with its prior and its origin."""

    name: str
    steps: Steps
    prior: float = 1.0
    origin: Origin = Origin.GIVEN
    #: For a goal a document gave: the call that read the document.
    call: int | None = None

    @property
    def goal(self) -> frozenset[str]:
        return frozenset().union(*self.steps)

    @property
    def label(self) -> str:
        """The origin as traces show it ("document (call 3)" for a document's goal)."""
        return f"{self.origin} (call {self.call})" if self.call is not None else self.origin


@dataclass(frozen=True)
class Belief:
    """What the calls made so far say of one candidate."""

    candidate: Candidate
    #: The call (1-based; 0 for the user's values) at which each step was reached.
    reached: tuple[int, ...] = ()
    #: Minimal plan length to the candidate now (None: no plan reaches it from here).
    cost: int | None = None
    #: delta(G, O), summed call by call: each call that ran adds ``1 + c(after) - c(before)``,
    #: the plan length it did not take off (0 for a call on a minimal plan).
    offplan: int = 0
    #: Why the candidate was dropped ("" while it stands): the model asked for other tools.
    dropped: str = ""
    #: Calls up to this one do not count for the candidate: a later part of the request,
    #: weighed from when the candidate before it was reached.
    since: int = 0

    @property
    def done(self) -> bool:
        return len(self.reached) >= len(self.candidate.steps)

    @property
    def step(self) -> int:
        return len(self.reached)

    @property
    def difference(self) -> int | None:
        """delta(G, O): calls made beyond what a minimal plan for the candidate needed (None
        while no plan reaches it)."""
        return None if self.cost is None else self.offplan

    def weight(self, options: RecognitionOptions = DEFAULT_RECOGNITION) -> float:
        delta = self.difference
        if delta is None or self.dropped:
            return 0.0
        return self.candidate.prior * math.exp(-options.beta * delta)

    @property
    def state(self) -> str:
        """Why it was dropped, or "reached", "unreachable" or the step it is at ("step 2")."""
        return self.dropped or ("reached" if self.done else "unreachable"
                                if self.difference is None else f"step {self.step + 1}")

    def describe(self, options: RecognitionOptions = DEFAULT_RECOGNITION) -> str:
        delta = self.difference
        return (f"{self.candidate.name} [{self.candidate.label}] weight "
                f"{self.weight(options):.3g}, off-plan calls {'-' if delta is None else delta}"
                f", {self.state}")


def shared_priors(ends: Sequence[frozenset[str]], decay: float) -> tuple[float, ...]:
    """The prior of each candidate whose last step is ``ends[i]``: ``decay`` to the power of
    its end's rank among the distinct ends (in order of first appearance) plus its rank
    among the candidates with that end. The ways to one end (the action alone, a read then
    the action) share the end's rank, so a second end stays in view beside the first's
    variants: the end is the goal, the steps before it how it is reached."""
    rank: dict[frozenset[str], int] = {}
    seen: dict[frozenset[str], int] = {}
    out = []
    for end in ends:
        rank.setdefault(end, len(rank))
        out.append(decay ** (rank[end] + seen.get(end, 0)))
        seen[end] = seen.get(end, 0) + 1
    return tuple(out)


def candidates_from(goals: Sequence[tuple[str, Steps, Origin]],
                    options: RecognitionOptions = DEFAULT_RECOGNITION,
                    modelled: bool = False) -> tuple[Candidate, ...]:
    """Candidates from ``(name, steps, origin)`` best first, duplicates (same steps) dropped,
    at most ``options.candidates``, each with its rank's prior; when ``modelled`` (the first
    is the goal a model named, or the way to it the contracts give), the others' priors
    times ``options.after_model``."""
    seen: set[Steps] = set()
    kept: list[tuple[str, Steps, Origin]] = []
    for name, steps, origin in goals:
        if steps and steps not in seen:
            seen.add(steps)
            kept.append((name, steps, origin))
    kept = kept[: options.candidates]
    priors = [p * (options.after_model if modelled and i else 1.0)
              for i, p in enumerate(shared_priors([s[-1] for _, s, _ in kept],
                                                  options.decay))]
    return tuple(Candidate(n, s, p, o) for (n, s, o), p in zip(kept, priors, strict=True))


def remaining_cost(registry: Registry, known: Iterable[str], steps: Steps, step: int,
                   given: Iterable[str] = ()) -> int | None:
    """Plan length from ``known`` (the planning state of step ``step``) through every step
    left: each later step plans from what the plans before it reached, less its own variables
    (effects are events: a later step needs them anew) unless the user gave them."""
    state = frozenset(known)
    kept = frozenset(given)
    total = 0
    for k in range(step, len(steps)):
        goal = steps[k]
        if k > step:
            state = state - (goal - kept)
        length = plan_length(registry, state, goal)
        if length is None:
            return None
        total += length
        state = state | goal
    return total


def observe(belief: Belief, *, reached: Sequence[int], cost: int | None, ran: bool) -> Belief:
    """The belief after one more call: its steps reached so far, its plan length now, and,
    when the call ran, what it added to delta(G, O). A call takes at most one off a minimal
    plan's length (it and a plan from after it are a plan from before it), so the increment
    is never negative; it is clamped at 0 all the same, because the length of a goal in
    steps is estimated step by step. A goal no plan reached before the call is measured
    from here on."""
    offplan = belief.offplan
    if ran and belief.cost is not None and cost is not None:
        offplan += max(0, 1 + cost - belief.cost)
    return replace(belief, reached=tuple(reached), cost=cost, offplan=offplan)


def leading(beliefs: Sequence[Belief],
            options: RecognitionOptions = DEFAULT_RECOGNITION) -> Belief | None:
    """The candidate of highest weight (the earlier ranked on a tie), None when every
    candidate is dropped or unreachable."""
    best: Belief | None = None
    best_weight = 0.0
    for belief in beliefs:
        weight = belief.weight(options)
        if weight > best_weight:
            best, best_weight = belief, weight
    return best


def plausible(beliefs: Sequence[Belief],
              options: RecognitionOptions = DEFAULT_RECOGNITION) -> tuple[Belief, ...]:
    """Candidates whose weight is at least ``options.plausible`` of the best, by weight (rank
    order on ties), the leading one first."""
    top = leading(beliefs, options)
    if top is None:
        return ()
    floor = top.weight(options) * options.plausible
    ranked = sorted(((b.weight(options), i, b) for i, b in enumerate(beliefs)),
                    key=lambda item: (-item[0], item[1]))
    return tuple(b for w, _, b in ranked if w > 0 and w >= floor)


def union(frontiers: Sequence[tuple[Belief, Sequence[str]]], limit: int) -> tuple[str, ...]:
    """The tools of ``frontiers`` (each a plausible candidate and its next tools, leading
    first): the first whole, then the others' tools, in order, while fewer than ``limit``."""
    shown: list[str] = []
    for position, (_, tools) in enumerate(frontiers):
        for tool in tools:
            if tool in shown:
                continue
            if position > 0 and len(shown) >= limit:
                return tuple(shown)
            shown.append(tool)
    return tuple(shown)


def switch_away(frontiers: Sequence[tuple[Belief, Sequence[str]]],
                shown: Iterable[str]) -> frozenset[str]:
    """Names of the candidates to drop when the tools ``shown`` do not fit: every plausible
    candidate whose next tools all were among them (it offers nothing else)."""
    seen = frozenset(shown)
    return frozenset(b.candidate.name for b, tools in frontiers if frozenset(tools) <= seen)


def by_weight(beliefs: Sequence[Belief],
              options: RecognitionOptions = DEFAULT_RECOGNITION) -> tuple[Belief, ...]:
    """The candidates by weight, the earlier ranked first on a tie."""
    ranked = sorted(enumerate(beliefs), key=lambda item: (-item[1].weight(options), item[0]))
    return tuple(b for _, b in ranked)


def describe_candidates(beliefs: Sequence[Belief],
                        options: RecognitionOptions = DEFAULT_RECOGNITION) -> tuple[str, ...]:
    """One line per candidate, by weight: name, origin, weight, off-plan calls, progress."""
    return tuple(b.describe(options) for b in by_weight(beliefs, options))
