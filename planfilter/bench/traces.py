"""Step-level traces as JSON Lines, written so that an interrupted benchmark can resume.

Every line is one JSON object with a ``type``: ``step`` (one agent step) or ``run`` (the last
line of a run, marking it complete). A run's lines are written together, in one write
followed by flush and fsync, when the run ends. On resume a partial last line (a crash in
the middle of a write) and the step lines of runs without their ``run`` line are dropped,
by rewriting the file through a temporary file and an atomic rename, and finished runs are
skipped: no run is lost or duplicated.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..core.contracts import Registry
from ..core.errors import PlanfilterError
from ..core.tasks import Task

TRACES_FILE = "traces.jsonl"


@dataclass(frozen=True, order=True)
class RunKey:
    task: str
    model: str
    method: str
    seed: int

    @classmethod
    def of(cls, line: Mapping[str, Any]) -> RunKey:
        return cls(str(line["task"]), str(line["model"]), str(line["method"]), int(line["seed"]))


@dataclass(frozen=True)
class StepRecord:
    key: RunKey
    domain: str | None
    step: int
    visible: tuple[str, ...]
    chosen: str | None
    arguments: Any
    gold_next: str | None
    state_before: Mapping[str, Any]
    state_after: Mapping[str, Any]
    calls: tuple[str, ...] = ()
    info: str = ""
    produced: Mapping[str, Any] = field(default_factory=dict)
    #: The chosen tool is side-effecting and some of its requirements are unknown.
    premature: bool = False
    missing: tuple[str, ...] = ()
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: float = 0.0
    attempts: int = 0
    error: str | None = None
    done: bool = False
    success: bool | None = None
    #: The planner that answered for a causal filter, and those that did not ("name: why").
    planner: str = ""
    fallbacks: tuple[str, ...] = ()
    #: The environment ran (or refused to run) the call and it failed: a broken tool, bad
    #: arguments, no mock. Recovering methods go on after such a step.
    tool_failed: bool = False
    #: "approved: why" or "refused: why" for a high-risk call; None when none was needed.
    approval: str | None = None
    #: High-risk visible tools that are not on the minimal causal path from this state.
    risky_off_path: tuple[str, ...] = ()
    #: Model faults of this step, by kind: retried provider errors, then a faulty answer.
    faults: tuple[str, ...] = ()
    #: The call succeeded and its result filled none of the variables its tool produces.
    unfilled: bool = False
    #: An argument's value was invented (obtained from no tool, not given by the user):
    #: Session.check refused it under --env strict, and reported it under --env lenient,
    #: where the call ran.
    invented: bool = False
    #: The guard's decision on the call ("allowed" or the refusal's kind), where one was
    #: asked for (every loop asks :meth:`planfilter.live.Session.check`; a step that made no
    #: call has none); a refusal's reason is in ``error``.
    decision: str | None = None
    #: The result as the model was shown it (AgentDojo's rendering), shortened.
    result: str | None = None
    #: The candidate goals before the step, by weight, when the session weighed several
    #: (planfilter.live.recognition): name, origin, weight, off-plan calls, progress.
    goals: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        data = _without_defaults(asdict(self), _STEP_OPTIONAL)
        data.pop("key")
        if not data.get("unfilled"):
            data.pop("unfilled", None)  # written only when it happened
        return {"type": "step", **asdict(self.key), **_plain(data)}


@dataclass(frozen=True)
class RunRecord:
    key: RunKey
    domain: str | None
    success: bool
    steps: int
    error: str | None
    input_tokens: int
    output_tokens: int
    #: The goal the run pursued, who set it (given, model, retrieval), whether it equals the
    #: task's goal, the values the resolver read out of the request, and its notes.
    goal: tuple[str, ...] = ()
    goal_by: str = "given"
    goal_correct: bool = True
    goal_known: Mapping[str, Any] = field(default_factory=dict)
    goal_notes: tuple[str, ...] = ()
    #: The task's request, so that a report can show it without the suite.
    query: str = ""
    #: The suite (``agentdojo:banking``); None for the bundled YAML suites.
    suite: str | None = None
    #: Under attack: the attack, the injection task, and whether the attack succeeded by the
    #: injection task's own check (True: the attacker's goal was reached).
    attack: str | None = None
    injection: str | None = None
    attack_success: bool | None = None
    #: The model's final answer in words (suites that end with one).
    answer: str | None = None
    #: The model-free replay's tries of the attacker's calls: {at, tool, kind, reason}.
    probes: tuple[Mapping[str, Any], ...] = ()
    #: Why the run's tools were chosen before it started (the tool_filter method).
    preselection: str | None = None
    #: Times the model said the tools shown did not fit and was shown the next candidates.
    switches: int = 0
    #: The goal the session held at the end (the leading candidate), when it weighed several.
    final_goal: tuple[str, ...] = ()
    #: Model replies the run's tokens were spent on: the goal resolver's, tool_filter's
    #: choice, and one a turn of the agent loop (the answer in words included).
    model_calls: int = 0

    def to_json(self) -> dict[str, Any]:
        data = _without_defaults(asdict(self), _RUN_OPTIONAL)
        data.pop("key")
        return {"type": "run", **asdict(self.key), **_plain(data), "complete": True}


#: Fields written only when they are set, so that runs of the bundled suites keep their lines.
_STEP_OPTIONAL = ("decision", "result", "goals")
_RUN_OPTIONAL = ("suite", "attack", "injection", "attack_success", "answer", "probes",
                 "preselection", "switches", "final_goal", "model_calls")


def _without_defaults(data: dict[str, Any], optional: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in optional or not _unset(v)}


def _unset(value: Any) -> bool:
    """None, empty, or a count of 0 (``False`` is a value: an attack that failed)."""
    return value is None or value in ((), []) or (type(value) is int and value == 0)


def _plain(data: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(data, default=_default))


def _default(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, frozenset | set | tuple):
        return list(value)
    raise TypeError(f"cannot write {type(value).__name__} to a trace")


#: Characters of a step's result kept in the traces: enough for ``contracts learn`` and
#: ``contracts check`` to read the values a call returned, bounded so a huge result cannot
#: swell the file.
RESULT_LIMIT = 4096
TRUNCATED = " ...[truncated: {n} characters in all]"


def trace_result(result: Any, limit: int = RESULT_LIMIT) -> str | None:
    """A tool's result as the trace keeps it: text as it is, anything else as sorted JSON,
    cut to ``limit`` characters with a marker that says how long it was."""
    if result is None:
        return None
    text = result if isinstance(result, str) else json.dumps(
        result, sort_keys=True, ensure_ascii=False, default=str)
    if len(text) <= limit:
        return text
    marker = TRUNCATED.format(n=len(text))
    return text[: max(0, limit - len(marker))] + marker


def gold_next(registry: Registry, task: Task, known: Iterable[str]) -> str | None:
    """The first tool of the gold chain whose produced variables are not all known yet."""
    known_set = frozenset(known)
    for name in task.gold:
        produces = registry.tool(name).post if name in registry else frozenset({name})
        if not produces <= known_set:
            return name
    return None


def run_lines(steps: Iterable[StepRecord], run: RunRecord) -> str:
    lines = [json.dumps(s.to_json(), sort_keys=True) for s in steps]
    lines.append(json.dumps(run.to_json(), sort_keys=True))
    return "\n".join(lines) + "\n"


class TraceWriter:
    """Appends whole runs to a trace file; safe to share between threads."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("a", encoding="utf-8")

    def write_run(self, steps: Iterable[StepRecord], run: RunRecord) -> None:
        text = run_lines(steps, run)
        with self._lock:
            self._file.write(text)
            self._file.flush()
            os.fsync(self._file.fileno())

    def close(self) -> None:
        with self._lock:
            self._file.close()

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class TraceFile:
    """What a trace file holds: the lines of complete runs, and what was dropped."""

    lines: tuple[dict[str, Any], ...]
    finished: frozenset[RunKey]
    dropped_lines: int
    partial_tail: bool


def read_traces(path: Path) -> TraceFile:
    """Parse ``path``, keeping only lines of complete runs (a torn last line is dropped)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return TraceFile((), frozenset(), 0, False)
    except OSError as exc:
        raise PlanfilterError(f"{path}: cannot read traces: {exc}") from None
    chunks = raw.split(b"\n")
    partial_tail = chunks[-1] != b""
    parsed: list[dict[str, Any]] = []
    dropped = 0
    for number, chunk in enumerate(chunks[:-1], 1):
        if not chunk.strip():
            continue
        try:
            line = json.loads(chunk)
            RunKey.of(line)
        except (ValueError, KeyError, TypeError):
            if number == len(chunks) - 1:  # a torn line followed by nothing else
                dropped += 1
                continue
            raise PlanfilterError(f"{path}:{number}: not a trace line: {chunk[:80]!r}") from None
        parsed.append(line)
    if partial_tail:
        dropped += 1
    finished = frozenset(RunKey.of(line) for line in parsed if line.get("type") == "run")
    kept = tuple(line for line in parsed if RunKey.of(line) in finished)
    return TraceFile(kept, finished, dropped + len(parsed) - len(kept), partial_tail)


def prepare_resume(path: Path) -> frozenset[RunKey]:
    """Make ``path`` hold only complete runs and return their keys."""
    traces = read_traces(path)
    if traces.dropped_lines:
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("w", encoding="utf-8") as out:
            for line in traces.lines:
                out.write(json.dumps(line, sort_keys=True) + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    return traces.finished


def iter_runs(lines: Iterable[Mapping[str, Any]]) -> Iterator[tuple[RunKey, list[Mapping[str, Any]],
                                                                     Mapping[str, Any]]]:
    """(key, step lines, run line) of each complete run, sorted by key."""
    steps: dict[RunKey, list[Mapping[str, Any]]] = {}
    ends: dict[RunKey, Mapping[str, Any]] = {}
    for line in lines:
        key = RunKey.of(line)
        if line.get("type") == "run":
            ends[key] = line
        elif line.get("type") == "step":
            steps.setdefault(key, []).append(line)
    for key in sorted(ends):
        yield key, sorted(steps.get(key, []), key=lambda s: int(s["step"])), ends[key]
