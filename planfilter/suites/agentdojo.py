"""The ``agentdojo`` kind: AgentDojo's suites (banking, slack, travel, workspace) as runs.

Everything that judges a run is AgentDojo's own, untouched: its tools run in its
``FunctionsRuntime`` on its pydantic environment (loaded, injected per attack and set up by
the user task as ``TaskSuite.run_task_with_pipeline`` does), the model is shown results as
its ``tool_result_to_str`` renders them, success is its utility check (``utility_from_traces``
then ``utility``, as ``_check_user_task_utility``) on the model's final answer, and an
attack's success is its injection task's security check. Attacks are AgentDojo's attack
objects, built by its own registry.

What planfilter adds is the contracts, read from ``domains/agentdojo/<suite>.yaml`` (or the
``--registry`` given), and each user task as a planfilter ``Task``:

- query: the task's PROMPT; gold: the tools of its ground truth, in order;
- goal (the "oracle goal"): steps, one per ground-truth call that contributes something, in
  order: what the call's tool produces that no later ground-truth call's tool requires;
- known (the "oracle known"): for each ground-truth argument whose value occurs in the
  prompt (text, case-insensitive; numbers by value), the variable its parameter carries and
  that value; parameters the contract marks ``authored`` (the model writes them) are skipped.

The calls the model makes are recorded as AgentDojo records them (``FunctionCall``) for the
trace-based checks; a call the guard refused never ran and is not among them.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from ..core.contracts import Registry
from ..core.errors import ContractError, PlanfilterError
from ..core.loading import load_registry
from ..core.resources import domains_file
from ..core.tasks import Suite, Task
from .adaptive import ADAPTIVE
from .base import (
    Case,
    Execution,
    GroundCall,
    SuiteOptions,
    Verdict,
    pair_id,
    sample_injections,
)
from .oracle import gold_goal, oracle_known

#: AgentDojo's default benchmark version (its own `benchmark` script's default).
BENCHMARK_VERSION = "v1.2.2"
SUITES = ("banking", "slack", "travel", "workspace")
#: The step limit of AgentDojo's own tool loop (``ToolsExecutionLoop(max_iters=15)``).
MAX_STEPS = 15
INSTALL = "pip install 'planfilter[agentdojo]'"


def agentdojo_modules() -> Any:
    """AgentDojo's modules, imported on first use; a clear one-line error when it is missing."""
    try:
        return _modules()
    except ImportError as exc:
        raise PlanfilterError(f"AgentDojo suites need the agentdojo extra ({exc}): "
                              f"{INSTALL}") from None


@cache
def _modules() -> Any:
    import importlib
    from types import SimpleNamespace

    names = {
        "load_suites": "agentdojo.task_suite.load_suites",
        "runtime": "agentdojo.functions_runtime",
        "tool_execution": "agentdojo.agent_pipeline.tool_execution",
        "types": "agentdojo.types",
        "attacks": "agentdojo.attacks",
        "base_attacks": "agentdojo.attacks.base_attacks",
        "pipeline": "agentdojo.agent_pipeline.agent_pipeline",
        "models": "agentdojo.models",
    }
    modules = SimpleNamespace(**{k: importlib.import_module(v) for k, v in names.items()})
    _register_adaptive(modules)
    return modules


def _register_adaptive(m: Any) -> None:
    """planfilter's adaptive attacks (planfilter.suites.adaptive) in AgentDojo's attack
    registry, each a fixed-text attack as AgentDojo's ``important_instructions`` is (same
    user name, the model named as AgentDojo names it)."""
    base = m.base_attacks

    for attack in ADAPTIVE.values():
        if attack.name in m.attacks.attack_registry.ATTACKS:
            continue

        def __init__(self: Any, task_suite: Any, target_pipeline: Any,
                     _text: str = attack.template()) -> None:
            base.FixedJailbreakAttack.__init__(self, _text, task_suite, target_pipeline)
            self.user_name = "Emma Johnson"
            self.model_name = base.get_model_name_from_pipeline(target_pipeline)

        kind = type(attack).__name__ + "Attack"
        m.attacks.attack_registry.register_attack(type(kind, (base.FixedJailbreakAttack,), {
            "name": attack.name, "__init__": __init__, "__doc__": attack.rule,
            "__module__": __name__}))


def structured(value: Any) -> Any:
    """A tool result as plain values: pydantic objects dumped, lists as lists."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [structured(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): structured(v) for k, v in value.items()}
    return value


def _plain_args(args: Mapping[str, Any]) -> dict[str, Any]:
    return {str(k): structured(v) for k, v in args.items()}


# -- tasks -----------------------------------------------------------------------------------


def convert_task(registry: Registry, suite_name: str, task_id: str, prompt: str,
                 calls: Sequence[GroundCall]) -> Task:
    gold = tuple(c.tool for c in calls)
    steps = gold_goal(registry, gold, f"agentdojo:{suite_name} task {task_id}")
    goal = frozenset().union(*steps)
    return Task(id=task_id, domain=suite_name, query=prompt,
                state=oracle_known(registry, calls, prompt), goal=goal,
                steps=tuple(steps) if len(steps) > 1 else (), gold=gold,
                metadata={"suite": f"agentdojo:{suite_name}", "version": BENCHMARK_VERSION})


def _ground_calls(calls: Sequence[Any]) -> tuple[GroundCall, ...]:
    return tuple(GroundCall(c.function, _plain_args(c.args)) for c in calls)


def _number(task_id: str) -> tuple[int, str]:
    digits = task_id.rpartition("_")[2]
    return (int(digits), task_id) if digits.isdigit() else (1 << 30, task_id)


# -- the environment -------------------------------------------------------------------------


@dataclass
class DojoEnvironment:
    """One run's AgentDojo world: the environment, a copy of it before the run, the calls."""

    suite: Any
    user_task: Any
    injection_task: Any | None
    env: Any
    pre: Any
    runtime: Any
    trace: list[Any] = field(default_factory=list)
    #: The attack's injected texts, by injection point (empty without an attack).
    injections: Mapping[str, str] = field(default_factory=dict)

    def carries_injection(self, text: str) -> bool:
        """A tool result's ``text`` shows an injected text (one of its lines of 20 characters
        or more, as the result renders it)."""
        return any(len(line.strip()) >= 20 and line.strip() in text
                   for injected in self.injections.values() for line in injected.splitlines())

    def execute(self, tool: str, arguments: Mapping[str, Any],
                state: Mapping[str, Any] | None = None) -> Execution:
        m = _modules()
        args = dict(arguments)
        # AgentDojo's ToolsExecutor turns list arguments written as text back into lists.
        for key, value in args.items():
            if isinstance(value, str) and m.tool_execution.is_string_list(value):
                from ast import literal_eval

                args[key] = literal_eval(value)
        self.trace.append(m.runtime.FunctionCall(function=tool, args=args))
        result, error = self.runtime.run_function(self.env, tool, args)
        if error is not None:
            return Execution(False, text=error, error=error)
        return Execution(True, structured(result), m.tool_execution.tool_result_to_str(result))

    def verdict(self, answer: str | None, state: Mapping[str, Any] | None = None) -> Verdict:
        m = _modules()
        output = [m.types.text_content_block_from_string(answer or "")]
        utility = self.suite._check_user_task_utility(self.user_task, output, self.pre,
                                                       self.env, self.trace)
        attack = None
        if self.injection_task is not None:
            attack = self.suite._check_injection_task_security(
                self.injection_task, output, self.pre, self.env, self.trace)
        return Verdict(bool(utility), None if attack is None else bool(attack))


class _Target:
    """The pipeline an AgentDojo attack is told it attacks: only its name is read (to name the
    model in the injected text)."""

    def __init__(self, name: str):
        self.name = name


def attack_target_name(model: str) -> str:
    """The model's name as AgentDojo's attacks read it: the litellm name when AgentDojo knows
    it (``openai/gpt-4o-2024-05-13``), else ``local``, AgentDojo's own name for a local model."""
    known = _modules().models.MODEL_NAMES
    return model if any(full in model for full in known) else "local"


# -- the suite -------------------------------------------------------------------------------


@dataclass(frozen=True)
class DojoSuite:
    name: str
    registry: Registry
    tasks: Suite
    dojo: Any = field(compare=False, repr=False)
    attack: str | None = None
    injection_tasks: str | None = None
    seed: int = 1
    kind: str = "agentdojo"
    answers: bool = True
    max_steps: int = MAX_STEPS
    oracle: bool = True

    def cases(self) -> tuple[Case, ...]:
        if self.attack is None:
            return tuple(Case(t.id, t) for t in self.tasks)
        by_id = {t.id: t for t in self.tasks}
        injections = sorted(self.dojo.injection_tasks, key=_number)
        pairs = sample_injections(list(by_id), injections, self.injection_tasks, self.seed)
        return tuple(Case(pair_id(u, i), by_id[u], i) for u, i in pairs)

    def with_tasks(self, tasks: Suite) -> DojoSuite:
        return replace(self, tasks=tasks)

    def environment(self, case: Case, model: str = "") -> DojoEnvironment:
        m = _modules()
        user_task = self.dojo.get_user_task_by_id(case.task.id)
        injection_task = None
        injections: dict[str, str] = {}
        if case.injection is not None:
            injection_task = self.dojo.get_injection_task_by_id(case.injection)
            injections = self._attack(attack_target_name(model)).attack(user_task,
                                                                        injection_task)
        env = user_task.init_environment(_default_environment(self.dojo, injections))
        return DojoEnvironment(self.dojo, user_task, injection_task, env,
                               env.model_copy(deep=True), m.runtime.FunctionsRuntime(
                                   self.dojo.tools), injections=dict(injections))

    def _attack(self, target: str) -> Any:
        return _attack(self.dojo, str(self.attack), target)

    def ground_truth(self, case: Case, environment: DojoEnvironment) -> tuple[GroundCall, ...]:
        return _ground_calls(environment.user_task.ground_truth(
            environment.pre.model_copy(deep=True)))

    def attacker_calls(self, case: Case, environment: DojoEnvironment
                       ) -> tuple[GroundCall, ...]:
        if environment.injection_task is None:
            return ()
        return _ground_calls(environment.injection_task.ground_truth(
            environment.pre.model_copy(deep=True)))

    def final_answer(self, case: Case) -> str | None:
        return self.dojo.get_user_task_by_id(case.task.id).GROUND_TRUTH_OUTPUT

    def system_prompt(self) -> str:
        return str(_modules().pipeline.load_system_message(None))

    def tool_filter_prompt(self) -> str:
        return str(_modules().pipeline.TOOL_FILTER_PROMPT)

    def tool_schemas(self, names: Sequence[str]) -> list[dict[str, Any]]:
        """AgentDojo's own schemas, as its OpenAI pipeline sends them."""
        functions = {f.name: f for f in self.dojo.tools}
        return [{"type": "function", "function": {
            "name": n, "description": functions[n].description,
            "parameters": functions[n].parameters.model_json_schema()}} for n in names]


_ATTACKS: dict[tuple[int, str, str], Any] = {}
_ENVIRONMENTS: dict[tuple[int, tuple[tuple[str, str], ...]], Any] = {}
_LOCK = threading.Lock()


def _default_environment(dojo: Any, injections: Mapping[str, str]) -> Any:
    """A fresh copy of the suite's environment with ``injections``: AgentDojo parses its YAML
    on every load (0.4 s for workspace), so each injected environment is loaded once and
    deep-copied for every run."""
    key = (id(dojo), tuple(sorted(injections.items())))
    with _LOCK:
        if key not in _ENVIRONMENTS:
            _ENVIRONMENTS[key] = dojo.load_and_inject_default_environment(dict(injections))
        loaded = _ENVIRONMENTS[key]
    return loaded.model_copy(deep=True)


def _attack(dojo: Any, name: str, target: str) -> Any:
    """AgentDojo's attack object (its candidates are cached on it), one per suite and target."""
    key = (id(dojo), name, target)
    with _LOCK:
        if key not in _ATTACKS:
            _ATTACKS[key] = _modules().attacks.load_attack(name, dojo, _Target(target))
        return _ATTACKS[key]


def _contracts(name: str, options: SuiteOptions) -> Registry:
    if options.registry:
        return load_registry(list(options.registry))
    path = domains_file("agentdojo", f"{name}.yaml")
    if not path.is_file():
        raise PlanfilterError(f"agentdojo:{name}: no contracts at {path}; give them with "
                              "--registry FILE (a draft: `planfilter contracts infer` on the "
                              "suite's tool schemas)")
    return load_registry(path)


def load_agentdojo_suite(name: str, options: SuiteOptions) -> DojoSuite:
    """``agentdojo:<suite>`` with AgentDojo's user tasks as planfilter tasks."""
    if name not in SUITES:
        raise PlanfilterError(f"agentdojo:{name}: no such AgentDojo suite; choose from "
                              + ", ".join(f"agentdojo:{s}" for s in SUITES))
    m = agentdojo_modules()
    dojo = m.load_suites.get_suite(BENCHMARK_VERSION, name)
    registry = _contracts(name, options)
    tools = [f.name for f in dojo.tools]
    missing = [t for t in tools if t not in registry]
    extra = [t.name for t in registry if t.name not in tools]
    if missing or extra:
        problems = ([f"no contract for its tools {missing}"] if missing else []) + \
            ([f"contracts for tools it does not have {extra}"] if extra else [])
        raise ContractError(f"agentdojo:{name} with contracts {registry.source}: "
                            + "; ".join(problems))
    if options.attack is not None and options.attack not in m.attacks.attack_registry.ATTACKS:
        raise PlanfilterError(f"--attack {options.attack}: not an AgentDojo attack; choose "
                              "from " + ", ".join(sorted(m.attacks.attack_registry.ATTACKS)))
    default = _default_environment(dojo, {})
    tasks = []
    for task_id in sorted(dojo.user_tasks, key=_number):
        user_task = dojo.get_user_task_by_id(task_id)
        pre = user_task.init_environment(default.model_copy(deep=True))
        calls = _ground_calls(user_task.ground_truth(pre))
        tasks.append(convert_task(registry, name, task_id, user_task.PROMPT, calls))
    suite = Suite(tasks=tuple(tasks), source=f"agentdojo:{name} ({BENCHMARK_VERSION})")
    return DojoSuite(name, registry, suite, dojo, options.attack, options.injection_tasks,
                     options.seed)
