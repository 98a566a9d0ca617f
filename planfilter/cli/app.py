"""The ``planfilter`` group, its error handling and the options several commands share."""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import click

from ..core.errors import PlanfilterError


def main() -> None:
    cli(prog_name="planfilter")


class _Group(click.Group):
    """Turns library errors into a message and exit code 1, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except PlanfilterError as exc:
            raise click.ClickException(str(exc)) from None
        except OSError as exc:  # a file the command reads or writes: named by the error
            raise click.ClickException(_os_error(exc)) from None


def _os_error(exc: OSError) -> str:
    where = exc.filename if exc.filename is not None else "a file"
    return f"{where}: {exc.strerror or exc}"


@click.group(cls=_Group)
@click.version_option(package_name="planfilter")
def cli() -> None:
    """Show an LLM agent only the tools a minimal plan needs next (CMTF)."""


def paths_option(name: str, dest: str, help: str, *, required: bool = False) -> Any:
    """A repeatable option of existing files or folders (registries, task suites, contracts):
    one spelling for every command, each with its own help."""
    return click.option(name, dest, type=click.Path(exists=True, path_type=Path), multiple=True,
                        required=required, help=help)


force_option = click.option(
    "--force", is_flag=True,
    help="Replace output files that planfilter did not write (see .planfilter-manifest.json "
         "in the output folder).")

registry_option = paths_option(
    "--registry", "registry_path",
    "Registry file or folder (repeatable). Default: the bundled registry.")


class Finite(click.ParamType):
    """A finite number in a range: ``nan``, ``inf`` and values out of range are refused
    (click's FloatRange lets ``nan`` through, since no comparison with it is true)."""

    name = "number"

    def __init__(self, low: float | None = None, high: float | None = None, *,
                 low_open: bool = False):
        self.low, self.high, self.low_open = low, high, low_open

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        if isinstance(value, float) and math.isfinite(value):
            number = value
        else:
            try:
                number = float(str(value).strip())
            except ValueError:
                self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        low_bad = self.low is not None and (number <= self.low if self.low_open
                                             else number < self.low)
        if low_bad or (self.high is not None and number > self.high):
            self.fail(f"{value!r} is not in {self._range()}", param, ctx)
        return number

    def _range(self) -> str:
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        return f"{'(' if self.low_open or self.low is None else '['}{low}, {high}]"


#: Seconds a planner call may take: more than nothing, at most a day.
SECONDS = Finite(0.0, 86_400.0, low_open=True)
#: The weight of risk in the cost objective: 0 (ignore risk) or more; a negative one would
#: reward it.
RISK_LAMBDA = Finite(0.0, 1_000_000.0)


def comma_list(value: str | None, option: str) -> tuple[str, ...] | None:
    """The names of a comma-separated option, each once, in order; a name given twice is
    said on stderr (it would otherwise run twice and count twice)."""
    if value is None:
        return None
    names = [n.strip() for n in value.split(",") if n.strip()]
    if not names:
        raise click.BadParameter("give at least one name", param_hint=option)
    unique = tuple(dict.fromkeys(names))
    if len(unique) < len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        click.echo(f"{option}: {', '.join(twice)} given more than once; each is used once",
                   err=True)
    return unique


def closest(name: str, known: Iterable[str]) -> str:
    """``; did you mean 'x'?`` for the known name closest to ``name``, or nothing."""
    found = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    return f"; did you mean {found[0]!r}?" if found else ""


def check_names(names: Iterable[str], known: frozenset[str], option: str, where: str,
                what: str = "variable") -> None:
    """Raise naming every one of ``names`` that is not ``known``, each with the closest."""
    unknown = [n for n in names if n not in known]
    if unknown:
        raise click.ClickException(f"{option}: " + "; ".join(
            f"no {what} {n!r} in {where}{closest(n, known)}" for n in unknown))


def _registry(paths: tuple[Path, ...]) -> Any:
    from ..core.loading import load_registry
    from ..core.resources import default_registry

    return load_registry(list(paths) or default_registry())


def known_names(registry: Any) -> frozenset[str]:
    """The variables a state or goal may name: what the tools require and produce, and what
    the environment supplies."""
    return frozenset(registry.variables) | frozenset(registry.environment)


def _state_goal(
    task_id: str | None, tasks_path: tuple[Path, ...], state: tuple[str, ...],
    goal: tuple[str, ...], registry: Any = None,
) -> tuple[dict[str, str], frozenset[str], str]:
    from ..core.loading import load_suite
    from ..core.resources import data_dir

    if task_id:
        if state or goal:
            raise click.UsageError("give either --task or --state/--goal, not both")
        suite = load_suite(list(tasks_path) or data_dir("tasks"))
        ids = frozenset(t.id for t in suite)
        check_names([task_id], ids, "--task", suite.source or "the task suites", "task")
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
    if registry is not None:
        where = registry.source or "the registry"
        check_names(values, known_names(registry), "--state", where)
        check_names(dict.fromkeys(goal), known_names(registry), "--goal", where)
    return values, frozenset(goal), "task"


problem_options = [
    click.option("--task", "task_id", help="Task id from --tasks (default: the bundled suites)."),
    paths_option("--tasks", "tasks_path", "Task suite file or folder (repeatable)."),
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
