"""One error hierarchy. The library raises these; only the CLI turns them into messages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

T = TypeVar("T")


class PlanfilterError(Exception):
    """Base class of every error planfilter raises on purpose."""


class ContractError(PlanfilterError):
    """A registry or task suite is malformed; the message names file, tool or task, and field."""

    def __init__(self, problems: list[str] | str):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


class CompileError(PlanfilterError):
    """Contracts could not be rendered to PDDL (for example two names map to one PDDL name)."""


class PlannerError(PlanfilterError):
    """A planner backend is unknown, unavailable or failed in a way it cannot report as a result."""


def lookup(table: Mapping[str, T], name: str, what: str, prefix: str = "") -> T:
    """``table[name]`` of a plug-in table; an unknown name is an error naming it and every
    choice (``unknown filter method 'bm25'; choose from all, ...``). ``prefix``: how the user
    spells the names (``sim/`` for the simulated models)."""
    try:
        return table[name]
    except KeyError:
        raise PlanfilterError(f"unknown {what} {prefix + name!r}; choose from "
                              + ", ".join(prefix + k for k in table)) from None
