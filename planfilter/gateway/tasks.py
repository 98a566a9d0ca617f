"""Task handles: one :class:`~planfilter.live.Session` per task, each owned by one client.

A handle is ``secrets.token_urlsafe`` (unguessable), and a task answers only the client that
started it: another client's handle and a handle that never existed get the same refusal, so
handles cannot be probed. The table is bounded; the oldest task goes first. Each task has a
lock, held from a call's check to its result in the state, so two calls sent at once on one
task run one after the other and the second is checked against the state the first left.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import anyio

from ..core.errors import PlanfilterError
from ..live import Session

#: Tasks kept at once, over every client.
MAX_TASKS = 4096


class TaskError(PlanfilterError):
    """An unknown task handle, or one that belongs to another client."""


@dataclass
class Task:
    handle: str
    owner: str
    session: Session
    #: Calls to uncontracted (exposed) tools: (tool, ok) in order; they are outside the plan.
    outside: list[tuple[str, bool]] = field(default_factory=list)
    #: Uncontracted tools the user declined in this task -> why they are refused now (the
    #: session remembers the contracted ones).
    declined: dict[str, str] = field(default_factory=dict)
    #: Upstream calls this task made.
    upstream_calls: int = 0
    #: Held from a call's check to its result in the state (see the module docstring).
    lock: anyio.Lock = field(default_factory=anyio.Lock)


class TaskTable:
    def __init__(self, max_tasks: int = MAX_TASKS):
        self.max_tasks = max_tasks
        self._tasks: OrderedDict[str, Task] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, owner: str, session: Session) -> Task:
        task = Task(secrets.token_urlsafe(24), owner, session)
        with self._lock:
            self._tasks[task.handle] = task
            while len(self._tasks) > self.max_tasks:
                self._tasks.popitem(last=False)
        return task

    def get(self, owner: str, handle: Any) -> Task:
        with self._lock:
            task = self._tasks.get(handle) if isinstance(handle, str) else None
        if task is None or not secrets.compare_digest(task.owner, owner):
            raise TaskError(f"unknown task {str(handle)[:64]!r}: start one with plan")
        return task

    def latest(self, owner: str) -> Task | None:
        """The task this client started last (dynamic mode calls tools without a handle)."""
        with self._lock:
            for task in reversed(self._tasks.values()):
                if task.owner == owner:
                    return task
        return None

    def __len__(self) -> int:
        return len(self._tasks)
