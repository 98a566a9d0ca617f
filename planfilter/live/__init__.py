"""Live use: :class:`Session`, one conversation with real results, and goal resolution.

A session takes a request in words, resolves the goal (or is given it), shows the frontier,
checks each call (visible now, schema, provenance, risk) and takes real results into state.
Imports ``core``, ``models``, ``retrieval`` and ``filters``; the benchmark, the MCP gateway
and the CLI build on it.
"""

from __future__ import annotations

from .goals import GoalOption, Resolution, goal_vocabulary, input_variables, resolve_goal
from .recognition import Belief, Candidate, Origin, RecognitionOptions
from .records import Call, Fact, FactKind
from .session import Session
from .switching import SWITCH_TOOL, switch_tool_schema

__all__ = ["SWITCH_TOOL", "Belief", "Call", "Candidate", "Fact", "GoalOption", "Origin",
           "RecognitionOptions", "Resolution", "Session", "FactKind", "goal_vocabulary",
           "input_variables", "resolve_goal", "switch_tool_schema"]
