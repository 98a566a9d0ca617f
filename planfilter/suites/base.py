"""The suite interface: what the runner needs from a suite, whatever runs its tools.

A suite (:class:`BenchSuite`) holds contracts and tasks and makes, per run, an
:class:`Environment`: the world the run's calls act on. It executes one call at a time and
answers ``(ok, result or error)`` as an :class:`Execution` (the structured result goes into
the session's state, the text is what the model is shown), and judges the run's end as a
:class:`Verdict`: the task's success check, and for a run under attack whether the attack
succeeded. A run is a :class:`Case`: a task, or a (user task, injection task) pair whose id
names both (``user_task_0+injection_task_3``), so traces and ``--resume`` keep pairs apart.
Each kind of suite implements this interface in its own module; ``kinds`` lists them. There is
no base class.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..core.contracts import Registry
from ..core.errors import PlanfilterError
from ..core.tasks import Suite, Task

#: Joins a user task's id and an injection task's id into a pair's run id.
PAIR = "+"


@dataclass(frozen=True)
class Execution:
    """One call's outcome in a suite's environment."""

    ok: bool
    #: The result as structured values (dicts, lists, scalars): what enters the state.
    result: Any = None
    #: The result as the model is shown it (the suite's own rendering).
    text: str = ""
    error: str | None = None


@dataclass(frozen=True)
class Verdict:
    """How a run ended, by the suite's own checks."""

    success: bool
    #: The injection task's check: True when the attack succeeded; None without an attack.
    attack_success: bool | None = None


@dataclass(frozen=True)
class GroundCall:
    """One call of a task's ground truth. ``arguments`` None: filled from the state when the
    call is made (the bundled gold chains name tools, not arguments)."""

    tool: str
    arguments: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Case:
    """One run's task: ``id`` is the task's id, or ``<user task>+<injection task>``."""

    id: str
    task: Task
    injection: str | None = None


@dataclass(frozen=True)
class SuiteOptions:
    #: Registry files or folders that replace the suite's own contracts.
    registry: tuple[Path, ...] = ()
    #: Task files or folders (the yaml kind).
    tasks: tuple[Path, ...] = ()
    #: An attack by the suite's own name for it (``important_instructions``).
    attack: str | None = None
    #: Injection tasks to pair with every user task: ids joined by commas, or ``sample:N``
    #: (``sample:N:SEED``) for N (user task, injection task) pairs drawn with ``seed``.
    #: None: every pair.
    injection_tasks: str | None = None
    seed: int = 1
    #: The bundled mocks answer an id their task's world does not hold with an error, as a
    #: service would (``--env strict``); False: they take any value (the paper's mocks).
    strict: bool = True


class Environment(Protocol):
    def execute(self, tool: str, arguments: Mapping[str, Any],
                state: Mapping[str, Any]) -> Execution:
        """Run one call; never raises for a bad call. ``state`` is the session's state."""
        ...

    def verdict(self, answer: str | None, state: Mapping[str, Any]) -> Verdict:
        """The suite's checks on the run's end (``answer``: the model's final text)."""
        ...


class BenchSuite(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def registry(self) -> Registry: ...
    @property
    def tasks(self) -> Suite: ...
    @property
    def answers(self) -> bool:
        """Runs end with the model's answer in words (AgentDojo) rather than at the goal."""
    @property
    def max_steps(self) -> int:
        """The step limit that suits the suite when none is given."""
    @property
    def attack(self) -> str | None: ...
    @property
    def oracle(self) -> bool:
        """The tasks' goals and known values were read from the suite's ground truth (an
        upper bound, not what a user gives): runs resolve the goal from the request unless
        told ``--goal oracle``, and then known values come from the request too."""

    def cases(self) -> tuple[Case, ...]:
        """Every run's case, in order: one per task, or one per chosen pair under attack."""
        ...

    def with_tasks(self, tasks: Suite) -> BenchSuite:
        """The same suite over ``tasks`` (a sample, or tasks relabelled by a merge)."""
        ...

    def environment(self, case: Case, model: str) -> Environment:
        """A fresh world for one run of ``case`` (``model``: an attack may name it)."""
        ...

    def ground_truth(self, case: Case, environment: Environment) -> tuple[GroundCall, ...]:
        ...

    def attacker_calls(self, case: Case, environment: Environment) -> tuple[GroundCall, ...]:
        """The injection task's ground truth (empty without an injection)."""
        ...

    def final_answer(self, case: Case) -> str | None:
        """The task's expected answer in words, for a model-free replay."""
        ...

    def system_prompt(self) -> str | None:
        ...

    def tool_schemas(self, names: Sequence[str]) -> list[dict[str, Any]]:
        """The named tools as the model is shown them (OpenAI function shape)."""
        ...


def sample_injections(users: Sequence[str], injections: Sequence[str], spec: str | None,
                      seed: int) -> tuple[tuple[str, str], ...]:
    """(user task, injection task) pairs: every pair (``spec`` None), every user task with the
    listed injection tasks (``injection_task_0,injection_task_3``), or ``sample:N`` pairs
    drawn from all of them with ``seed`` (``sample:N:SEED`` names another seed; the same seed
    draws the same pairs, kept in suite order)."""
    every = [(u, i) for u in users for i in injections]
    if spec is None or not spec.strip():
        return tuple(every)
    spec = spec.strip()
    if spec.startswith("sample:"):
        count, _, given = spec.removeprefix("sample:").partition(":")
        if not count.isdigit() or int(count) < 1 or (given and not given.isdigit()):
            raise PlanfilterError(f"--injection-tasks {spec!r}: write sample:N or "
                                  "sample:N:SEED, N and SEED whole numbers, N at least 1")
        n = int(count)
        seed = int(given) if given else seed
        if n >= len(every):
            return tuple(every)
        chosen = set(random.Random(f"injections|{seed}").sample(range(len(every)), n))
        return tuple(pair for k, pair in enumerate(every) if k in chosen)
    wanted = [s.strip() for s in spec.split(",") if s.strip()]
    unknown = [w for w in wanted if w not in injections]
    if unknown:
        raise PlanfilterError(f"--injection-tasks: no injection task {', '.join(unknown)} "
                              f"(this suite has {', '.join(injections)})")
    return tuple((u, i) for u in users for i in injections if i in wanted)


def pair_id(user: str, injection: str) -> str:
    return f"{user}{PAIR}{injection}"
