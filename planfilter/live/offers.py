"""What a session shows: the candidates planned for, the tools each offers, their union."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..filters import Visible
from .candidates import kin_of_variables, kin_reads, listed_kinds, written_kinds
from .recognition import Belief, plausible, union
from .records import json_key
from .repeats import again
from .request_values import linked_by
from .snapshot import Snapshot
from .switching import without_risky

#: (candidate, its next tools) for each candidate planned for, leading first.
Frontier = tuple[Belief, Visible]
#: (candidate, the tools it offers).
Offer = tuple[Belief, tuple[str, ...]]


@dataclass(frozen=True)
class Showing:
    """What the session shows in one state, worked out once for :meth:`visible`,
    :meth:`check` and :meth:`switch` of planfilter.live.Session."""

    #: The candidates planned for, each with its guard's next tools.
    frontiers: tuple[Frontier, ...]
    #: Each frontier's candidate and the tools it offers.
    offers: tuple[Offer, ...]
    #: The union of the offers (:func:`shown`), writes made again aside.
    union: tuple[str, ...]
    #: The writes made for one of several listed values, offered for the others.
    writes: tuple[str, ...]
    #: The tools a call may be of (the union and the writes), before declined ones leave.
    tools: tuple[str, ...]
    #: What :meth:`planfilter.live.Session.visible` answers.
    visible: Visible


def planned_for(now: Snapshot) -> list[Belief]:
    """The candidates whose next tools are shown: each plausible one not reached, leading
    first; once the leading one is reached, those that ask for something it did not reach
    (a request may ask for several things: create the file, then share it); when none is
    reachable, the first standing one (its frontier says why); only the leading one for a
    method that is not goal-directed."""
    lead = now.lead
    # a reached goal calls for no more calls: a call made now is weighed among the
    # candidates not reached, so they are plausible against the best of them
    pool = [b for b in now.beliefs if not b.done] if lead.done else list(now.beliefs)
    beliefs = [b for b in plausible(pool, now.recognition) if not b.done]
    if lead.done:
        beliefs = [b for b in beliefs if not b.candidate.goal <= lead.candidate.goal]
    elif not beliefs:
        beliefs = [b for b in now.beliefs if not b.dropped and not b.done][:1]
    if now.goal_directed:
        return beliefs
    return beliefs[:1] or [lead]  # a baseline keeps its tools at the goal


def showing(now: Snapshot, frontiers: Sequence[Frontier], *, done: bool) -> Showing:
    """What to show, given each planned candidate's next tools (``frontiers``, from
    :func:`planned_for`) and whether the task is done: the union of the candidates' offers,
    then the writes made for one of several listed values; once the goal is reached, only
    those writes. Declined tools leave the visible set (:func:`less_declined`)."""
    reads = again(now, reads=True) if now.goal_directed else ()
    writes = again(now, reads=False) if now.goal_directed else ()
    offers = tuple((b, offered(now, b, v, reads)) for b, v in frontiers)
    joined = shown(now, offers)
    tools = tuple(dict.fromkeys((*joined, *writes))) if frontiers else writes
    if not frontiers:
        if done and writes:
            visible = less_declined(Visible(writes, info=(
                "goal reached; the write made for one of several listed values stays "
                "offered for the others")), now.declined)
        else:
            visible = Visible((), info="goal reached" if done else
                              "no candidate goal left: the model set every one aside")
    elif len(frontiers) == 1:
        visible = less_declined(replace(frontiers[0][1], tools=tools), now.declined)
    else:
        first = frontiers[0][1]
        info = "; ".join(f"{b.candidate.name}: {v.info}" for b, v in frontiers)
        visible = less_declined(Visible(tools, info=f"candidates {info}", planner=first.planner,
                                        fallbacks=first.fallbacks), now.declined)
    return Showing(tuple(frontiers), offers, joined, writes, tools, visible)


def less_declined(visible: Visible, declined: frozenset[str]) -> Visible:
    """``visible`` less the ``declined`` tools; when none is left, the task ends with a
    message saying so."""
    gone = tuple(t for t in visible.tools if t in declined)
    if not gone:
        return visible
    kept = tuple(t for t in visible.tools if t not in declined)
    if kept:
        return replace(visible, tools=kept, declined=gone)
    return replace(visible, tools=(), declined=gone, info=(
        f"the user declined {', '.join(gone)}, and nothing else moves the task "
        "forward now: it ends here (start a new task to be asked again)"))


def shown(now: Snapshot, offers: Sequence[Offer]) -> tuple[str, ...]:
    """The union of the candidates' offers (at most ``recognition.tools`` beyond the leading
    candidate's), then, while several candidates are weighed, the kin of each read shown
    (reads of the same kind of thing, planfilter.live.candidates.kin_reads) and the reads
    a result links to (:func:`linked_reads`) whose inputs are held: the request rarely says
    which of them it means. A read and its kin count as one tool towards the bound."""
    joined = union(offers, now.recognition.tools)
    if not now.weighing:
        return joined
    held = frozenset(now.facts)
    kin = [k for t in joined for k in kin_reads(now.registry).get(t, ())
           if k not in now.declined and now.registry.tool(k).pre <= held]
    linked = [t for t in linked_reads(now) if now.registry.tool(t).pre <= held]
    return tuple(dict.fromkeys((*joined, *kin, *linked)))


def offered(now: Snapshot, belief: Belief, visible: Visible, reads: tuple[str, ...]
            ) -> tuple[str, ...]:
    """The candidate's next tools (:func:`after_listings`), then of ``reads`` (reads to make
    again for another listed value, planfilter.live.repeats.again) those that reached one of
    its steps already or its current one (or a kin of such a read, made in its place) while
    several candidates are weighed, all of them otherwise. After a switch, a candidate the
    request barely supports offers no high-risk tool (planfilter.live.switching). A method
    that is not goal-directed offers what it chose, nothing more."""
    if not visible.tools or not now.goal_directed:
        return visible.tools
    tools = without_risky(now, belief, after_listings(now, belief, visible.tools))
    if len(now.beliefs) > 1:
        kin = kin_of_variables(now.registry)
        steps = belief.candidate.steps[:belief.step + 1]
        reads = tuple(t for t in reads
                      if any(now.registry.tool(t).post & step
                             or any(t in kin.get(v, ()) for v in step) for step in steps))
    return tuple(dict.fromkeys((*tools, *reads)))


def after_listings(now: Snapshot, belief: Belief, tools: tuple[str, ...]) -> tuple[str, ...]:
    """``tools`` less the reads that take names of a kind of thing a listing of the same
    step lists, until that listing is made: a step that asks for the venues of a city and
    their prices shows the prices once the venues are listed, as a plan would if the
    contracts said the names come from the list. A name given needs no list. ``tools``
    itself when nothing would be left."""
    step = belief.candidate.steps[min(belief.step, len(belief.candidate.steps) - 1)]
    listings = [(t, kinds) for t in now.registry.producers(step)
                for kinds in [listed_kinds(t)] if kinds]
    if not listings:
        return tools
    given = {n: True for n, facts in now.facts.items() if any(f.given for f in facts)}
    out = []
    for name in tools:
        wanted = written_kinds(now.registry.tool(name), now.request, given)
        if any(wanted & kinds and lister.name != name and not lister.post <= set(now.facts)
               for lister, kinds in listings):
            continue
        out.append(name)
    return tuple(out) or tools


def linked_reads(now: Snapshot) -> tuple[str, ...]:
    """Reads of a link a result states (planfilter.live.request_values.links_in): a web
    address or a file name in an untrusted call's answer, for a parameter a read takes as
    text the model writes, not read yet, in registry order, declined tools aside. The
    request says what to do with the page; the message says where it is. Only outside
    content links: what it carries is tainted, so the guard's checks hold; a result the
    contracts trust points nowhere, as an attacker may name a thing after a web address."""
    links = tuple(dict.fromkeys(p for facts in now.facts.values() for f in facts
                                for p in f.links))
    if not links:
        return ()
    out: list[str] = []
    for tool in now.registry:
        if not tool.reads or tool.name in now.declined:
            continue
        for param in sorted(tool.authored):
            made = {json_key(c.arguments.get(param)) for c in now.calls
                    if c.ok and c.tool == tool.name}
            if {json_key(v) for v in linked_by(tool, param, links)} - made:
                out.append(tool.name)
                break
    return tuple(out)
