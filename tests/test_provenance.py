"""Provenance and results into state, stated as properties over generated registries."""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import VARIABLES, reached, registries

from planfilter import Session
from planfilter.core.contracts import Registry, Tool
from planfilter.core.provenance import acted_on, held_values, identifies, invented_arguments
from planfilter.core.results import extract
from planfilter.core.values import store_key


def same_by_definition(held, value):
    """One value: the same text without whitespace, or a number and a plain decimal text of
    that number (never a boolean and anything else)."""
    if isinstance(held, bool) or isinstance(value, bool):
        return isinstance(held, bool) and isinstance(value, bool) and held == value
    squeezed = ["".join(str(v).split()) for v in (held, value)]
    if squeezed[0] == squeezed[1]:
        return True
    numbers = [v for v in (held, value) if isinstance(v, int | float)]
    texts = [v for v in (held, value) if isinstance(v, str)]
    if numbers and texts and re.fullmatch(r"-?(0|[1-9]\d*)(\.\d+)?", "".join(texts[0].split())):
        return float("".join(texts[0].split())) == float(numbers[0])
    return bool(len(numbers) == 2 and float(numbers[0]) == float(numbers[1]))


scalars = st.one_of(st.text(max_size=8), st.integers(-5, 5), st.integers(100, 10**6),
                    st.booleans())
values = st.dictionaries(st.sampled_from(VARIABLES), scalars, max_size=6)


@settings(max_examples=200, deadline=None)
@given(registries(), values, st.sampled_from(VARIABLES), scalars)
def test_a_value_the_state_does_not_hold_for_a_produced_variable_is_refused(
        registry, state, variable, value):
    held = held_values(state)
    problems = invented_arguments(registry, {variable: value}, held)
    is_held = variable in state and same_by_definition(state[variable], value)
    refused = variable in registry.produced and not is_held
    reached("refused: produced, not held" if refused else
            "accepted: held" if is_held else "accepted: no tool produces it")
    if refused:
        assert problems and f"argument '{variable}'" in problems[0]
    else:
        assert problems == []


@settings(max_examples=200, deadline=None)
@given(registries(), values)
def test_every_value_the_state_holds_is_accepted(registry, state):
    assert invented_arguments(registry, dict(state), held_values(state)) == []


@settings(max_examples=100, deadline=None)
@given(st.sets(st.sampled_from(VARIABLES), min_size=1, max_size=3),
       st.dictionaries(st.sampled_from([*VARIABLES, "other", "id", "score"]), scalars,
                       max_size=6))
def test_a_json_result_sets_exactly_the_produced_variables_it_gives(produces, result):
    tool = Tool(name="t", produces=produces)
    session = Session(Registry(tools=(tool,)), method="all")
    session.start("r", goal=produces)
    call = session.record("t", {}, result)
    if not produces & set(result):  # keyed by none of them: each is the whole object
        reached("keyed by no produced variable")
        assert call.produced == {k: result for k in produces} and not call.missing
        return
    reached("keyed by some produced variable")
    assert set(call.produced) == produces & set(result)
    assert all(session.state[k] == result[k] for k in call.produced)
    assert set(session.state) == produces & set(result)
    assert set(extract(tool, result).missing) == produces - set(result)


@settings(max_examples=100, deadline=None)
@given(st.sets(st.sampled_from(VARIABLES), min_size=1, max_size=3), st.text(max_size=20))
def test_a_text_result_sets_every_produced_variable_to_the_text(produces, text):
    assume(text.strip()[:1] not in ("{", "["))  # JSON text is read as JSON
    tool = Tool(name="t", produces=produces)
    got = extract(tool, text)
    reached()
    assert got.values == {v: text for v in produces}


@settings(max_examples=100, deadline=None)
@given(registries(), values, st.data())
def test_session_check_holds_given_values_and_refuses_invented_ones(registry, state, data):
    # Every tool takes every variable as an optional string argument, and all are shown, so
    # the data-flow checks are the only ones that can refuse. The state is what the user gave:
    # a value given for one variable was seen, whatever argument carries it (provenance is by
    # value; the user's binding is by variable).
    params = {"type": "object", "properties": {v: {} for v in VARIABLES}}
    registry = Registry(tools=tuple(t.model_copy(update={"parameters": params})
                                    for t in registry))
    session = Session(registry, method="all")
    session.start("r", goal=["never_reached"], known=state)
    tool = data.draw(st.sampled_from(registry.names))
    variable = data.draw(st.sampled_from(VARIABLES))
    value = data.draw(scalars)
    decision = session.check(tool, {variable: value})
    if variable in state:  # bound: exactly what the user gave
        expected = "allowed" if same_by_definition(state[variable], value) else "substituted"
    elif variable in registry.variables:  # seen only if the user gave it for another one
        # by value: its store key (normal form, or blank text) is one the user's values have
        seen = store_key(value) is not None and \
            store_key(value) in {store_key(v) for v in state.values()}
        # a boolean, a count or a date says nothing about where it came from: never invented
        # (a count is an id where a high-risk call acts on it)
        acting = acted_on(registry.tool(tool), variable)
        expected = "allowed" if seen or not identifies(value, {}, acting=acting) \
            else "invented"
    else:  # names no variable: taken as written
        expected = "allowed"
    reached(f"expected: {expected}")
    assert decision.kind == expected, decision.reason
    assert decision.allowed == (expected == "allowed")


def test_text_is_compared_without_its_whitespace():
    registry = Registry(tools=(Tool(name="read", produces=["content"]),))
    held = held_values({"content": "Atlas PRD ... 6 Milestones ..."})
    assert invented_arguments(registry, {"content": "Atlas PRD ... 6 Milestones... "}, held) == []
    assert invented_arguments(registry, {"content": "file_42"}, held)
