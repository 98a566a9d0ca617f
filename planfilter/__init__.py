"""planfilter: Causal Minimal Tool Filtering for LLM agents."""

from .compile import compile_domain, compile_problem
from .contracts import Registry, Tool
from .errors import CompileError, ContractError, PlanfilterError, PlannerError
from .frontier import FrontierResult, compute_frontier, executable
from .loading import load_registry, load_suite
from .planners import PLANNERS, Status, get_planner
from .tasks import Suite, Task

__all__ = [
    "PLANNERS", "CompileError", "ContractError", "FrontierResult", "PlanfilterError",
    "PlannerError", "Registry", "Status", "Suite", "Task", "Tool", "compile_domain",
    "compile_problem", "compute_frontier", "executable", "get_planner", "load_registry",
    "load_suite",
]
__version__ = "0.1.0"
