"""Values the system supplies (a registry's ``environment:``): known at the start, bound like
the user's values, reported by ``plan`` and ``frontier``."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
import yaml
from click.testing import CliRunner

from planfilter import Session
from planfilter.cli import cli
from planfilter.core.contracts import Registry
from planfilter.core.environment import Supplied, supply
from planfilter.core.errors import ContractError, PlanfilterError
from planfilter.core.frontier import compute_frontier
from planfilter.core.loading import load_registry
from planfilter.gateway import UpstreamTool
from planfilter.gateway.service import Gateway, GatewayOptions
from planfilter.gateway.upstream import Outcome

TOOLS = [
    {"name": "whoami", "produces": ["profile"], "action": "read"},
    {"name": "wipe", "produces": ["wiped"], "action": "delete", "risk": "high"},
    {"name": "lookup", "produces": ["found"], "action": "search", "authored": ["query"],
     "parameters": {"type": "object", "properties": {"query": {"type": "string"}},
                    "required": ["query"]}},
    {"name": "list_files", "requires": ["account", "directory"], "produces": ["files"],
     "action": "list", "outputs": {"files": "/files"},
     "parameters": {"type": "object", "properties": {
         "account": {"type": "string", "pattern": "^[a-z]+$"}, "directory": {"type": "string"}},
         "required": ["account", "directory"]}},
]


def write(tmp_path, environment: dict, tools: list | None = None, name: str = "r.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"tools": tools or TOOLS, "environment": environment}))
    return path


def registry(tmp_path, **environment: Any) -> Registry:
    return load_registry(write(tmp_path, environment or {
        "account": {"value": "alice"}, "directory": {"tool": "whoami", "pointer": "/home"}}))


# -- the format -------------------------------------------------------------------------------

def test_each_source_loads_and_a_written_registry_loads_back(tmp_path):
    reg = load_registry(write(tmp_path, {"account": {"from_env": "USER_ACCOUNT"},
                                         "directory": {"tool": "whoami", "pointer": "/home"}}))
    assert reg.environment["account"].kind == "env USER_ACCOUNT"
    assert reg.environment["directory"].kind == "tool whoami at /home"
    dumped = reg.model_dump(mode="json")
    assert dumped["environment"] == {"account": {"from_env": "USER_ACCOUNT"},
                                     "directory": {"tool": "whoami", "pointer": "/home"}}
    again = load_registry(write(tmp_path, dumped["environment"], dumped["tools"], "again.yaml"))
    assert again.environment == reg.environment
    assert reg.subset(["list_files"]).environment.keys() == {"account"}  # its tool is gone


@pytest.mark.parametrize("environment, says", [
    ({"account": {"value": "a", "from_env": "X"}}, "environment 'account': give "
                                                    "exactly one of value, from_env and tool "
                                                    "(got value, from_env)"),
    ({"account": {}}, "give exactly one of value, from_env and tool"),
    ({"account": {"value": "a", "pointer": "/x"}}, "pointer reads a tool's result"),
    ({"directory": {"tool": "nope"}}, "environment 'directory' field 'tool': unknown tool "
                                      "'nope'"),
    ({"directory": {"tool": "list_files"}}, "field 'tool': list_files needs ['account', "
                                            "'directory']"),
    ({"directory": {"tool": "lookup"}}, "field 'tool': lookup needs ['query']"),
    ({"colour": {"value": "red"}}, "environment 'colour': no tool requires or takes 'colour'"),
    ({"directory": {"tool": "wipe"}}, "field 'tool': wipe acts (delete, high risk); a source "
                                      "runs unasked, so it must only read"),
    ({"account": {"from_env": "not a name"}}, "field 'from_env'"),
])
def test_a_wrong_source_is_an_error_naming_file_variable_and_field(tmp_path, environment, says):
    path = write(tmp_path, environment)
    with pytest.raises(ContractError) as err:
        load_registry(path)
    assert str(path) in str(err.value) and says in str(err.value).replace("\n", " ")


def test_two_files_that_disagree_name_both(tmp_path):
    first = write(tmp_path, {"account": {"value": "alice"}}, name="a.yaml")
    second = tmp_path / "b.yaml"
    second.write_text(yaml.safe_dump({"tools": [{"name": "other", "produces": ["x"]}],
                                      "environment": {"account": {"value": "bob"}}}))
    with pytest.raises(ContractError, match=r"b.yaml: environment 'account': given "
                                            r"differently in .*a.yaml"):
        load_registry([first, second])


# -- reading the values -----------------------------------------------------------------------

def test_supply_reads_literals_the_os_environment_and_tools(tmp_path):
    reg = load_registry(write(tmp_path, {"account": {"from_env": "USER_ACCOUNT"},
                                         "directory": {"tool": "whoami", "pointer": "/home"}}))
    calls = []

    def run(tool: str) -> Any:
        calls.append(tool)
        return '{"home": "/home/alice"}'

    got = supply(reg, environ={"USER_ACCOUNT": "alice"}, run=run)
    assert got == {"account": Supplied("alice", "env USER_ACCOUNT"),
                   "directory": Supplied("/home/alice", "tool whoami at /home")}
    assert calls == ["whoami"]
    # without a caller, a tool source is not supplied; an unset variable is named
    assert supply(reg, environ={"USER_ACCOUNT": "a"}).keys() == {"account"}
    with pytest.raises(ContractError, match="environment 'account' field 'from_env': "
                                            "environment variable USER_ACCOUNT is not set"):
        supply(reg, environ={})
    with pytest.raises(ContractError, match="field 'pointer': the result of whoami holds "
                                            "nothing at '/home'"):
        supply(reg, environ={"USER_ACCOUNT": "a"}, run=lambda t: {"user": "a"})

    def broken(tool: str) -> Any:
        raise PlanfilterError("connection refused")

    with pytest.raises(ContractError, match="field 'tool': whoami failed: connection refused"):
        supply(reg, environ={"USER_ACCOUNT": "a"}, run=broken)


def test_without_a_pointer_a_tool_that_produces_the_variable_is_read_by_its_contract(
        tmp_path):
    tools = [{"name": "pwd", "produces": ["directory"], "action": "read"}, *TOOLS[2:]]
    reg = load_registry(write(tmp_path, {"directory": {"tool": "pwd"},
                                         "account": {"value": "alice"}}, tools))
    got = supply(reg, run=lambda tool: {"directory": "/srv", "user": "alice"})
    assert got["directory"] == Supplied("/srv", "tool pwd")
    # a tool that answers in words: the whole text, as its contract reads it
    assert supply(reg, run=lambda tool: "/srv")["directory"].value == "/srv"


def test_contracts_infer_merge_keeps_the_environment(tmp_path):
    spec = tmp_path / "tools.json"
    spec.write_text('{"tools": [{"type": "function", "function": {"name": "list_files", '
                    '"description": "List files.", "parameters": {"type": "object", '
                    '"properties": {"directory": {"type": "string"}}, '
                    '"required": ["directory"]}}}]}')
    existing = tmp_path / "contracts.yaml"
    existing.write_text(yaml.safe_dump({"tools": [{"name": "list_files", "requires": [
        "directory"], "produces": ["files"]}], "environment": {"directory": {"value": "/srv"}}}))
    out = CliRunner().invoke(cli, ["contracts", "infer", str(spec), "--merge", str(existing),
                                   "--out", str(existing)])
    assert out.exit_code == 0, out.output
    assert load_registry(existing).environment["directory"].value == "/srv"


# -- planning and the session -----------------------------------------------------------------

def test_a_goal_no_tool_can_reach_is_reached_with_the_environment(tmp_path):
    reg = registry(tmp_path, account={"value": "alice"}, directory={"value": "/home/alice"})
    bare = Registry(tools=reg.tools)
    assert compute_frontier(bare, set(), {"files"}, planner="native").frontier == ()
    session = Session(reg)
    session.start("list my files", goal="files")
    assert session.visible().tools == ("list_files",)
    assert session.environment == {"account": Supplied("alice", "value"),
                                   "directory": Supplied("/home/alice", "value")}
    assert session.facts["account"][0].source == "environment (value)"
    # bound like the user's values: held to, and another value is refused as substituted
    assert session.check("list_files", {"account": "alice", "directory": "/home/alice"}).allowed
    other = session.check("list_files", {"account": "mallory", "directory": "/home/alice"})
    assert not other.allowed and other.kind == "substituted"


def test_the_users_values_outrank_the_environment_and_a_bad_value_is_named(tmp_path):
    reg = registry(tmp_path, account={"value": "alice"}, directory={"value": "/srv"})
    session = Session(reg)
    session.start("list bob's files", goal="files", known={"account": "bob"})
    assert session.state["account"] == "bob" and "account" not in session.environment
    bad = registry(tmp_path, account={"value": "Not Valid"}, directory={"value": "/srv"})
    with pytest.raises(PlanfilterError, match="environment value 'account' does not fit "
                                              "list_files.account"):
        Session(bad).start("list my files", goal="files")
    tool_sourced = registry(tmp_path)  # directory from a tool: given by whoever runs it
    with pytest.raises(PlanfilterError, match=r"the environment supplies 'directory' \(tool "
                                              r"whoami\) by a tool call: pass what it "
                                              r"returned"):
        Session(tool_sourced).start("list my files", goal="files")
    session = Session(tool_sourced)
    session.start("list my files", goal="files",
                  environment={"directory": Supplied("/home/a", "tool whoami at /home"),
                               "account": Supplied("alice", "value")})
    assert session.visible().tools == ("list_files",)


def test_frontier_counts_the_environment_as_known_and_says_so(tmp_path):
    path = write(tmp_path, {"account": {"value": "alice"},
                            "directory": {"tool": "whoami", "pointer": "/home"}})
    out = CliRunner().invoke(cli, ["frontier", "--registry", str(path), "--goal", "files"])
    assert out.exit_code == 0, out.output
    assert "environment: account (value), directory (tool whoami at /home)" in out.output
    assert "frontier: list_files" in out.output
    bare = tmp_path / "bare.yaml"
    bare.write_text(yaml.safe_dump({"tools": TOOLS}))
    out = CliRunner().invoke(cli, ["frontier", "--registry", str(bare), "--goal", "files"])
    assert "frontier: (none)" in out.output


# -- the gateway ------------------------------------------------------------------------------

class Upstream:
    """A stand-in upstream that answers whoami (the gateway's own code path is under test;
    real servers: test_gateway_live.py)."""

    def __init__(self, fail: bool = False):
        self.calls: list[tuple[str, dict]] = []
        self.fail = fail

    async def call(self, qualified: str, arguments: dict[str, Any]) -> Outcome:
        self.calls.append((qualified, arguments))
        if self.fail:
            return Outcome("s", qualified, text="no session", is_error=True)
        return Outcome("s", qualified, structured={"home": "/home/alice"})


def gateway(tmp_path, upstream: Upstream) -> Gateway:
    reg = registry(tmp_path)
    tools = tuple(UpstreamTool("s", t.name, "d", dict(t.parameters)) for t in reg)
    return Gateway(reg, upstream, tools, GatewayOptions())


def test_plan_calls_a_tool_source_first_and_reports_what_it_took(tmp_path):
    upstream = Upstream()
    gw = gateway(tmp_path, upstream)
    environment = anyio.run(gw.supplied)
    answer = gw.plan("me", "list my files", goal="files", environment=environment)
    assert upstream.calls == [("whoami", {})]
    assert answer["environment"] == {
        "account": {"value": "alice", "from": "value"},
        "directory": {"value": "/home/alice", "from": "tool whoami at /home"}}
    assert answer["plan"] == ["list_files"]
    # a value the client gives is not fetched: its value outranks the environment's
    quiet = Upstream()
    given = gateway(tmp_path, quiet)
    environment = anyio.run(given.supplied, {"directory": "/srv"})
    assert quiet.calls == [] and "directory" not in environment
    answer = given.plan("me", "list my files", goal="files", known={"directory": "/srv"},
                        environment=environment)
    assert answer["environment"] == {"account": {"value": "alice", "from": "value"}}
    failing = gateway(tmp_path, Upstream(fail=True))
    with pytest.raises(PlanfilterError, match="environment 'directory' field 'tool': whoami "
                                              "failed: s.whoami: no session"):
        anyio.run(failing.supplied)
