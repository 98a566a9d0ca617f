"""``contracts check``: where contracts and what tools did disagree, from run traces.

Reads ``planfilter run`` trace files (JSON Lines; ``step`` lines with ``chosen``,
``arguments``, ``produced``, ``state_before`` and ``error``) and reports:

- ``missing-output``: a successful call's result lacks a variable its contract produces;
- ``unfilled-result``: a successful call's result filled none of the variables its contract
  produces (the trace's ``unfilled``): the step was never reached, whatever the tool said;
- ``undeclared-output``: a result key that looks like a variable and no contract declares;
- ``unrequired-argument``: an argument filled with the value of a state variable the tool does
  not require (the contract may be missing a requirement); a parameter the contract marks
  ``authored`` is the model's own text by design, and is not reported;
- ``never-succeeds``: a tool that was called and never succeeded;
- ``missing-precondition``: in one run, a tool failed (it ran, and its call failed) until
  another tool had succeeded, and its contract needs nothing that tool produces or
  establishes: the contracts may be missing a state fact (``logged_in`` after ``login``),
  proposed as the fact the other tool establishes, or the one its name says it sets up
  (planfilter.infer.facts), or ``<tool>_called``.

Each finding names the tool, the variable and the trace lines (``file:line``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.contracts import NAME_PATTERN, Registry
from ..core.errors import PlanfilterError
from .facts import fact_of_tool

#: Values this short (or not strings) match state by accident too often to mean anything.
MIN_VALUE_LENGTH = 4
#: At most this many trace lines are listed per finding.
MAX_WHERE = 5


@dataclass(frozen=True)
class Finding:
    kind: str
    tool: str
    variable: str
    where: tuple[str, ...]
    detail: str

    def __str__(self) -> str:
        lines = ", ".join(self.where[:MAX_WHERE])
        more = f" (+{len(self.where) - MAX_WHERE} more)" if len(self.where) > MAX_WHERE else ""
        var = f" variable '{self.variable}'" if self.variable else ""
        return f"{self.kind}: tool '{self.tool}'{var}: {self.detail} [{lines}{more}]"


@dataclass(frozen=True)
class CheckReport:
    findings: tuple[Finding, ...]
    steps: int
    files: int

    @property
    def ok(self) -> bool:
        return not self.findings


def step_lines(path: Path) -> Iterable[tuple[int, Mapping[str, Any]]]:
    """(line number, step line) of a trace file; a malformed line is an error naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlanfilterError(f"{path}: cannot read trace file: {exc}") from None
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise PlanfilterError(f"{path}:{number}: not a JSON line: {exc.msg}") from None
        if isinstance(line, Mapping) and line.get("type") == "step":
            yield number, line


def _succeeded(line: Mapping[str, Any]) -> bool:
    return bool(line.get("chosen")) and not line.get("error") and not line.get("tool_failed")


def _run_of(line: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(line.get(k, "")) for k in ("task", "method", "model", "seed"))


def _preconditions(registry: Registry, runs: Mapping[tuple[str, ...], list[tuple[str, Mapping[
        str, Any]]]]) -> dict[tuple[str, str, str], tuple[list[str], str]]:
    """(kind, tool, variable) -> (trace lines, detail) of the tools that failed until another
    one succeeded (see the module docstring)."""
    out: dict[tuple[str, str, str], tuple[list[str], str]] = {}
    for steps in runs.values():
        failed: dict[str, list[str]] = {}  # tool -> where it failed since its last success
        enabled_by: dict[str, str] = {}  # tool -> the last other tool to succeed after it failed
        for where, line in steps:
            name = line.get("chosen")
            if not isinstance(name, str) or name not in registry:
                continue
            if line.get("tool_failed") is True:
                failed.setdefault(name, []).append(where)
                enabled_by.pop(name, None)
                continue
            if not _succeeded(line):
                continue
            if name in failed and name in enabled_by:
                other = registry.tool(enabled_by[name])
                if not other.post & registry.tool(name).pre:
                    fact = min(other.establishes, default=None) or \
                        fact_of_tool(other.name, other.description)
                    key = ("missing-precondition", name, fact)
                    wheres, _ = out.get(key, ([], ""))
                    out[key] = ([*wheres, *failed[name], where],
                                f"failed until '{other.name}' succeeded: it may need a fact "
                                f"{other.name} establishes (needs: [{fact}] here, "
                                f"establishes: [{fact}] on {other.name})")
            failed.pop(name, None)
            enabled_by.pop(name, None)
            for tool in failed:
                if tool != name:
                    enabled_by[tool] = name
    return out


def check_traces(registry: Registry, paths: Iterable[Path]) -> CheckReport:
    found: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    runs: dict[tuple[str, ...], list[tuple[str, Mapping[str, Any]]]] = defaultdict(list)
    details: dict[tuple[str, str, str], str] = {}
    called: dict[str, list[str]] = defaultdict(list)
    succeeded: set[str] = set()
    steps = files = 0
    declared = registry.variables
    for path in paths:
        files += 1
        for number, line in step_lines(Path(path)):
            steps += 1
            where = f"{path}:{number}"
            runs[(str(path), *_run_of(line))].append((where, line))
            name = line.get("chosen")
            if not isinstance(name, str) or name not in registry:
                continue
            tool = registry.tool(name)
            called[name].append(where)
            if not _succeeded(line):
                continue
            succeeded.add(name)
            produced = line.get("produced") or {}
            if line.get("unfilled"):
                key = ("unfilled-result", name, "")
                found[key].append(where)
                details[key] = ("the successful result filled none of "
                                f"{', '.join(sorted(tool.produces))}")
            for var in sorted(tool.produces - set(produced)):
                key = ("missing-output", name, var)
                found[key].append(where)
                details[key] = "declared in produces, absent from the successful result"
            for var in sorted(set(produced) - declared):
                if isinstance(var, str) and NAME_PATTERN.fullmatch(var):
                    key = ("undeclared-output", name, var)
                    found[key].append(where)
                    details[key] = "result key no contract declares"
            for var, arg in _unrequired(tool.requires, tool.authored, line):
                key = ("unrequired-argument", name, var)
                found[key].append(where)
                details[key] = f"argument '{arg}' holds the value of {var}, which the tool " \
                               "does not require"
    for name, wheres in called.items():
        if name not in succeeded:
            key = ("never-succeeds", name, "")
            found[key] = wheres
            details[key] = f"called {len(wheres)} time(s), never succeeded"
    for key, (wheres, detail) in _preconditions(registry, runs).items():
        found[key], details[key] = wheres, detail
    findings = tuple(Finding(kind, tool, var, tuple(found[(kind, tool, var)]),
                             details[(kind, tool, var)])
                     for kind, tool, var in sorted(found))
    return CheckReport(findings, steps, files)


def _unrequired(requires: frozenset[str], authored: frozenset[str],
                line: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(state variable, argument) pairs where an argument holds a state variable's value and
    the tool does not require that variable (nor a required one holding the same value);
    ``authored`` parameters are left out: the model writes them, whatever they hold."""
    arguments = line.get("arguments")
    state = line.get("state_before") or {}
    if not isinstance(arguments, Mapping) or not isinstance(state, Mapping):
        return []
    out = []
    for arg, value in sorted(arguments.items()):
        if arg in authored or not isinstance(value, str) or len(value) < MIN_VALUE_LENGTH:
            continue
        holders = sorted(v for v, held in state.items() if held == value)
        if holders and not set(holders) & requires:
            out += [(v, arg) for v in holders]
    return out
