"""planfilter: Causal Minimal Tool Filtering for LLM agents.

The pipeline, one subpackage per stage (imports flow down this list only)::

    core       contracts, tasks, Jinja -> PDDL, planners, frontier, validation
    models     litellm calls; the simulated and in-process llama.cpp models
    retrieval  ToolScope retrieval, embedders, tool merging
    filters    the visible-set methods, risk approval, the guard
    live       Session: goal resolution, checks and real results for one conversation
    suites     what the runner runs: the YAML suites and their mocks, AgentDojo's suites
    bench      agent loops, the oracle replay, runner, traces, metrics, report
    infer      contracts drafted from MCP / OpenAI / function-doc schemas, checked on traces
    gateway    planfilter serve: a Session behind an MCP server, real MCP servers behind it
    cli        the command line (the only place that imports click)
"""

from .core.compile import compile_domain, compile_problem
from .core.contracts import Registry, Tool
from .core.errors import CompileError, ContractError, PlanfilterError, PlannerError
from .core.frontier import FrontierResult, compute_frontier, executable
from .core.loading import load_registry, load_suite
from .core.planners import PLANNERS, Status, get_planner
from .core.tasks import Suite, Task
from .filters import FILTERS, Decision, ToolGuard, Visible, get_filter
from .live import Resolution, Session

__all__ = [
    "FILTERS", "PLANNERS", "CompileError", "ContractError", "Decision", "FrontierResult",
    "PlanfilterError",
    "PlannerError", "Registry", "Resolution", "Session", "Status", "Suite", "Task", "Tool",
    "ToolGuard", "Visible",
    "compile_domain", "compile_problem", "compute_frontier", "executable", "get_filter",
    "get_planner", "load_registry", "load_suite",
]
__version__ = "0.1.0"
