"""The ``shop`` and ``tools`` kinds: typed Python tools over a JSON database, each task checked
by the database state at the end, as AgentDojo checks its tasks.

The bundled shop (planfilter/suites/shop/) holds the tools (``tools.py``), the database
(``database.json``: customers, orders, products) and the tasks (``tasks.yaml``: a prompt and
the ground-truth calls, with their arguments). ``tools:DIR`` is any tool set laid out the
same way: ``DIR/tools.py`` (imported as ``DIR``'s package, so ``DIR``'s parent goes on the
import path), whose ``using(data)`` runs its tools on ``data`` inside the block,
``DIR/database.json`` and ``DIR/tasks.yaml`` (or ``tasks.json``); its contracts are the
``--registry`` given, else ``DIR/contracts.yaml``, and name its tools (``planfilter
contracts infer python:DIR.tools`` drafts them).

Each run works on its own copy of the database. A call's arguments are validated against
the tool's signature (a record becomes its model; a positional-only parameter, a ``*args``
and a ``**kwargs`` are passed as the signature takes them, named as the drafts name them:
:func:`~planfilter.core.typehints.bound_call`); a tool written ``async def`` is awaited
inside ``using(data)``; and whatever the tool raises is the error result a service would
answer, never the run's end. A run succeeds when the database at its end is the database
the task's ground truth leaves, whatever calls led there. Each task's
goal and known values are the oracle's, read from its ground truth
(planfilter.suites.oracle), so runs resolve the goal from the prompt unless told ``--goal
oracle``.
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import inspect
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml
from pydantic import validate_call
from pydantic_core import to_jsonable_python

from ..core.contracts import Registry
from ..core.errors import ContractError, PlanfilterError
from ..core.loading import load_registry
from ..core.resources import domains_file
from ..core.tasks import Suite, Task
from ..core.typehints import bound_call, portable_function
from .base import Case, Execution, GroundCall, SuiteOptions, Verdict
from .oracle import gold_goal, oracle_known
from .shop import tools as shop_tools

SHOP = Path(__file__).resolve().parent / "shop"
#: A customer-service task takes a handful of calls; finding an order among several, more.
MAX_STEPS = 12
#: Model turns a task gets beyond its ground truth's calls (a longer task gets more turns).
SPARE_STEPS = 4


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
    """A tool's result as JSON values: models dumped (in lists and mappings too), dates as
    ISO text, as a service would send them."""
    return to_jsonable_python(value, by_alias=False)


@dataclass(frozen=True)
class ToolSet:
    """A tool set's module and its tools by name, each validating its arguments against its
    signature (``pydantic.validate_call``, built once); ``module.using(data)`` runs them on
    ``data``."""

    module: ModuleType
    tools: Mapping[str, Callable[..., Any]]


def validated_tools(module: ModuleType, functions: Mapping[str, Callable[..., Any]]) -> ToolSet:
    """``functions`` by name, each wrapped to validate its arguments; a ContractError names
    a function whose signature cannot be validated."""
    tools = {}
    for name, function in functions.items():
        try:
            tools[name] = validate_call(portable_function(function))
        except Exception as exc:  # a signature pydantic cannot read is the module's
            raise ContractError(f"{module.__file__}: tool {name!r}: its signature cannot be "
                                f"validated: {type(exc).__name__}: {exc}") from None
    return ToolSet(module, tools)


SHOP_TOOLS = validated_tools(shop_tools, {str(getattr(f, "__name__", f)): f
                                         for f in shop_tools.TOOLS})


@dataclass
class DatabaseEnvironment:
    """One run's database, and the database its task's ground truth leaves."""

    toolset: ToolSet
    data: dict[str, Any]
    expected: dict[str, Any]

    def execute(self, tool: str, arguments: Mapping[str, Any],
                state: Mapping[str, Any] | None = None) -> Execution:
        return run_tool(self.toolset, self.data, tool, arguments)

    def verdict(self, answer: str | None, state: Mapping[str, Any] | None = None) -> Verdict:
        return Verdict(self.data == self.expected)


def run_tool(toolset: ToolSet, data: dict[str, Any], tool: str,
             arguments: Mapping[str, Any]) -> Execution:
    """One call on ``data``, its arguments validated against the tool's signature; a refused
    or malformed call is a failed execution, never raised."""
    if tool not in toolset.tools:
        return Execution(False, error=f"unknown tool {tool!r}")
    before = copy.deepcopy(data)
    try:
        with toolset.module.using(data):
            args, kwargs = bound_call(toolset.tools[tool], arguments)
            answered = toolset.tools[tool](*args, **kwargs)
            if inspect.isawaitable(answered):  # an ``async def`` tool, awaited in this context
                answered = asyncio.run(_awaited(answered))
            result = _plain(answered)
        text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    except Exception as exc:  # whatever the tool raises is its error answer, as a service's
        data.clear()
        data.update(before)  # a failed call changes nothing
        return Execution(False, error=f"{tool}: {exc}")
    return Execution(True, result, text)


async def _awaited(answer: Any) -> Any:
    return await answer


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
    toolset: ToolSet = SHOP_TOOLS
    kind: str = "shop"
    answers: bool = False
    max_steps: int = MAX_STEPS
    attack: str | None = None
    oracle: bool = True
    prompt: str = ("You are a customer-service agent of an online shop. Authenticate the "
                   "customer by name and zip code or by email, then act on their request with "
                   "the tools given; make one change per request.")

    def cases(self) -> tuple[Case, ...]:
        return tuple(Case(t.id, t) for t in self.tasks)

    def with_tasks(self, tasks: Suite) -> DatabaseSuite:
        return replace(self, tasks=tasks)

    def environment(self, case: Case, model: str = "") -> DatabaseEnvironment:
        return DatabaseEnvironment(self.toolset, copy.deepcopy(_database(self.database)),
                                   self.expected(case.task.id))

    def expected(self, task_id: str) -> dict[str, Any]:
        """The database the task's ground truth leaves."""
        data = copy.deepcopy(_database(self.database))
        for call in self.ground[task_id]:
            done = run_tool(self.toolset, data, call.tool, call.arguments or {})
            if not done.ok:
                raise ContractError(f"{self.kind} task {task_id}: its ground truth fails: "
                                    f"{done.error}")
        return data

    def ground_truth(self, case: Case, environment: Any = None) -> tuple[GroundCall, ...]:
        return self.ground[case.task.id]

    def attacker_calls(self, case: Case, environment: Any = None) -> tuple[GroundCall, ...]:
        return ()

    def final_answer(self, case: Case) -> str | None:
        return None

    def system_prompt(self) -> str | None:
        return self.prompt

    def tool_schemas(self, names: Sequence[str]) -> list[dict[str, Any]]:
        return [self.registry.tool(n).function_schema() for n in names]


def read_tasks(path: Path) -> tuple[ShopTask, ...]:
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise PlanfilterError(f"{path}: cannot read the shop tasks: {exc}") from None
    listed = loaded.get("tasks") if isinstance(loaded, Mapping) else loaded
    if listed is not None and not isinstance(listed, list):
        raise PlanfilterError(f"{path}: expected a list of tasks (or a mapping whose 'tasks' "
                              "is one)")
    out = []
    for n, raw in enumerate(listed or ()):
        where = f"{path}: task #{n + 1}"
        if not isinstance(raw, Mapping) or not {"id", "prompt", "calls"} <= set(raw):
            raise PlanfilterError(f"{where}: needs id, prompt and calls")
        calls = tuple(GroundCall(str(c["tool"]), dict(c.get("arguments") or {}))
                      for c in raw["calls"])
        out.append(ShopTask(str(raw["id"]), str(raw["prompt"]), calls))
    if not out:
        raise PlanfilterError(f"{path}: holds no task")
    return tuple(out)


def shop_task(registry: Registry, task: ShopTask, domain: str = "shop") -> Task:
    gold = tuple(c.tool for c in task.calls)
    steps = gold_goal(registry, gold, f"{domain} task {task.id}")
    return Task(id=task.id, domain=domain, query=task.prompt,
                state=oracle_known(registry, task.calls, task.prompt),
                goal=frozenset().union(*steps), steps=steps if len(steps) > 1 else (),
                gold=gold, metadata={"suite": domain})


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


def _import_tools(folder: Path) -> ModuleType:
    """``folder/tools.py``, imported as ``<folder's name>.tools`` with the folder's parent on
    the import path (so the module's own relative imports work)."""
    where = folder / "tools.py"
    if not where.is_file():
        raise PlanfilterError(f"{where}: no such file (a tools suite's folder holds tools.py, "
                              "database.json and tasks.yaml)")
    if not folder.name.isidentifier():
        raise PlanfilterError(f"{folder}: its name is no Python package name; the tools are "
                              f"imported as <folder>.tools")
    if str(folder.parent) not in sys.path:
        sys.path.insert(0, str(folder.parent))
    name = f"{folder.name}.tools"
    try:
        module = importlib.import_module(name)
    except Exception as exc:  # any failure of the user's module is theirs: name it
        raise PlanfilterError(f"{where}: cannot import it as {name}: "
                              f"{type(exc).__name__}: {exc}") from None
    if Path(module.__file__ or "").resolve() != where.resolve():
        raise PlanfilterError(f"{where}: {name} is already imported from {module.__file__}")
    if not callable(getattr(module, "using", None)):
        raise PlanfilterError(f"{where}: defines no using(data), the context in which its "
                              "tools run on a database")
    return module


def _toolset(module: ModuleType, registry: Registry) -> ToolSet:
    """The module's function for each tool the contracts name: the callable of that name in
    its ``TOOLS`` list (a bound method of a service object is listed there, as ``contracts
    infer`` reads it), else the module's attribute of that name."""
    listed = getattr(module, "TOOLS", None)
    named = {str(getattr(f, "__name__", "")): f for f in listed if callable(f)} \
        if isinstance(listed, list | tuple) else {}
    found = {n: f for n in registry.names if callable(f := named.get(n, getattr(module, n, None)))}
    missing = [n for n in registry.names if n not in found]
    if missing:
        raise ContractError(f"contracts {registry.source}: {module.__file__} has no function "
                            f"for the tools {missing}")
    return validated_tools(module, found)


def load_tools_suite(argument: str, options: SuiteOptions) -> DatabaseSuite:
    """``tools:DIR``: the typed Python tools of ``DIR/tools.py`` over ``DIR/database.json``,
    with the tasks of ``DIR/tasks.yaml`` (or ``tasks.json``) and the contracts given with
    ``--registry`` (else ``DIR/contracts.yaml``)."""
    if not argument:
        raise PlanfilterError("--suite tools:DIR: name the folder of tools.py, database.json "
                              "and tasks.yaml")
    if options.attack:
        raise PlanfilterError(f"--attack {options.attack}: a tools suite has no injection "
                              "tasks (try --suite agentdojo:banking)")
    folder = Path(argument).resolve()
    if not folder.is_dir():
        raise PlanfilterError(f"--suite tools:{argument}: {folder} is no folder")
    module = _import_tools(folder)
    contracts = list(options.registry) or [folder / "contracts.yaml"]
    if not options.registry and not contracts[0].is_file():
        raise PlanfilterError(f"--suite tools:{argument}: no contracts: give --registry, or "
                              f"write {contracts[0]} (PYTHONPATH={folder.parent} planfilter "
                              f"contracts infer python:{folder.name}.tools --out ...)")
    registry = load_registry(contracts)
    toolset = _toolset(module, registry)
    tasks_file = next((folder / n for n in ("tasks.yaml", "tasks.json")
                       if (folder / n).is_file()), folder / "tasks.yaml")
    raw = read_tasks(tasks_file)
    tasks = tuple(shop_task(registry, t, folder.name) for t in raw)
    longest = max(len(t.calls) for t in raw)
    return DatabaseSuite(argument, registry, Suite(tasks=tasks, source=str(tasks_file)),
                         {t.id: t.calls for t in raw}, database=folder / "database.json",
                         toolset=toolset, kind="tools",
                         max_steps=max(MAX_STEPS, longest + SPARE_STEPS),
                         prompt="You are a customer-service agent. Act on the user's request "
                                "with the tools given.")
