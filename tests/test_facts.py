"""State facts: ``needs`` and ``establishes``, facts without a value (being logged in, a
device switched on). The planner treats them as it treats variables; a successful call
establishes its facts whatever its result says; drafts find them in names and descriptions,
and ``contracts check`` in traces."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import is_plan, note_case, problems

from planfilter import Session
from planfilter.core.compile import compile_problem
from planfilter.core.contracts import Registry, Tool
from planfilter.core.errors import ContractError
from planfilter.core.frontier import compute_frontier
from planfilter.core.loading import load_registry
from planfilter.core.results import extract
from planfilter.infer.facts import draft_facts
from planfilter.infer.infer import infer_contracts
from planfilter.infer.spec import ToolSpec
from planfilter.infer.write import tool_data

FACTS = ("v4", "v5")


def shop() -> Registry:
    return Registry(tools=(
        Tool(name="login", establishes={"logged_in"},
             parameters={"type": "object", "properties": {"user": {"type": "string"}}}),
        Tool(name="get_orders", needs={"logged_in"}, produces={"orders"}),
        Tool(name="cancel_order", needs={"logged_in"}, requires={"order_id"},
             produces={"order_cancelled"}, risk="high",
             parameters={"type": "object", "properties": {"order_id": {"type": "string"}}}),
    ))


def as_facts(registry: Registry, facts: tuple[str, ...] = FACTS) -> Registry:
    """The registry with ``facts`` declared as facts instead of variables."""
    tools = []
    for t in registry:
        fact_set = frozenset(facts)
        tools.append(t.model_copy(update={
            "requires": t.requires - fact_set, "needs": t.requires & fact_set,
            "produces": t.produces - fact_set, "establishes": t.produces & fact_set}))
    return Registry(tools=tuple(Tool.model_validate(t.model_dump()) for t in tools))


# -- the contract -----------------------------------------------------------------------------

def test_pre_and_post_join_variables_and_facts():
    tool = shop().tool("cancel_order")
    assert tool.pre == {"logged_in", "order_id"} and tool.post == {"order_cancelled"}
    assert shop().tool("login").post == {"logged_in"}  # a tool may establish and produce nothing
    assert shop().facts == {"logged_in"}
    assert "logged_in" in shop().produced and "logged_in" in shop().variables


@pytest.mark.parametrize("fields, says", [
    ({"requires": ["a"]}, "must produce at least one variable"),
    ({"produces": ["x"], "needs": ["a"], "requires": ["a"]}, "needs and requires both"),
    ({"produces": ["x"], "establishes": ["x"]}, "establishes and produces both"),
    ({"produces": ["x"], "needs": ["user"],
      "parameters": {"type": "object", "properties": {"user": {"type": "string"}}}},
     "carry a fact"),
])
def test_a_fact_that_is_also_a_value_is_an_error_naming_the_field(tmp_path, fields, says):
    path = tmp_path / "r.yaml"
    path.write_text(yaml.safe_dump({"tools": [{"name": "t", **fields}]}))
    with pytest.raises(ContractError) as err:
        load_registry(path)
    assert f"{path}: tool 't'" in str(err.value) and says in str(err.value)


def test_a_fact_for_one_tool_and_a_value_for_another_names_both(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text(yaml.safe_dump({"tools": [
        {"name": "login", "establishes": ["logged_in"]},
        {"name": "get_orders", "requires": ["logged_in"], "produces": ["orders"]}]}))
    with pytest.raises(ContractError) as err:
        load_registry(path)
    assert "tool 'get_orders' treats 'logged_in' as a variable with a value, while tool " \
           "'login' names it a fact" in str(err.value)


def test_facts_round_trip_through_a_written_contract():
    for tool in shop():
        data = tool_data(tool)
        assert Tool.model_validate(data) == tool
    assert tool_data(shop().tool("login"))["establishes"] == ["logged_in"]
    assert "needs" not in tool_data(shop().tool("login"))  # empty fields are left out


# -- planning ---------------------------------------------------------------------------------

def test_the_plan_sets_up_the_fact_first():
    reg = shop()
    result = compute_frontier(reg, {"order_id"}, {"order_cancelled"}, planner="native")
    assert result.plan == ("login", "cancel_order")
    assert compute_frontier(reg, {"order_id", "logged_in"}, {"order_cancelled"},
                            planner="native").plan == ("cancel_order",)
    problem = compile_problem(reg, {"order_id"}, {"order_cancelled"})
    assert problem.domain.predicates.to_pddl["logged_in"] in problem.domain.text
    unreachable = compute_frontier(reg.subset(["cancel_order"]), {"order_id"},
                                   {"order_cancelled"}, planner="native")
    assert unreachable.frontier == () and "logged_in" in unreachable.reason


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_a_fact_plans_exactly_as_the_same_name_as_a_variable(problem):
    """Declaring variables facts changes no plan: facts are state to the planner."""
    registry, known, goal = problem
    note_case(registry, known, goal)
    with_facts = as_facts(registry)
    for planner in ("native", "pyperplan"):
        plain = compute_frontier(registry, known, goal, planner=planner, fallback=None)
        facts = compute_frontier(with_facts, known, goal, planner=planner, fallback=None)
        assert (facts.status, facts.plan, facts.frontier) == \
            (plain.status, plain.plan, plain.frontier)
        if facts.plan:
            assert is_plan(with_facts, known, goal, facts.plan)


# -- the session ------------------------------------------------------------------------------

results = st.one_of(st.text(max_size=20), st.none(), st.integers(),
                    st.dictionaries(st.sampled_from(["ok", "user", "status"]), st.text(max_size=5)),
                    st.lists(st.integers(), max_size=3))


@settings(max_examples=100, deadline=None)
@given(result=results)
def test_a_successful_call_establishes_its_facts_whatever_it_answers(result):
    assert extract(shop().tool("login"), result).values == {"logged_in": True}
    session = Session(shop())
    session.start("cancel my order", goal="order_cancelled", known={"order_id": "W1"})
    call = session.record("login", {"user": "mei"}, result)
    assert call.ok and not call.unfilled and call.new == {"logged_in"}
    assert session.state["logged_in"] is True
    assert not session.facts["logged_in"][0].untrusted  # a fact carries no outside content
    assert session.visible().tools == ("cancel_order",)


def test_a_call_before_its_fact_holds_is_refused_naming_the_fact_and_who_sets_it_up():
    session = Session(shop())
    session.start("cancel my order", goal="order_cancelled", known={"order_id": "W1"})
    assert session.visible().tools == ("login",)
    decision = session.check("cancel_order", {"order_id": "W1"})
    assert not decision.allowed and decision.kind == "hidden"
    assert "it needs logged_in, which login establishes" in decision.reason
    session.record("login", {"user": "mei"}, error="wrong password")  # a failed call: no fact
    assert "logged_in" not in session.state
    assert session.visible().tools == ("login",)


def test_a_fact_the_user_holds_is_known_at_start():
    session = Session(shop())
    session.start("cancel my order", goal="order_cancelled",
                  known={"order_id": "W1", "logged_in": True})
    assert session.visible().tools == ("cancel_order",)


# -- drafts -----------------------------------------------------------------------------------

def spec(name: str, description: str = "", props: tuple[str, ...] = ()) -> ToolSpec:
    return ToolSpec(name=name, description=description, input_schema={
        "type": "object", "properties": {p: {"type": "string"} for p in props},
        "required": list(props)}, output_schema=None, origin="test")


def test_drafts_find_each_kind_of_state_and_a_tool_named_to_call_first():
    specs = [spec("connect", "Connect to the device."),
             spec("disconnect", "Close the connection."),
             spec("read_sensor", "Read a sensor. Requires an open connection.", ("sensor",)),
             spec("turn_on_lamp", "Turn the lamp on."),
             spec("set_brightness", "Set the brightness; the lamp must be switched on.",
                  ("level",)),
             spec("open_store", "Open the store for the day."),
             spec("add_item", "Add an item. Call `open_store` first.", ("item",)),
             spec("change_directory", "Change the working directory.", ("path",)),
             spec("list_here", "List the files in the current working directory.")]
    facts = draft_facts(specs)
    assert facts.establishes == {
        "change_directory": {"directory_chosen": "rule: sets up directory_chosen (name: change "
                                                 "directory)"},
        "connect": {"connected": "rule: sets up connected (name: connect)"},
        "open_store": {"open_store_called": "rule: add_item's description says "
                                          "'Call `open_store` first'"},
        "turn_on_lamp": {"powered_on": "rule: sets up powered_on (name: turn on)"}}
    assert {t: [n.fact for n in ns] for t, ns in facts.needs.items()} == {
        "add_item": ["open_store_called"], "list_here": ["directory_chosen"],
        "read_sensor": ["connected"], "set_brightness": ["powered_on"]}
    reg = infer_contracts(specs).registry
    assert reg.tool("read_sensor").needs == {"connected"}
    assert reg.tool("connect").establishes == {"connected"}
    assert "established by connect" in reg.tool("read_sensor").inferred["needs"]
    assert compute_frontier(reg, {"sensor"}, reg.tool("read_sensor").produces,
                            planner="native").plan == ("connect", "read_sensor")
    assert reg.tool("add_item").needs == {"open_store_called"}
    assert reg.tool("open_store").establishes == {"open_store_called"}


def test_a_state_nothing_sets_up_is_not_drafted_except_a_login():
    specs = [spec("list_here", "List the files in the current working directory."),
             spec("get_orders", "List orders. Requires authentication.")]
    facts = draft_facts(specs)
    assert facts.establishes == {}
    assert {t: [n.fact for n in ns] for t, ns in facts.needs.items()} == {
        "get_orders": ["logged_in"]}  # the user's session may already be logged in


def test_a_login_nothing_needs_establishes_nothing():
    assert draft_facts([spec("login", "Log in.", ("user",)),
                        spec("get_weather", "The weather.")]).establishes == {}


def test_a_copy_with_other_fields_plans_with_them():
    tool = shop().tool("cancel_order")
    assert tool.pre == {"logged_in", "order_id"}
    copy = tool.model_copy(update={"needs": frozenset()})
    assert copy.pre == {"order_id"} and copy.post == {"order_cancelled"}
