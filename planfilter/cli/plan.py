"""``frontier``, ``export``, ``validate`` and ``planners``: one state and goal, and the inputs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .app import (
    RISK_LAMBDA,
    SECONDS,
    _apply,
    _registry,
    _state_goal,
    force_option,
    problem_options,
    registry_option,
)

if TYPE_CHECKING:
    from ..core.contracts import Registry


@click.command()
@registry_option
@_apply(problem_options)
@click.option("--planner", default="auto", show_default=True,
              help="auto, native, pyperplan or up:<engine> (see `planfilter planners`).")
@click.option("--ties", type=click.Choice(["first", "all"]), default="first", show_default=True,
              help="first: one tool, registry order breaks ties; all: every tool that starts "
                   "a minimal plan.")
@click.option("--objective", type=click.Choice(["length", "cost"]), default="length",
              show_default=True, help="Minimise plan length, or cost + lambda * risk.")
@click.option("--risk-lambda", type=RISK_LAMBDA, default=0.0, show_default=True,
              help="Weight of risk in the cost objective (0 or more).")
@click.option("--timeout", type=SECONDS, default=10.0, show_default=True,
              help="Seconds before the planner is replaced by the native fallback.")
@click.option("--request", help="The user's request in words: its goal is resolved from it, "
              "as a live session does, and the candidate goals and the tools shown first are "
              "printed (instead of --goal or --task; --state gives the user's values).")
@click.option("--resolver", type=click.Choice(["retrieval", "model"]), default="retrieval",
              show_default=True, help="With --request: who reads the goal from it (model: "
              "--model's answer).")
@click.option("--model", help="With --resolver model: a litellm model name (sim/careful "
              "offline).")
@click.option("--called", multiple=True, metavar="TOOL[=RESULT]",
              help="With --request: a call the agent made, in order (repeatable); RESULT is "
                   "its result, JSON or text. The candidates are weighed by these calls.")
@click.option("--today", metavar="YYYY-MM-DD", help="With --request: the day relative dates "
              "(\"tomorrow\", \"next Friday\") are read against; default: $PLANFILTER_TODAY, "
              "else the system date.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def frontier(registry_path: tuple[Path, ...], task_id: str | None, tasks_path: tuple[Path, ...],
             state: tuple[str, ...], goal: tuple[str, ...], planner: str, ties: str,
             objective: str, risk_lambda: float, timeout: float, request: str | None,
             resolver: str, model: str | None, called: tuple[str, ...], today: str | None,
             as_json: bool) -> None:
    """Print the CMTF frontier for one state and goal, and the plan behind it; or, for a
    request in words, its candidate goals and the tools a session shows first.

    \b
    Examples:
      planfilter frontier --task calendar-move-001
      planfilter frontier --state date --state event_description --state new_time \\
          --goal event_updated
      planfilter frontier --request "Move tomorrow's dentist appointment to 4 PM" \\
          --today 2026-12-01
    """
    from ..core.frontier import compute_frontier

    registry = _registry(registry_path)
    if request is not None:
        if goal or task_id:
            raise click.UsageError("give either --request or --goal/--task, not both")
        if resolver == "model":
            if model is None:
                raise click.UsageError("--resolver model needs a model: give --model MODEL")
            from ..models import check_model

            check_model(model)
        from .recognize import echo_report, parse_calls, parse_values, request_session

        if today is not None:
            _set_today(today)
        session = request_session(registry, request, resolver=resolver, model=model,
                                  known=parse_values(registry, state),
                                  calls=parse_calls(registry, called))
        echo_report(session, as_json)
        return
    if called or today:
        raise click.UsageError(f"{'--called' if called else '--today'} needs --request")
    if planner != "auto":
        from ..core.planners import get_planner

        get_planner(planner)  # named before the problem is read
    values, goals, _ = _state_goal(task_id, tasks_path, state, goal, registry)
    supplied = _supplied(registry, values)
    result = compute_frontier(registry, {**supplied, **values}, goals, planner=planner,
                              ties=ties, objective=objective,  # type: ignore[arg-type]
                              risk_lambda=risk_lambda, timeout=timeout)
    if as_json:
        click.echo(json.dumps({**result.to_dict(), "environment": supplied}, indent=2,
                              sort_keys=True))
        return
    if supplied:
        click.echo("environment: " + ", ".join(f"{n} ({k})" for n, k in supplied.items()))
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


EXPORT_FILES = ("domain.pddl", "problem.pddl", "names.json")


@click.command()
@registry_option
@_apply(problem_options)
@click.option("--objective", type=click.Choice(["length", "cost"]), default="length",
              show_default=True)
@click.option("--risk-lambda", type=RISK_LAMBDA, default=0.0, show_default=True,
              help="Weight of risk in the cost objective (0 or more).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write domain.pddl, problem.pddl and names.json into.")
@force_option
def export(registry_path: tuple[Path, ...], task_id: str | None, tasks_path: tuple[Path, ...],
           state: tuple[str, ...], goal: tuple[str, ...], objective: str, risk_lambda: float,
           out: Path, force: bool = False) -> None:
    """Write domain.pddl and problem.pddl for any PDDL planner.

    \b
    Example:
      planfilter export --task calendar-move-001 --out /tmp/pddl
      fast-downward /tmp/pddl/domain.pddl /tmp/pddl/problem.pddl --search "astar(blind())"
    """
    from ..core.compile import compile_problem
    from ..core.outputs import OutputFolder

    outputs = OutputFolder(out, force=force)
    outputs.check(EXPORT_FILES)
    registry = _registry(registry_path)
    values, goals, name = _state_goal(task_id, tasks_path, state, goal, registry)
    supplied = _supplied(registry, values)
    problem = compile_problem(registry, {**supplied, **values}, goals,
                              objective=objective,  # type: ignore[arg-type]
                              risk_lambda=risk_lambda, name=name)
    outputs.claim(EXPORT_FILES)
    outputs.write("domain.pddl", problem.domain.text)
    outputs.write("problem.pddl", problem.text)
    names = {"actions": dict(problem.domain.actions.to_user),
             "predicates": dict(problem.domain.predicates.to_user)}
    outputs.write("names.json", json.dumps(names, indent=2, sort_keys=True) + "\n")
    if supplied:
        click.echo("environment: " + ", ".join(f"{n} ({k})" for n, k in supplied.items()))
    click.echo(f"wrote {out / 'domain.pddl'}, {out / 'problem.pddl'} and {out / 'names.json'}")


def _set_today(text: str) -> None:
    """Make ``text`` today for this process's reading of relative dates (PLANFILTER_TODAY)."""
    import os

    from ..core.errors import PlanfilterError
    from ..live.dates import TODAY_ENV, today_from

    try:
        today_from({TODAY_ENV: text})
    except PlanfilterError:
        raise click.BadParameter(f"{text!r}: give today as YYYY-MM-DD",
                                 param_hint="--today") from None
    os.environ[TODAY_ENV] = text


def _supplied(registry: Registry, values: dict[str, str]) -> dict[str, str]:
    """Variable -> where it comes from, of the registry's environment values the state does
    not give: known from the start, whatever their source (a ``tool:`` source is called by
    whoever runs the tools; planning needs only that the value will be there)."""
    from ..core.environment import supply

    supply(registry, skip=frozenset(values))  # an unset from_env variable is an error
    return {name: source.kind for name, source in sorted(registry.environment.items())
            if name not in values}


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def validate(paths: tuple[Path, ...]) -> None:
    """Check registries and task suites; report every problem (exit 1 on errors).

    \b
    Example:
      planfilter validate domains tasks
    """
    from ..bench.report import counted
    from ..core.resources import data_dir, default_registry
    from ..core.validate import validate_paths

    report = validate_paths(list(paths) or [*default_registry(), data_dir("tasks")])
    for problem in report.problems:
        click.echo(str(problem), err=problem.severity == "error")
    errors = sum(p.severity == "error" for p in report.problems)
    warnings = len(report.problems) - errors
    counts = [(report.files, "file"), (report.tools, "tool"), (report.tasks, "task")]
    click.echo(", ".join(counted(n, what) for n, what in counts) + ": "
               f"{counted(errors, 'error')}, {counted(warnings, 'warning')}")
    if not report.ok:
        sys.exit(1)


@click.command()
@click.option("--json", "as_json", is_flag=True)
def planners(as_json: bool) -> None:
    """List planner backends, available or not, and why."""
    from ..core.planners import list_planners

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
