"""Tasks and task suites: a request, the known state, a goal, the gold chain and mocked outputs."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainSerializer, PrivateAttr

from .contracts import FrozenJson, Name, NameSet
from .errors import ContractError
from .frozen import freeze, thaw

#: A variable's value: what the state holds and tool arguments are filled from.
Value = str | int | float | bool | None
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
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Name
    domain: str | None = None
    query: str = Field(max_length=10_000)
    state: State = Field(default_factory=lambda: freeze({}))
    goal: NameSet = Field(min_length=1)
    gold: tuple[Name, ...] = ()
    mocks: Mocks = Field(default_factory=lambda: freeze({}))
    failures: Failures = Field(default_factory=lambda: freeze({}))
    family: str | None = None
    metadata: FrozenJson = Field(default_factory=lambda: freeze({}))

    def __hash__(self) -> int:
        return hash(self.id)

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
