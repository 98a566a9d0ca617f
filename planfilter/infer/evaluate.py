"""Measure inference against hand-written contracts (``planfilter contracts eval``).

Every contract field of a registry is stripped (name, description, parameters and, when
asked, ``returns`` are kept), contracts are inferred back, and compared:

- per field, precision and recall of requires and produces over (tool, variable) pairs, with
  hand-written names mapped through the inferred vocabulary (``eventId`` and ``event_id`` are
  one name); of risk, per level;
- along every task's gold chain, whether the CMTF frontier (``compute_frontier``) computed on
  the inferred registry is the one computed on the hand-written registry, at every step.

A hand-written variable that appears in no schema (a produced name such as ``email_sent``
when there is no ``returns``) is *aligned* for the frontier comparison only: a goal variable
to what the gold-chain tool that produces it produces in the inferred registry (the user asks
for what that tool does), any other to the inferred variable most of its hand-written
producers produce. The field scores never align.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from ..core.contracts import Registry
from ..core.frontier import compute_frontier
from ..core.tasks import Suite, Task
from .infer import Inference, InferOptions, infer_contracts
from .sources import specs_of


@dataclass(frozen=True)
class Score:
    true_pos: int
    inferred: int
    hand: int

    @property
    def precision(self) -> float:
        return self.true_pos / self.inferred if self.inferred else 1.0

    @property
    def recall(self) -> float:
        return self.true_pos / self.hand if self.hand else 1.0


@dataclass(frozen=True)
class TaskOutcome:
    task: str
    unchanged: bool
    #: first differing step: "step i: hand [..] inferred [..]"
    difference: str = ""


@dataclass(frozen=True)
class EvalResult:
    label: str
    requires: Score
    produces: Score
    risk: Mapping[str, Score]
    risk_accuracy: float
    tasks: tuple[TaskOutcome, ...]
    merges: int
    open_tools: int
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def unchanged_share(self) -> float:
        return sum(t.unchanged for t in self.tasks) / len(self.tasks) if self.tasks else 1.0


def _pairs(registry: Registry, field_name: str,
           rename: Callable[[str], str]) -> set[tuple[str, str]]:
    return {(t.name, rename(v)) for t in registry for v in getattr(t, field_name)}


def _score(inferred: set[tuple[str, str]], hand: set[tuple[str, str]]) -> Score:
    return Score(len(inferred & hand), len(inferred), len(hand))


def alignment(hand: Registry, inference: Inference) -> dict[str, str]:
    """Hand-written variable -> inferred variable, for the frontier comparison."""
    vocab = inference.vocabulary
    inferred = inference.registry
    out: dict[str, str] = {}
    known = set(vocab.by_name)
    producers: dict[str, list[str]] = defaultdict(list)
    for tool in hand:
        for var in tool.produces:
            producers[var].append(tool.name)
    for var in hand.variables:
        if var in known:
            out[var] = vocab.of_name(var)
            continue
        votes = Counter(v for name in producers.get(var, ())
                        for v in inferred.tool(name).produces)
        out[var] = min(votes, key=lambda v: (-votes[v], v)) if votes else var
    return out


def _goal_variable(hand: Registry, inferred: Registry, task: Task, var: str,
                   align: Mapping[str, str]) -> str:
    if align.get(var, var) in inferred.variables and align.get(var, var) == var:
        return var
    makers = [n for n in task.gold if var in hand.tool(n).produces]
    if makers:
        produced = sorted(inferred.tool(makers[-1]).produces)
        if len(produced) == 1:
            return produced[0]
    return align.get(var, var)


def _chain_states(registry: Registry, task: Task) -> list[frozenset[str]]:
    states, known = [], frozenset(task.state)
    for name in task.gold:
        states.append(known)
        known = known | registry.tool(name).produces
    return states


def compare_task(hand: Registry, inferred: Registry, task: Task,
                 align: Mapping[str, str]) -> TaskOutcome:
    """Is the frontier the same at every step of the gold chain (``ties="first"``)?"""
    goal = frozenset(task.goal)
    igoal = frozenset(_goal_variable(hand, inferred, task, v, align) for v in goal)
    iknown = frozenset(align.get(v, v) for v in task.state)
    for step, known in enumerate(_chain_states(hand, task), 1):
        want = compute_frontier(hand, known, goal, planner="native").frontier
        got = compute_frontier(inferred, iknown, igoal, planner="native").frontier
        if want != got:
            return TaskOutcome(task.id, False, f"step {step}: hand {list(want)}, inferred "
                                               f"{list(got)}")
        name = task.gold[step - 1]
        iknown = iknown | inferred.tool(name).produces
    return TaskOutcome(task.id, True)


def evaluate(hand: Registry, suite: Suite | None, *, with_returns: bool,
             options: InferOptions | None = None, label: str = "",
             mixed_spelling: bool = False) -> EvalResult:
    specs = specs_of(hand.tools, with_returns=with_returns, mixed_spelling=mixed_spelling)
    inference = infer_contracts(specs, options or InferOptions())
    inferred = inference.registry
    rename = inference.vocabulary.of_name
    requires = _score(_pairs(inferred, "requires", str), _pairs(hand, "requires", rename))
    produces = _score(_pairs(inferred, "produces", str), _pairs(hand, "produces", rename))
    risk = {}
    for level in ("low", "medium", "high"):
        got = {t.name for t in inferred if t.risk == level}
        want = {t.name for t in hand if t.risk == level}
        risk[level] = Score(len(got & want), len(got), len(want))
    accuracy = sum(inferred.tool(t.name).risk == t.risk for t in hand) / max(len(hand), 1)
    align = alignment(hand, inference)
    tasks = tuple(compare_task(hand, inferred, t, align) for t in _tasks_in(hand, suite))
    return EvalResult(label or ("parameters + returns + descriptions" if with_returns
                                else "parameters + descriptions"),
                      requires, produces, risk, accuracy, tasks, len(inference.merges),
                      len(inference.open_tools))


def _tasks_in(registry: Registry, suite: Suite | None) -> Iterable[Task]:
    if suite is None:
        return ()
    return [t for t in suite if all(name in registry for name in t.gold)]
