"""The benchmark's options: one :class:`AgentOptions` for every kind of run.

``planfilter run`` builds one (planfilter.bench.runner.RunConfig holds it beside what says
which runs to make: suite, methods, models, seeds), and every loop takes it: the agent loop
(planfilter.bench.agent), the dialogue loop (planfilter.bench.dialogue) and the model-free
replay (planfilter.bench.replay). Two fields default to the suite's own choice (None):
``max_steps`` and ``goal``; :meth:`AgentOptions.for_suite` fills them in. :func:`check_options`
names a bad value before anything runs; :meth:`AgentOptions.session` makes the session that
decides a run's calls. The approval policy's default is the benchmark's,
:data:`planfilter.filters.risk.BENCHMARK_POLICY` (the paper's ``always``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal, get_args

from ..core.contracts import Registry
from ..core.errors import PlanfilterError
from ..core.planners import get_planner
from ..filters import DEFAULT_OPTIONS, FilterOptions
from ..filters.risk import (
    BENCHMARK_POLICY,
    ApprovalPolicy,
    Approver,
    check_policy,
    on_path_approver,
)
from ..live import Session
from ..live.goals import RESOLVERS
from ..live.recognition import DEFAULT_RECOGNITION, RecognitionOptions
from ..models import CallOptions

GoalMode = Literal["given", "resolve", "oracle"]
EnvMode = Literal["strict", "lenient"]
GOAL_MODES: tuple[str, ...] = get_args(GoalMode)
ENV_MODES: tuple[str, ...] = get_args(EnvMode)


@dataclass(frozen=True)
class AgentOptions:
    """How each run of a benchmark goes, whatever loop runs it."""

    #: Steps (model turns) per run; None: the suite's own limit (6 bundled, 15 AgentDojo).
    max_steps: int | None = None
    #: The filter's options (its planner among them).
    filter: FilterOptions = DEFAULT_OPTIONS
    #: How models are called (the provider's ``api_base`` among them).
    call: CallOptions = field(default_factory=CallOptions)
    #: Approval of high-risk tools and tainted arguments (planfilter.filters.risk): the
    #: session's policy. ``ask`` asks ``approver``.
    approve_risky: ApprovalPolicy = BENCHMARK_POLICY
    #: Asked under ``ask``; None: the on-path stand-in of planfilter.filters.risk.on_path_approver.
    approver: Approver | None = field(default=None, compare=False)
    #: given: the task's goal (the paper); resolve: the goal is resolved from the request;
    #: oracle: the goal and known values an outside suite's ground truth gives (an upper
    #: bound). None: resolve for a suite whose tasks come with an oracle goal, else given.
    goal: GoalMode | None = None
    #: Who resolves the goal under ``goal`` resolve in a model's run: the model, or
    #: retrieval (planfilter.live.goals.RESOLVERS). The model-free replays use retrieval.
    resolver: str = "model"
    #: strict: the session refuses argument values obtained from no tool and not given by the
    #: user (provenance on) and the bundled mocks answer an id they do not hold with an
    #: error; lenient: the paper artifact, provenance off (the session reports what it would
    #: refuse, and the step is flagged ``invented``) and mocks that take any value.
    env: EnvMode = "strict"
    #: How a resolved goal's candidates are kept and shown (planfilter.live.recognition).
    recognition: RecognitionOptions = DEFAULT_RECOGNITION
    #: The model-free replay: times it asks for other tools, as a model that knows what it
    #: needs would, when the next ground-truth call is hidden (0: never).
    replay_switches: int = 0
    #: The model-free replays: the model that chooses the tools for ``tool_filter`` (None:
    #: nobody chooses, every tool is shown).
    chooser: str | None = None

    def for_suite(self, max_steps: int, oracle: bool) -> AgentOptions:
        """These options with the suite's defaults filled in: its step limit ``max_steps``,
        and the goal mode ``resolve`` when its goals are an oracle's, else ``given``."""
        return replace(self, max_steps=max_steps if self.max_steps is None else self.max_steps,
                       goal=self.goal or ("resolve" if oracle else "given"))

    def session(self, registry: Registry, *, method: str, model: str | None, seed: int,
                provenance: bool, filter_options: FilterOptions | None = None,
                resolver: str | None = None) -> Session:
        """A session that decides a run's calls as these options say: the approval policy
        (under ``ask`` with no ``approver``, the on-path stand-in, whose "no" is not
        remembered: it judges each state anew), ``provenance`` on or off, the filter's
        options (default ``filter``), the resolver (default ``resolver``)."""
        filter_options = self.filter if filter_options is None else filter_options
        approver = self.approver
        if self.approve_risky == "ask" and approver is None:
            approver = on_path_approver(registry, filter_options)
        return Session(registry, method=method, model=model,
                       resolver=resolver or self.resolver, options=filter_options,
                       policy=self.approve_risky, approver=approver, provenance=provenance,
                       call_options=self.call, seed=seed, recognition=self.recognition,
                       remember_declines=False)

    @property
    def steps(self) -> int:
        """The step limit (only once :meth:`for_suite` has filled it in)."""
        if self.max_steps is None:
            raise PlanfilterError("AgentOptions.max_steps is not set: call for_suite first")
        return self.max_steps


def check_options(options: AgentOptions) -> AgentOptions:
    """``options``, or an error naming the field and the choices."""
    check_policy(options.approve_risky)
    if options.goal is not None and options.goal not in GOAL_MODES:
        raise PlanfilterError(f"goal {options.goal!r}: choose {', '.join(GOAL_MODES)}")
    if options.env not in ENV_MODES:
        raise PlanfilterError(f"env {options.env!r}: choose {' or '.join(ENV_MODES)}")
    if options.resolver not in RESOLVERS:
        raise PlanfilterError(f"resolver {options.resolver!r}: choose "
                              f"{' or '.join(RESOLVERS)}")
    if options.max_steps is not None and options.max_steps < 1:
        raise PlanfilterError(f"max_steps must be at least 1, not {options.max_steps}")
    if options.replay_switches < 0:
        raise PlanfilterError(f"replay_switches must be at least 0, not "
                              f"{options.replay_switches}")
    if options.filter.planner != "auto":
        get_planner(options.filter.planner)
    return options
