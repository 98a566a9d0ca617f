"""``planfilter merge``: ToolScopeMerger over a registry, with the suite relabelled to match."""

from __future__ import annotations

from pathlib import Path

import click

from ..core.errors import PlanfilterError
from .app import Finite, force_option, paths_option


@click.command()
@paths_option("--registry", "registry_path",
              "Registry file or folder (repeatable). Default: bundled.")
@paths_option("--tasks", "tasks_path",
              "Task suite to relabel (repeatable). Default: the bundled benchmark.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for registry.yaml, tasks.yaml, merge_report.md and .json.")
@click.option("--embedder", type=click.Choice(["minilm", "hashing"]),
              help="Embedder of S1. Default: minilm when installed, else hashing.")
@click.option("--judge", default="sim/judge", show_default=True,
              help="litellm model that decides whether two tools are interchangeable.")
@click.option("--threshold", type=Finite(-1.0, 1.0), help="Cosine threshold of S1 "
              "(default per embedder: minilm 0.5, hashing 0.35).")
@click.option("--neighbours", type=click.IntRange(1, 10_000), default=5, show_default=True,
              help="Nearest neighbours per tool considered in S1.")
@force_option
def merge(registry_path: tuple[Path, ...], tasks_path: tuple[Path, ...], out: Path,
          embedder: str | None, judge: str, threshold: float | None, neighbours: int,
          force: bool = False) -> None:
    """Merge near-duplicate tools (ToolScopeMerger) and relabel the tasks' gold and mocks.

    Tools whose requires or produces differ are never merged, whatever the judge says.

    \b
    Examples:
      planfilter merge --out runs/merged
      planfilter merge --registry domains --tasks tasks/benchmark --out runs/merged
      planfilter run --registry runs/merged/registry.yaml --tasks runs/merged/tasks.yaml
    """
    from ..core.loading import load_registry, load_suite
    from ..core.outputs import OutputFolder
    from ..core.resources import default_registry, default_suite
    from ..models import check_model
    from ..retrieval.merge_io import MERGE_FILES, merge_for, write_merge

    try:
        OutputFolder(out, force=force).check(MERGE_FILES)
        if not judge.startswith("sim/"):  # sim/judge is the offline judge, not a chat model
            check_model(judge)
        registry = load_registry(list(registry_path) or default_registry())
        suite = load_suite(list(tasks_path) or default_suite())
        result, note = merge_for(registry, embedder=embedder, judge=judge,
                                 threshold=threshold, neighbours=neighbours)
        files, data = write_merge(out, result, note, suite, force=force)
    except PlanfilterError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{data['tools_before']} tools -> {data['tools_after']} tools "
               f"({len(result.clusters)} clusters, embedder {note})")
    for cluster in result.clusters:
        click.echo(f"  {cluster.representative} <- {', '.join(cluster.members)} "
                   f"({cluster.status})")
    if data["ties"]:
        b, a = data["ties"]["before"], data["ties"]["after"]
        click.echo(f"CMTF tied frontiers (ties=all, along gold chains): {b['tied']}/"
                   f"{b['frontiers']} before, {a['tied']}/{a['frontiers']} after")
    written = [files.registry, files.tasks, files.report_md, files.report_json]
    click.echo("wrote " + ", ".join(str(f) for f in written if f is not None))
