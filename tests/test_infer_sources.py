"""Sources of ``contracts infer`` beyond MCP and OpenAI: Python callables, AgentDojo
``Function`` objects and modules of them, and Gorilla / BFCL function docs."""

from __future__ import annotations

import dataclasses
import enum
import importlib.util
import json
import textwrap
from typing import Annotated, TypedDict

import pytest
from pydantic import BaseModel, Field
from test_contracts_cli import invoke

from planfilter.core.frozen import thaw
from planfilter.infer.infer import infer_contracts
from planfilter.infer.python_tools import (
    read_python_source,
    spec_from_function,
    spec_from_function_object,
)
from planfilter.infer.sources import json_schema_types, specs_from_document
from planfilter.infer.spec import SourceError

HAS_AGENTDOJO = importlib.util.find_spec("agentdojo") is not None


class Event(BaseModel):
    id: str
    title: str
    participants: list[str]


class Depends:  # the shape of agentdojo.functions_runtime.Depends
    def __init__(self, env_dependency: str) -> None:
        self.env_dependency = env_dependency


def search_events(calendar: Annotated[dict, Depends("calendar")], query: str,
                  day: str | None = None) -> list[Event]:
    """Search calendar events.

    :param query: Words the event's title contains
    :param day: Day to search, ISO date
    """
    return []


def cancel_event(event_id: str, notify: bool = True) -> str:
    """Cancel an event.

    Args:
        event_id: The id of the event to cancel.
        notify: Whether participants hear of it.
    """
    return "ok"


def convert(amount: float, currency: str):
    """Convert money.

    Parameters
    ----------
    amount : float
        How much
    currency : str
        Target currency code
    """


def test_plain_function_type_hints_docstring_and_return_schema():
    s = spec_from_function(search_events, "test")
    assert s.name == "search_events"
    assert s.description == "Search calendar events."
    props = thaw(s.input_schema)["properties"]
    assert set(props) == {"query", "day"}, "the Depends parameter is the environment"
    assert props["query"] == {"type": "string", "description": "Words the event's title contains"}
    assert s.required == ("query",)
    out = thaw(s.output_schema)
    assert out["type"] == "array" and out["items"] == {"$ref": "#/$defs/Event"}
    assert set(out["$defs"]["Event"]["properties"]) == {"id", "title", "participants"}
    assert "title" not in out["$defs"]["Event"], "generated titles are dropped"
    assert "title" in out["$defs"]["Event"]["properties"], "a property named title is kept"


def test_google_and_numpy_docstrings():
    s = spec_from_function(cancel_event, "test")
    assert thaw(s.input_schema)["properties"]["event_id"]["description"] == \
        "The id of the event to cancel."
    assert s.required == ("event_id",)
    assert thaw(s.output_schema) == {"type": "string"}
    n = spec_from_function(convert, "test")
    assert thaw(n.input_schema)["properties"]["currency"]["description"] == \
        "Target currency code"
    assert n.output_schema is None, "no return annotation: no output schema"


def update_card(card_number: str, action: str, reason: str, limit: float | None = None,
                tags: str = "", depot: str = "", holder: str = ""):
    """Change a fuel card.

    card_number: the card number as stored, e.g. "FC7077004412".
    action: one of "block", "unblock", "cancel",
      "set_limit".
    - reason (str): why the change is made.
    * `tags` — comma-separated tags, e.g. "HT-1,HT-2".
    - depot - the depot that holds the card.
    holder -- the driver the card is for.
    Returns the card.
    """


def test_parameters_listed_in_lines_of_their_own():
    """A docstring with no section heading that lists each parameter on a line of its own
    (``name: text``, ``- name (type): text``, Markdown's ``* `name` — text``, ``name --
    text``, the text going on in indented lines)."""
    props = thaw(spec_from_function(update_card, "test").input_schema)["properties"]
    assert props["tags"]["description"] == 'comma-separated tags, e.g. "HT-1,HT-2".'
    assert props["depot"]["description"] == "the depot that holds the card."
    assert props["holder"]["description"] == "the driver the card is for."
    assert props["card_number"]["description"] == 'the card number as stored, e.g. "FC7077004412".'
    assert props["action"]["description"] == 'one of "block", "unblock", "cancel",\n"set_limit".'
    assert props["reason"]["description"] == "why the change is made."
    assert "description" not in props["limit"]


def set_codes(
    member: Annotated[str, Field(description="The member's number")],
    codes: Annotated[list[str], Field(description="one of vegan, halal or kosher.")],
    note: str = "",
) -> str:
    """Set a member's codes.

    note: a note for the kitchen.
    """
    return member


def test_a_parameter_annotated_with_its_field_keeps_its_description():
    """``Annotated[X, Field(description=...)]`` (pydantic's and MCP's way) describes the
    parameter; the docstring describes the ones it leaves out."""
    props = thaw(spec_from_function(set_codes, "test").input_schema)["properties"]
    assert props["member"]["description"] == "The member's number"
    assert props["codes"]["description"] == "one of vegan, halal or kosher."
    assert props["note"]["description"] == "a note for the kitchen."


def log_fault(
    unit: Annotated[str, "Unit id, e.g. 'UN-2201'"],
    issue: Annotated[str, "What went wrong, in the customer's words"],
    urgent: bool = False,
) -> str:
    """Log a fault on a unit.

    urgent: whether it cannot wait.
    """
    return unit


def test_a_parameter_annotated_with_text_is_described_by_it():
    """``Annotated[X, "what it is"]`` (plain text, as many tool libraries take it) describes
    the parameter, so what it says counts: an example's form, prose the model writes."""
    spec = spec_from_function(log_fault, "test")
    props = thaw(spec.input_schema)["properties"]
    assert props["unit"]["description"] == "Unit id, e.g. 'UN-2201'"
    assert props["issue"]["description"] == "What went wrong, in the customer's words"
    assert props["urgent"]["description"] == "whether it cannot wait."
    assert "issue" in infer_contracts([spec]).registry.tool("log_fault").authored


class MissedDelivery(TypedDict):
    """A reader's report of a delivery problem.

    Attributes
    ----------
    issue_date : str
        The issue's date.
    problem : str
        One of ``"not_delivered"``, ``"damaged"`` or ``"late"``.
    """

    issue_date: str
    problem: str


@dataclasses.dataclass
class Stop:
    """A holiday stop.

    Args:
        start: First day with no delivery.
    """

    start: str


def report_missed(subscription: str, reports: list[MissedDelivery], stop: Stop | None,
                  first: MissedDelivery) -> dict:
    """Log delivery problems.

    Args:
        subscription: The subscription.
        reports: The problems, each a record.
        stop: A stop to book beside them.
        first: The first problem.
    """
    return {}


def test_a_record_a_parameter_takes_is_described_as_its_class_docstring_says():
    """A ``TypedDict`` or a dataclass a parameter takes (in a list, beside ``None``)
    describes its fields in its docstring (numpy ``Attributes``, Google ``Args``): the fields
    of the schema say it, so the choices it lists are the field's."""
    props = thaw(spec_from_function(report_missed, "test").input_schema)["properties"]
    fields = props["reports"]["items"]["properties"]
    assert fields["problem"]["description"] == 'One of ``"not_delivered"``, ``"damaged"`` ' \
        'or ``"late"``.'
    assert fields["issue_date"]["description"] == "The issue's date."
    stop = next(o for o in props["stop"].get("anyOf", [props["stop"]]) if "properties" in o)
    assert stop["properties"]["start"]["description"] == "First day with no delivery."
    assert props["first"]["properties"]["problem"]["description"].startswith("One of")


def test_function_object_uses_its_parameters_model():
    class Args(BaseModel):
        recipient: str
        amount: float

    class Function(BaseModel):  # the shape of agentdojo.functions_runtime.Function
        name: str
        description: str
        parameters: type[BaseModel]
        return_type: object = None

    s = spec_from_function_object(Function(name="pay", description="Pay.", parameters=Args,
                                           return_type=dict[str, str]), "test")
    assert s.required == ("recipient", "amount")
    assert thaw(s.output_schema) == {"type": "object", "additionalProperties": {"type": "string"}}


def _module(tmp_path, monkeypatch, name: str, body: str) -> None:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))


def test_module_source_public_functions_tools_list_and_attr(tmp_path, monkeypatch):
    _module(tmp_path, monkeypatch, "pf_sample_tools", '''
        from os.path import join  # imported: not a tool of this module

        def find_user(name: str) -> dict:
            """Find a user by name.

            :param name: Full name
            """

        def _helper() -> None:
            """Private."""

        def ban_user(user_id: str) -> None:
            """Ban a user.

            :param user_id: The user's id
            """
        ''')
    specs = read_python_source("python:pf_sample_tools")
    assert [s.name for s in specs] == ["find_user", "ban_user"]
    one = read_python_source("python:pf_sample_tools:ban_user")
    assert [s.name for s in one] == ["ban_user"]
    _module(tmp_path, monkeypatch, "pf_sample_listed", '''
        from pf_sample_tools import ban_user, find_user
        TOOLS = [ban_user]
        MORE = [find_user, ban_user]
        ''')
    assert [s.name for s in read_python_source("python:pf_sample_listed")] == ["ban_user"]
    assert [s.name for s in read_python_source("python:pf_sample_listed:MORE")] == \
        ["find_user", "ban_user"]


def test_module_source_errors_name_the_culprit(tmp_path, monkeypatch):
    with pytest.raises(SourceError, match="cannot import module 'no_such_module_pf'"):
        read_python_source("python:no_such_module_pf")
    _module(tmp_path, monkeypatch, "pf_sample_bad", "X = 3\n")
    with pytest.raises(SourceError, match="has no attribute 'nope'"):
        read_python_source("python:pf_sample_bad:nope")
    with pytest.raises(SourceError, match="neither a function nor a Function"):
        read_python_source("python:pf_sample_bad:X")
    with pytest.raises(SourceError, match="no tools found"):
        read_python_source("python:pf_sample_bad")


def test_cli_reads_a_python_source(tmp_path, monkeypatch):
    _module(tmp_path, monkeypatch, "pf_cli_tools", '''
        def search_tickets(query: str) -> list[str]:
            """Find tickets.

            :param query: Words to look for
            """

        def close_ticket(ticket_id: str) -> str:
            """Close a ticket.

            :param ticket_id: The ticket's id
            """
        ''')
    result = invoke("contracts", "infer", "python:pf_cli_tools", "--embedder", "none")
    assert result.exit_code == 0, result.output
    assert "name: close_ticket" in result.output and "returns:" in result.output
    assert "python:" in invoke("contracts", "infer", "--help").output


@pytest.mark.skipif(not HAS_AGENTDOJO, reason="agentdojo is not installed")
def test_agentdojo_banking_tools():
    from planfilter.infer.python_tools import import_modules

    import_modules(["agentdojo.task_suite"])
    specs = read_python_source("python:agentdojo.default_suites.v1.banking.task_suite:TOOLS")
    by = {s.name: s for s in specs}
    assert len(specs) == 11 and "send_money" in by
    assert set(by["send_money"].properties) == {"recipient", "amount", "subject", "date"}
    assert by["send_money"].properties["recipient"]["description"] == "IBAN of the recipient"
    recent = thaw(by["get_most_recent_transactions"].output_schema)
    assert recent["type"] == "array"
    assert "recipient" in recent["$defs"]["Transaction"]["properties"]
    # the suite object holds Function objects: the same tools
    suite = read_python_source("python:agentdojo.default_suites.v1.banking.task_suite:task_suite")
    assert [s.name for s in suite] == [s.name for s in specs]
    assert infer_contracts(specs).registry.tool("send_money").risk == "high"


# --- Gorilla / BFCL function docs --------------------------------------------------------

BFCL_DOCS = [
    {"name": "calculate_triangle_area",
     "description": "Calculate the area of a triangle given its base and height.",
     "parameters": {"type": "dict", "properties": {
         "base": {"type": "integer", "description": "The base of the triangle."},
         "height": {"type": "float", "description": "The height of the triangle."},
         "unit": {"type": "string", "description": "The unit of measure.",
                  "enum": ["cm", "m"], "default": "cm"}},
         "required": ["base", "height"]},
     "response": {"name": "area", "type": "float", "description": "The area."}},
    {"name": "geo.distance",
     "description": "Distance between two points.",
     "parameters": {"type": "dict", "properties": {
         "point_a": {"type": "tuple", "items": {"type": "float"},
                     "description": "Latitude and longitude of the first point."},
         "point_b": {"type": "tuple", "items": {"type": "float"}},
         "options": {"type": "dict", "properties": {
             "metric": {"type": "boolean"}, "extra": {"type": "any"}}}},
         "required": ["point_a", "point_b"]},
     "response": {"type": "dict", "properties": {
         "distance": {"type": "float"}, "route": {"type": "array",
                                                  "items": {"type": "dict", "properties": {
                                                      "lat": {"type": "float"}}}}}}},
]


def test_bfcl_types_become_json_schema():
    assert json_schema_types({"type": "dict", "properties": {"a": {"type": "any"}}}) == \
        {"type": "object", "properties": {"a": {}}}
    standard = {"type": "object", "properties": {"x": {"type": ["string", "null"]}}}
    assert json_schema_types(standard) == standard
    specs = specs_from_document(BFCL_DOCS, "bfcl.json")
    tri, geo = specs
    assert tri.input_schema["type"] == "object"
    assert tri.properties["height"]["type"] == "number"
    assert thaw(geo.properties["point_a"])["type"] == "array"
    assert thaw(geo.properties["point_a"])["items"] == {"type": "number"}
    assert thaw(geo.properties["options"]) == {
        "type": "object", "properties": {"metric": {"type": "boolean"}, "extra": {}}}
    assert geo.output_properties["route"]["items"]["type"] == "object"
    assert tri.output_schema["type"] == "number"
    registry = infer_contracts(specs).registry
    assert registry.tool("geo.distance").produces >= {"distance"}


def test_cli_reads_bfcl_docs(tmp_path):
    path = tmp_path / "bfcl.json"
    path.write_text(json.dumps(BFCL_DOCS), encoding="utf-8")
    result = invoke("contracts", "infer", str(path), "--embedder", "none")
    assert result.exit_code == 0, result.output
    assert "name: geo.distance" in result.output


class Level(enum.Enum):
    READ = "r"
    WRITE = "rw"


def share(file_id: str, permission: Level) -> None:
    """Share a file.

    :param file_id: The file's id
    :param permission: The permission level
    """


def test_parameter_definitions_are_inlined():
    schema = thaw(spec_from_function(share, "test").input_schema)
    assert "$defs" not in schema
    assert schema["properties"]["permission"] == {
        "enum": ["r", "rw"], "type": "string", "description": "The permission level"}
