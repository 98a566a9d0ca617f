"""The benchmark: every task x filter method x model x seed, traced, then reported.

:func:`run_benchmark` is the library entry point behind ``planfilter run``. Runs execute on a
thread pool (model calls are I/O for real providers); each finished run is appended to
``traces.jsonl`` as one write, so an interrupted benchmark resumes where it stopped. The
report is rebuilt from the whole trace file at the end, sorted, so it does not depend on the
order in which runs finished.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from ..core.contracts import Registry
from ..core.errors import PlanfilterError
from ..core.outputs import OutputError, OutputFolder, atomic_write, differences
from ..core.tasks import Suite
from ..filters import PAPER_METHODS, PRESELECTING_METHODS, get_filter
from ..models import DEFAULT_MODELS, OBEDIENT, REPLAYS, check_model, in_process, load_litellm
from ..suites import BenchSuite, Case
from ..suites.bundled import YamlSuite
from .agent import RunOutcome, run_task
from .fingerprint import run_fingerprint
from .options import AgentOptions, check_options
from .report import REPORT_FILES, ReportFiles, build_report
from .traces import TRACES_FILE, RunKey, RunRecord, TraceWriter, prepare_resume

#: Called with (runs finished, runs to do, the run's outcome): once with (0, n, None) before
#: the first run, then after each run.
ProgressFn = Callable[[int, int, RunOutcome | None], None]


@dataclass(frozen=True)
class RunConfig:
    """Which runs to make (every case of the suite x method x model x seed) and where their
    traces go; ``options`` says how each run goes (planfilter.bench.options)."""

    registry: Registry
    suite: Suite
    methods: tuple[str, ...] = PAPER_METHODS
    models: tuple[str, ...] = DEFAULT_MODELS
    #: Number of seeds; runs use seeds 1..seeds.
    seeds: int = 1
    concurrency: int = 4
    out: Path = Path("runs/latest")
    resume: bool = False
    plots: bool = True
    #: The suite to run (planfilter.suites); None: ``registry`` and ``suite`` as a YAML suite.
    source: BenchSuite | None = None
    #: How each run goes: step limit, filter and model options, approval policy, goal mode,
    #: resolver, env, recognition, replay switches, tool_filter's chooser.
    options: AgentOptions = AgentOptions()
    #: Replace files in ``out`` that planfilter did not write (planfilter.core.outputs).
    force: bool = False

    @property
    def bench(self) -> BenchSuite:
        if self.source is not None:
            return self.source
        return YamlSuite(self.registry, self.suite, strict=self.options.env == "strict")

    @property
    def run_options(self) -> AgentOptions:
        """``options`` with the suite's defaults filled in (step limit, goal mode)."""
        bench = self.bench
        return self.options.for_suite(bench.max_steps, bench.oracle)


@dataclass(frozen=True)
class RunResult:
    out: Path
    traces: Path
    report: ReportFiles
    #: Runs the configuration asks for.
    total: int
    #: Runs already complete in the trace file (resume) and not run again.
    skipped: int
    #: Runs executed now.
    ran: int
    elapsed_s: float


def check_config(config: RunConfig) -> None:
    """Raise, naming the culprit, before anything runs."""
    if not config.methods:
        raise PlanfilterError("no filter method given")
    if not config.models:
        raise PlanfilterError("no model given")
    for method in config.methods:
        get_filter(method)
    for model in config.models:
        check_model(model)
    if config.seeds < 1:
        raise PlanfilterError(f"seeds must be at least 1, not {config.seeds}")
    if config.concurrency < 1:
        raise PlanfilterError(f"concurrency must be at least 1, not {config.concurrency}")
    check_options(config.options)
    bench = config.bench
    if not len(bench.tasks):
        raise PlanfilterError(f"{bench.tasks.source or 'suite'}: holds no task")
    for method in set(config.methods) & PRESELECTING_METHODS:
        if not bench.answers:
            raise PlanfilterError(f"method {method}: AgentDojo's tool filter runs on the "
                                  "agentdojo:... suites only")
        if REPLAYS & set(config.models) and not config.options.chooser:
            raise PlanfilterError(f"method {method} needs a model to choose the tools; "
                                  "the model-free replays make no model call of their own: "
                                  "give one with --tool-filter-model MODEL")


def plan_runs(config: RunConfig) -> list[RunKey]:
    """Every run, grouped by model then method: consecutive calls to a local model then share
    their tool list, so llama.cpp reuses the KV cache of its prefix (reports are sorted and do
    not depend on this order)."""
    return [RunKey(case.id, model, method, seed)
            for model in config.models
            for method in config.methods
            for case in config.bench.cases()
            for seed in range(1, config.seeds + 1)]


def workers(config: RunConfig) -> int:
    """Threads to run on: one when a model runs in this process (it answers one call at a
    time, and interleaved prompts would evict each other's cached prefix)."""
    return 1 if any(in_process(m) for m in config.models) else config.concurrency


def run_benchmark(config: RunConfig, progress: ProgressFn | None = None) -> RunResult:
    """Run (or resume) the benchmark of ``config`` and write traces and report to its out dir."""
    check_config(config)
    start = time.perf_counter()
    out = Path(config.out)
    keys = plan_runs(config)  # every case is built (and checked) before a file is touched
    outputs = prepare_out(config)
    path = out / TRACES_FILE
    if config.resume:
        finished = prepare_resume(path)
    else:
        atomic_write(path, "")
        finished = frozenset()
    todo = [k for k in keys if k not in finished]
    options = config.run_options
    if todo:
        if progress is not None:
            progress(0, len(todo), None)
        if any(m not in REPLAYS for m in config.models) or options.chooser:
            load_litellm()  # once, before the threads start
        _execute(config, todo, options, path, progress)
    report = build_report(out, plots=config.plots, outputs=outputs)
    return RunResult(out, path, report, len(keys), len(keys) - len(todo), len(todo),
                     time.perf_counter() - start)


def prepare_out(config: RunConfig) -> OutputFolder:
    """The run's output folder, checked before anything is written: no file planfilter did
    not write is replaced (unless ``force``), and ``resume`` continues only runs made with
    the same settings (:func:`~planfilter.bench.fingerprint.run_fingerprint`), naming every
    setting that differs. The settings are kept in the folder's manifest."""
    outputs = OutputFolder(Path(config.out), force=config.force)
    fingerprint = run_fingerprint(config)
    names = [TRACES_FILE, *REPORT_FILES]
    if config.resume and (Path(config.out) / TRACES_FILE).exists():
        if outputs.fingerprint != fingerprint:
            diff = differences(outputs.fingerprint, fingerprint)
            raise OutputError(f"{Path(config.out) / TRACES_FILE}: --resume continues runs "
                              f"made with the same settings, and these differ: "
                              f"{'; '.join(diff)}. Run without --resume to replace them, or "
                              "into another --out")
    outputs.check(names)
    outputs.claim([TRACES_FILE], fingerprint)
    return outputs


def run_case(bench: BenchSuite, case: Case, *, method: str, model: str, seed: int,
             options: AgentOptions) -> RunOutcome:
    """One run: the model-free replay for ``oracle`` (``obedient``: obeying every injection),
    else the suite's kind of agent loop."""
    if model in REPLAYS:
        from .replay import replay

        return replay(bench, case, method=method, seed=seed, options=options,
                      obey=model == OBEDIENT)
    if bench.answers:
        from .dialogue import run_dialogue

        return run_dialogue(bench, case, method=method, model=model, seed=seed,
                            options=options)
    return run_task(bench.registry, case.task, method=method, model=model, seed=seed,
                    options=options, environment=bench.environment(case, model))


def _execute(config: RunConfig, todo: list[RunKey], options: AgentOptions, path: Path,
             progress: ProgressFn | None) -> None:
    bench = config.bench
    cases = {c.id: c for c in bench.cases()}

    def one(key: RunKey) -> RunOutcome:
        case = cases[key.task]
        try:
            return run_case(bench, case, method=key.method, model=key.model,
                            seed=key.seed, options=options)
        except Exception as exc:  # a fault of one run is that run's failure, not the others'
            return RunOutcome((), RunRecord(
                key=key, domain=case.task.domain, success=False, steps=0,
                error=f"the run failed: {type(exc).__name__}: {exc}", input_tokens=0,
                output_tokens=0, query=case.task.query,
                suite=None if bench.kind == "yaml" else f"{bench.kind}:{bench.name}"))

    done = 0
    with TraceWriter(path) as writer, ThreadPoolExecutor(workers(config)) as pool:
        pending: set[Future[RunOutcome]] = set()
        queue = iter(todo)
        # Keep a bounded number of runs in flight, so an interrupt loses little work.
        for key in queue:
            pending.add(pool.submit(one, key))
            if len(pending) >= 2 * workers(config):
                break
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                outcome = future.result()
                writer.write_run(outcome.steps, outcome.run)
                done += 1
                if progress is not None:
                    progress(done, len(todo), outcome)
                nxt = next(queue, None)
                if nxt is not None:
                    pending.add(pool.submit(one, nxt))
