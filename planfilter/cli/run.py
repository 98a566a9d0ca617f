"""``planfilter run`` and ``planfilter report``: thin commands over runner and report."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from ..core.errors import PlanfilterError
from .app import comma_list, force_option, paths_option

DEFAULT_OUT = Path("runs/latest")


#: (column, header) of the printed table; report.md has every column.
CONSOLE_COLUMNS = (
    ("success", "Succ."), ("wrong_tools", "Wrong"), ("premature", "Prem."),
    ("tools_per_step", "Tools"), ("steps", "Steps"), ("tokens", "Tokens"),
    ("gold_visible", "Gold"),
)
CAPTION = ("per run: success rate, wrong-tool calls, premature actions, steps, tokens; "
           "Tools = visible tools per step; Gold = share of steps with the gold next tool "
           "visible")


def summary_table(rows: Sequence[Any], title: str) -> Any:
    """A rich table of model x method rows that fits 80 columns; a Goal column (goal
    accuracy) joins when some run resolved its goal."""
    from rich import box
    from rich.table import Table

    from ..bench.report import format_value

    columns = list(CONSOLE_COLUMNS)
    if any(row.goal_accuracy < 1.0 for row in rows):
        columns.append(("goal_accuracy", "Goal"))
    if any(row.attack_success is not None for row in rows):
        columns.append(("attack_success", "Attack"))
    table = Table(title=title, caption=CAPTION, box=box.SIMPLE_HEAD, pad_edge=False,
                  padding=(0, 1), collapse_padding=True, show_edge=False)
    table.add_column("Model", overflow="fold", max_width=16)
    table.add_column("Method", no_wrap=True)
    for _, header in columns:
        table.add_column(header, justify="right", no_wrap=True)
    for row in rows:
        data = row.row()
        table.add_row(data["model"], data["method"],
                      *(format_value(c, data[c]) for c, _ in columns))
    return table


@click.command()
@paths_option("--registry", "registry_path",
              "Registry file or folder (repeatable). Default: bundled.")
@paths_option("--tasks", "tasks_path",
              "Task suite file or folder (repeatable). Default: the bundled 102-task benchmark.")
@click.option("--methods", help="Comma-separated filter methods. Default: the paper's six "
                                "(all, keyword-5, keyword-10, state-aware, causal-path, cmtf); "
                                "more in planfilter.filters.FILTERS, e.g. cmtf-recover "
                                "(recovers from failed steps).")
@click.option("--models", help="Comma-separated litellm model names. "
                               "Default: sim/careful,sim/confusable. sim/faulty (or "
                               "sim/careful?faults=0.2) injects seeded provider and answer "
                               "faults.")
@click.option("--seeds", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="Runs per task, method and model, with seeds 1..N.")
@click.option("--concurrency", type=click.IntRange(1, 256), default=4, show_default=True,
              help="Runs executed at once (threads).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_OUT,
              show_default=True, help="Folder for traces.jsonl, summary.csv, report.md, plots.")
@click.option("--resume", is_flag=True,
              help="Keep the finished runs of --out/traces.jsonl and run only the rest.")
@click.option("--planner", default="auto", show_default=True,
              help="Planner of the causal filters (see `planfilter planners`).")
@click.option("--api-base", help="Base URL of an OpenAI-compatible server, e.g. for openai/...")
@click.option("--merge", "merge_tools", is_flag=True,
              help="Merge near-duplicate tools first (ToolScopeMerger, judge sim/judge) and "
                   "relabel the tasks; the merge report goes to --out/merge.")
@click.option("--no-plots", is_flag=True, help="Skip the PNG charts (and remove those of "
                                              "an earlier run in --out).")
@click.option("--approve-risky", type=click.Choice(["never", "ask", "untainted", "always"]),
              default="always", show_default=True,
              help="Approval of high-risk tools and tainted arguments: always (the paper), "
                   "never (refused), untainted (approved unless an argument is tainted: a "
                   "value read in outside content, not given by the user), or ask a stand-in "
                   "reviewer that approves a tool only on the minimal causal path.")
@click.option("--embedder", type=click.Choice(["minilm", "hashing", "none"]),
              help="Dense embedder of the toolscope-k methods (default: $PLANFILTER_EMBEDDER, "
                   "else minilm when the toolscope extra is installed); none = BM25 only.")
@click.option("--goal", "goal_mode", type=click.Choice(["given", "resolve", "oracle"]),
              default=None,
              help="given: each task's goal (the paper's setting; the default on the bundled "
                   "suites); resolve: each run's model first resolves the goal, and the "
                   "values the user gave, from the request alone (reported as goal accuracy; "
                   "the default on outside suites); oracle: an outside suite's goal and "
                   "known values read from its ground truth, an upper bound.")
@click.option("--resolver", type=click.Choice(["model", "retrieval"]), default="model",
              show_default=True,
              help="With --goal resolve, who reads the goal from the request in a model's "
                   "run: the model itself (one call before the first step), or retrieval "
                   "over the registry's goals (no model call). The model-free replays "
                   "always use retrieval.")
@click.option("--candidates", "goal_candidates", type=click.IntRange(min=1), default=None,
              help="Candidate goals a resolved goal keeps and weighs by the calls made "
                   "(default 8; 1: commit to the resolver's goal).")
@click.option("--shown", "goal_tools", type=click.IntRange(min=1), default=None,
              help="Tools shown at most when several candidate goals are plausible (default "
                   "3; the leading candidate's next step is always shown whole).")
@click.option("--replay-switches", type=click.IntRange(min=0), default=0, show_default=True,
              help="--models oracle only: when the next ground-truth call is hidden, ask for "
                   "the next candidate goal's tools up to N times (as a model that knows what "
                   "it needs would); counted as goal switches.")
@click.option("--tool-filter-model", "chooser", default=None, metavar="MODEL",
              help="--models oracle|obedient with --methods tool_filter: the model that "
                   "chooses the tools (AgentDojo's tool filter), once per user task; the "
                   "replay then acts with the tools it kept.")
@click.option("--env", "env_mode", type=click.Choice(["strict", "lenient"]), default="strict",
              show_default=True,
              help="strict: the session refuses invented argument values (an id no tool "
                   "returned) and the mocked tools answer an id they do not hold with an error; "
                   "lenient: the paper artifact: invented values are flagged, not refused, and "
                   "the mocks accept any value of the right type.")
@click.option("--sample", type=click.IntRange(min=1), default=None,
              help="Run a stratified sample of N tasks (by domain and family) instead of the "
                   "whole suite; deterministic, so --resume continues it.")
@click.option("--suite", "suite_name", default=None, metavar="KIND:NAME",
              help="An outside suite instead of the YAML tasks: agentdojo:banking, "
                   "agentdojo:slack, agentdojo:travel, agentdojo:workspace (pip install "
                   "'planfilter[agentdojo]'), the bundled shop, or tools:DIR (DIR/tools.py "
                   "over DIR/database.json, tasks in DIR/tasks.yaml). --registry then "
                   "replaces its contracts (default: domains/agentdojo/NAME.yaml, "
                   "DIR/contracts.yaml).")
@click.option("--attack", default=None,
              help="Run (user task, injection task) pairs under this attack of the suite "
                   "(AgentDojo: important_instructions, ...; or one written against "
                   "planfilter's own rules: planfilter_held_value, "
                   "planfilter_authored_exfiltration, planfilter_wrong_item, "
                   "planfilter_goal_change); reports attack_success.")
@click.option("--injection-tasks", default=None, metavar="IDS|sample:N[:SEED]",
              help="With --attack: injection tasks to pair with every user task "
                   "(injection_task_0,injection_task_3), or sample:N pairs drawn with a seed "
                   "(default 1). Default: every pair.")
@click.option("--max-steps", type=click.IntRange(1, 1000), default=None,
              help="Steps (model turns) per run. Default: 6 (the paper), 15 for AgentDojo.")
@force_option
def run(registry_path: tuple[Path, ...], tasks_path: tuple[Path, ...], methods: str | None,
        models: str | None, seeds: int, concurrency: int, out: Path, resume: bool, planner: str,
        api_base: str | None, no_plots: bool, approve_risky: str = "always",
        merge_tools: bool = False, embedder: str | None = None,
        sample: int | None = None, goal_mode: str | None = None, goal_candidates: int | None = None,
        goal_tools: int | None = None, replay_switches: int = 0, chooser: str | None = None,
        resolver: str = "model",
        env_mode: str = "strict",
        suite_name: str | None = None, attack: str | None = None,
        injection_tasks: str | None = None, max_steps: int | None = None,
        force: bool = False) -> None:
    """Run the benchmark: tasks x filter methods x models, traced, then reported.

    \b
    Examples:
      planfilter run
      planfilter run --methods all,cmtf --models sim/careful --seeds 3 --out runs/small
      planfilter run --models openai/my-model --api-base http://localhost:8000/v1
      planfilter run --resume          # finish an interrupted run in runs/latest
      planfilter run --sample 18 --models openai/my-model   # 6 tasks per domain
      planfilter run --suite agentdojo:banking --models oracle --methods all,cmtf
      planfilter run --suite agentdojo:slack --models oracle --attack important_instructions \\
          --injection-tasks sample:20
    """
    if embedder:
        # The toolscope filters read their embedder from the environment, so that worker
        # threads and resumed runs agree; the flag is a spelling of that variable.
        import os

        from ..retrieval.toolscope import EMBEDDER_ENV

        os.environ[EMBEDDER_ENV] = embedder
    from dataclasses import replace

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from ..bench.options import AgentOptions
    from ..bench.runner import RunConfig, run_benchmark, workers
    from ..core.loading import load_registry, load_suite
    from ..core.resources import default_registry, default_suite
    from ..core.validate import check_inputs
    from ..filters import PAPER_METHODS, FilterOptions
    from ..live.recognition import DEFAULT_RECOGNITION
    from ..models import DEFAULT_MODELS, CallOptions, check_model

    try:
        from ..bench.report import REPORT_FILES
        from ..bench.traces import TRACES_FILE
        from ..core.outputs import OutputFolder

        if not resume:  # resuming, the settings are checked first (bench.runner)
            OutputFolder(out, force=force).check([TRACES_FILE, *REPORT_FILES])
        if merge_tools:
            from ..retrieval.merge_io import MERGE_FILES

            OutputFolder(out / "merge", force=force).check(MERGE_FILES)
        method_names = comma_list(methods, "--methods")
        model_names = comma_list(models, "--models")
        for model in model_names or ():
            check_model(model)  # the provider resolved before the first run
        if chooser is not None:
            check_model(chooser)
        source = None
        if injection_tasks is not None and attack is None:
            raise PlanfilterError("--injection-tasks chooses pairs for an attack: give "
                                  "--attack too")
        if suite_name is not None or attack is not None:
            from ..suites import SuiteOptions, load_bench_suite

            if merge_tools:
                raise PlanfilterError("--merge works on the YAML suites only")
            source = load_bench_suite(suite_name, SuiteOptions(
                registry=registry_path, tasks=tasks_path, attack=attack,
                injection_tasks=injection_tasks, strict=env_mode == "strict"))
            registry, suite = source.registry, source.tasks
        else:
            registry = load_registry(list(registry_path) or default_registry())
            suite = load_suite(list(tasks_path) or default_suite())
        if merge_tools:
            from ..retrieval.merge_io import merged_inputs

            registry, suite = merged_inputs(registry, suite, out / "merge", force=force)
        if sample is not None:
            from ..bench.sampling import stratified_sample

            suite = stratified_sample(suite, sample)
            source = source.with_tasks(suite) if source is not None else None
        if source is None:
            check_inputs(registry, suite)  # what `planfilter validate` checks, every error
        options = AgentOptions(
            max_steps=max_steps, filter=FilterOptions(planner=planner),
            call=CallOptions(api_base=api_base),
            approve_risky=approve_risky,  # type: ignore[arg-type]  # a click.Choice
            goal=goal_mode,  # type: ignore[arg-type]
            resolver=resolver, env=env_mode,  # type: ignore[arg-type]
            recognition=replace(
                DEFAULT_RECOGNITION,
                candidates=goal_candidates or DEFAULT_RECOGNITION.candidates,
                tools=goal_tools or DEFAULT_RECOGNITION.tools),
            replay_switches=replay_switches, chooser=chooser)
        config = RunConfig(
            registry=registry,
            suite=suite,
            source=source,
            methods=method_names or PAPER_METHODS,
            models=model_names or DEFAULT_MODELS,
            seeds=seeds, concurrency=concurrency, out=out, resume=resume,
            plots=not no_plots, options=options, force=force,
        )
        console = Console()
        traces = out / "traces.jsonl"
        if not resume and traces.is_file() and traces.stat().st_size:
            console.print(f"replacing the traces in {traces} (use --resume to keep them)")
        if workers(config) < config.concurrency:
            console.print("a model runs in this process: one run at a time, grouped by method "
                          "(--concurrency does not apply)")
        with Progress("[progress.description]{task.description}", BarColumn(),
                      MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                      transient=False) as bar:
            task = bar.add_task("runs", total=None)

            def progress(done: int, total: int, outcome: Any) -> None:
                bar.update(task, completed=done, total=total)

            result = run_benchmark(config, progress=progress)
    except PlanfilterError as exc:
        raise click.ClickException(str(exc)) from None
    console.print(summary_table(result.report.rows, "Summary by model and method"))
    _replay_tables(console, out)
    if result.skipped:
        console.print(f"resumed: {result.skipped} runs were already complete, "
                      f"{result.ran} ran now")
    console.print(f"{result.total} runs in {result.elapsed_s:.1f} s")
    _said_fallbacks(out)
    _where(console, result.traces, result.report)


def _said_fallbacks(out: Path) -> None:
    """Each kind of fallback of the run on stderr (report.md lists them too)."""
    from ..bench.report import fallbacks, load_lines

    for line in fallbacks(load_lines(out)):
        click.echo(f"fallback: {line}", err=True)


def _replay_tables(console: Any, out: Path) -> None:
    """The oracle replay's figures per suite and method, when the run replayed."""
    from rich import box
    from rich.table import Table

    from ..bench.report import format_value, load_runs, replay_rows

    rows = replay_rows(load_runs(out))
    if not rows:
        return
    table = Table(title="Model-free replay (oracle)", box=box.SIMPLE_HEAD, pad_edge=False,
                  caption="Clear = every call visible and allowed; Vis./Allow. per call; "
                          "Refused = attacker calls refused; Writes = attacker calls "
                          "allowed that change something", padding=(0, 1),
                  collapse_padding=True, show_edge=False)
    for header in ("Suite", "Method", "Tasks", "Clear", "Vis.", "Allow.", "Succ.", "Refusals",
                   "Refused", "Writes"):
        table.add_column(header, justify="left" if header in ("Suite", "Method", "Refusals")
                         else "right", overflow="fold")
    for r in rows:
        table.add_row(r.domain, r.method, str(r.tasks), f"{r.clear:.2f}", f"{r.visible:.2f}",
                      f"{r.allowed:.2f}", f"{r.success:.2f}",
                      ", ".join(f"{k} {n}" for k, n in r.refusals) or "-",
                      format_value("x", r.probes_refused),
                      "-" if r.writes_allowed is None else str(r.writes_allowed))
    console.print(table)


def _where(console: Any, traces: Path, report: Any) -> None:
    files = [traces, report.summary_csv, report.report_md, *report.plots]
    console.print("wrote " + ", ".join(str(f) for f in files), soft_wrap=True)
    if report.report_html is not None:
        console.print(f"open {report.report_html} in a browser to see every step of every run",
                      soft_wrap=True)


@click.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--no-plots", is_flag=True, help="Skip the PNG charts (and remove those of "
                                              "an earlier report).")
@force_option
def report(directory: Path, no_plots: bool, force: bool = False) -> None:
    """Rebuild summary.csv, report.md, report.html and the charts from DIRECTORY/traces.jsonl.

    \b
    Example:
      planfilter report runs/latest
    """
    from rich.console import Console

    from ..bench.report import build_report
    from ..bench.traces import TRACES_FILE

    try:
        files = build_report(directory, plots=not no_plots, force=force)
    except PlanfilterError as exc:
        raise click.ClickException(str(exc)) from None
    console = Console()
    console.print(summary_table(files.rows, "Summary by model and method"))
    _replay_tables(console, directory)
    _said_fallbacks(directory)
    _where(console, directory / TRACES_FILE, files)
