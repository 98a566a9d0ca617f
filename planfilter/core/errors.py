"""One error hierarchy. The library raises these; only the CLI turns them into messages."""

from __future__ import annotations


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
