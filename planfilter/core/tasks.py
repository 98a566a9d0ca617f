"""Tasks and task suites: a request, the known state, a goal, the gold chain and mocked outputs."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PrivateAttr,
    model_serializer,
    model_validator,
)

from .contracts import FrozenJson, Name, NameSet, Steps, goal_steps
from .errors import ContractError
from .frozen import freeze, thaw

#: A variable's value: what the state holds and tool arguments are filled from; a list of
#: values for a variable its tools take one at a time is several values of it (two cities).
Scalar = str | int | float | bool | None
Value = Scalar | list[Scalar]
State = Annotated[
    Mapping[Name, Value], AfterValidator(freeze), PlainSerializer(thaw, return_type=Any)
]
Mocks = Annotated[
    Mapping[Name, Mapping[Name, Any]],
    AfterValidator(freeze),
    PlainSerializer(thaw, return_type=Any),
]
#: Tools that fail in a task's world, each with the error message the environment returns.
Failures = Annotated[
    Mapping[Name, Annotated[str, Field(min_length=1, max_length=1000)]],
    AfterValidator(freeze),
    PlainSerializer(thaw, return_type=Any),
]


class Task(BaseModel):
    """``goal`` is the variables the task must end with; a goal in steps (``goal:
    [[current_time], [file_written]]`` in a suite file) is also kept, in order, as ``steps``
    and ``goal`` is then every step's variables together."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Name
    domain: str | None = None
    query: str = Field(max_length=10_000)
    state: State = Field(default_factory=lambda: freeze({}))
    goal: NameSet = Field(min_length=1)
    #: The goal's steps in order, when it has more than one.
    steps: tuple[NameSet, ...] = ()
    gold: tuple[Name, ...] = ()
    mocks: Mocks = Field(default_factory=lambda: freeze({}))
    failures: Failures = Field(default_factory=lambda: freeze({}))
    family: str | None = None
    metadata: FrozenJson = Field(default_factory=lambda: freeze({}))

    @model_validator(mode="before")
    @classmethod
    def _goal_in_steps(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and "goal" in data and not data.get("steps"):
            try:
                steps = goal_steps(data["goal"])
            except (TypeError, ValueError):
                return data  # the field validator names what is wrong
            if len(steps) > 1:
                return {**data, "goal": frozenset().union(*steps), "steps": steps}
            return {**data, "goal": steps[0]}
        return data

    @model_validator(mode="after")
    def _steps_make_goal(self) -> Task:
        if self.steps and frozenset().union(*self.steps) != self.goal:
            raise ValueError("goal must be every variable of its steps")
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and len(self.steps) > 1:
            data["goal"] = [sorted(s) for s in self.steps]
            data.pop("steps", None)
        elif isinstance(data, dict) and not self.steps:
            data.pop("steps", None)
        return data

    def __hash__(self) -> int:
        return hash(self.id)

    @property
    def goal_steps(self) -> Steps:
        """The goal's steps in order (one step for a goal given as variables)."""
        return tuple(self.steps) if self.steps else (self.goal,)

    @property
    def known(self) -> frozenset[str]:
        return frozenset(self.state)


class Suite(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    tasks: tuple[Task, ...]
    source: str | None = None
    _by_id: dict[str, Task] = PrivateAttr(default_factory=dict)

    def model_post_init(self, __context: Any) -> None:
        problems = []
        for task in self.tasks:
            if task.id in self._by_id:
                problems.append(f"{self.source or '<suite>'}: task id '{task.id}' appears twice")
            self._by_id[task.id] = task
        if problems:
            raise ContractError(problems)

    def __len__(self) -> int:
        return len(self.tasks)

    def __iter__(self) -> Iterator[Task]:  # type: ignore[override]
        return iter(self.tasks)

    def task(self, task_id: str) -> Task:
        try:
            return self._by_id[task_id]
        except KeyError:
            known = ", ".join(sorted(self._by_id)[:5])
            raise ContractError(
                f"{self.source or '<suite>'}: no task '{task_id}' (ids include: {known}, ...)"
            ) from None
