r"""An agent through the planfilter MCP gateway: a litellm model, the MCP SDK client, and
`planfilter serve` (meta mode) in front of real MCP servers.

    PLANFILTER_GIT_REPO=/path/to/repo PLANFILTER_FS_ROOT=/tmp \
    python examples/mcp/agent.py --model sim/careful --goal committed \
        --request "Commit notes.txt" \
        --known '{"repo_path": "/path/to/repo", "files": ["notes.txt"], "message": "Add notes"}'

    PLANFILTER_GIT_REPO=/path/to/repo PLANFILTER_FS_ROOT=/tmp \
    python examples/mcp/agent.py --model sim/careful --goal time_written --yes \
        --request "Write the current time in Tokyo into todo2.txt" \
        --known '{"timezone": "Asia/Tokyo", "path": "/tmp/todo2.txt"}'

A high-risk call (fs.write_file: the server marks it destructive) or one whose sensitive
argument came from an untrusted result needs the user's approval: the gateway asks through
MCP elicitation, and this agent asks on the terminal (``--yes`` approves without asking;
without a terminal it declines). When the user declines, the gateway ends that action and
the agent stops: it does not ask the same thing again.

Exit status: 0 the goal was reached, 1 it was not, 3 the user declined a call.

A goal is a registry goal's name (``time_written`` is two steps: read the time, then write
the file), a variable, or a JSON list of steps (``'[["current_time"], ["file_written"]]'``).

The model sees only what `plan` and `call` return: the tools the plan needs next. Each turn
it gets the request, the known state and the steps so far (the prompt format the offline
`sim/...` models read), picks one tool, and the gateway checks and runs it. A real model
works the same way: `--model llamacpp/qwen2.5-coder-0.5b` or `openai/gpt-4o-mini`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters, types

from planfilter.models import complete

HERE = Path(__file__).resolve().parent
#: The exit status when the user declines a call the gateway asked about.
DECLINED = 3
SYSTEM = ("You are an agent. Call exactly one of the tools offered to move the user's request "
          "forward, filling arguments from the known state.")


def model_name(tool: str) -> str:
    """Tool names for the model: OpenAI-style names allow no '.'."""
    return tool.replace(".", "__")


def prompt(request: str, state: dict[str, Any], steps: list[str]) -> list[dict[str, str]]:
    lines = [f"Request: {request}", "", "Known state:"]
    lines += [f"- {name}: {json.dumps(value, ensure_ascii=False)}"
              for name, value in sorted(state.items())]
    if steps:
        lines += ["", "Steps so far:", *steps]
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n".join(lines)}]


def openai_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": model_name(t["name"]),
                                              "description": t.get("description", ""),
                                              "parameters": t["inputSchema"]}} for t in tools]


async def run(args: argparse.Namespace) -> int:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "planfilter.cli", "serve", "--config", str(args.config),
              "--contracts", str(args.contracts)],
        env={k: v for k, v in os.environ.items() if k.startswith("PLANFILTER_")})
    async def elicit(context: Any, params: Any) -> types.ElicitResult:
        print(f"approval asked: {params.message}")
        if args.yes:
            return types.ElicitResult(action="accept", content={"approve": True})
        if sys.stdin.isatty():
            yes = input("approve? [y/N] ").strip().lower() in ("y", "yes")
            return types.ElicitResult(action="accept", content={"approve": yes})
        print("no terminal to ask on: declined (--yes approves without asking)")
        return types.ElicitResult(action="decline")

    async with Client(server, mode="legacy", elicitation_callback=elicit) as client:
        started = await client.call_tool("plan", {"request": args.request, "goal": args.goal,
                                                  "known": args.known})
        answer = started.structured_content or {}
        if started.is_error or "task" not in answer:
            print(f"plan failed: {started.content[0].text}")  # type: ignore[union-attr]
            return 1
        task, state, steps = answer["task"], dict(args.known), []
        steps_note = f"; steps {answer['steps']}" if "steps" in answer else ""
        print(f"task started; goal {answer['goal']}{steps_note}; plan {answer['plan']}")
        for step in range(1, args.max_steps + 1):
            if answer.get("done"):
                print(f"goal reached in {step - 1} steps")
                return 0
            offered = {model_name(t["name"]): t["name"] for t in answer["tools"]}
            reply = complete(args.model, prompt(args.request, state, steps),
                             openai_tools(answer["tools"]))
            if not reply.calls:
                print(f"step {step}: the model called no tool")
                return 1
            name = offered.get(reply.calls[0].name, reply.calls[0].name)
            arguments = json.loads(reply.calls[0].arguments or "{}")
            result = await client.call_tool("call", {"task": task, "tool": name,
                                                     "arguments": arguments})
            answer = result.structured_content or {}
            status = "ok" if answer.get("ok") else \
                f"refused/failed: {answer.get('refused') or answer.get('error')}"
            print(f"step {step}: {name} {json.dumps(arguments)} -> {status}")
            refused = answer.get("refused") or {}
            if refused.get("kind") == "declined":
                print(f"stopped: {refused.get('reason')}")
                return DECLINED
            learned = answer.get("learned", [])
            steps.append(f"{step}. {model_name(name)} -> {', '.join(learned)}")
            current = await client.call_tool("status", {"task": task})
            state = {k: v["value"] for k, v in (current.structured_content or {})["state"].items()}
        print("step budget spent before the goal")
        return 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, default=HERE / "servers.json",
                        help="the mcpServers file of the upstream servers (default: %(default)s)")
    parser.add_argument("--contracts", type=Path, default=HERE / "contracts.yaml",
                        help="the planfilter registry naming their tools (default: %(default)s)")
    parser.add_argument("--model", default="sim/careful",
                        help="a litellm model name, sim/... or llamacpp/... (default: %(default)s)")
    parser.add_argument("--request", required=True, help="what the user asks, in words")
    parser.add_argument("--goal", default=None,
                        help="a registry goal, a variable or a JSON list of steps "
                             "(default: resolved from the request)")
    parser.add_argument("--known", default="{}", help="JSON object of values the user gives")
    parser.add_argument("--max-steps", type=int, default=8,
                        help="model turns before giving up (default: %(default)s)")
    parser.add_argument("--yes", action="store_true",
                        help="approve every call the gateway asks about, without asking")
    args = parser.parse_args()
    try:
        args.known = json.loads(args.known)
    except ValueError as exc:
        parser.error(f"--known is not valid JSON: {exc}")
    if not isinstance(args.known, dict):
        parser.error("--known must be a JSON object of values by name")
    if args.goal and args.goal.lstrip().startswith("["):
        try:
            args.goal = json.loads(args.goal)
        except ValueError as exc:
            parser.error(f"--goal looks like a JSON list of steps but is not valid JSON: {exc}")
    sys.exit(anyio.run(run, args))


if __name__ == "__main__":
    main()
