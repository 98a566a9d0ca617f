"""The ``planfilter`` group, its error handling and the options several commands share."""

from __future__ import annotations

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


def _registry(paths: tuple[Path, ...]) -> Any:
    from ..core.loading import load_registry
    from ..core.resources import default_registry

    return load_registry(list(paths) or default_registry())


def _state_goal(
    task_id: str | None, tasks_path: tuple[Path, ...], state: tuple[str, ...],
    goal: tuple[str, ...],
) -> tuple[dict[str, str], frozenset[str], str]:
    from ..core.loading import load_suite
    from ..core.resources import data_dir

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
