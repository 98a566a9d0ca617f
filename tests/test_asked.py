"""A goal of parts is narrowed to the part a request names when what it leaves out is a side
effect (planfilter.live.goal_parts), before the model is asked again."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import reached
from test_agent import script  # noqa: F401  (the scripted litellm provider fixture)

from planfilter.core.loading import load_registry
from planfilter.core.resources import default_registry
from planfilter.live import resolve_goal
from planfilter.live.goal_parts import (
    named,
    only_part_asked,
    side_effect,
    stem,
    text_of,
    words_of,
)
from planfilter.live.goals import SET_GOAL, goal_vocabulary, parts_of

REGISTRY = load_registry(default_registry())
OPTIONS = {o.name: o for o in goal_vocabulary(REGISTRY)}
#: The registry's goals of parts whose parts make up the whole: (whole, parts).
WHOLES = [(o, parts_of(REGISTRY, o.name)) for o in OPTIONS.values()
          if parts_of(REGISTRY, o.name)
          and frozenset().union(*(p.variables for p in parts_of(REGISTRY, o.name)))
          == o.variables]
#: Those with one part that has no side effect and others that are side effects.
READ_THEN_ACT = [(w, ps) for w, ps in WHOLES
                 if sum(not side_effect(REGISTRY, p) for p in ps) == 1
                 and any(side_effect(REGISTRY, p) for p in ps)]


def _own_words(parts, i) -> list[str]:
    """The words of part ``i``'s name, producers and actions that stand for it alone."""
    stems = [words_of(REGISTRY, p) for p in parts]
    others = frozenset().union(*(w for j, w in enumerate(stems) if j != i))
    text = text_of(REGISTRY, parts[i])
    return sorted({w for w in text.replace("_", " ").split()
                   if stem(w) in stems[i] - others})


@pytest.mark.parametrize("forms", [
    ("summarize", "summarise", "summary", "summarized", "summaries"),
    ("share", "shared", "sharing"), ("cancel", "cancelled", "canceled"),
    ("reply", "replied", "replies"), ("remind", "reminder", "reminders"),
    ("email", "emails", "emailed"), ("update", "updated", "updating"),
])
def test_inflected_forms_of_a_word_are_one_stem(forms):
    assert len({stem(f) for f in forms}) == 1


def test_the_bundled_registry_has_goals_that_add_a_side_effect_to_a_read():
    names = {w.name for w, _ in READ_THEN_ACT}
    assert {"summarize_email_then_send", "summarize_document_then_comment",
            "deadline_then_send", "action_items_then_reply"} <= names


@settings(deadline=None)  # a first call (caches cold) can take over the default 200 ms
@given(st.sampled_from(READ_THEN_ACT), st.data())
def test_a_request_naming_only_the_read_is_narrowed_to_it(pair, data):
    whole, parts = pair
    read = next(i for i, p in enumerate(parts) if not side_effect(REGISTRY, p))
    word = data.draw(st.sampled_from(_own_words(parts, read)))
    request = f"Please {word.upper()} it for me"
    assert only_part_asked(REGISTRY, request, whole, parts) is parts[read]


@settings(deadline=None)  # a first call (caches cold) can take over the default 200 ms
@given(st.sampled_from(WHOLES), st.data())
def test_a_request_naming_every_part_keeps_the_whole(pair, data):
    whole, parts = pair
    owned = [_own_words(parts, i) for i in range(len(parts))]
    assume(all(owned))  # a part no word of its own stands for is never named
    reached()
    words = [data.draw(st.sampled_from(w)) for w in owned]
    request = " and then ".join(words)
    assert named(REGISTRY, request, parts) == (True,) * len(parts)
    assert only_part_asked(REGISTRY, request, whole, parts) is None


@settings(deadline=None)  # a first call (caches cold) can take over the default 200 ms
@given(st.sampled_from(WHOLES), st.text(alphabet="xyzqj ", max_size=30))
def test_a_request_naming_no_part_is_left_to_the_model(pair, request):
    whole, parts = pair
    assert only_part_asked(REGISTRY, request, whole, parts) is None


def test_a_side_effect_the_request_names_is_kept_and_a_read_is_never_dropped():
    whole = OPTIONS["summarize_email_then_send"]
    parts = parts_of(REGISTRY, whole.name)
    asked = "Summarize Dana's email and send the summary to Bob"
    assert only_part_asked(REGISTRY, asked, whole, parts) is None
    # naming only the side effect leaves the choice to the model: a read is not dropped
    assert only_part_asked(REGISTRY, "Send it to Bob", whole, parts) is None
    # a word both parts share (email) names neither
    assert named(REGISTRY, "the email from Dana", parts) == (False, False)
    # parts that are both side effects or both reads are the model's to choose between
    both = OPTIONS["move_event_and_remind"]
    assert only_part_asked(REGISTRY, "remind me before it",
                           both, parts_of(REGISTRY, both.name)) is None


def test_the_resolver_narrows_without_asking_again(script):  # noqa: F811
    script.call(SET_GOAL, goal="summarize_email_then_send", known={"email_topic": "budget"})
    resolution = resolve_goal(REGISTRY, "Summarize the email from Dana about the budget",
                              model="script/m")
    assert resolution.goal == {"email_summary"} and resolution.steps == ()
    assert resolution.name == "email_summary" and resolution.known == {"email_topic": "budget"}
    assert len(script.seen) == 1 and resolution.input_tokens == 100 and resolution.replies == 1
    assert any("narrowed summarize_email_then_send to email_summary" in n
               for n in resolution.notes)
    assert not any(c.startswith("email_summary:") for c in resolution.candidates)
    # both asked for: put to the model again beside its parts, whose answer stands
    script.seen.clear()
    script.call(SET_GOAL, goal="summarize_email_then_send")
    script.call(SET_GOAL, goal="summarize_email_then_send")
    whole = resolve_goal(REGISTRY, "Summarize the email from Dana and send it to Bob",
                         model="script/m")
    assert whole.steps == (frozenset({"email_summary"}), frozenset({"email_sent"}))
    assert len(script.seen) == 2
