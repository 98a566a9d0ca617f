"""``planfilter.infer``: each rule alone, the vocabulary, sources, risk, the model proposer,
and the round trip contracts -> schemas -> infer == contracts on generated registries."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planfilter.core.contracts import Registry, Tool
from planfilter.core.frozen import thaw
from planfilter.core.loading import load_registry
from planfilter.infer import rules
from planfilter.infer.infer import InferOptions, infer_contracts
from planfilter.infer.produce import produces_of
from planfilter.infer.risk import action_of, risk_of
from planfilter.infer.rules import Context, consumers_of
from planfilter.infer.sources import spec_from_item, specs_from_document
from planfilter.infer.spec import SourceError, ToolSpec
from planfilter.infer.vocabulary import build_vocabulary
from planfilter.infer.write import render, tool_data


def spec(name: str, required=(), optional=(), output=None, description="", annotations=None,
         types=None) -> ToolSpec:
    types = types or {}
    props = {p: {"type": types.get(p, "string")} for p in (*required, *optional)}
    item = {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": props, "required": list(required)}}
    if output is not None:
        item["outputSchema"] = {"type": "object",
                                "properties": {p: {"type": "string"} for p in output}}
    if annotations:
        item["annotations"] = annotations
    return spec_from_item(item, "test")


def context(*specs: ToolSpec) -> Context:
    vocab = build_vocabulary(specs)
    return Context(vocab, consumers_of(specs, vocab))


# --- each rule on its own ---------------------------------------------------------------

def test_requires_are_the_required_input_properties():
    s = spec("send", required=("to", "body"), optional=("cc",))
    assert rules.requires_of(s, build_vocabulary([s])).variables == {"to", "body"}


def test_output_schema_rule_produces_output_properties_with_pointers_for_renamed_keys():
    s = spec("get_event", required=("event_id",), output=("eventId", "title"))
    drafted = rules.from_output_schema(s, context(s))
    assert drafted is not None
    assert drafted.variables == {"event_id", "title"}
    assert dict(drafted.outputs) == {"event_id": "/eventId"}
    assert rules.from_output_schema(spec("x"), context(spec("x"))) is None


def test_lookup_rule_yields_the_id_other_tools_require():
    search = spec("search_emails", required=("sender", "topic"))
    read = spec("read_email", required=("email_id",))
    drafted = rules.lookup_produces_id(search, context(search, read))
    assert drafted is not None and drafted.variables == {"email_id"}
    # nobody needs the id: the rule does not apply
    assert rules.lookup_produces_id(search, context(search)) is None
    # a tool that takes the id itself does not produce it
    assert rules.lookup_produces_id(spec("get_email", required=("email_id",)),
                                    context(read, spec("get_email",
                                                       required=("email_id",)))) is None


def test_lookup_rule_prefers_the_identifier_the_description_names():
    search = spec("search_contacts", required=("contact_name",),
                  description="Find a person; returns their email address.")
    uses = (spec("mail", required=("contact_email",)), spec("card", required=("contact_id",)))
    drafted = rules.lookup_produces_id(search, context(search, *uses))
    assert drafted is not None and drafted.variables == {"contact_email"}


def test_create_rule_yields_the_new_things_id_when_required_elsewhere():
    create = spec("create_draft", required=("text",))
    send = spec("send_draft", required=("draft_id",))
    drafted = rules.create_produces_id(create, context(create, send))
    assert drafted is not None and drafted.variables == {"draft_id"}
    assert rules.create_produces_id(create, context(create)) is None


def test_read_rule_yields_the_entitys_content():
    read = spec("read_email", required=("email_id",))
    summarize = spec("summarize", required=("email_body",))
    drafted = rules.read_produces_content(read, context(read, summarize))
    assert drafted is not None and drafted.variables == {"email_body"}
    alone = rules.read_produces_content(read, context(read))
    assert alone is not None and alone.variables == {"email_content"}
    # the name names more than the entity: not this rule
    attendees = spec("get_event_attendees", required=("event_id",))
    assert rules.read_produces_content(attendees, context(attendees)) is None


def test_transform_rule_names_the_derived_value():
    s = spec("summarize_email", required=("email_body",))
    drafted = rules.transform_produces_derived(s, context(s))
    assert drafted is not None and drafted.variables == {"email_summary"}


def test_query_rule_yields_what_the_name_names():
    s = spec("get_account_balance", required=("account_id",))
    drafted = rules.query_produces_named(s, context(s))
    assert drafted is not None and drafted.variables == {"account_balance"}
    bare = spec("git_status", required=("repo_path",))
    drafted = rules.query_produces_named(bare, context(bare))
    assert drafted is not None and drafted.variables == {"git_status_result"}


def test_effect_rule_names_the_action():
    s = spec("delete_file", required=("file_id",))
    assert rules.effect_done(s, context(s)).variables == {"delete_file_done"}
    drafted, rule = produces_of(s, context(s))
    assert rule == "effect" and drafted.variables == {"delete_file_done"}


# --- vocabulary ----------------------------------------------------------------------------

def test_spellings_that_normalise_alike_are_one_variable_with_the_merge_recorded():
    a = spec("a", required=("eventId",))
    b = spec("b", required=("event_id",))
    vocab = build_vocabulary([a, b])
    assert vocab.variable("a", "eventId") == vocab.variable("b", "event_id") == "event_id"
    assert any(m.kind == "name" and "eventId" in m.names for m in vocab.merges)


def test_a_description_saying_one_is_the_other_merges_them():
    users = [spec(f"u{i}", required=("user_id",)) for i in range(2)]
    pay = spec_from_item({"name": "pay", "inputSchema": {
        "type": "object", "required": ["receiver_id"],
        "properties": {"receiver_id": {"type": "string", "description": "The id of the user "
                                                                         "to pay"}}}}, "t")
    vocab = build_vocabulary([*users, pay])
    assert vocab.variable("pay", "receiver_id") == "user_id"
    merge = next(m for m in vocab.merges if m.kind == "description")
    assert merge.names == ("receiver_id",) and "id of the user" in merge.evidence


def test_no_merge_without_evidence_or_with_other_types():
    a = spec("a", required=("receiver_id",))
    b = spec("b", required=("user_id",))
    assert build_vocabulary([a, b]).variable("a", "receiver_id") == "receiver_id"
    s = spec("s", required=("target",))
    o = spec("o", required=("x",), output=("target",))
    o2 = spec_from_item({"name": "o2", "inputSchema": {"type": "object"}, "outputSchema": {
        "type": "object", "properties": {"target": {"$ref": "#/$defs/T"}}}}, "t")
    vocab = build_vocabulary([s, o, o2])
    assert vocab.variable("s", "target") == "target"
    assert vocab.variable("o2", "target", "out") == "o2.target"
    assert any(m.kind == "type-split" for m in vocab.merges)


class WordEncoder:
    """A fake dense embedder: words in one group embed to the same vector."""

    GROUPS = [{"payee", "recipient"}, {"contact"}, {"user"}]

    def encode(self, texts):
        out = np.zeros((len(texts), len(self.GROUPS) + 1))
        for i, text in enumerate(texts):
            hit = [j for j, g in enumerate(self.GROUPS) if text.strip() in g]
            out[i, hit[0] if hit else -1] = 1.0
        return out


def test_the_embedder_merges_when_the_described_entity_is_close():
    pay = spec_from_item({"name": "pay", "inputSchema": {
        "type": "object", "required": ["to_email"],
        "properties": {"to_email": {"type": "string",
                                    "description": "Email address of the payee"}}}}, "t")
    send = spec("send", required=("recipient_email",))
    other = spec("other", required=("recipient_email",))
    assert build_vocabulary([pay, send, other]).variable("pay", "to_email") == "to_email"
    vocab = build_vocabulary([pay, send, other], WordEncoder())
    assert vocab.variable("pay", "to_email") == "recipient_email"
    assert any(m.kind == "embedder" and "payee" in m.evidence for m in vocab.merges)


# --- risk ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "annotations", "description", "risk"), [
    ("write_file", {"destructiveHint": True}, "", "high"),
    ("delete_file", {"readOnlyHint": True}, "", "low"),
    ("send_email", None, "", "high"),
    ("purchase_seat", None, "", "high"),
    ("update_event", None, "", "medium"),
    ("create_doc", None, "", "medium"),
    ("archive_email", None, "This cannot be undone.", "high"),
    ("read_file", None, "", "low"),
    # the verbs of a service desk's writes, and a verb done again
    ("issue_credit_note", None, "", "medium"),
    ("freeze_card", None, "", "medium"),
    ("withdraw_enrolment", None, "", "medium"),
    ("certificate", None, "Reissue a certificate with a corrected name.", "medium"),
    ("resend_receipt", None, "", "high"),
    ("rebook_visit", None, "", "medium"),
    ("reverse_utility_charges", None, "Reverse (remove) posted charges.", "medium"),
    ("join_waiting_list", None, "Add a boat to the waiting list.", "medium"),
    ("amend_timesheet", None, "", "medium"),
])
def test_risk(name, annotations, description, risk):
    assert risk_of(spec(name, description=description, annotations=annotations)).risk == risk


def test_a_name_that_opens_with_its_descriptions_verb_reads_nothing_after_it():
    """The verb a name and its description both open with is the tool's, listed or not: the
    words after it are what it acts on ("enqueue_price_list": no list read)."""
    assert action_of(spec("enqueue_price_list", description="Enqueue a price list."))[0] \
        is None
    assert action_of(spec("waiting_list", description="The waiting list."))[0] == "list"


# --- sources ---------------------------------------------------------------------------------

def test_every_source_shape_reads_to_the_same_spec():
    mcp = {"tools": [{"name": "f", "description": "d", "inputSchema": {
        "type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        "outputSchema": {"type": "object", "properties": {"b": {"type": "string"}}}}]}
    openai = [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {
        "type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}}}]
    docs = [{"name": "f", "description": "d", "parameters": openai[0]["function"]["parameters"],
             "response": {"type": "object", "properties": {"b": {"type": "string"}}}}]
    a, = specs_from_document(mcp, "mcp")
    b, = specs_from_document(openai, "openai")
    c, = specs_from_document(docs, "docs")
    assert a.required == b.required == c.required == ("a",)
    assert a.output_properties == c.output_properties and b.output_schema is None
    with pytest.raises(SourceError, match="no 'name'"):
        specs_from_document([{"description": "x"}], "bad.json")


# --- the model proposer ----------------------------------------------------------------------

def test_model_proposals_only_for_open_tools_and_only_known_names(monkeypatch):
    from planfilter.infer import model

    class Reply:
        content = ('Sure: {"produces": ["ticket_id", "made_up"], '
                   '"aliases": {"summary": "ticket_text", "nope": "ticket_id", '
                   '"case_ref": "invented"}}')

    asked = []
    monkeypatch.setattr(model, "complete",
                        lambda m, msgs, tools, **kw: asked.append(msgs) or Reply())
    specs = [spec("escalate_case", required=("summary", "case_ref")),
             spec("read_ticket", required=("ticket_id",)),
             spec("note", required=("ticket_text",))]
    inference = infer_contracts(specs, InferOptions(proposer=model.model_proposer("sim/x")))
    tool = inference.registry.tool("escalate_case")
    assert tool.produces == {"ticket_id"}
    assert tool.requires == {"ticket_text", "case_ref"}  # only the valid alias applied
    assert tool.inferred["produces"].startswith("model: sim/x proposed produces ticket_id")
    assert "model: sim/x" in tool.inferred["requires"] and "summary -> ticket_text" in \
        tool.inferred["requires"]
    assert inference.produce_rules["escalate_case"] == "model"
    assert inference.produce_rules["read_ticket"] == "read-content"
    # `note` was open too and was asked; nothing it was told is among its candidates
    assert len(asked) == 2
    # ticket_text names a ticket's content, which read_ticket yields: not authored
    assert inference.registry.tool("note").requires == {"ticket_text"}


def test_a_model_error_leaves_the_rules_draft(monkeypatch):
    from planfilter.infer import model
    from planfilter.models.client import ModelError

    def fail(*args, **kwargs):
        raise ModelError("down")

    monkeypatch.setattr(model, "complete", fail)
    s = spec("ping_server", required=("host",))
    other = spec("scan", required=("port",))
    heard: list[str] = []
    proposer = model.model_proposer("m", progress=heard.append)
    inference = infer_contracts([s, other], InferOptions(proposer=proposer))
    tool = inference.registry.tool("ping_server")
    assert tool.produces == {"ping_server_done"}
    assert "model: m failed (down); rule draft kept" in tool.inferred["produces"]
    assert inference.produce_rules["ping_server"] == "effect"
    assert heard and all(line.startswith("model: asking m about open tool") for line in heard)


def test_a_model_answering_nothing_usable_is_noted(monkeypatch):
    from planfilter.infer import model

    class Reply:
        content = "I cannot tell."

    monkeypatch.setattr(model, "complete", lambda *a, **kw: Reply())
    specs = [spec("ping_server", required=("host",)), spec("scan", required=("port",))]
    inference = infer_contracts(specs, InferOptions(proposer=model.model_proposer("m")))
    tool = inference.registry.tool("ping_server")
    assert tool.produces == {"ping_server_done"}
    assert tool.inferred["produces"].endswith("model: m proposed nothing usable")


# --- round trip ------------------------------------------------------------------------------

NOUNS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
VARIABLES = [f"{n}_{k}" for n in NOUNS for k in ("id", "text")]
RISK_HINTS = {"high": {"destructiveHint": True}, "low": {"readOnlyHint": True}}


@st.composite
def registries(draw) -> Registry:
    """Registries whose schemas carry the contract: required params = requires, returns
    properties = produces, annotations and verbs = risk."""
    n = draw(st.integers(1, 6))
    tools = []
    for i in range(n):
        requires = draw(st.sets(st.sampled_from(VARIABLES), max_size=3))
        optional = draw(st.sets(st.sampled_from(VARIABLES), max_size=2)) - requires
        produces = draw(st.sets(st.sampled_from(VARIABLES), min_size=1, max_size=2))
        risk = draw(st.sampled_from(["low", "medium", "high"]))
        verb = {"low": "get", "medium": "update", "high": "delete"}[risk]
        props = {v: {"type": "string"} for v in sorted(requires | optional)}
        tools.append(Tool(
            name=f"{verb}_{NOUNS[i]}", requires=requires, produces=produces, risk=risk,
            parameters={"type": "object", "properties": props, "required": sorted(requires)},
            returns={"type": "object",
                     "properties": {v: {"type": "string"} for v in sorted(produces)}}))
    return Registry(tools=tuple(tools))


def to_tools_list(registry: Registry) -> dict:
    out = []
    for t in registry:
        item = t.function_schema()["function"]
        out.append({"name": item["name"], "description": item["description"],
                    "inputSchema": item["parameters"], "outputSchema": thaw(t.returns or {}),
                    **({"annotations": RISK_HINTS[t.risk]} if t.risk in RISK_HINTS else {})})
    return {"tools": json.loads(json.dumps(out))}


@settings(max_examples=60, deadline=None)
@given(registries())
def test_round_trip_contracts_to_schemas_to_contracts(generated):
    specs = specs_from_document(to_tools_list(generated), "generated")
    inference = infer_contracts(specs)
    for hand, drafted in zip(generated, inference.registry, strict=True):
        # a required text no other tool produces (a result echoing the call's own argument
        # is no source of it) is one the model writes (authored), not a precondition, and so
        # is the text of a tool that changes something (its verb is not ``get``) unless it
        # is an entity's own (``<entity>_id`` exists); every other requirement comes back as
        # written
        variables = frozenset().union(*(t.produces | set(t.parameters["properties"])
                                        for t in generated))
        others = frozenset().union(*(t.produces for t in generated if t.name != hand.name))
        written = {v for v in hand.requires if v.endswith("_text") and (
            v not in others or not hand.name.startswith("get_")
            and f"{v.removesuffix('_text')}_id" not in variables)}
        assert drafted.authored >= written
        assert (drafted.name, drafted.requires, drafted.produces, drafted.risk) == \
               (hand.name, hand.requires - written, hand.produces, hand.risk)
    assert inference.merges == ()


@settings(max_examples=20, deadline=None)
@given(registries())
def test_written_registry_loads_back_unchanged(generated):
    inference = infer_contracts(specs_from_document(to_tools_list(generated), "generated"))
    text = render([tool_data(t) for t in inference.registry], inference, ["generated"])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "contracts.yaml"
        path.write_text(text)
        loaded = load_registry(path)
    assert loaded.tools == inference.registry.tools
    assert render([tool_data(t) for t in loaded], inference, ["generated"]) == text
