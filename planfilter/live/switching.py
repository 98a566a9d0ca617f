"""A model's switch to other tools: the switch tool, which candidates it sets aside, its answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..filters import Visible
from .recognition import Belief, Origin, switch_away
from .snapshot import Snapshot, lead_of

#: A switch moves only to candidates the request supports: every candidate whose weight is
#: below this share of the best candidate's (before the switch) is set aside with the ones
#: the model turned down, so a switch never reaches a goal the request barely names.
SWITCH_FLOOR = 0.05
#: After a switch, a high-risk tool is shown only for a candidate whose weight is at least
#: this share of the best candidate's before the first switch.
RISKY_FLOOR = 0.25

#: The tool a model calls to say the tools shown do not fit (see planfilter.live.Session.switch).
SWITCH_TOOL = "ask_for_other_tools"


def switch_tool_schema() -> dict[str, Any]:
    """The switch as an OpenAI function, offered beside the visible tools while a session
    weighs several candidate goals."""
    return {"type": "function", "function": {
        "name": SWITCH_TOOL,
        "description": "Call this when none of the other tools offered is what the user's "
                       "request needs next: the tools of the next most likely goal are shown "
                       "instead.",
        "parameters": {"type": "object", "properties": {"reason": {
            "type": "string", "description": "What the request needs that no tool offered "
                                            "does"}}, "required": ["reason"]}}}


def no_switch(now: Snapshot) -> str | None:
    """Why the session has no candidate to switch to (None: it has): its method follows one
    goal, its goal was given, or the request allows one candidate goal."""
    if now.weighing:
        return None
    if not now.goal_directed:
        return f"method {now.method} follows one goal"
    if all(b.candidate.origin == Origin.GIVEN for b in now.beliefs):
        return "its goal was given"
    return "the request allows one candidate goal"


def best_weight(now: Snapshot) -> float:
    """The weight of the best candidate not set aside (0 when none stands)."""
    return max((b.weight(now.recognition) for b in now.beliefs), default=0.0)


def switched(now: Snapshot, offers: Sequence[tuple[Belief, Sequence[str]]],
             shown: Sequence[str], reason: str) -> tuple[Belief, ...]:
    """The candidates after a switch: every plausible candidate that offers nothing but
    the tools ``shown`` is set aside, with ``reason`` as why, and so is every candidate the
    request barely supports (weight below ``SWITCH_FLOOR`` times the best one's now)."""
    away = switch_away(offers, shown)
    floor = SWITCH_FLOOR * best_weight(now)
    why = f"the model set it aside: {reason}" if reason else "the model set it aside"
    weak = "the request barely supports it: a switch does not move to it"
    return tuple(replace(b, dropped=why) if b.candidate.name in away else
                 replace(b, dropped=weak) if not b.dropped and not b.done
                 and b.weight(now.recognition) < floor else b
                 for b in now.beliefs)


def after_switch(now: Snapshot, offers: Sequence[tuple[Belief, Sequence[str]]],
                 shown: Sequence[str], reason: str
                 ) -> tuple[tuple[Belief, ...], float, tuple[str, tuple[str, ...]] | None]:
    """Returns the candidates after a switch (:func:`switched`), the best weight at the
    first switch (``now.switched_from``, or the best weight now at the first), and the goal
    the switch left with the tools it offered (None when the leading candidate stays)."""
    lead, beliefs = now.lead, switched(now, offers, shown, reason)
    left = None if lead_of(beliefs, now.recognition).candidate == lead.candidate else (
        lead.candidate.name, tuple(next((t for b, t in offers if b == lead), ())))
    return beliefs, now.switched_from or best_weight(now), left


def without_risky(now: Snapshot, belief: Belief, tools: tuple[str, ...]) -> tuple[str, ...]:
    """``tools`` less the high-risk ones when a switch was made (``now.switched_from``: the
    best weight then) and ``belief`` weighs less than ``RISKY_FLOOR`` times that."""
    if not now.switched_from or \
            belief.weight(now.recognition) >= RISKY_FLOOR * now.switched_from:
        return tools
    return tuple(t for t in tools if now.registry.tool(t).risk != "high")


def switch_text(visible: Visible, left: tuple[str, tuple[str, ...]] | None = None) -> str:
    """What the model is told after a switch: the goal it left and that goal's next tools
    (``left``, when the switch set the leading candidate aside), then the tools shown now, or
    that none is left."""
    before = ""
    if left is not None:
        name, tools = left
        before = (f"You left the goal {name}" + (f" (its next tool: {', '.join(tools)})"
                                                 if tools else "") + ". ")
    if not visible.tools:
        return before + "No other goal is left to show tools for: answer the user in words."
    return (before + "The tools of the next most likely goal are shown now: "
            + ", ".join(visible.tools) + ".")
