"""``planfilter contracts infer|check|eval`` through click, and inference from live MCP servers."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import BENCH

from planfilter.cli import cli
from planfilter.core.loading import load_registry

REGISTRY = str(BENCH / "registry.yaml")
TASKS = str(BENCH / "tasks.yaml")
TOOLS_LIST = {"tools": [
    {"name": "searchTickets", "description": "Find support tickets; returns the ticket id.",
     "inputSchema": {"type": "object", "required": ["query"],
                     "properties": {"query": {"type": "string"}}},
     "annotations": {"readOnlyHint": True}},
    {"name": "getTicket", "description": "Read a ticket.",
     "inputSchema": {"type": "object", "required": ["ticketId"],
                     "properties": {"ticketId": {"type": "string"}}},
     "outputSchema": {"type": "object", "properties": {"ticketBody": {"type": "string"}}}},
    {"name": "close_ticket", "description": "Close a ticket.",
     "inputSchema": {"type": "object", "required": ["ticket_id"],
                     "properties": {"ticket_id": {"type": "string"}}},
     "annotations": {"destructiveHint": True}},
]}


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def tools_list(tmp_path) -> Path:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(TOOLS_LIST))
    return path


def test_infer_writes_a_registry_that_validates_with_every_field_noted(tmp_path, tools_list):
    out = tmp_path / "contracts.yaml"
    result = invoke("contracts", "infer", str(tools_list), "--out", str(out), "--embedder",
                    "none")
    assert result.exit_code == 0, result.output
    registry = load_registry(out)
    search, get, close = registry
    assert search.produces == {"ticket_id"} and search.risk == "low"
    assert get.requires == {"ticket_id"} and get.produces == {"ticket_body"}
    assert dict(get.outputs) == {"ticket_body": "/ticketBody"}
    assert close.risk == "high" and close.produces == {"close_ticket_done"}
    for tool in registry:
        assert {"requires", "produces", "risk", "action", "cost"} <= set(tool.inferred)
    assert "alias: ticketId -> ticket_id" in get.inferred["requires"]
    assert "ticketId -> ticket_id" in out.read_text()  # the merge, in the header
    assert invoke("validate", str(out)).exit_code == 0
    # deterministic: the same input writes the same bytes
    again = invoke("contracts", "infer", str(tools_list), "--embedder", "none")
    assert again.output == out.read_text()


def test_infer_reads_openai_tools_and_function_docs(tmp_path):
    openai = tmp_path / "openai.json"
    openai.write_text(json.dumps([{"type": "function", "function": {
        "name": "send_email", "description": "Send an email.", "parameters": {
            "type": "object", "required": ["to"], "properties": {"to": {"type": "string"}}}}}]))
    docs = tmp_path / "docs.yaml"
    docs.write_text(yaml.safe_dump([{"name": "lookup_user", "parameters": {
        "type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
        "response": {"type": "object", "properties": {"to": {"type": "string"}}}}]))
    result = invoke("contracts", "infer", str(docs), str(openai), "--embedder", "none")
    assert result.exit_code == 0, result.output
    tools = yaml.safe_load(result.output)["tools"]
    assert [t["name"] for t in tools] == ["lookup_user", "send_email"]
    assert tools[0]["produces"] == ["to"] and tools[1]["risk"] == "high"


def test_merge_keeps_hand_written_fields(tmp_path, tools_list):
    existing = tmp_path / "existing.yaml"
    existing.write_text(yaml.safe_dump({"tools": [
        {"name": "close_ticket", "requires": ["ticket_id"], "produces": ["ticket_closed"],
         "risk": "medium", "parameters": TOOLS_LIST["tools"][2]["inputSchema"],
         "inferred": {"requires": "rule: old note"}},
        {"name": "hand_only", "produces": ["x"]}]}))
    out = tmp_path / "merged.yaml"
    result = invoke("contracts", "infer", str(tools_list), "--merge", str(existing),
                    "--out", str(out), "--embedder", "none")
    assert result.exit_code == 0, result.output
    registry = load_registry(out)
    assert registry.names == ("close_ticket", "hand_only", "searchTickets", "getTicket")
    close = registry.tool("close_ticket")
    assert close.produces == {"ticket_closed"} and close.risk == "medium"  # kept by hand
    assert "produces" not in close.inferred and "risk" not in close.inferred
    assert close.inferred["requires"].startswith("schema:")  # re-drafted: it was inferred


def test_merge_drops_drafted_authored_parameters_a_person_requires(tmp_path, tools_list):
    existing = tmp_path / "existing.yaml"
    existing.write_text(yaml.safe_dump({"tools": [
        {"name": "searchTickets", "requires": ["query"], "produces": ["ticket_id"],
         "parameters": TOOLS_LIST["tools"][0]["inputSchema"]}]}))
    drafted = invoke("contracts", "infer", str(tools_list), "--embedder", "none")
    assert "authored:\n  - query" in drafted.output  # the draft says the model writes it
    out = tmp_path / "merged.yaml"
    result = invoke("contracts", "infer", str(tools_list), "--merge", str(existing),
                    "--out", str(out), "--embedder", "none")
    assert result.exit_code == 0, result.output
    search = load_registry(out).tool("searchTickets")
    assert search.requires == {"query"} and search.authored == frozenset()
    assert "authored" not in search.inferred


def test_bad_source_is_a_message_naming_the_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"something": 1}))
    result = invoke("contracts", "infer", str(bad))
    assert result.exit_code == 1 and str(bad) in result.output and "Traceback" not in result.output


@pytest.fixture(scope="module")
def clean_traces(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run")
    result = invoke("run", "--registry", REGISTRY, "--tasks", TASKS, "--no-plots", "--methods",
                    "cmtf", "--models", "sim/careful", "--out", str(out))
    assert result.exit_code == 0, result.output
    return out / "traces.jsonl"


def test_check_passes_a_clean_run(clean_traces):
    result = invoke("contracts", "check", REGISTRY, str(clean_traces))
    assert result.exit_code == 0, result.output
    assert "0 findings" in result.output


def _planted(clean: Path, tmp_path: Path) -> tuple[Path, dict[str, int]]:
    lines = clean.read_text().splitlines()
    at: dict[str, int] = {}
    for i, raw in enumerate(lines):
        line = json.loads(raw)
        if line["type"] != "step" or line["error"]:
            continue
        if line["chosen"] == "search_contacts" and "missing" not in at:
            line["produced"] = {}  # contact_email declared, not returned
            line["state_after"] = line["state_before"]
            at["missing"] = i + 1
        elif line["chosen"] == "send_email" and "extra" not in at:
            line["produced"] = {**line["produced"], "message_id": "m_1"}
            line["arguments"] = {**line["arguments"], "from": "alex@example.org"}
            line["state_before"] = {**line["state_before"], "sender_email": "alex@example.org"}
            at["extra"] = i + 1
        lines[i] = json.dumps(line)
    path = tmp_path / "planted.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path, at


def test_check_finds_planted_violations_naming_tool_variable_and_line(clean_traces, tmp_path):
    planted, at = _planted(clean_traces, tmp_path)
    assert set(at) == {"missing", "extra"}
    result = invoke("contracts", "check", REGISTRY, str(planted))
    assert result.exit_code == 1
    out = result.output
    assert ("missing-output: tool 'search_contacts' variable 'contact_email'" in out
            and f"{planted}:{at['missing']}" in out)
    assert "undeclared-output: tool 'send_email' variable 'message_id'" in out
    assert "unrequired-argument: tool 'send_email' variable 'sender_email'" in out
    assert f"{planted}:{at['extra']}" in out


def test_check_leaves_out_authored_arguments_whatever_they_hold(tmp_path):
    registry = tmp_path / "mail.yaml"
    registry.write_text(yaml.safe_dump({"tools": [
        {"name": "read_email", "produces": ["email_body"], "risk": "low"},
        {"name": "send_email", "requires": ["recipient"], "produces": ["email_sent"],
         "authored": ["message_text"],
         "parameters": {"type": "object", "properties": {
             "recipient": {"type": "string"}, "message_text": {"type": "string"},
             "reply_to": {"type": "string"}}}}]}))
    body = "Budget review moved to Friday"
    trace = tmp_path / "traces.jsonl"
    trace.write_text(json.dumps({
        "type": "step", "task": "t1", "method": "cmtf", "model": "m", "seed": 1, "step": 2,
        "chosen": "send_email", "produced": {"email_sent": True}, "error": None,
        "arguments": {"recipient": "ana@example.org", "message_text": body,
                      "reply_to": "ops@example.org"},
        "state_before": {"recipient": "ana@example.org", "email_body": body,
                         "team_address": "ops@example.org"}}) + "\n")
    result = invoke("contracts", "check", str(registry), str(trace))
    findings = [x for x in result.output.splitlines() if x.startswith("unrequired-argument")]
    # the model wrote the message from what it read; reply_to is a value the contract ignores
    assert len(findings) == 1 and "variable 'team_address'" in findings[0], result.output


def test_check_reports_a_tool_that_never_succeeds(clean_traces, tmp_path):
    lines = []
    for raw in clean_traces.read_text().splitlines():
        line = json.loads(raw)
        if line["type"] == "step" and line["chosen"] == "delete_event":
            line.update(error="no such event", tool_failed=True)
        lines.append(json.dumps(line))
    path = tmp_path / "failing.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = invoke("contracts", "check", REGISTRY, str(path))
    assert result.exit_code == 1
    assert "never-succeeds: tool 'delete_event'" in result.output


def test_eval_prints_the_table():
    result = invoke("contracts", "eval", "--registry", REGISTRY, "--tasks", TASKS)
    assert result.exit_code == 0, result.output
    assert "| parameters + descriptions |" in result.output
    assert "frontier unchanged" in result.output


# --- live MCP servers --------------------------------------------------------------------------

SERVERS = ("mcp-server-git", "mcp-server-time", "filesystem-mcp")


def _live_reason() -> str:
    if importlib.util.find_spec("mcp") is None:
        return "the mcp package is not installed (pip install 'planfilter[mcp]')"
    missing = [s for s in SERVERS if shutil.which(s, path=str(Path(sys.executable).parent))
               is None and shutil.which(s) is None]
    if missing:
        return f"MCP servers not installed: {', '.join(missing)}"
    if shutil.which("git") is None:
        return "git is not installed"
    return ""


@pytest.mark.skipif(importlib.util.find_spec("mcp") is None, reason="mcp is not installed")
def test_a_server_that_does_not_start_is_named(tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"broken": {
        "command": sys.executable, "args": ["-c", "import sys; print('boom', file=sys.stderr)"]}}}))
    result = invoke("contracts", "infer", str(config))
    assert result.exit_code == 1
    assert "server 'broken': tools/list failed" in result.output and "boom" in result.output


def test_an_mcp_config_entry_needs_command_or_url(tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"x": {"args": []}}}))
    result = invoke("contracts", "infer", str(config))
    assert result.exit_code == 1
    assert "server 'x': needs 'command' (stdio) or 'url' (streamable HTTP)" in result.output


@pytest.mark.slow
@pytest.mark.skipif(bool(_live_reason()), reason=_live_reason() or "available")
def test_infer_from_the_live_servers(tmp_path):
    repo, root = tmp_path / "repo", tmp_path / "files"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    bin_dir = Path(sys.executable).parent

    def command(name: str) -> str:
        return shutil.which(name, path=str(bin_dir)) or shutil.which(name) or name

    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "git": {"command": command("mcp-server-git"), "args": ["--repository", str(repo)]},
        "time": {"command": command("mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        "fs": {"command": command("filesystem-mcp"), "args": [str(root)]},
    }}))
    out = tmp_path / "contracts.yaml"
    result = invoke("contracts", "infer", str(config), "--out", str(out), "--embedder", "none")
    assert result.exit_code == 0, result.output
    registry = load_registry(out)
    assert len([n for n in registry.names if n.startswith("git.")]) == 12
    assert registry.tool("time.get_current_time").produces >= {"datetime", "timezone"}
    assert registry.tool("fs.read_file").produces >= {"content"}
    assert registry.tool("fs.read_file").risk == "low"
    assert registry.tool("git.git_status").requires == {"repo_path"}
    assert invoke("validate", str(out)).exit_code == 0


def test_check_proposes_a_precondition_when_a_call_failed_until_another_succeeded(tmp_path):
    registry = tmp_path / "shop.yaml"
    registry.write_text(yaml.safe_dump({"tools": [
        {"name": "login", "produces": ["session_token"], "risk": "low"},
        {"name": "get_orders", "produces": ["orders"], "risk": "low"},
        {"name": "get_cart", "requires": ["session_token"], "produces": ["cart"]}]}))

    def step(n, tool, failed=False, task="t1"):
        return json.dumps({"type": "step", "task": task, "method": "cmtf", "model": "m",
                           "seed": 1, "step": n, "chosen": tool, "arguments": {},
                           "produced": {}, "state_before": {},
                           "error": "401 not logged in" if failed else None,
                           "tool_failed": failed})

    trace = tmp_path / "traces.jsonl"
    trace.write_text("\n".join([
        step(1, "get_orders", failed=True), step(2, "get_orders", failed=True),
        step(3, "login"), step(4, "get_orders"),
        # get_cart already requires what login produces: nothing to propose
        step(1, "get_cart", failed=True, task="t2"), step(2, "login", task="t2"),
        step(3, "get_cart", task="t2"),
        # a failure, then a success with nothing in between: not a precondition
        step(1, "get_orders", failed=True, task="t3"), step(2, "get_orders", task="t3"),
    ]) + "\n")
    result = invoke("contracts", "check", str(registry), str(trace))
    assert result.exit_code == 1
    lines = [x for x in result.output.splitlines() if x.startswith("missing-precondition")]
    # no argument carries what login sets up: a fact, named by what login means
    assert lines == [f"missing-precondition: tool 'get_orders' variable 'logged_in': "
                     f"failed until 'login' succeeded: it may need a fact login establishes "
                     f"(needs: [logged_in] here, establishes: [logged_in] on login) "
                     f"[{trace}:1, {trace}:2, {trace}:4]"]
    # once the contracts say so, the same traces propose nothing
    registry.write_text(yaml.safe_dump({"tools": [
        {"name": "login", "produces": ["session_token"], "establishes": ["logged_in"]},
        {"name": "get_orders", "needs": ["logged_in"], "produces": ["orders"]},
        {"name": "get_cart", "requires": ["session_token"], "produces": ["cart"]}]}))
    again = invoke("contracts", "check", str(registry), str(trace))
    assert "missing-precondition" not in again.output
