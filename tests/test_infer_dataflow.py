"""Drafting from result shapes (records, lists, generic keys), the data-flow fields
(authored, untrusted, sensitive), risk on money/credentials/membership, and login facts."""

from __future__ import annotations

import pytest

from planfilter.infer.infer import infer_contracts
from planfilter.infer.risk import risk_of
from planfilter.infer.sources import spec_from_item
from planfilter.infer.spec import ToolSpec

EVENT = {"type": "object", "properties": {
    "id_": {"type": "string"}, "title": {"type": "string"}, "start_time": {"type": "string"},
    "description": {"type": "string"}}}
FILE = {"type": "object", "properties": {
    "id_": {"type": "string"}, "filename": {"type": "string"}, "content": {"type": "string"}}}


def tool(name: str, params: dict | None = None, required=(), output=None, description="",
         annotations=None) -> ToolSpec:
    item = {"name": name, "description": description,
            "inputSchema": {"type": "object",
                            "properties": {p: ({"type": t} if isinstance(t, str) else t)
                                           for p, t in (params or {}).items()},
                            "required": list(required)}}
    if output is not None:
        item["outputSchema"] = output
    if annotations:
        item["annotations"] = annotations
    return spec_from_item(item, "test")


def listing(item: dict) -> dict:
    return {"type": "array", "items": {"$ref": "#/$defs/Item"}, "$defs": {"Item": item}}


CALENDAR = [
    tool("create_calendar_event", {"title": "string", "start_time": "string"},
         ("title", "start_time"), EVENT),
    tool("search_calendar_events", {"query": "string"}, ("query",), listing(EVENT)),
    tool("cancel_calendar_event", {"event_id": "string"}, ("event_id",), {"type": "string"}),
    tool("add_calendar_event_participants", {"event_id": "string", "participants": "array"},
         ("event_id", "participants"), EVENT),
]


def test_list_output_yields_the_singular_input_of_the_same_entity():
    specs = [tool("get_labels", output={"type": "array", "items": {"type": "string"}}),
             tool("add_label_to_thread", {"thread_id": "string", "label": "string"},
                  ("thread_id", "label")),
             tool("get_threads_with_label", {"label": "string"}, ("label",),
                  {"type": "array", "items": {"type": "string"}}),
             tool("archive_thread", {"thread_id": "string"}, ("thread_id",))]
    reg = infer_contracts(specs).registry
    labels = reg.tool("get_labels")
    assert labels.produces == {"label", "labels"}
    assert dict(labels.outputs) == {"label": "/*", "labels": ""}
    threads = reg.tool("get_threads_with_label")
    assert dict(threads.outputs) == {"thread_id": "/*", "threads": ""}
    assert reg.tool("add_label_to_thread").produces == {"add_label_to_thread_done"}, \
        "labelling an existing thread makes no new thread"


def test_a_party_named_by_its_name_is_written_by_the_model_even_where_a_tool_lists_them():
    """A user, a recipient, a channel: prose names them as often as lists do (the new
    colleague in a message, the channel a page mentions). Written, and sensitive on a
    high-risk tool; the listing no longer produces them, since nothing requires them."""
    message = {"type": "object", "properties": {"sender": {"type": "string"},
                                                "recipient": {"type": "string"},
                                                "body": {"type": "string"}}}
    names = {"type": "array", "items": {"type": "string"}}
    specs = [tool("get_channels", output=names),
             tool("get_users_in_channel", {"channel": "string"}, ("channel",), names),
             tool("read_channel_messages", {"channel": "string"}, ("channel",),
                  listing(message)),
             tool("add_user_to_channel", {"user": "string", "channel": "string"},
                  ("user", "channel"), description="Add a user to a given channel."),
             tool("send_direct_message", {"recipient": "string", "body": "string"},
                  ("recipient", "body"), description="Send a direct message."),
             tool("delete_message", {"message_id": "string"}, ("message_id",))]
    reg = infer_contracts(specs).registry
    add = reg.tool("add_user_to_channel")
    assert add.risk == "high" and add.requires == frozenset()
    assert add.authored == {"user", "channel"} and add.sensitive == {"user", "channel"}
    assert "a party named in text" in add.inferred["authored"]
    dm = reg.tool("send_direct_message")
    assert dm.authored == {"recipient", "body"} and dm.sensitive == {"recipient"}
    assert reg.tool("get_channels").produces == {"channels"}
    assert reg.tool("read_channel_messages").produces == {"channel_messages"}
    read = reg.tool("get_users_in_channel")
    assert read.authored == {"channel"} and read.sensitive == frozenset()  # a low-risk read
    assert reg.tool("delete_message").requires == {"message_id"}  # an id keeps its check


def test_an_email_address_no_result_has_is_read_out_of_text_one_a_tool_returns_is_held():
    contact = {"type": "object", "properties": {"name": {"type": "string"},
                                                "email": {"type": "string"}}}
    page = tool("get_webpage", {"url": "string"}, ("url",), {"type": "string"})
    invite = tool("invite_user", {"user_email": "string"}, ("user_email",),
                  description="Invite a user to the workspace.")
    # no result has an e-mail field: the invitee's address is read out of a page or typed
    alone = infer_contracts([page, invite]).registry.tool("invite_user")
    assert alone.authored == {"user_email"} and alone.sensitive == {"user_email"}
    assert "an address (read out of text)" in alone.inferred["authored"]
    # no tool declares its result: nothing says where addresses come from, so it stays held
    assert infer_contracts([invite]).registry.tool("invite_user").requires == {"user_email"}
    share = tool("share_file", {"file_id": "string", "email": "string"}, ("file_id", "email"),
                 description="Share a file with a user.")
    specs = [tool("search_contacts", {"query": "string"}, ("query",), listing(contact)),
             share, invite]
    reg = infer_contracts(specs).registry
    # a contact list returns e-mail addresses: addresses are data the system holds
    assert reg.tool("share_file").requires == {"file_id", "email"}
    assert reg.tool("search_contacts").produces >= {"email"}
    assert reg.tool("invite_user").requires == {"user_email"}


def test_a_yes_no_choice_is_the_models():
    specs = [tool("schedule_transaction", {"recipient": "string", "recurring": "boolean",
                                           "notify": {"anyOf": [{"type": "boolean"},
                                                                {"type": "null"}]}},
                  ("recipient", "recurring"))]
    pay = infer_contracts(specs).registry.tool("schedule_transaction")
    assert {"recurring", "notify"} <= pay.authored and "recurring" not in pay.requires
    assert "a yes/no choice" in pay.inferred["authored"]


def test_list_of_records_points_into_every_item():
    reg = infer_contracts(CALENDAR).registry
    search = reg.tool("search_calendar_events")
    assert dict(search.outputs) == {"event_id": "/*/id_", "calendar_events": ""}


def test_a_create_effect_is_distinct_from_the_id_a_read_returns():
    reg = infer_contracts(CALENDAR).registry
    create = reg.tool("create_calendar_event")
    assert create.produces == {"calendar_event_created", "event_id"}
    assert dict(create.outputs) == {"calendar_event_created": "", "event_id": "/id_"}
    assert "calendar_event_created" not in reg.tool("search_calendar_events").produces
    # a tool that takes the event's id acts on it: its record result is a receipt
    add = reg.tool("add_calendar_event_participants")
    assert dict(add.outputs) == {"add_calendar_event_participants_done": ""}
    # a string result: the effect is the whole result
    assert dict(reg.tool("cancel_calendar_event").outputs) == {"cancel_calendar_event_done": ""}


def test_read_of_one_record_yields_its_details_and_the_fields_others_require():
    specs = [tool("get_file_by_id", {"file_id": "string"}, ("file_id",), FILE),
             tool("rename", {"filename": "string"}, ("filename",)),
             tool("list_files", output=listing(FILE))]
    reg = infer_contracts(specs).registry
    assert dict(reg.tool("get_file_by_id").outputs) == {"filename": "/filename",
                                                        "file_details": ""}
    assert dict(reg.tool("list_files").outputs) == {"file_id": "/*/id_",
                                                    "filename": "/*/filename", "files": ""}


def test_generic_result_keys_are_qualified_per_tool():
    status = {"type": "object", "properties": {"status": {"type": "string"},
                                               "message": {"type": "string"}}}
    reg = infer_contracts([tool("deploy_app", output=status),
                           tool("restart_app", output=status)]).registry
    assert reg.tool("deploy_app").produces == {"deploy_app_status", "deploy_app_message"}
    assert dict(reg.tool("deploy_app").outputs) == {"deploy_app_status": "/status",
                                                    "deploy_app_message": "/message"}
    assert reg.tool("restart_app").produces == {"restart_app_status", "restart_app_message"}


def test_authored_free_text_and_dates_leave_requires_with_evidence():
    specs = [tool("send_email", {"recipients": {"type": "array", "items": {"type": "string"}},
                                 "subject": "string", "body": "string",
                                 "email_id": "string"},
                  ("recipients", "subject", "body")),
             tool("reserve_hotel", {"hotel": "string", "start_day": "string",
                                    "when": {"type": "string", "format": "date"}},
                  ("hotel", "start_day", "when"))]
    reg = infer_contracts(specs).registry
    mail = reg.tool("send_email")
    # a list of people the model assembles: written, and sensitive whatever the risk
    assert mail.authored == {"subject", "body", "recipients"} and mail.requires == set()
    assert mail.sensitive == {"recipients"}
    assert mail.inferred["authored"] == "rule: a list of people (the model assembles it) or " \
                                        "free text no tool produces (recipients, subject, body)"
    assert "less the authored (recipients, subject, body)" in mail.inferred["requires"]
    hotel = reg.tool("reserve_hotel")
    assert hotel.authored == {"start_day", "when"} and hotel.requires == {"hotel"}
    assert "a date" in hotel.inferred["authored"] and "format date" in hotel.inferred["authored"]


def test_free_text_named_as_a_hurried_team_shortens_it_is_authored():
    reg = infer_contracts([tool("send_msg", {"uid": "string", "subj": "string",
                                             "msg": "string"}, ("uid", "subj", "msg")),
                           tool("book", {"vehicle_id": "string", "concern": "string"},
                                ("vehicle_id", "concern"))]).registry
    assert reg.tool("send_msg").authored == {"subj", "msg"}
    assert reg.tool("send_msg").requires == {"uid"}
    assert reg.tool("book").authored == {"concern"}  # what the customer says is wrong


def test_names_a_read_lists_only_in_text_are_authored_with_evidence():
    text = {"type": "string"}
    names = {"type": "array", "items": {"type": "string"}}
    prices = {"type": "object", "properties": {"prices": {"type": "object"}}}
    specs = [tool("get_all_hotels_in_city", {"city": "string"}, ("city",), text),
             tool("get_hotels_prices", {"hotel_names": names}, ("hotel_names",), prices),
             tool("reserve_hotel", {"hotel": "string", "hotel_id": "string"},
                  ("hotel", "hotel_id")),
             tool("get_all_car_rental_companies_in_city", {"city": "string"}, ("city",),
                  {"anyOf": [text, {"type": "null"}]}),  # ``str | None`` lists text too
             tool("get_car_types_available", {"company_name": "string"}, ("company_name",),
                  prices)]
    reg = infer_contracts(specs).registry
    prices_tool = reg.tool("get_hotels_prices")
    assert prices_tool.authored == {"hotel_names"} and prices_tool.requires == frozenset()
    assert prices_tool.inferred["authored"] == (
        "rule: a name read out of get_all_hotels_in_city's text no tool produces (hotel_names)")
    assert "less the authored (hotel_names)" in prices_tool.inferred["requires"]
    # the thing itself is a name too; an id is a structured value, never read out of text
    assert reg.tool("reserve_hotel").authored == {"hotel"}
    assert reg.tool("reserve_hotel").requires == {"hotel_id"}
    assert reg.tool("get_car_types_available").authored == {"company_name"}  # companies
    # what a listing filters by is not what it lists
    assert reg.tool("get_all_hotels_in_city").requires == {"city"}


def test_a_text_that_is_one_thing_or_a_structured_list_makes_no_name_authored():
    text = {"type": "string"}
    specs = [tool("get_hotel_of_the_day", output=text),  # singular: the text is the value
             tool("list_restaurants", output={"type": "array", "items": {"type": "string"}}),
             tool("reserve_hotel", {"hotel_name": "string"}, ("hotel_name",)),
             tool("reserve_restaurant", {"restaurant": "string"}, ("restaurant",))]
    reg = infer_contracts(specs).registry
    assert reg.tool("reserve_hotel").authored == frozenset()
    assert reg.tool("reserve_hotel").requires == {"hotel_name"}
    restaurant = reg.tool("reserve_restaurant")  # a structured list links its items instead
    assert restaurant.authored == frozenset() and restaurant.requires == {"restaurant"}
    assert "restaurant" in reg.tool("list_restaurants").produces


def test_text_a_read_yields_is_not_authored():
    specs = [tool("read_email", {"email_id": "string"}, ("email_id",)),
             tool("summarize_email", {"email_body": "string"}, ("email_body",)),
             tool("search", {"query": "string"}, ("query",),
                  {"type": "object", "properties": {"email_id": {"type": "string"}}})]
    reg = infer_contracts(specs).registry
    assert reg.tool("read_email").produces == {"email_body"}
    assert reg.tool("summarize_email").requires == {"email_body"}
    assert reg.tool("summarize_email").authored == frozenset()
    assert reg.tool("search").authored == {"query"}


def test_prose_a_change_carries_is_written_even_where_a_read_shows_a_field_so_called():
    """A claim's description in the customer's words is written, not copied from the claim a
    read showed; a read that takes text (to summarise it) still takes what a tool yields,
    and an entity's own text (``ticket_body`` where ``ticket_id`` exists) stays required."""
    claim = {"type": "object", "properties": {"claim_no": {"type": "string"},
                                              "description": {"type": "string"},
                                              "summary": {"type": "string"}}}
    specs = [tool("get_claim", {"claim_no": "string"}, ("claim_no",), claim),
             tool("file_claim", {"order_id": "string", "description": "string"},
                  ("order_id", "description"), claim,
                  description="Open a warranty claim for a delivered item."),
             tool("summarize", {"summary": "string"}, ("summary",), {"type": "string"}),
             tool("get_ticket", {"ticket_id": "string"}, ("ticket_id",),
                  {"type": "object", "properties": {"ticket_body": {"type": "string"}}}),
             tool("escalate_ticket", {"ticket_body": "string"}, ("ticket_body",))]
    reg = infer_contracts(specs).registry
    filed = reg.tool("file_claim")
    assert filed.authored == {"description"} and filed.requires == {"order_id"}
    assert (filed.action, filed.risk) == ("create", "medium")  # opening a claim starts one
    assert reg.tool("summarize").requires == {"summary"} and not reg.tool("summarize").authored
    assert reg.tool("escalate_ticket").requires == {"ticket_body"}


def test_text_described_as_written_in_words_is_the_models():
    """A claim's ``condition``, "in plain words", is the model's prose, even where a read
    shows a field so called; a condition described as a code is not."""
    worded = {"type": "string", "description": "the condition being claimed for, in plain "
                                               "words."}
    coded = {"type": "string", "description": "the condition's code from the list."}
    claim = {"type": "object", "properties": {"condition": {"type": "string"}}}
    specs = [tool("get_claim", {"claim_no": "string"}, ("claim_no",), claim),
             tool("submit_claim", {"pet_id": "string", "condition": worded},
                  ("pet_id", "condition")),
             tool("submit_code", {"pet_id": "string", "condition": coded},
                  ("pet_id", "condition"))]
    reg = infer_contracts(specs).registry
    assert reg.tool("submit_claim").authored == {"condition"}
    assert "condition" in reg.tool("submit_code").requires


@pytest.mark.parametrize("param, said", [
    ("circumstances", "what the student went through."),  # a noun of prose
    ("complaint", "the complaint."),
    ("grounds", "the student's account of what happened."),  # described as an account
    ("details", "what the query is about."),
    ("focus", "what the pupil wants to work on, passed to the professional."),
    ("symptoms", "what the pet owner has noticed."),
])
def test_an_account_in_the_users_words_is_the_models(param, said):
    """An extenuating-circumstances claim's ``circumstances``, a ``complaint``, or text
    described as someone's account of what happened: prose the model writes."""
    specs = [tool("get_student", {"student_id": "string"}, ("student_id",),
                  {"type": "object", "properties": {param: {"type": "string"}}}),
             tool("submit_claim", {"student_id": "string",
                                   param: {"type": "string", "description": said}},
                  ("student_id", param))]
    assert infer_contracts(specs).registry.tool("submit_claim").authored == {param}


def test_a_result_that_echoes_the_calls_own_argument_is_no_source_of_it():
    """A calculator answering ``{expression, result}`` and a request answering with the notes
    it was given do not yield what they were called with: the model still writes it. Where
    another tool yields it, it stays what that tool yields."""
    worked = {"type": "object", "properties": {"expression": {"type": "string"},
                                               "result": {"type": "number"}}}
    noted = {"type": "object", "properties": {"request_ref": {"type": "string"},
                                              "notes": {"type": "string"}}}
    specs = [tool("calculate", {"expression": "string"}, ("expression",), worked),
             tool("request_assistance", {"order_id": "string", "notes": "string"},
                  ("order_id", "notes"), noted),
             tool("get_order", {"order_id": "string"}, ("order_id",),
                  {"type": "object", "properties": {"order_id": {"type": "string"}}}),
             tool("get_saved_query", {"name": "string"}, ("name",),
                  {"type": "object", "properties": {"query": {"type": "string"}}}),
             tool("run_query", {"query": "string"}, ("query",),
                  {"type": "object", "properties": {"query": {"type": "string"},
                                                    "rows": {"type": "array"}}})]
    reg = infer_contracts(specs).registry
    assert reg.tool("calculate").authored == {"expression"} and not reg.tool("calculate").requires
    assert reg.tool("request_assistance").authored == {"notes"}
    assert reg.tool("request_assistance").requires == {"order_id"}
    assert reg.tool("run_query").requires == {"query"}  # a saved query is read, not written


def test_opening_reads_a_document_and_starts_anything_else():
    opened = {name: risk_of(tool(name, description=text))
              for name, text in (("open_file", ""), ("open_ticket", ""),
                                 ("file_claim", "Open a new warranty claim."),
                                 ("view", "Open the page at an address."))}
    assert {n: (d.action, d.risk) for n, d in opened.items()} == {
        "open_file": ("read", "low"), "open_ticket": ("create", "medium"),
        "file_claim": ("create", "medium"), "view": ("read", "low")}


def test_untrusted_from_names_descriptions_and_open_world_hint():
    specs = [tool("read_channel_messages", {"channel": "string"}, ("channel",)),
             tool("get_webpage", {"url": "string"}, ("url",)),
             tool("fetch", {"q": "string"}, ("q",), annotations={"openWorldHint": True}),
             tool("lookup", description="Returns the latest reviews of a hotel."),
             tool("get_user_info", description="Get the user: name, email, phone."),
             tool("search_contacts_by_email", {"query": "string"}, ("query",)),
             tool("send_email", {"to": "string"}, ("to",))]
    reg = infer_contracts(specs).registry
    flags = {t.name: t.untrusted for t in reg}
    assert flags == {"read_channel_messages": True, "get_webpage": True, "fetch": True,
                     "lookup": True, "get_user_info": False,
                     "search_contacts_by_email": False, "send_email": False}
    assert reg.tool("fetch").inferred["untrusted"] == "schema: annotations.openWorldHint"
    assert "messages in its name" in reg.tool("read_channel_messages").inferred["untrusted"]


def test_the_first_sentence_of_a_description_runs_past_i_e_and_e_g():
    specs = [tool("get_items", description="Return the items, e.g. the posts people shared. "
                                          "Sorted."),
             tool("get_stats", description="Return the counts. E.g. posts per day.")]
    reg = infer_contracts(specs).registry
    assert "posts in its description" in reg.tool("get_items").inferred["untrusted"]
    assert not reg.tool("get_stats").untrusted  # a later sentence says nothing of what it reads


def test_sensitive_parameters_of_high_risk_tools():
    specs = [tool("send_money", {"recipient": "string", "amount": "number",
                                 "subject": "string"}, ("recipient", "amount", "subject")),
             tool("delete_email", {"email_id": "string"}, ("email_id",)),
             tool("update_user_info", {"city": "string", "user": "string"})]
    reg = infer_contracts(specs).registry
    assert reg.tool("send_money").sensitive == {"recipient", "amount"}
    assert "amount, recipient" in reg.tool("send_money").inferred["sensitive"]
    assert reg.tool("delete_email").sensitive == frozenset(), "an id is not an address"
    assert reg.tool("update_user_info").sensitive == frozenset(), "medium risk"


def test_money_credentials_membership_and_publishing_are_high_reservations_not_low():
    def risk(name: str, description: str = "") -> str:
        return risk_of(tool(name, description=description)).risk

    for name in ("schedule_transaction", "update_scheduled_transaction", "update_password",
                 "invite_user_to_slack", "add_user_to_channel", "remove_user_from_slack",
                 "post_webpage", "send_money"):
        assert risk(name) == "high", name
    for name in ("reserve_hotel", "book_flight", "reserve_car_rental", "invite_attendee",
                 "update_user_info", "add_calendar_event_participants"):
        assert risk(name) == "medium", name
    for name in ("get_most_recent_transactions", "get_scheduled_transactions",
                 "get_users_in_channel"):
        assert risk(name) == "low", name
    assert "money" in risk_of(tool("schedule_transaction")).note


def test_a_login_precondition_from_the_description():
    specs = [tool("login", {"username": "string", "password": "string"},
                  ("username", "password")),
             tool("get_orders", description="List orders. Requires authentication."),
             tool("cancel_order", {"order_id": "string"}, ("order_id",),
                  description="Cancel an order; the user must be logged in.")]
    reg = infer_contracts(specs).registry
    assert reg.tool("login").establishes == {"logged_in"}
    assert "logged_in" not in reg.tool("login").produces  # a fact has no value
    assert reg.tool("get_orders").needs == {"logged_in"}
    assert reg.tool("cancel_order").needs == {"logged_in"}
    assert reg.tool("cancel_order").requires == {"order_id"}
    note = reg.tool("cancel_order").inferred["needs"]
    assert "description says 'must be logged in' -> logged_in, established by login" in note
    # no login tool: the fact is still needed, and the note says nothing establishes it
    alone = infer_contracts(specs[1:]).registry.tool("get_orders")
    assert alone.needs == {"logged_in"}
    assert "no tool (the user's state must hold it)" in alone.inferred["needs"]


def test_a_whole_result_several_tools_return_is_each_tools_own():
    specs = [tool("list_files", output=listing(FILE)),
             tool("search_files", {"query": "string"}, ("query",), listing(FILE)),
             tool("delete_file", {"file_id": "string"}, ("file_id",), FILE)]
    reg = infer_contracts(specs).registry
    assert dict(reg.tool("list_files").outputs) == {"file_id": "/*/id_",
                                                    "list_files_result": ""}
    assert dict(reg.tool("search_files").outputs) == {"file_id": "/*/id_",
                                                      "search_files_result": ""}
    assert "files -> search_files_result" in reg.tool("search_files").inferred["produces"]


def test_quantities_and_web_addresses_are_written_by_the_model_and_checked_when_sent():
    number = {"type": "number"}
    listing = {"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "integer"}, "amount": number, "recipient": {"type": "string"}}}}
    specs = [tool("get_transactions", output=listing),
             tool("send_money", {"recipient": "string", "amount": number},
                  ("recipient", "amount"), description="Send money to a recipient."),
             tool("get_webpage", {"url": "string"}, ("url",), {"type": "string"},
                  description="Read a web page."),
             tool("read_thread", {"thread_id": "string"}, ("thread_id",))]
    reg = infer_contracts(specs).registry
    pay = reg.tool("send_money")
    # an amount is worked out (a difference, a share of a bill): a listed one is an input to
    # it, not its source, so the listing no longer produces it
    assert "amount" in pay.authored and "amount" not in pay.requires
    assert "a quantity (the model works it out)" in pay.inferred["authored"]
    assert "amount" in pay.sensitive  # high risk: who and how much need approval when tainted
    assert "amount" not in reg.tool("get_transactions").produces
    assert pay.requires == frozenset()  # the recipient is a party: written, and sensitive
    assert pay.sensitive == {"recipient", "amount"}
    assert "recipient" not in reg.tool("get_transactions").produces
    page = reg.tool("get_webpage")
    assert page.authored == {"url"} and page.sensitive == {"url"} and page.risk == "low"
    assert "an address (read out of text)" in page.inferred["authored"]
    assert reg.tool("read_thread").requires == {"thread_id"}  # an id is never authored


def test_a_quantity_no_result_lists_is_the_users():
    """Where no result has a quantity field, nothing lists an amount to work one out from:
    the amount is the user's, and stays required (and checked against what the user gave)."""
    account = {"type": "object", "properties": {"account_id": {"type": "string"}}}
    specs = [tool("get_account", output=account),
             tool("send_payment", {"account_id": "string", "payment_amount": "number"},
                  ("account_id", "payment_amount"), {"type": "object", "properties": {
                      "payment_id": {"type": "string"}}},
                  description="Send a payment from an account.")]
    pay = infer_contracts(specs).registry.tool("send_payment")
    assert pay.requires == {"account_id", "payment_amount"} and not pay.authored
    listed = {"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "integer"}, "amount": {"type": "number"}}}}
    with_amounts = infer_contracts([tool("get_transactions", output=listed), *specs])
    assert "payment_amount" in with_amounts.registry.tool("send_payment").authored


def test_an_optional_list_of_people_is_sensitive_whatever_the_risk():
    """``participants: list[str] | None`` on a medium-risk create: an address added from
    outside content needs approval (left unchecked, an injected invitee went through)."""
    people = {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]}
    specs = [tool("create_calendar_event", {"title": "string", "participants": people},
                  ("title",), description="Create an event; the participants get an e-mail.")]
    event = infer_contracts(specs).registry.tool("create_calendar_event")
    assert event.risk != "high"
    assert "participants" in event.authored and event.sensitive == {"participants"}


def test_a_read_whose_results_carry_free_text_is_untrusted():
    """An event's description, a payment's subject: whoever wrote it may have written
    instructions into it, whatever the tool is called."""
    event = {"type": "object", "properties": {"id": {"type": "string"},
                                              "description": {"type": "string"}}}
    specs = [tool("get_day_events", {"day": "string"}, ("day",), listing(event)),
             tool("get_balance", output={"type": "object", "properties": {
                 "balance": {"type": "number"}}}),
             tool("create_event", {"description": "string"}, ("description",),
                  output=event)]
    reg = infer_contracts(specs).registry
    assert reg.tool("get_day_events").untrusted
    assert reg.tool("get_day_events").inferred["untrusted"] == \
        "rule: its results carry free text others may write (description)"
    assert not reg.tool("get_balance").untrusted
    assert not reg.tool("create_event").untrusted  # it acts: its result is its own record


@pytest.mark.parametrize("param, authored", [
    ("date_from", True), ("day_until", True), ("time_before", True),  # one end of a range
    ("from_date", True), ("date_of_birth", False), ("update_to", False)])
def test_an_end_of_a_range_of_days_is_a_date(param, authored):
    """``date_from`` and ``day_until`` are dates as much as ``from_date``: the model writes
    them from the user's words ("Wednesday afternoon"). A date of birth is the user's
    datum, and a word of a range alone is no date."""
    specs = [tool("find_slots", {param: {"type": "string"}}, (param,))]
    assert (param in infer_contracts(specs).registry.tool("find_slots").authored) is authored


@pytest.mark.parametrize("param, description, authored", [
    ("idempotency_key", "Key for safe retries.", True),
    ("request_key", "Any unique string chosen by the caller for this transfer.", True),
    ("client_token", "A client-generated token.", True),
    ("quote_token", "The token get_rate_quote returned.", False),
    ("transfer_id", "The transfer to cancel.", False)])
def test_a_key_the_caller_makes_up_is_the_models(param, description, authored):
    """An ``idempotency_key`` ("any unique string chosen by the caller") is a value the model
    makes up for the call, an id or not; a token a tool returned is held to it."""
    specs = [tool("send_transfer", {param: {"type": "string", "description": description}},
                  (param,))]
    assert (param in infer_contracts(specs).registry.tool("send_transfer").authored) is authored


@pytest.mark.parametrize("param, authored", [("NARR", True), ("narrative", True),
                                             ("TXNREF", False)])
def test_a_narrative_is_the_models_words(param, authored):
    """``NARR``, "narrative for the refund entry, UPPER CASE": what the statement line says,
    in the model's words, as a note's or a reason's is; a transaction's reference is not."""
    specs = [tool("fee_rfnd", {param: {"type": "string", "description": "for the entry"}},
                  (param,))]
    assert (param in infer_contracts(specs).registry.tool("fee_rfnd").authored) is authored


@pytest.mark.parametrize("param", ["label", "nickname"])
def test_the_label_of_a_record_a_call_saves_is_the_models_words(param):
    """Saving a new address with a ``label`` ("Short label for the address, e.g. Home or
    Office"): the model names it from the user's words ("my new place"), though the address
    book it read shows other labels; the address the call acts on is still held to a read."""
    item = {"type": "object", "properties": {"address_id": {"type": "string"},
                                             param: {"type": "string"}}}
    specs = [tool("list_addresses", {"customer_id": "string"}, ("customer_id",),
                  output=listing(item)),
             tool("add_customer_address", {
                 "customer_id": "string", "street": "string",
                 param: {"type": "string", "description": "Short label, e.g. Home or Office"}},
                 ("customer_id", param, "street"), description="Save a new delivery address."),
             tool("set_default_address", {"address_id": "string"}, ("address_id",),
                  description="Make an address the default one.")]
    registry = infer_contracts(specs).registry
    assert param in registry.tool("add_customer_address").authored
    assert "address_id" not in registry.tool("set_default_address").authored
    # a label a call adds to a thread is one of the labels there are
    labels = [tool("get_labels", output={"type": "array", "items": {"type": "string"}}),
              tool(f"add_{param}_to_thread", {"thread_id": "string", param: "string"},
                   ("thread_id", param))]
    assert param not in infer_contracts(labels).registry.tool(f"add_{param}_to_thread").authored
