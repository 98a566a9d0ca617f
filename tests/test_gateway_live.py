"""`planfilter serve` with real MCP servers from PyPI (mcp-server-git, mcp-server-time,
filesystem-mcp) over stdio and the real SDK client, in process, over stdio and over HTTP on
127.0.0.1. No mocked MCP: what upstream received is counted by the gateway's own upstream
clients and checked in the repository and on disk."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
pytest.importorskip("mcp_server_git")

import anyio  # noqa: E402
import mcp_types as types  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.subscriptions import ToolsListChanged  # noqa: E402

from planfilter.core.loading import load_registry  # noqa: E402
from planfilter.gateway import load_config  # noqa: E402
from planfilter.gateway.server import GatewayState, build_server, serve_http  # noqa: E402
from planfilter.gateway.service import GatewayOptions  # noqa: E402
from planfilter.gateway.upstream import Upstreams  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.anyio]
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mcp"
CONTRACTS = load_registry(EXAMPLE / "contracts.yaml")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=True).stdout


@pytest.fixture
def workspace(tmp_path: Path) -> dict[str, str]:
    repo, root = tmp_path / "repo", tmp_path / "root"
    repo.mkdir()
    root.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "Test")
    (repo / "a.txt").write_text("a\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-qm", "init")
    (repo / "notes.txt").write_text("notes\n")
    (root / "note.txt").write_text("hello\n")
    return {"PLANFILTER_GIT_REPO": str(repo), "PLANFILTER_FS_ROOT": str(root)}


def specs(env: dict[str, str], *names: str) -> tuple[Any, ...]:
    return tuple(s for s in load_config(EXAMPLE / "servers.json", environ=env)
                 if not names or s.name in names)


@asynccontextmanager
async def gateway(env: dict[str, str], *servers: str, mode: str = "legacy",
                  options: GatewayOptions | None = None, **client: Any
                  ) -> AsyncIterator[tuple[Client, dict[str, GatewayState]]]:
    holder: dict[str, Any] = {}
    server = build_server(specs(env, *servers), CONTRACTS, options, timeout=20,
                          holder=holder)
    with anyio.fail_after(60):
        async with Client(server, mode=mode, **client) as c:
            yield c, holder


def received(holder: dict[str, Any], server: str) -> int:
    return holder["state"].upstreams.servers[server].calls


def dump(result: Any) -> str:
    return json.dumps(result.model_dump(by_alias=True, mode="json"), sort_keys=True)


COMMIT = {"request": "Commit notes.txt", "goal": "committed"}


def known(env: dict[str, str]) -> dict[str, Any]:
    return {"repo_path": env["PLANFILTER_GIT_REPO"], "files": ["notes.txt"],
            "message": "Add notes"}


async def test_meta_git_task_reaches_the_goal_and_the_list_never_changes(
        workspace: dict[str, str]) -> None:
    repo = workspace["PLANFILTER_GIT_REPO"]
    async with gateway(workspace, "git") as (c, holder):
        before = dump(await c.list_tools())
        assert [t.name for t in (await c.list_tools()).tools] == ["plan", "call", "status"]
        started = await c.call_tool("plan", {**COMMIT, "known": known(workspace)})
        plan = started.structured_content
        assert plan is not None and plan["plan"] == ["git.git_add", "git.git_commit"]
        assert [t["name"] for t in plan["tools"]] == ["git.git_add"]
        assert plan["tools"][0]["inputSchema"]["required"] == ["repo_path", "files"]
        task = plan["task"]

        # a hidden tool: refused, never sent upstream
        hidden = await c.call_tool("call", {"task": task, "tool": "git.git_commit",
                                            "arguments": {"repo_path": repo, "message": "x"}})
        assert hidden.is_error and hidden.structured_content["refused"]["kind"] == "hidden"
        assert received(holder, "git") == 0

        added = await c.call_tool("call", {"task": task, "tool": "git.git_add",
                                           "arguments": {"repo_path": repo,
                                                         "files": ["notes.txt"]}})
        assert added.structured_content["learned"] == ["staged"]
        assert [t["name"] for t in added.structured_content["tools"]] == ["git.git_commit"]
        done = await c.call_tool("call", {"task": task, "tool": "git.git_commit",
                                          "arguments": {"repo_path": repo,
                                                        "message": "Add notes"}})
        assert done.structured_content["done"] is True
        assert done.structured_content["status"] == "goal reached"
        assert received(holder, "git") == 2
        status = (await c.call_tool("status", {"task": task})).structured_content
        assert [h["tool"] for h in status["history"]] == ["git.git_add", "git.git_commit"]
        assert status["state"]["committed"]["source"] == "call 2"
        assert dump(await c.list_tools()) == before  # byte-stable
    assert git(Path(repo), "log", "-1", "--format=%s").strip() == "Add notes"
    assert "notes.txt" in git(Path(repo), "show", "--name-only", "--format=", "HEAD")


async def test_two_calls_at_once_on_one_task_run_one_after_the_other(
        workspace: dict[str, str]) -> None:
    """Both calls see the frontier [git_add]; run one after the other, the second is checked
    against the frontier the first left ([git_commit]) and never reaches git."""
    repo = workspace["PLANFILTER_GIT_REPO"]
    async with gateway(workspace, "git") as (c, holder):
        task = (await c.call_tool("plan", {**COMMIT, "known": known(workspace)})
                ).structured_content["task"]
        answers: list[Any] = []

        async def add() -> None:
            answers.append(await c.call_tool("call", {
                "task": task, "tool": "git.git_add",
                "arguments": {"repo_path": repo, "files": ["notes.txt"]}}))

        async with anyio.create_task_group() as tg:
            tg.start_soon(add)
            tg.start_soon(add)
        assert received(holder, "git") == 1
        ok = [a for a in answers if not a.is_error]
        refused = [a for a in answers if a.is_error]
        assert len(ok) == 1 and ok[0].structured_content["learned"] == ["staged"]
        assert len(refused) == 1 and refused[0].structured_content["refused"]["kind"] == "hidden"


async def test_invented_value_and_bad_handle_are_refused_before_upstream(
        workspace: dict[str, str], tmp_path: Path) -> None:
    root = Path(workspace["PLANFILTER_FS_ROOT"])
    secret = tmp_path / "secret.txt"
    secret.write_text("s")
    async with gateway(workspace, "fs") as (c, holder):
        plan = (await c.call_tool("plan", {"request": "Read my note", "goal": "file_content",
                                           "known": {"path": str(root / "note.txt")}})
                ).structured_content
        assert [t["name"] for t in plan["tools"]] == ["fs.read_file"]
        made_up = await c.call_tool("call", {"task": plan["task"], "tool": "fs.read_file",
                                             "arguments": {"path": str(secret)}})
        refused = made_up.structured_content["refused"]
        # the user gave the path: another one is a substitute, refused before the server
        assert refused["kind"] == "substituted" and "'path'" in refused["reason"]
        unknown = await c.call_tool("call", {"task": "not-a-task", "tool": "fs.read_file",
                                             "arguments": {"path": str(root / "note.txt")}})
        assert unknown.is_error and "unknown task" in unknown.content[0].text
        assert received(holder, "fs") == 0
        read = await c.call_tool("call", {"task": plan["task"], "tool": "fs.read_file",
                                          "arguments": {"path": str(root / "note.txt")}})
        assert read.structured_content["done"] and received(holder, "fs") == 1
        status = (await c.call_tool("status", {"task": plan["task"]})).structured_content
        assert status["state"]["file_content"]["value"] == "hello\n"  # structuredContent


@pytest.mark.parametrize("era", ["legacy", "auto"])
async def test_dynamic_mode_sends_list_changed_and_lists_the_frontier(
        workspace: dict[str, str], era: str) -> None:
    seen: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            seen.append("list_changed")

    repo = workspace["PLANFILTER_GIT_REPO"]
    options = GatewayOptions(mode="dynamic")
    async with gateway(workspace, "git", mode=era, options=options,
                       message_handler=on_message) as (c, holder):
        assert c.server_capabilities.tools.list_changed is True
        assert [t.name for t in (await c.list_tools()).tools] == ["plan"]

        async def step(name: str, arguments: dict[str, Any]) -> list[str]:
            seen.clear()
            if c.protocol_version == "2026-07-28":
                async with c.listen(tools_list_changed=True) as sub:
                    await c.call_tool(name, arguments)
                    with anyio.fail_after(10):
                        assert isinstance(await sub.__anext__(), ToolsListChanged)
            else:
                await c.call_tool(name, arguments)
                with anyio.fail_after(10):
                    while not seen:
                        await anyio.sleep(0.01)
            return [t.name for t in (await c.list_tools()).tools]

        assert await step("plan", {**COMMIT, "known": known(workspace)}) == \
            ["plan", "git.git_add"]
        task = holder["state"].gateway.tasks.latest("local")
        assert task is not None and list(task.session.visible().tools) == ["git.git_add"]
        assert await step("git.git_add", {"repo_path": repo, "files": ["notes.txt"]}) == \
            ["plan", "git.git_commit"]
        assert list(task.session.visible().tools) == ["git.git_commit"]
        assert await step("git.git_commit", {"repo_path": repo, "message": "Add notes"}) == \
            ["plan"]
        assert task.session.done
    assert git(Path(repo), "log", "-1", "--format=%s").strip() == "Add notes"


async def test_upstream_killed_mid_task_is_restarted_and_the_task_goes_on(
        workspace: dict[str, str]) -> None:
    repo = workspace["PLANFILTER_GIT_REPO"]
    async with gateway(workspace, "git") as (c, holder):
        task = (await c.call_tool("plan", {**COMMIT, "known": known(workspace)})
                ).structured_content["task"]
        await c.call_tool("call", {"task": task, "tool": "git.git_add",
                                   "arguments": {"repo_path": repo, "files": ["notes.txt"]}})
        pid = child_pid("mcp-server-git")
        os.kill(pid, signal.SIGKILL)
        await anyio.sleep(0.3)
        commit = {"task": task, "tool": "git.git_commit",
                  "arguments": {"repo_path": repo, "message": "Add notes"}}
        crashed = await c.call_tool("call", commit)
        assert crashed.is_error
        error = crashed.structured_content["error"]
        assert "upstream 'git'" in error and "restarted" in error
        assert holder["state"].upstreams.servers["git"].restarts == 1
        again = await c.call_tool("call", commit)
        assert again.structured_content["done"] is True, again.content[0].text
        status = (await c.call_tool("status", {"task": task})).structured_content
        assert [h["ok"] for h in status["history"]] == [True, False, True]
    assert git(Path(repo), "log", "-1", "--format=%s").strip() == "Add notes"


async def test_upstream_timeout_is_an_error_and_the_connection_survives(
        workspace: dict[str, str]) -> None:
    upstreams = Upstreams(specs(workspace, "time"), timeout=0.000_001)
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(30):
            await upstreams.start(tg)
        slow = await upstreams.call("time.get_current_time", {"timezone": "UTC"})
        assert slow.failure and "no answer within" in slow.failure
        upstreams.timeout = 10
        ok = await upstreams.call("time.get_current_time", {"timezone": "UTC"})
        assert ok.ok and ok.structured["timezone"] == "UTC"
        missing = await upstreams.call("nope.tool", {})
        assert missing.failure == "no upstream server named 'nope'"
        await upstreams.close()


@pytest.mark.parametrize("era", ["legacy", "auto"])
async def test_high_risk_call_needs_the_users_approval(workspace: dict[str, str], era: str,
                                                       ) -> None:
    root = Path(workspace["PLANFILTER_FS_ROOT"])
    target = root / "out.txt"
    answers: list[str] = []

    async def elicit(ctx: Any, params: Any) -> types.ElicitResult:
        answers.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": True})

    start = {"request": "Write a file", "goal": "file_written",
             "known": {"path": str(target), "content": "x"}}
    call = {"tool": "fs.write_file", "arguments": {"path": str(target), "content": "x"}}
    async with gateway(workspace, "fs", mode=era) as (c, holder):  # cannot ask: never
        task = (await c.call_tool("plan", start)).structured_content["task"]
        refused = await c.call_tool("call", {"task": task, **call})
        assert refused.structured_content["refused"]["kind"] == "approval"
        assert not target.exists() and received(holder, "fs") == 0
    async with gateway(workspace, "fs", mode=era, elicitation_callback=elicit) as (c, holder):
        task = (await c.call_tool("plan", start)).structured_content["task"]
        written = await c.call_tool("call", {"task": task, **call})
        assert written.structured_content["done"], written.content[0].text
        assert answers and "fs.write_file is high-risk" in answers[0]
    assert target.read_text() == "x"
    target.unlink()
    unattended = GatewayOptions(approve_risky="untainted")  # cannot ask; nothing is tainted
    async with gateway(workspace, "fs", mode=era, options=unattended) as (c, holder):
        task = (await c.call_tool("plan", start)).structured_content["task"]
        written = await c.call_tool("call", {"task": task, **call})
        assert written.structured_content["done"], written.content[0].text
    assert target.read_text() == "x" and len(answers) == 1


@pytest.mark.parametrize(("era", "action", "content", "how"), [
    ("legacy", "decline", None, "decline"),
    ("legacy", "accept", {"approve": False}, "answered no"),  # "n" at the client's prompt
    ("auto", "decline", None, "decline"),
])
async def test_a_declined_call_is_asked_once_and_ends_the_action(
        workspace: dict[str, str], era: str, action: str, content: Any, how: str) -> None:
    target = Path(workspace["PLANFILTER_FS_ROOT"]) / "out.txt"
    asked: list[str] = []

    async def elicit(ctx: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action=action, content=content)

    start = {"request": "Write a file", "goal": "file_written",
             "known": {"path": str(target), "content": "x"}}
    call = {"tool": "fs.write_file", "arguments": {"path": str(target), "content": "x"}}
    async with gateway(workspace, "fs", mode=era, elicitation_callback=elicit) as (c, holder):
        task = (await c.call_tool("plan", start)).structured_content["task"]
        first = await c.call_tool("call", {"task": task, **call})
        answer = first.structured_content
        assert first.is_error and answer["refused"] == {
            "kind": "declined",
            "reason": f"the user declined fs.write_file ({how}); the action is ended"}
        assert answer["status"] == "declined" and answer["tools"] == []
        assert answer["why"].startswith("the user declined fs.write_file, and nothing else")
        again = await c.call_tool("call", {"task": task, **call})  # a client that retries
        assert again.structured_content["refused"] == {
            "kind": "declined", "reason": "the user declined fs.write_file at call 1; it is "
                                          "not asked again in this task; refused"}
        assert len(asked) == 1 and received(holder, "fs") == 0
        status = (await c.call_tool("status", {"task": task})).structured_content
        assert [(h["tool"], h["ok"]) for h in status["history"]] == [("fs.write_file", False)]
    assert not target.exists()


async def test_a_declined_uncontracted_tool_is_not_asked_about_again(
        workspace: dict[str, str]) -> None:
    target = Path(workspace["PLANFILTER_FS_ROOT"]) / "out.txt"
    asked: list[str] = []

    async def elicit(ctx: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="decline")

    holder: dict[str, Any] = {}
    server = build_server(specs(workspace, "fs", "time"),
                          CONTRACTS.subset(["time.get_current_time"]),
                          GatewayOptions(uncontracted="expose"), holder=holder)
    write = {"tool": "fs.write_file", "arguments": {"path": str(target), "content": "x"}}
    with anyio.fail_after(60):
        async with Client(server, mode="legacy", elicitation_callback=elicit) as c:
            task = (await c.call_tool("plan", {"request": "time", "goal": "current_time",
                                               "known": {"timezone": "UTC"}})
                    ).structured_content["task"]
            replies = [(await c.call_tool("call", {"task": task, **write})).structured_content
                       for _ in range(2)]
            assert [r["refused"]["kind"] for r in replies] == ["declined", "declined"]
            assert replies[1]["refused"]["reason"].startswith("the user declined fs.write_file")
            assert len(asked) == 1 and received(holder, "fs") == 0
    assert not target.exists()


@pytest.mark.parametrize("terminal", [False, True])
def test_example_agent_stops_when_the_user_declines(workspace: dict[str, str],
                                                     terminal: bool) -> None:
    """Without a terminal the agent declines; on one, the user answers "n"."""
    target = Path(workspace["PLANFILTER_FS_ROOT"]) / "todo2.txt"
    master, slave = os.openpty() if terminal else (None, None)
    proc = subprocess.Popen(
        [sys.executable, str(EXAMPLE / "agent.py"), "--model", "sim/careful",
         "--goal", "time_written", "--request", "Write the current time in Tokyo into todo2.txt",
         "--known", json.dumps({"timezone": "Asia/Tokyo", "path": str(target)})],
        stdin=slave if terminal else subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env={**os.environ, **workspace})
    try:
        if master is not None:
            os.write(master, b"n\n")  # read when the agent asks
        out, err = proc.communicate(timeout=120)
    finally:
        for fd in (master, slave):
            if fd is not None:
                os.close(fd)
    assert proc.returncode == 3, out + err
    assert out.count("approval asked: fs.write_file is high-risk") == 1
    how = "answered no" if terminal else "decline"
    assert f"stopped: the user declined fs.write_file ({how}); the action is ended" in out
    assert "step budget spent" not in out and not target.exists()


def child_pid(marker: str) -> int:
    """A child process of this one whose command line holds ``marker`` (read from /proc, so
    no procps is needed)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        if ppid == os.getpid() and marker in cmdline:
            return int(entry.name)
    raise AssertionError(f"no child process runs {marker}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_twenty_http_clients_see_only_their_own_tasks(workspace: dict[str, str]) -> None:
    port = free_port()
    server = build_server(specs(workspace, "time"), CONTRACTS, timeout=20)
    url = f"http://127.0.0.1:{port}/mcp"
    handles: dict[int, str] = {}
    seen: dict[int, dict[str, Any]] = {}
    crossed: dict[int, bool] = {}
    ready = anyio.Event()
    both_started = anyio.Event()
    zones = ["UTC", "Europe/Paris", "Asia/Tokyo", "America/New_York", "Europe/London"]

    async def one(i: int) -> None:
        mode = "legacy" if i % 2 == 0 else "auto"
        async with Client(url, mode=mode) as c:
            zone = zones[i % len(zones)]
            plan = (await c.call_tool("plan", {"request": f"time for client {i}",
                                               "goal": "current_time",
                                               "known": {"timezone": zone, "client": i}})
                    ).structured_content
            handles[i] = plan["task"]
            if len(handles) == 20:
                both_started.set()
            with anyio.fail_after(30):
                await both_started.wait()
            await c.call_tool("call", {"task": plan["task"], "tool": "time.get_current_time",
                                       "arguments": {"timezone": zone}})
            seen[i] = (await c.call_tool("status", {"task": plan["task"]})).structured_content
            if mode == "legacy":  # an HTTP session: another's handle is refused
                other = handles[(i + 2) % 20]
                peek = await c.call_tool("status", {"task": other})
                crossed[i] = not peek.is_error

    async with anyio.create_task_group() as tg:
        tg.start_soon(serve_http, server, "127.0.0.1", port, ready)
        with anyio.fail_after(60):
            await ready.wait()
            async with anyio.create_task_group() as clients:
                for i in range(20):
                    clients.start_soon(one, i)
        tg.cancel_scope.cancel()
    assert len(set(handles.values())) == 20
    for i, status in seen.items():
        assert status["state"]["client"]["value"] == i
        assert status["state"]["timezone"]["value"] == zones[i % len(zones)]
        assert status["done"] and [h["tool"] for h in status["history"]] == \
            ["time.get_current_time"]
    assert crossed and not any(crossed.values())


def test_serve_over_stdio_as_a_subprocess(workspace: dict[str, str]) -> None:
    repo = workspace["PLANFILTER_GIT_REPO"]

    async def main() -> None:
        params = StdioServerParameters(
            command=sys.executable, env=workspace,
            args=["-m", "planfilter.cli", "serve", "--config", str(EXAMPLE / "servers.json"),
                  "--contracts", str(EXAMPLE / "contracts.yaml")])
        with anyio.fail_after(60):
            async with Client(params, mode="legacy") as c:
                before = dump(await c.list_tools())
                task = (await c.call_tool("plan", {**COMMIT, "known": known(workspace)})
                        ).structured_content["task"]
                reset = await c.call_tool("call", {"task": task, "tool": "git.git_reset",
                                                   "arguments": {"repo_path": repo}})
                assert reset.structured_content["refused"]["kind"] == "hidden"
                for tool, arguments in (("git.git_add", {"files": ["notes.txt"]}),
                                        ("git.git_commit", {"message": "Add notes"})):
                    r = await c.call_tool("call", {"task": task, "tool": tool,
                                                   "arguments": {"repo_path": repo,
                                                                 **arguments}})
                    assert r.structured_content["ok"], r.content[0].text
                assert r.structured_content["done"]
                assert dump(await c.list_tools()) == before

    anyio.run(main)
    assert git(Path(repo), "log", "-1", "--format=%s").strip() == "Add notes"


def test_example_agent_reaches_the_goal_with_sim(workspace: dict[str, str]) -> None:
    repo = workspace["PLANFILTER_GIT_REPO"]
    out = subprocess.run(
        [sys.executable, str(EXAMPLE / "agent.py"), "--model", "sim/careful",
         "--goal", "committed", "--request", "Commit notes.txt to the repository",
         "--known", json.dumps(known(workspace))],
        capture_output=True, text=True, timeout=120, env={**os.environ, **workspace})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "goal reached in 2 steps" in out.stdout
    assert git(Path(repo), "log", "-1", "--format=%s").strip() == "Add notes"


def test_example_agent_writes_the_time_into_a_file_in_two_steps(
        workspace: dict[str, str]) -> None:
    target = Path(workspace["PLANFILTER_FS_ROOT"]) / "todo2.txt"
    out = subprocess.run(
        [sys.executable, str(EXAMPLE / "agent.py"), "--model", "sim/careful",
         "--goal", "time_written", "--yes",
         "--request", "Write the current time in Tokyo into todo2.txt",
         "--known", json.dumps({"timezone": "Asia/Tokyo", "path": str(target)})],
        capture_output=True, text=True, timeout=120, env={**os.environ, **workspace})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "steps [['current_time'], ['file_written']]" in out.stdout
    assert "goal reached in 2 steps" in out.stdout
    written = target.read_text()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+09:00", written.strip()), written


@pytest.mark.parametrize(("option", "value", "said"), [
    ("--known", "{bad", "--known is not valid JSON"),
    ("--known", "[1]", "--known must be a JSON object"),
    ("--goal", '[["current_time"], ', "--goal looks like a JSON list of steps"),
])
def test_example_agent_names_the_option_that_is_not_json(
        workspace: dict[str, str], option: str, value: str, said: str) -> None:
    out = subprocess.run(
        [sys.executable, str(EXAMPLE / "agent.py"), "--request", "Write the time", option, value],
        capture_output=True, text=True, timeout=60, env={**os.environ, **workspace})
    assert out.returncode == 2, out.stdout + out.stderr
    assert said in out.stderr and "Traceback" not in out.stderr


async def test_values_the_user_gave_are_held_to_before_the_upstream(
        workspace: dict[str, str]) -> None:
    repo = workspace["PLANFILTER_GIT_REPO"]
    async with gateway(workspace, "git") as (c, holder):
        task = (await c.call_tool("plan", {**COMMIT, "known": known(workspace)})
                ).structured_content["task"]
        elsewhere = await c.call_tool("call", {"task": task, "tool": "git.git_add",
                                               "arguments": {"repo_path": "/etc",
                                                             "files": ["notes.txt"]}})
        refused = elsewhere.structured_content["refused"]
        assert refused["kind"] == "substituted" and "repo_path" in refused["reason"]
        await c.call_tool("call", {"task": task, "tool": "git.git_add",
                                   "arguments": {"repo_path": repo, "files": ["notes.txt"]}})
        pwned = await c.call_tool("call", {"task": task, "tool": "git.git_commit",
                                           "arguments": {"repo_path": repo,
                                                         "message": "pwned"}})
        refused = pwned.structured_content["refused"]
        assert refused["kind"] == "substituted" and '"Add notes"' in refused["reason"]
        assert received(holder, "git") == 1  # only the honest git_add reached the server
        bad = await c.call_tool("plan", {**COMMIT, "known": {"repo_path": 12345}})
        assert bad.is_error and "repo_path" in bad.content[0].text
        assert "internal error" not in bad.content[0].text
        huge = await c.call_tool("plan", {"request": "x" * 1_000_000, "goal": "committed"})
        assert huge.is_error and "limit" in huge.content[0].text
        assert "internal error" not in huge.content[0].text
    assert git(Path(repo), "log", "-1", "--format=%s").strip() == "init"


async def test_measurements_run(workspace: dict[str, str]) -> None:
    from planfilter.gateway.measure import list_tokens, overhead

    time_spec, = specs(workspace, "time")
    upstreams = Upstreams(specs(workspace))
    async with anyio.create_task_group() as tg:
        await upstreams.start(tg)
        tools = upstreams.tools
        await upstreams.close()
    tokens = list_tokens(tools)
    assert tokens["upstream_tools"] == 18 and tokens["meta_tools"] == 3
    assert tokens["meta_tokens"] < 600 < tokens["upstream_tokens"]
    timing = await overhead(time_spec, CONTRACTS.subset(["time.get_current_time"]),
                            "get_current_time", {"timezone": "UTC"}, "current_time",
                            {"timezone": "UTC"}, calls=5, warmup=1)
    assert timing["direct"]["n"] == timing["gateway_stdio"]["n"] == 5
    assert timing["gateway_in_process"]["p50_ms"] > 0


async def test_nothing_a_client_sends_ends_the_gateway(workspace: dict[str, str]) -> None:
    bad = [("plan", {}), ("plan", {"request": None}), ("plan", {"request": "x", "known": "y"}),
           ("plan", {"request": "x", "goal": "nonexistent"}), ("plan", {"request": "x", "goal": 5}),
           ("call", {}), ("call", {"task": None, "tool": 3}), ("status", {"task": ["a"]}),
           ("call", {"task": "x", "tool": "git.git_add", "arguments": "not json"})]
    async with gateway(workspace, "git") as (c, holder):
        for name, arguments in bad:
            result = await c.call_tool(name, arguments)
            assert result.is_error and result.content[0].text.startswith(f"{name}: ")
        task = (await c.call_tool("plan", {**COMMIT, "known": known(workspace)})
                ).structured_content["task"]
        for arguments in ("{not json", [1], {"repo_path": 3, "files": []}):
            r = await c.call_tool("call", {"task": task, "tool": "git.git_add",
                                           "arguments": arguments})
            assert r.structured_content["refused"]["kind"] == "arguments"
        assert received(holder, "git") == 0
        assert (await c.call_tool("status", {"task": task})).structured_content["tools"] == \
            ["git.git_add"]


def test_hostile_bytes_over_stdio(workspace: dict[str, str]) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "planfilter.cli", "serve", "--config",
         str(EXAMPLE / "servers.json"), "--contracts", str(EXAMPLE / "contracts.yaml")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, **workspace})
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: Any) -> None:
        assert proc.stdin is not None
        proc.stdin.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
        proc.stdin.flush()

    def answer() -> dict[str, Any]:
        assert proc.stdout is not None
        line = ""
        while not line.strip():
            line = proc.stdout.readline()
        return json.loads(line)

    try:
        send("garbage {{{")
        send("\x00\x01\x02")
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}})
        assert answer()["id"] == 1
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "call", "arguments": [1, 2]}})
        assert "error" in answer()
        send({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"})
        assert answer()["error"]["code"] == -32601
        send({"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
        listed = answer()
        assert [t["name"] for t in listed["result"]["tools"]] == ["plan", "call", "status"]
        assert proc.poll() is None
    finally:
        proc.stdin.close()
        proc.wait(20)
    assert proc.returncode == 0


async def test_an_http_upstream_behind_the_gateway(workspace: dict[str, str],
                                                   tmp_path: Path) -> None:
    """A streamable-HTTP upstream (`url` in the servers file): here another planfilter
    gateway serving the time server, whose meta tools become inner.plan/call/status."""
    from planfilter.core.contracts import Registry, Tool

    port = free_port()
    inner = build_server(specs(workspace, "time"), CONTRACTS, timeout=20)
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"inner": {"url": "${INNER_URL}"}}}))
    outer_specs = load_config(config, environ={"INNER_URL": f"http://127.0.0.1:{port}/mcp"})
    contracts = Registry(tools=(Tool(name="inner.plan", requires=frozenset({"request"}),
                                     produces=frozenset({"task"})),))
    ready = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(serve_http, inner, "127.0.0.1", port, ready)
        with anyio.fail_after(60):
            await ready.wait()
            holder: dict[str, Any] = {}
            outer = build_server(outer_specs, contracts, timeout=20, holder=holder)
            async with Client(outer, mode="legacy") as c:
                coverage = holder["state"].coverage
                assert coverage.contracted == ("inner.plan",)
                assert coverage.uncontracted == ("inner.call", "inner.status")
                plan = (await c.call_tool("plan", {"request": "start", "goal": "task",
                                                   "known": {"request": "what time"}})
                        ).structured_content
                assert [t["name"] for t in plan["tools"]] == ["inner.plan"]
                r = await c.call_tool("call", {"task": plan["task"], "tool": "inner.plan",
                                               "arguments": {"request": "what time",
                                                             "goal": "current_time"}})
                assert r.structured_content["done"], r.content[0].text
        tg.cancel_scope.cancel()


async def test_faulty_upstream_answers_are_clear_errors_and_a_second_crash_stays_down(
        ) -> None:
    from planfilter.core.servers import ServerSpec

    faulty = ServerSpec("faulty", command=sys.executable,
                        args=(str(Path(__file__).parent / "fixtures" / "faulty_mcp_server.py"),))
    upstreams = Upstreams([faulty], timeout=20)
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(60):
            await upstreams.start(tg)
            assert (await upstreams.call("faulty.ok", {})).structured == {"n": 1}
            bad = await upstreams.call("faulty.bad_shape", {})
            assert bad.failure and bad.failure.startswith(
                "upstream 'faulty': malformed answer to bad_shape:")
            refused = await upstreams.call("faulty.protocol_error", {})
            assert refused.failure and "protocol error -32603 from protocol_error: it broke" \
                in refused.failure
            died = await upstreams.call("faulty.die", {})
            assert died.failure and "crashed during die" in died.failure
            assert "restarted" in died.failure
            assert (await upstreams.call("faulty.ok", {})).ok  # restarted once
            again = await upstreams.call("faulty.die", {})
            assert again.failure and "not restarted again" in again.failure
            down = await upstreams.call("faulty.ok", {})
            assert down.failure and "is down" in down.failure
        await upstreams.close()


@pytest.mark.parametrize("mode", ["meta", "dynamic"])
async def test_uncontracted_tools_exposed_outside_the_plan(workspace: dict[str, str],
                                                           mode: str) -> None:
    contracts = CONTRACTS.subset(["time.get_current_time"])
    holder: dict[str, Any] = {}
    server = build_server(specs(workspace, "time"), contracts,
                          GatewayOptions(mode=mode, uncontracted="expose"),  # type: ignore[arg-type]
                          holder=holder)
    convert = {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
    with anyio.fail_after(60):
        async with Client(server, mode="legacy") as c:
            assert holder["state"].coverage.uncontracted == ("time.convert_time",)
            listed = [t.name for t in (await c.list_tools()).tools]
            plan = (await c.call_tool("plan", {"request": "time", "goal": "current_time",
                                               "known": {"timezone": "UTC"}})
                    ).structured_content
            if mode == "meta":
                assert listed == ["plan", "call", "status"]
                assert [t["name"] for t in plan["outside_plan"]] == ["time.convert_time"]
                r = await c.call_tool("call", {"task": plan["task"],
                                               "tool": "time.convert_time",
                                               "arguments": convert})
                assert r.structured_content["ok"]
                assert r.structured_content["structuredContent"]["target"]["timezone"] == \
                    "Asia/Tokyo"
                status = (await c.call_tool("status", {"task": plan["task"]})
                          ).structured_content
                assert status["outside_plan_calls"] == [{"tool": "time.convert_time",
                                                         "ok": True}]
                assert "time.convert_time" not in status["state"] and not status["history"]
            else:
                assert listed == ["plan", "time.convert_time"]
                assert [t.name for t in (await c.list_tools()).tools] == \
                    ["plan", "time.get_current_time", "time.convert_time"]
                r = await c.call_tool("time.convert_time", convert)
                assert not r.is_error and r.structured_content["target"]["timezone"] == \
                    "Asia/Tokyo"


async def test_a_client_sets_the_shown_goal_aside_and_gets_the_next_candidate(
        workspace: dict[str, str]) -> None:
    """Resolved from the request, the goal is a set of candidates: `plan` again with the
    task handle sets aside the goals whose tools were shown and returns the next ones."""
    options = GatewayOptions(resolver="retrieval")
    async with gateway(workspace, "git", options=options) as (c, holder):
        started = (await c.call_tool("plan", {"request": "Commit notes.txt",
                                              "known": known(workspace)})).structured_content
        assert started["goal_candidates"] and started["tools"]
        first = [t["name"] for t in started["tools"]]
        switched = await c.call_tool("plan", {"task": started["task"],
                                              "reason": "I need the log"})
        after = switched.structured_content
        assert not switched.is_error and after["switched"] == 1
        assert [t["name"] for t in after["tools"]] != first
        assert any("set it aside: I need the log" in line for line in after["goal_candidates"])
        assert received(holder, "git") == 0  # nothing ran upstream
        given = (await c.call_tool("plan", {**COMMIT, "known": known(workspace)})
                 ).structured_content
        refused = await c.call_tool("plan", {"task": given["task"]})
        assert refused.is_error and "no other candidate goal" in refused.content[0].text


async def test_the_environment_supplies_values_before_the_task_starts(
        workspace: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The repository from an OS environment variable, a directory from a real server's read
    tool: known at the start, reported by plan, and held to like the user's values."""
    from planfilter.core.contracts import Registry

    repo, root = workspace["PLANFILTER_GIT_REPO"], workspace["PLANFILTER_FS_ROOT"]
    monkeypatch.setenv("PLANFILTER_GIT_REPO", repo)
    contracts = Registry(tools=CONTRACTS.tools, source="contracts+environment",
                         goals=CONTRACTS.goals, environment={
                             "repo_path": {"from_env": "PLANFILTER_GIT_REPO"},
                             "path": {"tool": "fs.list_allowed_directories",
                                      "pointer": "/directories/0"}})
    holder: dict[str, Any] = {}
    server = build_server(specs(workspace, "git", "fs"), contracts, None, timeout=20,
                          holder=holder)
    with anyio.fail_after(60):
        async with Client(server, mode="legacy") as c:
            started = await c.call_tool("plan", {**COMMIT, "known": {
                "files": ["notes.txt"], "message": "Add notes"}})
            plan = started.structured_content
            assert plan is not None and plan["plan"] == ["git.git_add", "git.git_commit"]
            assert plan["environment"]["repo_path"] == {"value": repo,
                                                        "from": "env PLANFILTER_GIT_REPO"}
            assert plan["environment"]["path"]["from"] == \
                "tool fs.list_allowed_directories at /directories/0"
            assert Path(plan["environment"]["path"]["value"]).resolve() == Path(root).resolve()
            assert received(holder, "fs") == 1  # the source, called once before the task
            task = plan["task"]
            elsewhere = await c.call_tool("call", {"task": task, "tool": "git.git_add",
                                                   "arguments": {"repo_path": "/etc",
                                                                 "files": ["notes.txt"]}})
            assert elsewhere.structured_content["refused"]["kind"] == "substituted"
            added = await c.call_tool("call", {"task": task, "tool": "git.git_add",
                                               "arguments": {"repo_path": repo,
                                                             "files": ["notes.txt"]}})
            assert added.structured_content["ok"] is True


async def test_a_request_that_hands_the_task_to_a_file_is_followed_there(
        workspace: dict[str, str]) -> None:
    """"Read the file '.../todo.txt' and follow the instructions": once the real filesystem
    server's answer comes back, the goals the file gives lead the task's candidates, as the
    gateway's answer to the call lists them, and the task is not done with the read."""
    todo = Path(workspace["PLANFILTER_FS_ROOT"]) / "todo.txt"
    todo.write_text("Please write the word 'done' into the file out.txt.\n")
    options = GatewayOptions(resolver="retrieval")
    async with gateway(workspace, "fs", options=options) as (c, holder):
        started = (await c.call_tool("plan", {
            "request": f"Read the file '{todo}' and follow the instructions in it.",
            "known": {"path": str(todo)}})
        ).structured_content
        assert not any("document" in line for line in started["goal_candidates"])
        assert "fs.read_file" in [t["name"] for t in started["tools"]]
        read = (await c.call_tool("call", {"task": started["task"], "tool": "fs.read_file",
                                           "arguments": {"path": str(todo)}})
                ).structured_content
        assert received(holder, "fs") == 1 and not read["done"]
        lines = read["goal_candidates"]
        assert any("[document (call 1)]" in line for line in lines)
        # the first candidate not reached is the file's
        assert "[document (call 1)]" in next(line for line in lines if "reached" not in line)
