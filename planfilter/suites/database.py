"""The ``shop`` kind: typed Python tools over a JSON database, each task checked by the
database state at the end, as AgentDojo checks its tasks.

The bundled shop (planfilter/suites/shop/) holds the tools (``tools.py``), the database
(``database.json``: customers, orders, products) and the tasks (``tasks.yaml``: a prompt and
the ground-truth calls, with their arguments). Each run works on its own copy of the
database. A run succeeds when the database at its end is the database the task's ground
truth leaves, whatever calls led there. The contracts are ``domains/shop/shop.yaml`` (or the
``--registry`` given); each task's goal and known values are the oracle's, read from its
ground truth (planfilter.suites.oracle), so runs resolve the goal from the prompt unless told
``--goal oracle``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from ..core.contracts import Registry
from ..core.errors import ContractError, PlanfilterError
from ..core.loading import load_registry
from ..core.resources import domains_file
from ..core.tasks import Suite, Task
from .base import Case, Execution, GroundCall, SuiteOptions, Verdict
from .oracle import gold_goal, oracle_known
from .shop import tools as shop_tools

SHOP = Path(__file__).resolve().parent / "shop"
#: A customer-service task takes a handful of calls; finding an order among several, more.
MAX_STEPS = 12


@cache
def _database(path: Path) -> dict[str, Any]:
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PlanfilterError(f"{path}: cannot read the shop database: {exc}") from None
    if not isinstance(loaded, dict):
        raise PlanfilterError(f"{path}: the shop database must be a JSON object")
    return loaded


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value


@dataclass
class DatabaseEnvironment:
    """One run's database, and the database its task's ground truth leaves."""

    tools: Mapping[str, Callable[..., Any]]
    data: dict[str, Any]
    expected: dict[str, Any]

    def execute(self, tool: str, arguments: Mapping[str, Any],
                state: Mapping[str, Any] | None = None) -> Execution:
        return run_tool(self.tools, self.data, tool, arguments)

    def verdict(self, answer: str | None, state: Mapping[str, Any] | None = None) -> Verdict:
        return Verdict(self.data == self.expected)


def run_tool(tools: Mapping[str, Callable[..., Any]], data: dict[str, Any], tool: str,
             arguments: Mapping[str, Any]) -> Execution:
    """One call on ``data``; a refused or malformed call is a failed execution, never raised."""
    if tool not in tools:
        return Execution(False, error=f"unknown tool {tool!r}")
    before = copy.deepcopy(data)
    try:
        with shop_tools.using(data):
            result = _plain(tools[tool](**dict(arguments)))
    except (shop_tools.ShopError, TypeError, ValidationError, KeyError, ValueError) as exc:
        data.clear()
        data.update(before)  # a failed call changes nothing
        return Execution(False, error=f"{tool}: {exc}")
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    return Execution(True, result, text)


@dataclass(frozen=True)
class ShopTask:
    id: str
    prompt: str
    calls: tuple[GroundCall, ...]


@dataclass(frozen=True)
class DatabaseSuite:
    name: str
    registry: Registry
    tasks: Suite
    ground: Mapping[str, tuple[GroundCall, ...]] = field(repr=False)
    database: Path = SHOP / "database.json"
    kind: str = "shop"
    answers: bool = False
    max_steps: int = MAX_STEPS
    attack: str | None = None
    oracle: bool = True

    @property
    def tools(self) -> dict[str, Callable[..., Any]]:
        return {str(getattr(f, "__name__", f)): f for f in shop_tools.TOOLS}

    def cases(self) -> tuple[Case, ...]:
        return tuple(Case(t.id, t) for t in self.tasks)

    def with_tasks(self, tasks: Suite) -> DatabaseSuite:
        return replace(self, tasks=tasks)

    def environment(self, case: Case, model: str = "") -> DatabaseEnvironment:
        return DatabaseEnvironment(self.tools, copy.deepcopy(_database(self.database)),
                                   self.expected(case.task.id))

    def expected(self, task_id: str) -> dict[str, Any]:
        """The database the task's ground truth leaves."""
        data = copy.deepcopy(_database(self.database))
        for call in self.ground[task_id]:
            done = run_tool(self.tools, data, call.tool, call.arguments or {})
            if not done.ok:
                raise ContractError(f"shop task {task_id}: its ground truth fails: {done.error}")
        return data

    def ground_truth(self, case: Case, environment: Any = None) -> tuple[GroundCall, ...]:
        return self.ground[case.task.id]

    def attacker_calls(self, case: Case, environment: Any = None) -> tuple[GroundCall, ...]:
        return ()

    def final_answer(self, case: Case) -> str | None:
        return None

    def system_prompt(self) -> str | None:
        return ("You are a customer-service agent of an online shop. Authenticate the customer "
                "by name and zip code or by email, then act on their request with the tools "
                "given; make one change per request.")

    def tool_schemas(self, names: Sequence[str]) -> list[dict[str, Any]]:
        return [self.registry.tool(n).function_schema() for n in names]


def read_tasks(path: Path) -> tuple[ShopTask, ...]:
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise PlanfilterError(f"{path}: cannot read the shop tasks: {exc}") from None
    out = []
    for n, raw in enumerate((loaded or {}).get("tasks") or ()):
        where = f"{path}: task #{n + 1}"
        if not isinstance(raw, Mapping) or not {"id", "prompt", "calls"} <= set(raw):
            raise PlanfilterError(f"{where}: needs id, prompt and calls")
        calls = tuple(GroundCall(str(c["tool"]), dict(c.get("arguments") or {}))
                      for c in raw["calls"])
        out.append(ShopTask(str(raw["id"]), str(raw["prompt"]), calls))
    if not out:
        raise PlanfilterError(f"{path}: holds no task")
    return tuple(out)


def shop_task(registry: Registry, task: ShopTask) -> Task:
    gold = tuple(c.tool for c in task.calls)
    steps = gold_goal(registry, gold, f"shop task {task.id}")
    return Task(id=task.id, domain="shop", query=task.prompt,
                state=oracle_known(registry, task.calls, task.prompt),
                goal=frozenset().union(*steps), steps=steps if len(steps) > 1 else (),
                gold=gold, metadata={"suite": "shop"})


def load_shop_suite(argument: str, options: SuiteOptions) -> DatabaseSuite:
    """``shop`` (the bundled shop) or ``shop:TASKS.yaml`` (other tasks on the same tools)."""
    if options.attack:
        raise PlanfilterError(f"--attack {options.attack}: the shop suite has no injection "
                              "tasks (try --suite agentdojo:banking)")
    registry = load_registry(list(options.registry) or domains_file("shop", "shop.yaml"))
    names = {str(getattr(f, "__name__", f)) for f in shop_tools.TOOLS}
    missing = sorted(names - set(registry.names))
    extra = sorted(set(registry.names) - names)
    if missing or extra:
        raise ContractError(f"shop with contracts {registry.source}: "
                            + "; ".join(([f"no contract for its tools {missing}"] if missing
                                         else []) + ([f"contracts for tools it does not have "
                                                      f"{extra}"] if extra else [])))
    raw = read_tasks(Path(argument) if argument else SHOP / "tasks.yaml")
    tasks = tuple(shop_task(registry, t) for t in raw)
    return DatabaseSuite("shop", registry, Suite(tasks=tasks, source="shop"),
                         {t.id: t.calls for t in raw})
