"""A switch moves only to candidates the request supports, shows no high-risk tool of a
candidate the request barely supports, and tells the model the goal it left
(planfilter.live.switching)."""

from types import SimpleNamespace

from planfilter.core.contracts import Registry, Tool
from planfilter.filters import Visible
from planfilter.live.recognition import DEFAULT_RECOGNITION, Belief, Candidate
from planfilter.live.switching import (
    RISKY_FLOOR,
    SWITCH_FLOOR,
    switch_text,
    switched,
    without_risky,
)


def belief(name: str, prior: float) -> Belief:
    return Belief(Candidate(name, (frozenset({f"{name}_done"}),), prior=prior), cost=1)


def test_a_switch_sets_aside_what_it_turned_down_and_what_the_request_barely_supports():
    lead, other, faint = belief("lead", 1.0), belief("other", 0.5), \
        belief("faint", SWITCH_FLOOR / 2)
    now = SimpleNamespace(beliefs=(lead, other, faint), recognition=DEFAULT_RECOGNITION)
    after = {b.candidate.name: b for b in switched(now, [(lead, ("a",)), (other, ("b",))],
                                                   ("a",), "not these")}
    assert "not these" in after["lead"].dropped       # the model turned its tools down
    assert not after["other"].dropped                   # supported: the switch moves here
    assert "barely supports" in after["faint"].dropped  # below SWITCH_FLOOR of the best


def test_after_a_switch_no_high_risk_tool_of_a_faint_candidate_is_shown():
    registry = Registry(tools=(Tool(name="read", produces=["x"]),
                               Tool(name="delete", requires=["x"], produces=["gone"],
                                    risk="high")))
    faint, strong = belief("faint", RISKY_FLOOR / 2), belief("strong", 1.0)
    now = SimpleNamespace(switched_from=1.0, recognition=DEFAULT_RECOGNITION,
                          registry=registry)
    assert without_risky(now, faint, ("read", "delete")) == ("read",)
    assert without_risky(now, strong, ("read", "delete")) == ("read", "delete")
    before = SimpleNamespace(switched_from=0.0, recognition=DEFAULT_RECOGNITION,
                             registry=registry)  # no switch yet: nothing is held back
    assert without_risky(before, faint, ("read", "delete")) == ("read", "delete")


def test_the_model_is_told_the_goal_it_left_and_its_next_tools():
    text = switch_text(Visible(("search_events",)), ("event_updated", ("update_event",)))
    assert text.startswith("You left the goal event_updated (its next tool: update_event).")
    assert text.endswith("search_events.")
    assert "No other goal" in switch_text(Visible(()))
