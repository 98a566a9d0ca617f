"""Live use: :class:`Session`, one conversation with real results, and goal resolution.

A session takes a request in words, resolves the goal (or is given it), shows the frontier,
checks each call (visible now, schema, provenance, risk) and takes real results into state.
Imports ``core``, ``models``, ``retrieval`` and ``filters``; the benchmark, the MCP gateway
and the CLI build on it.
"""

from __future__ import annotations

from .goals import GoalOption, Resolution, goal_vocabulary, input_variables, resolve_goal
from .session import Call, Fact, Session

__all__ = ["Call", "Fact", "GoalOption", "Resolution", "Session", "goal_vocabulary",
           "input_variables", "resolve_goal"]
