"""A model's switch to other tools: the switch tool, which candidates it sets aside, its answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..filters import Visible
from .recognition import Belief, Origin, switch_away
from .snapshot import Snapshot

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


def switched(now: Snapshot, offers: Sequence[tuple[Belief, Sequence[str]]],
             shown: Sequence[str], reason: str) -> tuple[Belief, ...]:
    """The candidates after a switch: every plausible candidate that offers nothing but
    the tools ``shown`` is set aside, with ``reason`` as why."""
    away = switch_away(offers, shown)
    why = f"the model set it aside: {reason}" if reason else "the model set it aside"
    return tuple(replace(b, dropped=why) if b.candidate.name in away else b
                 for b in now.beliefs)


def switch_text(visible: Visible) -> str:
    """What the model is told after a switch: the tools shown now, or that none is left."""
    if not visible.tools:
        return "No other goal is left to show tools for: answer the user in words."
    return ("The tools of the next most likely goal are shown now: "
            + ", ".join(visible.tools) + ".")
