"""``planfilter frontier --request``: a request in words, its candidate goals and the tools a
session shows for it, as the library's Session gives them."""

from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner

from planfilter.cli import cli
from planfilter.core.loading import load_registry
from planfilter.live import Session

BILL = "Can you please pay the bill 'bill-december-2023.txt' for me?"

TOOLS = [
    {"name": "get_most_recent_transactions", "produces": ["transactions"], "action": "read",
     "description": "Get the most recent transactions of the account.",
     "returns": {"type": "array", "items": {"type": "object", "properties": {
         "recipient": {"type": "string"}, "amount": {"type": "number"}}}}},
    {"name": "read_file", "requires": ["file_path"], "produces": ["file_content"],
     "action": "read", "untrusted": True, "description": "Read the content of a file.",
     "returns": {"type": "string"},
     "parameters": {"type": "object", "properties": {"file_path": {"type": "string"}},
                    "required": ["file_path"]}},
    {"name": "send_money", "produces": ["money_sent"], "action": "send", "risk": "high",
     "description": "Send money to a recipient: pay a bill or a person.",
     "authored": ["recipient", "amount"], "sensitive": ["recipient", "amount"],
     "parameters": {"type": "object", "properties": {"recipient": {"type": "string"},
                                                    "amount": {"type": "number"}},
                    "required": ["recipient", "amount"]}},
    {"name": "close_account", "requires": ["account_owner"], "produces": ["account_closed"],
     "action": "delete", "risk": "high", "description": "Close the account of its owner.",
     "parameters": {"type": "object", "properties": {"account_owner": {"type": "string"}},
                    "required": ["account_owner"]}},
]


@pytest.fixture
def registry_path(tmp_path):
    path = tmp_path / "bank.yaml"
    path.write_text(yaml.safe_dump({"domain": "bank", "tools": TOOLS}), encoding="utf-8")
    return str(path)


def invoke(*args: str):
    return CliRunner().invoke(cli, ["frontier", *args], catch_exceptions=False)


def as_json(*args: str) -> dict:
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_the_request_gives_the_candidates_and_tools_a_session_shows(registry_path):
    data = as_json("--registry", registry_path, "--request", BILL)
    session = Session(load_registry(registry_path), resolver="retrieval")
    session.start(BILL)
    assert data["shown"] == list(session.visible().tools)
    assert [c["name"] for c in data["candidates"]] == \
        [line.split(" [")[0] for line in session.describe_candidates()]
    assert data["values"]["file_path"] == [{"value": "bill-december-2023.txt",
                                            "source": "request"}]
    # the file the request names is read before the payment: that way leads
    assert data["candidates"][0]["steps"] == [["file_content"], ["money_sent"]]
    assert "read_file" in data["shown"] and "close_account" not in data["shown"]


def test_the_calls_made_weigh_the_candidates(registry_path):
    before = as_json("--registry", registry_path, "--request", BILL)
    after = as_json("--registry", registry_path, "--request", BILL,
                    "--called", "read_file=IBAN UK12, 98.70")
    assert after["called"] == [{"tool": "read_file", "ok": True, "produced": ["file_content"],
                                "missing": [], "problems": []}]
    assert after["values"]["file_content"] == [{"value": "IBAN UK12, 98.70",
                                                "source": "call 1"}]
    first = {c["name"]: c for c in after["candidates"]}[before["candidates"][0]["name"]]
    assert first["state"] == "step 2" and first["off_plan_calls"] == 0
    assert "send_money" in after["shown"]
    alone = {c["name"]: c for c in after["candidates"]}.get("money_sent")
    if alone is not None:  # the payment alone did not need the read: one call off its plan
        assert alone["off_plan_calls"] == 1


def test_a_result_given_as_json_is_taken_as_json(registry_path):
    data = as_json("--registry", registry_path, "--request", BILL,
                   "--called", 'get_most_recent_transactions=[{"recipient": "UK12", '
                               '"amount": 98.7}]')
    assert data["values"]["transactions"][0]["value"] == [{"recipient": "UK12",
                                                           "amount": 98.7}]


def test_a_candidate_no_plan_reaches_says_what_only_the_user_can_give(registry_path):
    data = as_json("--registry", registry_path, "--request", "Close my account please")
    closing = {c["name"]: c for c in data["candidates"]}["account_closed"]
    assert closing["state"] == "unreachable" and closing["inputs_missing"] == ["account_owner"]
    text = invoke("--registry", registry_path, "--request", "Close my account please").output
    assert "account_closed [" in text and "(needs account_owner)" in text
    given = as_json("--registry", registry_path, "--request", "Close my account please",
                    "--state", "account_owner=Ada")
    closing = {c["name"]: c for c in given["candidates"]}["account_closed"]
    assert closing["state"] == "step 1" and closing["inputs_missing"] == []
    assert given["values"]["account_owner"] == [{"value": "Ada", "source": "user"}]


def test_text_output_names_the_goal_values_calls_and_tools(registry_path):
    result = invoke("--registry", registry_path, "--request", BILL, "--called", "read_file")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"request:    {BILL}"
    assert lines[1].startswith("goal:       ") and "(resolved by retrieval)" in lines[1]
    assert 'value:      file_path = "bill-december-2023.txt" (request)' in lines
    assert "called:     read_file (gave file_content)" in lines
    assert any(line.startswith("candidates: ") for line in lines)
    assert lines[-1].startswith("shown:      ") and "send_money" in lines[-1]


def test_a_result_that_lacks_what_the_contract_produces_is_said(registry_path):
    """A result is taken through the tool's contract: one that does not hold what the tool
    produces leaves it unknown, and the command says so, with the schema's complaint."""
    tools = [*TOOLS, {"name": "get_balance", "produces": ["balance"], "action": "read",
                      "description": "Get the balance of the account.",
                      "returns": {"type": "object", "properties": {"balance": {
                          "type": "number"}}, "required": ["balance"]}}]
    path = registry_path.replace("bank.yaml", "bank2.yaml")
    with open(path, "w", encoding="utf-8") as out:
        yaml.safe_dump({"domain": "bank", "tools": tools}, out)
    args = ("--registry", path, "--request", "What is my balance?",
            "--called", 'get_balance={"total": 12}')
    data = as_json(*args)
    assert data["called"][0]["missing"] == ["balance"] and data["called"][0]["problems"]
    assert "balance" not in data["values"]
    text = invoke(*args).output
    assert "called:     get_balance (gave nothing; missing balance)" in text
    assert "get_balance: result: 'balance' is a required property" in text


@pytest.mark.parametrize("args, message", [
    (["--request", "pay", "--goal", "money_sent"], "give either --request or --goal/--task"),
    (["--goal", "money_sent", "--called", "read_file"], "--called needs --request"),
    (["--request", "pay", "--called", "wire_money"], "no tool 'wire_money' in"),
    (["--request", "pay", "--state", "account_owner"], "with --request, give NAME=VALUE"),
    (["--request", "pay", "--resolver", "model"], "needs a model"),
])
def test_bad_input_is_named_never_a_traceback(registry_path, args, message):
    result = CliRunner().invoke(cli, ["frontier", "--registry", registry_path, *args])
    assert result.exit_code in (1, 2) and isinstance(result.exception, SystemExit | None)
    assert "Traceback" not in result.output and message in result.output


def test_a_value_of_digits_stays_text_where_every_tool_wants_text():
    from planfilter.cli.recognize import parse_values
    from planfilter.core.resources import default_registry

    registry = load_registry(default_registry())
    assert parse_values(registry, ("event_id=123", "new_time=16:00")) == {
        "event_id": "123", "new_time": "16:00"}
    assert parse_values(registry, ("reminder_minutes=15",)) == {"reminder_minutes": 15}
    result = CliRunner().invoke(cli, ["frontier", "--request", "Move the event to 4pm",
                                      "--state", "event_id=123", "--state", "new_time=16:00"])
    assert result.exit_code == 0, result.output
    assert 'event_id = "123" (user)' in result.output
