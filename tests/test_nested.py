"""Records inside records: drafts follow identifiers down a result, the guard counts a value
found inside a result as obtained, a variable without a pointer is the whole result, and the
bundled shop suite runs offline."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planfilter.core.contracts import Registry, Tool
from planfilter.core.provenance import (
    Flow,
    check_flow,
    found_under_keys,
    key_variables,
    listed_with,
)
from planfilter.core.results import extract
from planfilter.core.values import ValueStore
from planfilter.infer.infer import infer_contracts
from planfilter.infer.python_tools import read_python_source, spec_from_function
from planfilter.infer.sources import specs_from_document
from planfilter.live import Session
from planfilter.suites import SuiteOptions, load_bench_suite
from planfilter.suites.shop import tools as shop

SOURCE = "python:planfilter.suites.shop.tools"


def drafted() -> Registry:
    return infer_contracts(read_python_source(SOURCE)).registry


def test_drafts_follow_identifiers_down_the_result():
    reg = drafted()
    order = reg.tool("get_order_details")
    assert order.outputs["product_id"] == "/items/*/product_id"
    assert order.outputs["item_ids"] == "/items/*/item_id"  # a list parameter, a scalar field
    user = reg.tool("get_user_details")
    assert user.outputs["payment_method_id"] == "/payment_methods/*/payment_method_id"
    assert user.outputs["order_id"] == "/order_ids/*"  # a scalar parameter, a list field
    product = reg.tool("get_product_details")
    assert product.outputs["new_item_ids"] == "/variants/*/item_id"
    assert "item_ids" not in product.produces  # its description says: from the order
    # "one of the user's payment methods": from the user's details, not the order's
    assert "payment_method_id" not in reg.tool("get_order_details").produces


def test_two_roles_of_one_tool_stay_two_variables_and_lookups_share_an_identifier():
    reg = drafted()
    exchange = reg.tool("exchange_delivered_order_items")
    assert {"item_ids", "new_item_ids", "order_id", "payment_method_id"} == exchange.requires
    assert exchange.needs == {"logged_in"}  # "Requires authentication": a lookup first
    # both lookups authenticate ("Authenticate a customer: ...") and find one user_id
    for lookup in ("find_user_id_by_name_zip", "find_user_id_by_email"):
        assert reg.tool(lookup).produces == {"user_id"}
        assert reg.tool(lookup).establishes == {"logged_in"}
    assert exchange.produces == {"exchange_delivered_order_items_done"}  # a receipt


def test_an_unedited_draft_equals_the_bundled_draft():
    from planfilter.core.loading import load_registry
    from planfilter.core.resources import domains_file

    bundled = load_registry(domains_file("shop", "drafted", "shop.yaml"))
    for tool in drafted():
        kept = bundled.tool(tool.name)
        assert (tool.requires, tool.produces, tool.needs, tool.establishes,
                dict(tool.outputs)) == (kept.requires, kept.produces, kept.needs,
                                        kept.establishes, dict(kept.outputs))


def _shop_session(registry: Registry, method: str) -> Session:
    session = Session(registry, method=method)
    session.start("exchange", goal="exchange_delivered_order_items_done",
                  known={"first_name": "Mei", "last_name": "Kovacs", "zip": "43215",
                         "order_id": "#W1000001"})
    return session


@pytest.mark.parametrize("method", ["all", "cmtf"])
def test_the_five_correct_calls_pass_the_guard_with_the_drafts(method):
    reg = drafted()
    suite = load_bench_suite("shop", SuiteOptions(registry=()))
    env = suite.environment(suite.cases()[0])
    session = _shop_session(reg, method)
    calls = [("find_user_id_by_name_zip", {"first_name": "Mei", "last_name": "Kovacs",
                                           "zip": "43215"}),
             ("get_user_details", {"user_id": "mei_kovacs_1234"}),
             ("get_order_details", {"order_id": "#W1000001"}),
             ("get_product_details", {"product_id": "8310926033"}),
             ("exchange_delivered_order_items", {
                 "order_id": "#W1000001", "item_ids": ["1000000001"],
                 "new_item_ids": ["1000023758"], "payment_method_id": "gift_card_6000000"})]
    for tool, arguments in calls:
        if method == "cmtf":  # the exchange as goal: each correct call is the plan's next
            # step (then the reads offered for other listed values: the user's other orders)
            assert session.visible().tools[0] == tool
        decision = session.check(tool, arguments)
        assert decision.allowed, decision.reason
        done = env.execute(tool, arguments, session.state)
        assert done.ok, done.error
        session.record(tool, arguments, done.result)
    assert session.done


def test_a_value_inside_a_result_is_obtained_without_a_pointer():
    tool = Tool(name="get_order", requires={"order_id"}, produces={"order_details"},
                parameters={"type": "object", "properties": {"order_id": {"type": "string"}}})
    use = Tool(name="get_product", requires={"product_id"}, produces={"product_details"},
               parameters={"type": "object", "properties": {"product_id": {"type": "string"}}})
    reg = Registry(tools=(tool, use))
    session = Session(reg, method="all")
    session.start("x", goal="product_details", known={"order_id": "#W1"})
    call = session.record("get_order", {"order_id": "#W1"},
                          {"order_id": "#W1", "items": [{"product_id": "900"}]})
    assert call.produced == {"order_details": {"order_id": "#W1",
                                               "items": [{"product_id": "900"}]}}
    assert session.check("get_product", {"product_id": "900"}).allowed
    refused = session.check("get_product", {"product_id": "901"})
    assert refused.kind == "invented"


def test_a_variable_without_a_pointer_is_the_whole_object_from_every_source_form():
    result = {"order_id": "#W1", "status": "delivered", "items": []}
    openai = [{"type": "function", "function": {
        "name": "get_order_details", "description": "Get an order's details.",
        "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}},
                       "required": ["order_id"]}}}]
    mcp = {"tools": [{"name": "get_order_details", "description": "Get an order's details.",
                      "inputSchema": openai[0]["function"]["parameters"]}]}
    declared = {"tools": [{**mcp["tools"][0], "outputSchema": {
        "type": "object", "properties": {"order_id": {"type": "string"},
                                         "status": {"type": "string"},
                                         "items": {"type": "array"}}}}]}
    docs = [{"name": "get_order_details", "description": "Get an order's details.",
             "parameters": openai[0]["function"]["parameters"]}]
    registries = [infer_contracts(specs_from_document(d, "doc")).registry
                  for d in (openai, mcp, declared, docs)]
    registries.append(infer_contracts([spec_from_function(get_order_details, "t")]).registry)
    for reg in registries:
        tool = reg.tool("get_order_details")
        for given_as in (result, json.dumps(result)):
            got = extract(tool, given_as)
            assert got.values and not got.missing, (tool, got)


def get_order_details(order_id: str) -> dict:
    """Get an order's details.

    Args:
        order_id: The order id.
    """
    return {}


def test_a_result_that_fills_nothing_is_reported():
    tool = Tool(name="get_order", produces={"order_details"}, outputs={"order_details": "/x"},
                parameters={"type": "object", "properties": {}})
    session = Session(Registry(tools=(tool,)), method="all")
    session.start("x", goal="order_details")
    call = session.record("get_order", {}, {"y": 1})
    assert call.unfilled and call.missing == ("order_details",)


# -- property: a nested value is obtained exactly when a result held it --------------------

KEYS = ["product_id", "item_id", "note", "order_id"]
VALUES = st.sampled_from(["a1", "b22", "c333", "d4444"])
json_values = st.recursive(
    VALUES, lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(KEYS), inner, max_size=3), max_leaves=12)


def _anywhere(result):
    """Every scalar anywhere in ``result`` (the reference, by plain recursion)."""
    if isinstance(result, dict):
        return [x for v in result.values() for x in _anywhere(v)]
    if isinstance(result, list):
        return [x for v in result for x in _anywhere(v)]
    return [result]


@settings(max_examples=200, deadline=None)
@given(result=json_values, value=VALUES)
def test_a_nested_value_is_obtained_exactly_when_a_result_held_it(result, value):
    """Under whatever key: ``product_id`` inside an order's items, an ``item_id`` taken as
    one of ``item_ids``, an id under ``note``. Names are not provenance."""
    use = Tool(name="get_product", requires={"product_id"}, produces={"product_details"},
               parameters={"type": "object", "properties": {"product_id": {"type": "string"}}})
    take = Tool(name="take_items", requires={"item_ids"}, produces={"taken"},
                parameters={"type": "object", "properties": {"item_ids": {
                    "type": "array", "items": {"type": "string"}}}})
    reg = Registry(tools=(use, take))
    store = ValueStore().with_result(1, "search", result, trusted=True)
    flow = Flow(held=found_under_keys(result, key_variables(reg)), scope="all", store=store)
    invented = check_flow(reg, use, {"product_id": value}, flow)
    assert (not invented) == (value in _anywhere(result))
    listed = check_flow(reg, take, {"item_ids": [value]}, flow)
    assert (not listed) == (value in _anywhere(result))
    if invented:
        assert invented[0].kind == "invented" and "seen nowhere" in invented[0].message


def test_substituted_and_tainted_keep_their_meaning_with_nested_values():
    use = Tool(name="pay", requires={"iban"}, produces={"paid"}, sensitive={"iban"},
               parameters={"type": "object", "properties": {"iban": {"type": "string"}}})
    reg = Registry(tools=(use,))
    found = found_under_keys({"rows": [{"iban": "XX1"}]}, key_variables(reg))
    given_flow = Flow(held=found, given={"iban": ("YY2",)}, scope="all")
    assert [p.kind for p in check_flow(reg, use, {"iban": "XX1"}, given_flow)] == \
        ["substituted"]
    outside = Flow(held=found, outside=({"rows": [{"iban": "XX1"}]},), scope="all")
    assert [p.kind for p in check_flow(reg, use, {"iban": "XX1"}, outside)] == ["tainted"]


# -- the shop suite --------------------------------------------------------------------------

def test_the_shop_suite_has_thirty_tasks_checked_by_the_database():
    suite = load_bench_suite("shop")
    cases = suite.cases()
    assert len(cases) >= 30
    kinds = {c.id.rpartition("_")[0] for c in cases}
    assert {"exchange", "return", "cancel", "order_address", "user_address", "payment",
            "find_order"} <= kinds
    for case in cases:
        env = suite.environment(case)
        assert not env.verdict(None).success  # nothing done: the database is not the goal's
        for call in suite.ground_truth(case, env):
            assert env.execute(call.tool, call.arguments or {}, {}).ok
        assert env.verdict(None).success


def test_a_refused_shop_call_changes_nothing():
    """Each refusal of the shop's tools raises ShopError saying why, and leaves the database
    as it was, also when the refusal comes after the order and its items were checked."""
    data = json.loads(Path(shop.__file__).with_name("database.json").read_text())
    delivered = next(o for o in data["orders"].values() if o["status"] == "delivered")
    pending = next(o for o in data["orders"].values() if o["status"] == "pending")
    item = delivered["items"][0]
    variant = next(v["item_id"] for v in data["products"][item["product_id"]]["variants"]
                   if v["available"] and v["item_id"] != item["item_id"])
    d_id, p_id, paid = delivered["order_id"], pending["order_id"], pending["payment_method_id"]
    refused = [
        (lambda: shop.get_order_details("#W0"), "order '#W0' not found"),
        (lambda: shop.cancel_pending_order(d_id, "no longer needed"),
         f"order '{d_id}' is delivered, not pending"),
        (lambda: shop.return_delivered_order_items(p_id, [pending["items"][0]["item_id"]],
                                                   paid), f"order '{p_id}' is pending, not "
                                                          "delivered"),
        (lambda: shop.return_delivered_order_items(d_id, ["nope"], paid),
         f"item 'nope' is not in order '{d_id}'"),
        (lambda: shop.exchange_delivered_order_items(d_id, [item["item_id"]], [variant],
                                                     "gift_card_0"),
         f"payment method 'gift_card_0' is not one of user '{delivered['user_id']}''s"),
        (lambda: shop.modify_pending_order_payment(p_id, paid),
         f"order '{p_id}' is already paid with '{paid}'"),
        (lambda: shop.modify_user_address("nobody", "1 Road", "Town", "ST", "USA", "00000"),
         "user 'nobody' not found"),
    ]
    before = copy.deepcopy(data)
    with shop.using(data):
        for call, message in refused:
            with pytest.raises(shop.ShopError) as error:
                call()
            assert str(error.value) == message
            assert data == before, message


def test_a_read_stays_offered_for_each_listed_value_until_the_goal():
    from planfilter.core.loading import load_registry
    from planfilter.core.resources import domains_file

    reg = load_registry(domains_file("shop", "shop.yaml"))
    suite = load_bench_suite("shop")
    case = next(c for c in suite.cases() if c.id.startswith("find_order"))
    env = suite.environment(case)
    session = Session(reg, method="cmtf")
    session.start(case.task.query, goal="return_delivered_order_items_done",
                  known={k: v for k, v in case.task.state.items()})
    for call in suite.ground_truth(case, env):
        decision = session.check(call.tool, dict(call.arguments or {}))
        assert decision.allowed, (call, decision.reason)
        done = env.execute(call.tool, call.arguments or {}, session.state)
        session.record(call.tool, call.arguments, done.result)
    assert env.verdict(None).success
    assert "get_order_details" not in session.visible().tools  # the goal is reached


def test_a_plain_result_its_documentation_names_produces_that_variable():
    from planfilter.infer.spec import ToolSpec

    taker = ToolSpec("get_user_details", input_schema={
        "type": "object", "properties": {"user_id": {"type": "string"}},
        "required": ["user_id"]})
    for description, output in (("Who is signed in.\nReturns: The user id.", {"type": "string"}),
                                ("Who is signed in. Returns: str: the user id", None),
                                ("Who is signed in; returns the user's id.", None)):
        who = ToolSpec("whoami", description=description, output_schema=output)
        reg = infer_contracts([who, taker]).registry
        assert reg.tool("whoami").produces == {"user_id"}, description
        assert reg.tool("whoami").outputs == {"user_id": ""}


def whoami() -> str:
    """Who is signed in.

    Returns:
        str: The user id.
    """
    return "u1"


def get_user(user_id: str) -> dict:
    """Get a user.

    Args:
        user_id: The user id.
    """
    return {}


def test_a_python_docstring_return_section_names_the_result():
    specs = [spec_from_function(whoami, "t"), spec_from_function(get_user, "t")]
    assert "Returns: The user id." in specs[0].description
    assert infer_contracts(specs).registry.tool("whoami").produces == {"user_id"}


def test_contracts_edges_compares_a_draft_with_the_review():
    from click.testing import CliRunner

    from planfilter.cli import cli
    from planfilter.core.resources import domains_file

    out = CliRunner().invoke(cli, ["contracts", "edges",
                                   str(domains_file("shop", "drafted", "shop.yaml")),
                                   "--against", str(domains_file("shop", "shop.yaml"))],
                             catch_exceptions=False)
    assert out.exit_code == 0
    assert "recall 1.00" in out.output
    assert "missed:" not in out.output


def test_contracts_check_reports_a_result_that_filled_nothing(tmp_path):
    from click.testing import CliRunner

    from planfilter.cli import cli

    registry = tmp_path / "r.yaml"
    registry.write_text("tools:\n- name: get_order\n  produces: [order_details]\n"
                        "  outputs: {order_details: /x}\n")
    traces = tmp_path / "traces.jsonl"
    traces.write_text(json.dumps({"type": "step", "task": "t", "model": "m", "method": "all",
                                  "seed": 1, "step": 1, "chosen": "get_order",
                                  "arguments": {}, "produced": {}, "unfilled": True,
                                  "state_before": {}}) + "\n")
    out = CliRunner().invoke(cli, ["contracts", "check", str(registry), str(traces)])
    assert "unfilled-result" in out.output


CHANNELS = Registry(tools=(
    Tool(name="get_channels", produces={"channels"}, action="read"),
    Tool(name="get_users_in_channel", produces={"users"}, authored={"channel"}, action="read",
         parameters={"type": "object", "properties": {"channel": {"type": "string"}}}),
    Tool(name="add_user_to_channel", requires={"users"}, produces={"user_added"},
         authored={"channel"}, action="write",
         parameters={"type": "object", "properties": {"channel": {"type": "string"},
                                                      "user": {"type": "string"}}}),
))


def test_a_read_of_a_value_the_model_wrote_stays_offered_for_the_others_listed_beside_it():
    session = Session(CHANNELS, method="cmtf")
    session.start("Add Alice to the channel with the fewest users", goal="user_added")
    session.record("get_channels", {}, ["general", "random", "private"])
    for channel in ("general", "random"):
        session.record("get_users_in_channel", {"channel": channel}, ["Alice", "Bob"])
        assert "get_users_in_channel" in session.visible().tools  # 'private' is not read yet
    session.record("get_users_in_channel", {"channel": "private"}, ["Bob"])
    assert "get_users_in_channel" not in session.visible().tools  # every channel read


@given(st.lists(st.text(min_size=1, max_size=5), min_size=2, max_size=6, unique=True),
       st.data())
def test_listed_with_finds_the_list_a_value_is_in(names, data):
    target = data.draw(st.sampled_from(names))
    as_objects = [{"name": n, "size": i} for i, n in enumerate(names)]
    assert listed_with({"channels": names}, target) == tuple(names)
    assert listed_with({"page": {"channels": as_objects}}, target) == tuple(names)
    assert listed_with({"channels": names}, "not" + "".join(names)) == ()


WEB = Registry(tools=(
    Tool(name="get_webpage", produces={"webpage"}, authored={"url"}, action="read",
         parameters={"type": "object", "properties": {"url": {"type": "string"}}}),
    Tool(name="send_feedback", requires={"webpage"}, produces={"feedback_sent"},
         action="write", risk="medium"),
    Tool(name="get_channels", produces={"channels"}, action="read"),
))


def test_a_read_stays_offered_for_each_value_the_user_listed_while_its_step_is_current():
    session = Session(WEB, method="cmtf")
    session.start("Visit www.a.com and www.b.com and send them feedback",
                  candidates=[[["webpage"], ["feedback_sent"]], ["channels"]],
                  known={"url": ["www.a.com", "www.b.com"]})
    session.record("get_webpage", {"url": "www.a.com"}, "page a")
    assert "get_webpage" in session.visible().tools  # www.b.com is not read yet
    session.record("get_webpage", {"url": "www.b.com"}, "page b")
    assert "get_webpage" not in session.visible().tools
