"""``planfilter contracts learn``: edges learned from where a result's value reappears as a
later call's argument, in planfilter traces and OpenAI-style chat logs."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from click.testing import CliRunner

from planfilter.cli import cli
from planfilter.core.loading import load_registry
from planfilter.infer.learn import learn, merge, value_key

CONTRACTS = {"tools": [
    {"name": "find_order", "description": "Find an order.", "requires": [],
     "produces": ["order"], "parameters": {"type": "object", "properties": {
         "query": {"type": "string"}}}, "authored": ["query"]},
    {"name": "get_customer", "description": "The customer.", "requires": [],
     "produces": ["customer_id"], "parameters": {"type": "object", "properties": {}}},
    {"name": "refund", "description": "Refund an order.", "requires": ["reason"],
     "produces": ["refund_done"], "risk": "high",
     "parameters": {"type": "object", "properties": {
         "order_id": {"type": "string"}, "payee": {"type": "string"},
         "reason": {"type": "string"}}},
     "inferred": {"requires": "schema: required"}},
]}


def step(task: str, n: int, tool: str, arguments: dict, result: object, **extra) -> str:
    line = {"type": "step", "task": task, "method": "all", "model": "oracle", "seed": 1,
            "step": n, "chosen": tool, "arguments": arguments, "error": None,
            "tool_failed": False, "result": json.dumps(result), "produced": {},
            "state_before": {}, **extra}
    return json.dumps(line)


def write_contracts(tmp_path: Path) -> Path:
    path = tmp_path / "contracts.yaml"
    path.write_text(yaml.safe_dump(CONTRACTS, sort_keys=False), encoding="utf-8")
    return path


def write_traces(tmp_path: Path) -> Path:
    lines = [json.dumps({"type": "run", "task": "t1"})]
    for task in ("t1", "t2"):
        oid = "ORD-" + task
        lines += [
            step(task, 1, "find_order", {"query": "blue shoes"},
                 {"order": {"id": oid, "status": "open", "total": 1}}),
            step(task, 2, "get_customer", {}, {"customer_id": "CUST-77"},
                 produced={"customer_id": "CUST-77"}),
            step(task, 3, "refund", {"order_id": oid, "payee": "CUST-77",
                                     "reason": "too small"}, "ok"),
        ]
    path = tmp_path / "traces.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_trivial_values_are_ignored() -> None:
    assert value_key(True) is None and value_key(0) is None and value_key(1) is None
    assert value_key("") is None and value_key("abc") is None and value_key("true") is None
    assert value_key(42) == value_key("42") == value_key(42.0)
    assert value_key("ORD 1") == value_key("ORD1")


def test_proposals_from_planfilter_traces(tmp_path: Path) -> None:
    registry = load_registry(write_contracts(tmp_path))
    path = write_traces(tmp_path)
    proposals, runs, reused = learn(registry, [path])
    assert runs == 2 and reused == 4
    got = {(p.tool, p.field, p.key, p.value): p for p in proposals}
    # the order id, nested inside the result, under another key: produced with a pointer
    assert got[("find_order", "produces", "order_id", "")].evidence == 2
    assert got[("find_order", "outputs", "order_id", "/order/id")].evidence == 2
    assert got[("refund", "requires", "order_id", "")].evidence == 2
    # the customer id, produced under another name: the parameter carries it
    assert got[("refund", "inputs", "payee", "customer_id")].evidence == 2
    assert got[("refund", "requires", "customer_id", "")].example == f"{path}:4"
    # the first example is the line of the later call
    assert got[("find_order", "produces", "order_id", "")].example == f"{path}:4"
    # the reason was never in a result; 1 (the total) is trivial
    assert not any(p.key in ("reason", "total") for p in proposals)


def test_user_values_are_not_learned(tmp_path: Path) -> None:
    registry = load_registry(write_contracts(tmp_path))
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([
        step("t", 1, "get_customer", {}, {"customer_id": "CUST-77"},
             state_before={"payee": "CUST-77"}),
        step("t", 2, "refund", {"payee": "CUST-77", "reason": "x"}, "ok")]) + "\n")
    proposals, _, reused = learn(registry, [path])
    assert reused == 0 and proposals == []


def test_openai_message_log(tmp_path: Path) -> None:
    registry = load_registry(write_contracts(tmp_path))
    messages = [
        {"role": "user", "content": "Refund my last order, reason: too small"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "find_order", "arguments": '{"query": "last order"}'}}]},
        {"role": "tool", "tool_call_id": "c1",
         "content": json.dumps({"order": {"id": "ORD-9", "status": "open"}})},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c2", "type": "function", "function": {
                "name": "refund",
                "arguments": '{"order_id": "ORD-9", "reason": "too small"}'}}]},
        {"role": "tool", "tool_call_id": "c2", "content": "done"},
    ]
    jsonl = tmp_path / "chat.jsonl"
    jsonl.write_text("\n".join(json.dumps(m) for m in messages) + "\n")
    array = tmp_path / "chat.json"
    array.write_text(json.dumps(messages, indent=2))
    conversation = tmp_path / "conv.jsonl"
    conversation.write_text(json.dumps({"messages": messages}) + "\n")
    for path, line in ((jsonl, 4), (conversation, 1)):
        proposals, runs, _ = learn(registry, [path])
        got = {(p.tool, p.field, p.key): p for p in proposals}
        assert runs == 1
        assert got[("refund", "requires", "order_id")].example == f"{path}:{line}"
        assert got[("find_order", "outputs", "order_id")].value == "/order/id"
    proposals, _, _ = learn(registry, [array])
    example = {p.field: p for p in proposals}["requires"].example
    # the line where the fourth message (the refund call) starts in the indented array
    lines = array.read_text().splitlines()
    starts = [i + 1 for i, text in enumerate(lines) if text == "  {"]
    assert example == f"{array}:{starts[3]}"


def test_merge_only_adds(tmp_path: Path) -> None:
    registry = load_registry(write_contracts(tmp_path))
    proposals, _, _ = learn(registry, [write_traces(tmp_path)])
    merged = merge(CONTRACTS, proposals)
    for before, after in zip(CONTRACTS["tools"], merged["tools"], strict=True):
        for key, value in before.items():
            if key == "inferred":
                assert all(after[key][k] == v for k, v in value.items())
            elif isinstance(value, list):
                assert set(value) <= set(after[key])
            elif isinstance(value, dict):
                assert all(after[key][k] == v for k, v in value.items())
            else:
                assert after[key] == value
    refund = merged["tools"][2]
    assert refund["requires"] == ["customer_id", "order_id", "reason"]
    assert refund["inputs"] == {"payee": "customer_id"}
    assert "learned" in refund["inferred"] and refund["inferred"]["requires"]


def test_merge_keeps_an_existing_pointer_and_mapping() -> None:
    doc = {"tools": [{"name": "a", "produces": ["x"], "outputs": {"y": "/kept"},
                      "inputs": {"p": "kept"}}]}
    from planfilter.infer.learn import Proposal

    proposals = [Proposal("a", "outputs", "y", "/new", 3, "f:1", "s"),
                 Proposal("a", "inputs", "p", "new", 3, "f:1", "s"),
                 Proposal("a", "produces", "x", "", 3, "f:1", "s")]
    assert merge(doc, proposals) == doc


def test_cli_end_to_end(tmp_path: Path) -> None:
    contracts = write_contracts(tmp_path)
    traces = write_traces(tmp_path)
    out = tmp_path / "learned.yaml"
    result = CliRunner().invoke(cli, ["contracts", "learn", str(traces), "--contracts",
                                      str(contracts), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "refund: requires + order_id" in result.output
    assert f"2 calls, e.g. {traces}:4" in result.output
    learned = load_registry(out)
    assert "order_id" in learned.tool("refund").requires
    assert learned.tool("find_order").outputs["order_id"] == "/order/id"
    again = CliRunner().invoke(cli, ["contracts", "learn", str(traces), "--contracts",
                                     str(out), "--min-evidence", "3"])
    assert again.exit_code == 0 and "0 proposals" in again.output


def test_malformed_traces_name_file_and_line(tmp_path: Path) -> None:
    contracts = str(write_contracts(tmp_path))
    cases = {
        "bad.jsonl": (step("t", 1, "get_customer", {}, {}) + "\n{not json\n", ":2:"),
        "args.jsonl": (json.dumps({"role": "assistant", "tool_calls": [{"id": "c", "function": {
            "name": "refund", "arguments": "{oops"}}]}) + "\n", ":1:"),
        "orphan.jsonl": (json.dumps({"role": "tool", "tool_call_id": "zz",
                                     "content": "x"}) + "\n", ":1:"),
        "odd.jsonl": ("\n\n[1, 2]\n", ":3:"),
        "open.json": ('[{"role": "user", "content": "hi"},\n', ":2:"),
    }
    for name, (text, line) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        result = CliRunner().invoke(cli, ["contracts", "learn", str(path),
                                          "--contracts", contracts])
        assert result.exit_code == 1, (name, result.output)
        assert f"{path}{line}" in result.output, (name, result.output)
        assert "Traceback" not in result.output


def test_yaml_text_results_and_values_of_several_kinds(tmp_path: Path) -> None:
    """AgentDojo answers YAML text; a parameter fed by two kinds of value gets nothing."""
    contracts = {"tools": [
        {"name": "hotel_address", "produces": ["hotel_address"]},
        {"name": "restaurant_address", "produces": ["restaurant_address"]},
        {"name": "list_events", "produces": ["events"]},
        {"name": "book", "produces": ["booked"], "parameters": {"type": "object", "properties": {
            "location": {"type": "string"}, "event_id": {"type": "string"}}}},
    ]}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(contracts))
    registry = load_registry(path)

    def raw(task: str, n: int, tool: str, arguments: dict, result: str, produced: dict) -> str:
        return json.dumps({"type": "step", "task": task, "chosen": tool, "step": n,
                           "arguments": arguments, "result": result, "produced": produced})

    traces = tmp_path / "t.jsonl"
    traces.write_text("\n".join([
        raw("a", 1, "hotel_address", {}, "City Hub: 1 Main St", {
            "hotel_address": {"City Hub": "1 Main St"}}),
        raw("a", 2, "list_events", {}, "- id: EV-12\n  title: lunch\n", {}),
        raw("a", 3, "book", {"location": "1 Main St", "event_id": "EV-12"}, "ok", {}),
        raw("b", 1, "restaurant_address", {}, "Dino: 9 High St", {
            "restaurant_address": {"Dino": "9 High St"}}),
        raw("b", 2, "book", {"location": "9 High St"}, "ok", {}),
    ]) + "\n")
    proposals, _, reused = learn(registry, [traces])
    assert reused == 3
    got = {(p.tool, p.field, p.key, p.value) for p in proposals}
    assert ("list_events", "outputs", "event_id", "/*/id") in got
    assert ("book", "requires", "event_id", "") in got
    assert not any(p.key == "location" or p.value.endswith("address") for p in proposals)
