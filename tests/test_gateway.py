"""The gateway's protocol-free parts: the servers file, coverage, task handles, the CLI's
answer when the MCP SDK is missing. (Real servers and clients: test_gateway_live.py.)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from planfilter.cli import cli
from planfilter.core.contracts import Registry, Tool
from planfilter.core.errors import PlanfilterError
from planfilter.core.loading import load_registry
from planfilter.core.servers import parse_config
from planfilter.gateway import (
    ConfigError,
    UpstreamTool,
    check_coverage,
    gateway_registry,
    load_config,
    mcp_missing,
)
from planfilter.gateway.service import Checked, GatewayOptions, unattended
from planfilter.gateway.tasks import TaskError, TaskTable
from planfilter.live import Session

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mcp"
ENV = {"PLANFILTER_GIT_REPO": "/r", "PLANFILTER_FS_ROOT": "/f"}


def test_example_config_reads_with_placeholders_filled() -> None:
    specs = load_config(EXAMPLE / "servers.json", environ=ENV)
    assert [s.name for s in specs] == ["git", "time", "fs"]
    assert specs[0].args == ("--repository", "/r") and specs[0].transport == "stdio"
    assert specs[2].args == ("/f",)


@pytest.mark.parametrize(("doc", "message"), [
    ({}, "field 'mcpServers'"),
    ({"mcpServers": {"a.b": {"command": "x"}}}, "server 'a.b': a server name"),
    ({"mcpServers": {"a": {"command": "x", "url": "http://h"}}}, "not both"),
    ({"mcpServers": {"a": {"args": []}}}, "server 'a': needs 'command'"),
    ({"mcpServers": {"a": {"command": "x", "args": "y"}}}, "server 'a' field 'args'"),
    ({"mcpServers": {"a": {"command": "${NOPE}"}}}, "field 'command': environment variable "
                                                    "NOPE is not set"),
    ({"mcpServers": {"a": {"url": "ftp://h"}}}, "field 'url'"),
    ({"mcpServers": {"a": {"command": "x", "colour": 1}}}, "unknown field(s) ['colour']"),
])
def test_config_errors_name_file_server_and_field(doc: dict, message: str) -> None:
    with pytest.raises(ConfigError, match="servers.json") as info:
        parse_config(doc, "servers.json", {})
    assert message in str(info.value)


def test_config_file_errors(tmp_path: Path) -> None:
    bad = tmp_path / "s.json"
    bad.write_text("{oops")
    with pytest.raises(ConfigError, match=r"s.json:1:2: invalid JSON"):
        load_config(bad)
    vscode = tmp_path / "v.json"
    vscode.write_text(json.dumps({"servers": {"h": {"type": "http", "url": "http://x/mcp"}}}))
    assert load_config(vscode)[0].transport == "http"


def _upstream(name: str, props: dict, required: list, **kw: object) -> UpstreamTool:
    server, _, tool = name.partition(".")
    return UpstreamTool(server, tool, "d", {"type": "object", "properties": props,
                                            "required": required}, **kw)  # type: ignore[arg-type]


def test_coverage_reports_and_completes_contracts() -> None:
    registry = Registry(tools=(
        Tool(name="s.a", produces=frozenset({"x"})),
        Tool(name="s.b", requires=frozenset({"x"}), produces=frozenset({"y"}),
             parameters={"type": "object", "properties": {"x": {}, "z": {}},
                         "required": ["x", "z"]}),
        Tool(name="s.gone", produces=frozenset({"w"})),
    ))
    tools = [_upstream("s.a", {"q": {"type": "string"}}, ["q"],
                       output_schema={"type": "object"}, destructive=True),
             _upstream("s.b", {"x": {}, "k": {}}, ["x"]),
             _upstream("s.extra", {}, [])]
    cov = check_coverage(registry, tools)
    assert cov.contracted == ("s.a", "s.b")
    assert cov.uncontracted == ("s.extra",) and cov.unmatched == ("s.gone",)
    assert cov.destructive == ("s.a",)
    (name, problem), = cov.mismatched
    assert name == "s.b" and "['z'] are not in the upstream" in problem and "['k']" in problem
    lines = "\n".join(cov.lines())
    assert "match no upstream tool (ignored): s.gone" in lines and "(hidden): s.extra" in lines
    merged = gateway_registry(registry, tools)
    assert merged.names == ("s.a", "s.b")
    a = merged.tool("s.a")
    assert a.risk == "high" and a.returns == {"type": "object"}
    assert a.parameters["required"] == ("q",)


def test_example_contracts_load() -> None:
    registry = load_registry(EXAMPLE / "contracts.yaml")
    assert registry.tool("git.git_commit").requires == {"repo_path", "message", "staged"}
    assert all("." in t.name for t in registry)


def test_task_handles_are_unguessable_and_owned() -> None:
    registry = load_registry(EXAMPLE / "contracts.yaml")
    table = TaskTable(max_tasks=3)
    session = Session(registry, resolver="retrieval")
    tasks = [table.add("alice", session) for _ in range(4)]
    assert len({t.handle for t in tasks}) == 4 and all(len(t.handle) >= 32 for t in tasks)
    assert len(table) == 3  # bounded: the oldest went
    with pytest.raises(TaskError, match="unknown task"):
        table.get("alice", tasks[0].handle)
    with pytest.raises(TaskError, match="unknown task") as other:
        table.get("bob", tasks[3].handle)
    with pytest.raises(TaskError, match="unknown task") as never:
        table.get("bob", "made-up")
    assert str(other.value).replace(tasks[3].handle, "H") == \
        str(never.value).replace("made-up", "H")  # no oracle
    assert table.get("alice", tasks[3].handle) is tasks[3]
    assert table.latest("alice") is tasks[3] and table.latest("bob") is None
    assert isinstance(TaskError("x"), PlanfilterError)


def test_serve_without_the_mcp_sdk_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)
    assert "pip install 'planfilter[mcp]'" in (mcp_missing() or "")
    result = CliRunner().invoke(cli, ["serve", "--config", str(EXAMPLE / "servers.json"),
                                      "--contracts", str(EXAMPLE / "contracts.yaml")])
    assert result.exit_code == 1
    assert "pip install 'planfilter[mcp]'" in result.output
    assert "Traceback" not in result.output


def test_import_planfilter_does_not_import_mcp() -> None:
    import subprocess

    code = ("import sys, planfilter, planfilter.gateway, planfilter.cli; "
            "print(any(m == 'mcp' or m.startswith('mcp.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_serve_errors_are_messages_not_tracebacks(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    args = ["serve", "--config", str(EXAMPLE / "servers.json"),
            "--contracts", str(EXAMPLE / "contracts.yaml")]
    bad_address = CliRunner().invoke(cli, [*args, "--http", "localhost"])
    assert bad_address.exit_code == 2 and "expected HOST:PORT" in bad_address.output
    unset = CliRunner().invoke(cli, args, env={"PLANFILTER_GIT_REPO": None})
    assert unset.exit_code == 1
    assert "server 'git' field 'args[1]': environment variable PLANFILTER_GIT_REPO is not " \
           "set" in unset.output
    broken = tmp_path / "servers.json"
    broken.write_text(json.dumps({"mcpServers": {"x": {"command": "/no/such/binary"}}}))
    failed = CliRunner().invoke(cli, ["serve", "--config", str(broken), "--contracts",
                                      str(EXAMPLE / "contracts.yaml")])
    assert failed.exit_code == 1 and "upstream 'x': cannot start" in failed.output
    assert "Traceback" not in failed.output
    import socket

    with socket.socket() as held:  # another process listens on the port
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        taken = CliRunner().invoke(cli, ["serve", "--config", str(broken), "--contracts",
                                         str(EXAMPLE / "contracts.yaml"), "--http",
                                         f"127.0.0.1:{port}"])
    assert taken.exit_code == 1 and "Traceback" not in taken.output
    assert f"Error: --http 127.0.0.1:{port}: cannot listen there: " in taken.output


@pytest.mark.parametrize("policy, outside, concerns, runs", [
    ("always", False, ("fs.write_file is high-risk",), True),
    ("always", True, (), True),
    ("never", False, ("fs.write_file is high-risk",), False),
    ("untainted", False, ("fs.write_file is high-risk",), True),
    ("untainted", False, ("fs.write_file is high-risk",
                          "sensitive argument 'path' = \"/x\" was not given by the user"), False),
    ("untainted", True, (), False),  # an uncontracted tool is outside the plan
])
def test_a_risky_call_without_a_client_to_ask(policy, outside, concerns, runs):
    checked = Checked(task=None, tool="fs.write_file", arguments={},  # type: ignore[arg-type]
                      risky=True, outside=outside, concerns=concerns)
    refusal = unattended(policy, checked, "why")
    assert (refusal is None) is runs
    if not runs:
        assert refusal == f"why; this client cannot be asked (no elicitation) and the gateway " \
                          f"runs with --approve-risky {policy}"
    with pytest.raises(PlanfilterError, match="choose never, untainted, always"):
        GatewayOptions(approve_risky="sometimes")
