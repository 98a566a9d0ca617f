"""Drafts follow collections: a result field holding a collection of a thing produces that
thing's identifier, wherever the tools call it something else (a customer's ``orders``, a
map keyed by payment method id, a catalogue from names to product ids), and a value the model
composes (an expression) is ``authored``. Checked on a held-out tool set the rules were not
written from (``tests/fixtures/outfitter``), drafted by ``contracts infer`` and replayed
through ``Session.check`` over its database."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import held_out_tools
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from planfilter.core.contracts import Registry, Tool
from planfilter.core.frozen import freeze
from planfilter.core.results import MISSING, extract, resolve_pointer
from planfilter.infer.infer import infer_contracts
from planfilter.infer.names import ids_side, names_collection
from planfilter.infer.nested import Field, fields
from planfilter.infer.spec import ToolSpec
from planfilter.live import Session


@pytest.fixture(scope="module")
def held_out(tmp_path_factory) -> Any:
    yield from held_out_tools("outfitter", tmp_path_factory)


@pytest.fixture(scope="module")
def outfitter(held_out) -> Any:
    return held_out[0]


@pytest.fixture(scope="module")
def drafts(held_out) -> Registry:
    """The held-out tools' contracts as ``planfilter contracts infer`` drafts them, unedited."""
    return held_out[1]


def test_collections_of_a_thing_produce_its_identifier(drafts):
    customer = drafts.tool("get_customer")
    assert customer.outputs["order_id"] == "/orders/*"  # orders: ["#K5512083", ...]
    assert customer.outputs["payment_method_id"] == "/payment_methods/~"  # keyed by id
    catalogue = drafts.tool("list_catalogue")
    assert catalogue.outputs["product_id"] == "/*"  # from each product's name to its id
    product = drafts.tool("get_product")
    assert product.outputs["new_item_ids"] == "/variants/*/item_id"  # "variant ... product"
    order = drafts.tool("get_order")
    assert order.outputs["item_ids"] == "/lines/*/item_id"
    assert {"order_id", "item_ids", "new_item_ids", "payment_method_id"} == \
        drafts.tool("exchange_items").requires


def test_what_the_model_composes_is_authored_and_returns_are_purchases(drafts):
    calculate = drafts.tool("calculate")
    assert "expression" in calculate.authored and "expression" not in calculate.requires
    assert "summary" in drafts.tool("transfer_to_staff").authored
    for tool in ("exchange_items", "return_items"):
        assert (drafts.tool(tool).action, drafts.tool(tool).risk) == ("purchase", "high")
    # a read takes its key from the user or a lookup: never authored
    assert "customer_id" in drafts.tool("get_customer").requires


def _answer(outfitter: Any, tool: str, arguments: dict[str, Any]) -> Any:
    """The tool's result as a service would send it (JSON of a record or a map)."""
    result = getattr(outfitter, tool)(**arguments)
    if hasattr(result, "model_dump"):
        return json.dumps(result.model_dump(mode="json"))
    return json.dumps(result) if isinstance(result, dict) else result


#: A customer exchanges a lantern for another variant, works out the difference, pays a
#: pending order with a gift card, and looks up a product known only from the catalogue.
SCRIPT: tuple[tuple[str, dict[str, Any]], ...] = (
    ("find_customer_by_email", {"email": "nora.quill@example.com"}),
    ("get_customer", {"customer_id": "nora_quill_5150"}),
    ("get_order", {"order_id": "#K5512083"}),
    ("list_catalogue", {}),
    ("get_product", {"product_id": "501"}),
    ("get_product", {"product_id": "503"}),
    ("calculate", {"expression": "48 - 42"}),
    ("exchange_items", {"order_id": "#K5512083", "item_ids": ["30112"],
                        "new_item_ids": ["30114"], "payment_method_id": "gift_card_0925"}),
    ("change_order_payment", {"order_id": "#K6630491", "payment_method_id": "gift_card_0925"}),
)


def _replayed(drafts: Registry, outfitter: Any) -> tuple[Session, list[tuple[str, str]]]:
    session = Session(drafts, method="all", policy="always")
    session.start("Exchange my green battery lantern for the solar one and pay my other "
                  "order with my gift card. My email is nora.quill@example.com.",
                  # a step left to do: after the script, every tool is still shown
                  goal=["exchange_items_status", "change_order_payment_done",
                        "cancel_order_done"],
                  known={"email": "nora.quill@example.com"})
    decisions = []
    with outfitter.using(outfitter.load()):
        for tool, arguments in SCRIPT:
            decision = session.check(tool, arguments)
            decisions.append((tool, decision.kind))
            session.record(tool, arguments, _answer(outfitter, tool, arguments))
    return session, decisions


def test_the_correct_calls_are_allowed_and_made_up_ids_refused(drafts, outfitter):
    session, decisions = _replayed(drafts, outfitter)
    assert decisions == [(tool, "allowed") for tool, _ in SCRIPT]
    made_up = [("get_order", {"order_id": "#K0000000"}),
               ("get_product", {"product_id": "999"}),
               ("change_order_payment", {"order_id": "#K6630491",
                                         "payment_method_id": "card_0000"}),
               ("exchange_items", {"order_id": "#K5512083", "item_ids": ["30112"],
                                   "new_item_ids": ["99999"],
                                   "payment_method_id": "card_4410"})]
    for tool, arguments in made_up:
        assert session.check(tool, arguments).kind == "invented", (tool, arguments)


def test_the_drafted_pointers_read_the_ids_out_of_the_results(drafts, outfitter):
    with outfitter.using(outfitter.load()):
        customer = extract(drafts.tool("get_customer"),
                           _answer(outfitter, "get_customer", {"customer_id": "omar_vance_7301"}))
        catalogue = extract(drafts.tool("list_catalogue"),
                            _answer(outfitter, "list_catalogue", {}))
    assert customer.values["order_id"] == ["#K7004417"]
    assert customer.values["payment_method_id"] == ["paypal_2288"]
    assert sorted(catalogue.values["product_id"]) == ["501", "502", "503"]


# -- the pieces --------------------------------------------------------------------------

def test_fields_walk_a_maps_values_and_keys():
    variant = {"type": "object", "properties": {"item_id": {"type": "string"},
                                                "price": {"type": "number"}}}
    schema = {"type": "object", "properties": {
        "variants": {"type": "object", "additionalProperties": variant,
                     "description": "keyed by item id"},
        "prices": {"type": "object", "additionalProperties": {"type": "number"}}}}
    assert fields(schema) == (
        Field(("variants", "*", "item_id"), "string"),
        Field(("variants", "*", "price"), "number"),
        Field(("variants", "~"), "keys", "keyed by item id"),
        Field(("prices",), "array"),  # a map of scalars is a collection, as a list is
    )
    assert Field(("variants", "~"), "keys").pointer == "/variants/~"
    assert Field(("variants", "*", "id"), "string").collection == "variants"


@pytest.mark.parametrize("text, entity, side", [
    ("A mapping from each product's name to its product id.", "product", "values"),
    ("The ids of the customer's orders", "order", "values"),
    ("Order ids, newest first", "order", "values"),
    ("The customer's payment methods, keyed by payment method id.", "payment_method", "keys"),
    ("Maps user ids to display names", "user", "keys"),
    ("Orders of the customer", "order", None),
    ("The ids of the orders' items", "order", None),  # the items' ids
    ("Returns: the ids of the customer's past orders.", "order", "values"),
    ("A mapping from each product's name to its product id.", "order", None),
])
def test_ids_side_reads_which_side_of_a_collection_holds_ids(text, entity, side):
    assert ids_side(text, entity) == side


def test_names_collection():
    assert names_collection("orders", "order")
    assert names_collection("recent_orders", "order")
    assert names_collection("order_list", "order")
    assert names_collection("paymentMethods", "payment_method")
    assert not names_collection("orders", "payment_method")
    assert not names_collection("order_status", "order")


def test_the_keys_token_of_a_pointer():
    doc = {"methods": {"card_1": {"kind": "card"}, "gift_2": {"kind": "gift"}},
           "~": {"a": 1}, "empty": {}}
    assert resolve_pointer(doc, "/methods/~") == ["card_1", "gift_2"]
    assert resolve_pointer(doc, "/~0/a") == 1  # a key '~' is still written '~0'
    assert resolve_pointer(doc, "/methods/~/x") is MISSING  # keys are the last token
    assert resolve_pointer(["a"], "/~") is MISSING
    tool = Tool(name="t", produces=["method_id"], outputs={"method_id": "/methods/~"})
    assert extract(tool, doc).values == {"method_id": ["card_1", "gift_2"]}
    assert extract(tool, {"methods": {}}).missing == ("method_id",)
    with pytest.raises(ValidationError, match="not a JSON Pointer"):
        Tool(name="t", produces=["x"], outputs={"x": "/methods/~2"})


# -- the definitions, for any names ------------------------------------------------------

#: Made-up nouns (no ``s``, so the plural is the noun and an ``s``, and no vowel ending that
#: a plural would hide), none an id word, a verb or a preposition.
NOUNS = st.text(alphabet="bcdfghjklmnprtvwz", min_size=4, max_size=8)


def _spec(name: str, params: dict[str, Any], returns: dict[str, Any] | None = None,
          description: str = "") -> ToolSpec:
    return ToolSpec(name=name, description=description,
                    input_schema=freeze({"type": "object", "properties": params,
                                         "required": sorted(params)}),
                    output_schema=freeze(returns) if returns is not None else None)


@settings(max_examples=40, deadline=None)
@given(st.lists(NOUNS, min_size=4, max_size=4, unique=True))
def test_a_collection_named_for_an_entity_holds_its_ids_whatever_it_is_called(nouns):
    holder, listed, keyed, named = nouns
    text = {"type": "string"}
    record = {"type": "object", "properties": {f"{holder}_id": text, f"{listed}s": {
        "type": "array", "items": text}, f"{keyed}s": {"type": "object", "additionalProperties": {
            "type": "object", "properties": {"note": text}}}}}
    specs = [
        _spec(f"get_{holder}", {f"{holder}_id": text}, record),
        _spec(f"list_{named}_catalogue", {}, {"type": "object", "additionalProperties": text},
              f"Returns: a mapping from each {named}'s name to its {named} id."),
        *(_spec(f"cancel_{e}", {f"{e}_id": text}) for e in (listed, keyed, named)),
    ]
    registry = infer_contracts(specs).registry
    reader = registry.tool(f"get_{holder}")
    assert reader.outputs[f"{listed}_id"] == f"/{listed}s/*"
    assert reader.outputs[f"{keyed}_id"] == f"/{keyed}s/~"
    assert registry.tool(f"list_{named}_catalogue").outputs[f"{named}_id"] == "/*"
    result = {f"{holder}_id": "h1", f"{listed}s": ["a1", "a2"], f"{keyed}s": {"k1": {}}}
    got = extract(reader, result).values
    assert got[f"{listed}_id"] == ["a1", "a2"] and got[f"{keyed}_id"] == ["k1"]


@given(NOUNS)
def test_ids_side_for_any_entity(noun):
    assert ids_side(f"keyed by {noun} id", noun) == "keys"
    assert ids_side(f"from {noun} ids to their names", noun) == "keys"
    assert ids_side(f"from names to {noun} ids", noun) == "values"
    assert ids_side(f"the ids of the user's {noun}s", noun) == "values"
    assert ids_side("the names", noun) is None


def test_a_parameter_described_as_what_the_model_composes_is_authored():
    text = {"type": "string"}
    specs = [_spec("evaluate", {"expr": {**text, "description": "The arithmetic expression "
                                                                "to work out."}}),
             _spec("lookup", {"q": {**text, "description": "A search query"}}),
             _spec("open_file", {"filename": {**text, "description": "The text file's name"}}),
             _spec("fetch_note", {"note_ref": {**text, "description": "The message id"}})]
    registry = infer_contracts(specs).registry
    assert registry.tool("evaluate").authored == {"expr"}
    assert registry.tool("lookup").authored == {"q"}
    assert not registry.tool("open_file").authored  # a name, of a text file
    assert not registry.tool("fetch_note").authored  # an id


def test_a_list_its_description_says_holds_ids_produces_them():
    text = {"type": "string"}
    specs = [_spec("get_history", {"customer_id": text}, {"type": "array", "items": text},
                   "Returns: the ids of the customer's past orders."),
             _spec("cancel_order", {"order_id": text})]
    assert infer_contracts(specs).registry.tool("get_history").outputs["order_id"] == "/*"
