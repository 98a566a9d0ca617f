"""Candidate goals that join after the start: a request's later parts, a document's goals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core.contracts import Registry
from .candidates import candidate_goals
from .delegation import Delegation, document_reads, document_text
from .goals import GoalOption, resolve_goal
from .progress import planning_state
from .recognition import Belief, Candidate, Origin, remaining_cost
from .records import Call
from .snapshot import Snapshot


def delegated_reads(registry: Registry, found: Delegation,
                    candidates: Sequence[Candidate]) -> list[Belief]:
    """The reads of the document a request hands what to do to, as candidates weighed as
    much as the first of ``candidates``, less those already among them."""
    held = {c.steps for c in candidates}
    return [Belief(Candidate(o.name, o.goal_steps, candidates[0].prior, Origin.DELEGATED))
            for o in document_reads(registry, found) if o.goal_steps not in held]


def _best_open_weight(now: Snapshot) -> float:
    """The weight of the best candidate not reached (the lead's when none is left)."""
    return max((b.weight(now.recognition) for b in now.beliefs if not b.done),
               default=now.lead.weight(now.recognition))


def with_later_parts(now: Snapshot, parts: Sequence[GoalOption]) -> tuple[Belief, ...]:
    """The candidates once the leading one is reached: the request's later parts (the
    action each of its sentences asks for, planfilter.live.candidates.request_parts) whose
    answer is not held join them, weighed from this call on (the calls that served the part
    before are on none of their plans, and do not count against them). The first weighs as
    much as the best candidate not reached (the lead's weight when none is left), each next
    one ``decay`` times the one before. A candidate of the same steps already held is
    replaced."""
    given = frozenset(now.given())
    weight = _best_open_weight(now)
    beliefs = list(now.beliefs)
    for i, option in enumerate(parts):
        if option.variables <= set(now.facts):
            continue  # its answer is held already
        beliefs = [b for b in beliefs if b.candidate.steps != option.goal_steps]
        candidate = Candidate(option.name, option.goal_steps,
                              weight * now.recognition.decay ** i, Origin.LATER_PART)
        belief = Belief(candidate, since=len(now.calls))
        state = planning_state(replace(now, beliefs=tuple(beliefs)), belief)
        cost = remaining_cost(now.registry, state, candidate.steps, 0, given)
        beliefs.append(replace(belief, cost=cost))
    return tuple(beliefs)


def reads_document(registry: Registry, found: Delegation, call: Call) -> bool:
    """``call`` is a read (ran or tried) of the document the request hands what to do to:
    an untrusted read whose arguments name it."""
    contract = registry.tool(call.tool) if call.tool in registry else None
    return contract is not None and contract.reads and contract.untrusted and \
        found.is_source(call.arguments)


def after_delegated_call(now: Snapshot, found: Delegation, call: Call, result: Any
                         ) -> tuple[Delegation | None, tuple[Belief, ...] | None]:
    """Returns, for a ``call`` made while the document the request delegates to (``found``)
    is unread: the delegation still awaited (None once a read of it ran) and the candidates
    now (None: unchanged). The document's goals joined exactly when the first is None and
    the second is not (``call`` then is the read they came from). A read of it that ran: its
    goals join (:func:`with_document_goals`); a failed try of it: nothing changes; another
    call: the offer of the document's read is set aside (:func:`without_delegated`; a read
    the request's own candidates make still counts when it comes)."""
    if not reads_document(now.registry, found, call):
        return found, without_delegated(now.beliefs)
    if not call.ok:
        return found, None
    return None, with_document_goals(now, result)


def without_delegated(beliefs: Sequence[Belief]) -> tuple[Belief, ...]:
    """``beliefs`` with the offer of the document's read set aside: another call came
    first."""
    return tuple(replace(b, dropped="the document was not read first")
                 if b.candidate.origin == Origin.DELEGATED and not b.dropped else b
                 for b in beliefs)


def with_document_goals(now: Snapshot, result: Any) -> tuple[Belief, ...] | None:
    """The candidates once the document the request delegates to came back
    (planfilter.live.delegation): the goals its text gives (ranked by retrieval, as a
    request is), less those whose answer is held, lead the candidates not reached. The
    first a plan reaches weighs as much as the best of those (the lead's weight when none is
    left), the others by their priors; each has origin DOCUMENT and the last call as its
    ``call``. None when the text is empty or gives no goal a plan reaches: nothing
    changes."""
    text = document_text(result)
    if not text.strip():
        return None
    context: Mapping[str, Any] = now.given()
    given = frozenset(context)
    resolution = resolve_goal(now.registry, text, resolver="retrieval")
    found = [c for c in candidate_goals(now.registry, resolution, text, context,
                                        now.recognition)
             if not c.goal <= set(now.facts)]
    if not found:
        return None
    reachable = [c for c in found if remaining_cost(
        now.registry, planning_state(now, Belief(c)), c.steps, 0, given) is not None]
    if not reachable:
        return None
    scale = _best_open_weight(now) / reachable[0].prior
    held = {c.steps for c in found}
    read = len(now.calls)
    return tuple([Belief(replace(c, prior=c.prior * scale, origin=Origin.DOCUMENT, call=read))
                  for c in found] + [b for b in now.beliefs if b.candidate.steps not in held])
