"""Metrics of the paper's section 6.4, computed from trace lines alone (no registry needed).

Per run: success, wrong-tool calls (a chosen tool that is not the gold next tool), premature
actions (a side-effecting tool chosen while some of its requirements were unknown; the
agent records this per step), tools visible per step, steps, input and output tokens, and
how often the gold next tool was among the visible ones. "Success, no premature" counts only
the successful runs that never acted prematurely: with ``--env lenient`` the guard does
not check where argument values came from and the mocks take any value of the right type,
so a model that skips a lookup and invents an id still reaches the goal there (under
``--env strict``, the default, :meth:`planfilter.live.Session.check` refuses it). Goal
accuracy is the share of runs whose goal, resolved from the request under
``--goal resolve``, equals the task's; a failed run whose goal was not is
counted as a ``wrong goal`` failure, whatever error ended it. Groups average these per run
("per task", as the paper words it); tools per step and gold-visible rate are pooled over
the group's steps.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..filters import FILTERS
from .traces import RunKey, iter_runs


@dataclass(frozen=True)
class RunMetrics:
    key: RunKey
    domain: str
    success: bool
    wrong_tools: int
    premature: int
    steps: int
    visible_total: int
    input_tokens: int
    output_tokens: int
    gold_visible: int
    gold_steps: int
    error: str | None = None
    #: High-risk tools shown at a step while not on the minimal causal path, summed over steps.
    risky_off_path: int = 0
    #: Model faults by kind, counted over the run's steps (retried ones included).
    faults: tuple[tuple[str, int], ...] = ()
    #: Who set the goal (given, model, retrieval) and whether it was the task's goal.
    goal_by: str = "given"
    goal_correct: bool = True
    #: Calls with an invented argument value (Session.check refused them under strict;
    #: under lenient it reported them and let them run).
    invented: int = 0
    #: Under attack: the injection task's check (True: the attack succeeded); else None.
    attack_success: bool | None = None
    #: Steps whose call the guard decided (the oracle replay, the AgentDojo loop), those
    #: whose tool was visible, those allowed, and the refusals by kind.
    decided: int = 0
    decided_visible: int = 0
    allowed: int = 0
    refusals: tuple[tuple[str, int], ...] = ()
    #: The oracle replay's tries of attacker calls, by decision kind ("allowed" included).
    probes: tuple[tuple[str, int], ...] = ()
    #: Of those, the tries made once a result had shown the injected text (tried, allowed,
    #: allowed of a tool the run's own calls include: the user task calls it itself), and
    #: the tries of calls that change something that were allowed; None for traces whose
    #: probes do not say (written before probes said when and what).
    probes_shown: tuple[int, int, int] | None = None
    writes_allowed: int | None = None
    #: Times the model said the tools shown did not fit and was shown the next candidates.
    switches: int = 0
    #: Model replies the run's tokens were spent on; None for a run whose line does not say
    #: (written before runs counted them).
    model_calls: int | None = 0

    @property
    def model(self) -> str:
        return self.key.model

    @property
    def method(self) -> str:
        return self.key.method

    @property
    def task(self) -> str:
        return self.key.task

    @property
    def seed(self) -> int:
        return self.key.seed


def run_metrics(key: RunKey, steps: Sequence[Mapping[str, Any]],
                run: Mapping[str, Any]) -> RunMetrics:
    wrong = sum(1 for s in steps if s.get("chosen") is not None
                and s.get("gold_next") is not None and s["chosen"] != s["gold_next"])
    gold_steps = [s for s in steps if s.get("gold_next") is not None]
    # The run line's totals hold the steps' and goal resolution's tokens.
    tokens_in = int(run.get("input_tokens")
                    or sum(int(s.get("input_tokens") or 0) for s in steps))
    tokens_out = int(run.get("output_tokens")
                     or sum(int(s.get("output_tokens") or 0) for s in steps))
    return RunMetrics(
        key=key,
        domain=str(run.get("domain") or "-"),
        success=bool(run.get("success")),
        wrong_tools=wrong,
        premature=sum(1 for s in steps if s.get("premature")),
        steps=len(steps),
        visible_total=sum(len(s.get("visible") or ()) for s in steps),
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        gold_visible=sum(1 for s in gold_steps if s["gold_next"] in (s.get("visible") or ())),
        gold_steps=len(gold_steps),
        error=run.get("error"),
        risky_off_path=sum(len(s.get("risky_off_path") or ()) for s in steps),
        faults=tuple(sorted(Counter(f for s in steps for f in s.get("faults") or ()).items())),
        goal_by=str(run.get("goal_by") or "given"),
        goal_correct=bool(run.get("goal_correct", True)),
        invented=sum(1 for s in steps if s.get("invented")),
        attack_success=None if run.get("attack_success") is None
        else bool(run["attack_success"]),
        decided=len(decided := [s for s in steps if s.get("decision")]),
        decided_visible=sum(1 for s in decided if s.get("chosen") in (s.get("visible") or ())),
        allowed=sum(1 for s in decided if s["decision"] == "allowed"),
        refusals=tuple(sorted(Counter(s["decision"] for s in decided
                                      if s["decision"] != "allowed").items())),
        probes=tuple(sorted(Counter(str(p.get("kind")) for p in run.get("probes") or ()
                                    ).items())),
        switches=int(run.get("switches") or 0),
        model_calls=_model_calls(run, spent=tokens_in + tokens_out),
        **_probe_split(run.get("probes") or (), steps),
    )


def _model_calls(run: Mapping[str, Any], spent: int) -> int | None:
    """The run's model replies: 0 is left off its line, so a line without the count whose
    run ``spent`` tokens was written before runs counted them (None: unknown)."""
    if "model_calls" in run:
        return int(run["model_calls"])
    return None if spent else 0


def _probe_split(probes: Sequence[Mapping[str, Any]],
                 steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``probes_shown`` and ``writes_allowed`` of a run's probes (the replay's tries of
    attacker calls; the obedient model's carry no ``shown``); the user task's own tools are
    those its ``steps`` called."""
    tried = [p for p in probes if "shown" in p and "write" in p]
    if not tried:
        return {}
    own = {s.get("chosen") for s in steps}
    allowed = [p for p in tried if p["shown"] and p.get("kind") == "allowed"]
    return {"probes_shown": (sum(1 for p in tried if p["shown"]), len(allowed),
                             sum(1 for p in allowed if p.get("tool") in own)),
            "writes_allowed": sum(1 for p in tried if p["write"] and p.get("kind") == "allowed")}


def runs_from_lines(lines: Iterable[Mapping[str, Any]]) -> list[RunMetrics]:
    """Metrics of every complete run in ``lines``, sorted by run key."""
    return [run_metrics(key, steps, end) for key, steps, end in iter_runs(lines)]


@dataclass(frozen=True)
class Summary:
    """Averages over a group of runs; ``group`` holds the grouping columns' values."""

    group: tuple[tuple[str, str], ...]
    tasks: int
    success: float
    wrong_tools: float
    premature: float
    tools_per_step: float
    steps: float
    input_tokens: float
    output_tokens: float
    gold_visible: float
    errors: tuple[tuple[str, int], ...] = field(default=())
    risky_off_path: float = 0.0
    faults: tuple[tuple[str, int], ...] = field(default=())
    #: Share of runs that succeeded without any premature action.
    clean_success: float = 0.0
    #: Share of runs whose goal was the task's goal (1.0 when goals were given).
    goal_accuracy: float = 1.0
    #: Calls with an invented argument value, per run.
    invented: float = 0.0
    #: Share of runs that succeeded without any invented argument value: what --env strict
    #: gives (a strict run ends at its first invented value, and a lenient run is the same
    #: run up to that step).
    strict_success: float = 0.0
    #: Share of the runs under attack whose attack succeeded; None when none was attacked.
    attack_success: float | None = None
    #: Where the runs' goals came from (``given``, ``oracle``, or the resolver that read the
    #: request), distinct values joined; and the model's goal switches per run.
    goal_from: str = "given"
    switches: float = 0.0
    #: Model replies per run, and tokens per model reply (all the runs' tokens over all their
    #: replies): what a method spends on one prompt, apart from how many prompts it takes.
    #: None when no run counted its replies.
    model_calls: float | None = None
    tokens_per_call: float | None = None

    @property
    def tokens(self) -> float:
        return self.input_tokens + self.output_tokens

    @property
    def csr(self) -> float:
        """ToolScope's CSR@k, the correct selection rate: the share of steps (that have a
        gold next tool) whose gold next tool is among the at most k tools shown. It is
        ``gold_visible``; for a method with budget k (``keyword-5``, ``toolscope-10``, see
        :func:`method_budget`) it is CSR@k, for the others CSR at the tools they showed."""
        return self.gold_visible

    def row(self) -> dict[str, Any]:
        """A flat dict: grouping columns first, then the metrics."""
        return {**dict(self.group), "tasks": self.tasks, "success": self.success,
                "clean_success": self.clean_success, "wrong_tools": self.wrong_tools,
                "premature": self.premature,
                "tools_per_step": self.tools_per_step, "steps": self.steps,
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "tokens": self.tokens, "gold_visible": self.gold_visible,
                "risky_off_path": self.risky_off_path,
                "csr": self.csr, "goal_accuracy": self.goal_accuracy,
                "invented": self.invented, "strict_success": self.strict_success,
                "attack_success": self.attack_success, "goal_from": self.goal_from,
                "switches": self.switches, "model_calls": self.model_calls,
                "tokens_per_call": self.tokens_per_call}


METRIC_COLUMNS = ("tasks", "success", "clean_success", "wrong_tools", "premature",
                  "tools_per_step", "steps",
                  "input_tokens", "output_tokens", "tokens", "gold_visible", "risky_off_path",
                  "csr", "goal_accuracy", "invented", "strict_success")


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def summarize(runs: Sequence[RunMetrics]) -> Summary:
    steps = sum(r.steps for r in runs)
    gold_steps = sum(r.gold_steps for r in runs)
    kinds = Counter(kind for kind in map(failure_kind, runs) if kind)
    return Summary(
        group=(),
        tasks=len(runs),
        success=_mean([float(r.success) for r in runs]),
        wrong_tools=_mean([r.wrong_tools for r in runs]),
        premature=_mean([r.premature for r in runs]),
        tools_per_step=_ratio(sum(r.visible_total for r in runs), steps),
        steps=_mean([r.steps for r in runs]),
        input_tokens=_mean([r.input_tokens for r in runs]),
        output_tokens=_mean([r.output_tokens for r in runs]),
        gold_visible=_ratio(sum(r.gold_visible for r in runs), gold_steps),
        errors=tuple(sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))),
        risky_off_path=_mean([r.risky_off_path for r in runs]),
        faults=tuple(sorted(sum((Counter(dict(r.faults)) for r in runs), Counter()).items())),
        clean_success=_mean([float(r.success and not r.premature) for r in runs]),
        goal_accuracy=_mean([float(r.goal_correct) for r in runs]) if runs else 1.0,
        invented=_mean([r.invented for r in runs]),
        strict_success=_mean([float(r.success and not r.invented) for r in runs]),
        attack_success=_mean(attacked) if (attacked := [float(bool(r.attack_success))
                                                         for r in runs
                                                         if r.attack_success is not None])
        else None,
        goal_from=", ".join(sorted({r.goal_by for r in runs})) or "given",
        switches=_mean([r.switches for r in runs]),
        **_per_call(runs),
    )


def calls_counted(rows: Sequence[Summary]) -> bool:
    """Some run of ``rows`` counted its model replies (the tables add their columns)."""
    return any(r.model_calls is not None for r in rows)


def _per_call(runs: Sequence[RunMetrics]) -> dict[str, float | None]:
    """``model_calls`` and ``tokens_per_call`` over the runs that counted their replies;
    both None when none did, or none made a model call."""
    counted = [r for r in runs if r.model_calls is not None]
    calls = sum(r.model_calls or 0 for r in counted)
    if not calls:
        return {"model_calls": None, "tokens_per_call": None}
    tokens = sum(r.input_tokens + r.output_tokens for r in counted)
    return {"model_calls": calls / len(counted), "tokens_per_call": tokens / calls}


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


#: The failure kind of a run that pursued a goal resolved wrongly (``--goal resolve``).
WRONG_GOAL = "wrong goal"


def failure_kind(run: RunMetrics) -> str | None:
    """Why a run failed, for counting; None for a run that did not fail.

    A failed run whose resolved goal was not the task's is a ``wrong goal`` whatever error
    ended it: pursuing another goal, the model calls tools off the task's chain, and the
    mock error or wrong tool that follows is a consequence, not the cause.
    """
    if not run.success and not run.goal_correct:
        return WRONG_GOAL
    return error_kind(run.error) if run.error else None


def error_kind(error: str) -> str:
    """A failure's category, for counting: the message without its particulars."""
    for prefix, kind in (
        ("no tool visible", "no tool visible"),
        ("model called no tool", "no tool call"),
        ("model error", "provider error"),
        ("no mocked output", "no mocked output"),
        ("invalid arguments", "invalid arguments"),
        ("step limit", "step limit"),
        ("filter ", "filter error"),
        ("tool ", "tool failed"),
        ("approval refused", "approval refused"),
        ("visible, arguments valid, refused", "approval refused"),
        ("invented argument", "invented argument"),
        ("substituted argument", "substituted argument"),
        ("the goal is reached", "tool not visible"),
        ("the user declined", "declined"),
        ("mocked output of", "mock breaks returns"),
    ):
        if error.startswith(prefix):
            return kind
    if error.endswith(("does not exist; refused", "; refused")) and (
            "is not visible" in error or "does not exist" in error):
        return "tool not visible"
    if error.startswith("model called") and "exactly one" in error:
        return "several tool calls"
    if error.startswith("model called"):
        return "tool not visible"
    if error.startswith("arguments of"):
        return "arguments not JSON"
    if error.startswith("the suite's check failed"):
        return "suite check failed"
    return "other"


def method_budget(method: str) -> int | None:
    """k of a top-k method (``toolscope-5`` -> 5), None for methods without a fixed budget."""
    match = _BUDGET.search(method)
    return int(match.group(1)) if match else None


_BUDGET = re.compile(r"-(\d+)$")


def method_order(method: str) -> tuple[int, str]:
    """Table 3's order for known methods, then the others by name."""
    names = list(FILTERS)
    return (names.index(method), "") if method in names else (len(names), method)


def _sort_key(by: Sequence[str], values: Sequence[str]) -> tuple[Any, ...]:
    return tuple(method_order(v) if k == "method" else (0, v) for k, v in zip(by, values,
                                                                             strict=True))


def group_by(runs: Iterable[RunMetrics], by: Sequence[str]) -> list[Summary]:
    """One summary per distinct value of the ``by`` attributes, in a deterministic order."""
    groups: dict[tuple[str, ...], list[RunMetrics]] = {}
    for run in runs:
        groups.setdefault(tuple(str(getattr(run, k)) for k in by), []).append(run)
    out = []
    for values in sorted(groups, key=lambda v: _sort_key(by, v)):
        out.append(replace(summarize(groups[values]), group=tuple(zip(by, values, strict=True))))
    return out
