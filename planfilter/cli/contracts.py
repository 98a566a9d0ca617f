"""``planfilter contracts infer|check|learn|edges|eval``: draft contracts from tool schemas,
check them against run traces, learn data-flow edges from traces, compare a draft's data-flow
edges with a reviewed registry's, and measure the drafting on a hand-written registry."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..core.errors import PlanfilterError

if TYPE_CHECKING:
    from ..core.contracts import Registry
from .app import force_option, paths_option


@click.group()
def contracts() -> None:
    """Draft contracts from what tools declare, and check them against traces."""


def _embedder(name: str) -> object | None:
    if name == "none":
        return None
    from ..retrieval.embedders import try_embedder

    embedder, why = try_embedder("minilm")
    if embedder is None and name == "minilm":
        raise click.ClickException(why)
    return embedder


def _progress(line: str) -> None:
    click.echo(line, err=True)


class SourceParam(click.ParamType):
    """A file that must exist, or ``python:package.module[:attr]`` (imported later)."""

    name = "source"

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        text = str(value)
        if text.startswith("python:"):
            return text
        return str(click.Path(exists=True, dir_okay=False).convert(text, param, ctx))


@contracts.command()
@click.argument("sources", nargs=-1, required=True, type=SourceParam())
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Registry file to write. Default: print it.")
@click.option("--merge", "merge_path", type=click.Path(exists=True, dir_okay=False,
                                                       path_type=Path),
              help="Existing registry: keep its hand-written fields, fill the rest.")
@click.option("--model", help="litellm model that proposes produces where the rules leave a "
                              "tool open (llamacpp/... and sim/... too).")
@click.option("--embedder", type=click.Choice(["auto", "minilm", "none"]), default="auto",
              show_default=True, help="Dense embedder for vocabulary merges (auto: minilm "
                                      "when installed).")
@click.option("--domain", help="Domain written on every tool.")
@click.option("--import", "imports", multiple=True, metavar="MODULE",
              help="Python module to import before reading python: sources (repeatable; for "
                   "packages that load only from their entry module).")
@force_option
def infer(sources: tuple[str, ...], out: Path | None, merge_path: Path | None,
          model: str | None, embedder: str, domain: str | None,
          imports: tuple[str, ...], force: bool = False) -> None:
    """Draft a registry from SOURCES: MCP configs (mcpServers), saved tools/list results,
    OpenAI tools arrays, function docs with parameters and response (also Gorilla / BFCL
    style: "type": "dict", "float", "tuple", "any"), or Python tools.

    A Python source is python:package.module (the module's TOOLS list when it has one, else
    its public functions and AgentDojo Function objects) or python:package.module:attr (a
    function, a Function, a list of them, or an object whose `tools` is one). Parameters come
    from type hints and the docstring (reST, Google or numpy), the output schema from the
    return annotation; AgentDojo Depends parameters (the injected environment) are left out.

    Every drafted field is noted under the tool's `inferred` (schema, rule, alias, model).

    \b
    Examples:
      planfilter contracts infer mcp.json --out contracts.yaml
      planfilter contracts infer openai_tools.json --merge contracts.yaml --out contracts.yaml
      planfilter contracts infer python:mytools --out contracts.yaml
      planfilter contracts infer --import agentdojo.task_suite \\
          python:agentdojo.default_suites.v1.banking.task_suite:TOOLS
    """
    from ..core.outputs import atomic_write, check_comments, check_file_target
    from ..infer.infer import InferOptions, infer_contracts
    from ..infer.python_tools import import_modules
    from ..infer.sources import read_sources
    from ..infer.write import check_written, kept_sections, merge_into, render, tool_data

    try:
        if out is not None:
            check_file_target(out, force=force, replaces=merge_path)
        import_modules(imports)
        specs = read_sources(sources)
        proposer = None
        if model:
            from ..infer.model import model_proposer
            from ..models import check_model

            check_model(model)
            proposer = model_proposer(model, progress=_progress)
        options = InferOptions(embedder=_embedder(embedder),  # type: ignore[arg-type]
                               proposer=proposer, domain=domain)
        inference = infer_contracts(specs, options)
        tools = (merge_into(merge_path, inference) if merge_path
                 else [tool_data(t) for t in inference.registry])
        text = render(tools, inference, [str(s) for s in sources],
                      kept=kept_sections(merge_path) if merge_path else None)
        check_written(text, str(out or "<output>"))
        if out is not None:
            check_comments(out, text, force=force)
    except PlanfilterError as exc:
        raise click.ClickException(str(exc)) from None
    if out is None:
        click.echo(text, nl=False)
        return
    atomic_write(out, text)
    rules: dict[str, int] = {}
    for rule in inference.produce_rules.values():
        rules[rule] = rules.get(rule, 0) + 1
    click.echo(f"{len(tools)} tools -> {out} ({len(inference.merges)} vocabulary merges; "
               f"produces by {', '.join(f'{k} {v}' for k, v in sorted(rules.items()))})",
               err=True)


@contracts.command()
@click.argument("registry_path", metavar="CONTRACTS",
                type=click.Path(exists=True, path_type=Path))
@click.argument("traces", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
def check(registry_path: Path, traces: tuple[Path, ...]) -> None:
    """Report where CONTRACTS and the behaviour in TRACES disagree (exit 1 when they do).

    \b
    Example:
      planfilter contracts check domains runs/cmtf/traces.jsonl
    """
    from ..core.loading import load_registry
    from ..infer.check import check_traces

    try:
        registry = load_registry(registry_path)
        report = check_traces(registry, traces)
        _check_overlap(registry, traces, report.steps)
    except PlanfilterError as exc:
        raise click.ClickException(str(exc)) from None
    for finding in report.findings:
        click.echo(str(finding))
    click.echo(f"{report.files} trace files, {report.steps} steps: "
               f"{len(report.findings)} findings")
    if not report.ok:
        sys.exit(1)


def _check_overlap(registry: Registry, traces: tuple[Path, ...], steps: int) -> None:
    """Raise when the traces give the contracts nothing to be checked on: no step, or no
    call of a tool the contracts name (0 findings would then pass a CI gate on nothing)."""
    from ..infer.check import step_lines

    where = ", ".join(map(str, traces))
    if not steps:
        raise PlanfilterError(f"{where}: holds no step line (type 'step'): nothing to check "
                              "the contracts against")
    called = {str(line.get("chosen")) for path in traces for _, line in step_lines(path)
              if line.get("chosen")}
    if called and not called & set(registry.names):
        shown = ", ".join(sorted(called)[:5])
        raise PlanfilterError(f"{where}: none of the {len(called)} tools called ({shown}"
                              f"{', ...' if len(called) > 5 else ''}) is in "
                              f"{registry.source or 'the contracts'}: nothing was checked; "
                              "give the contracts the traces were recorded with")


@contracts.command()
@click.argument("traces", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--contracts", "registry_path", required=True,
              type=click.Path(exists=True, path_type=Path),
              help="The registry file (or folder) the traces were recorded with (or its "
                   "draft); a file with --out.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the merged registry here (the proposals added; nothing dropped).")
@click.option("--min-evidence", type=click.IntRange(min=1), default=1, show_default=True,
              help="Propose only what at least this many calls showed.")
@force_option
def learn(traces: tuple[Path, ...], registry_path: Path, out: Path | None,
          min_evidence: int, force: bool = False) -> None:
    """Propose requires, produces (with outputs pointers) and inputs from TRACES: where a
    value first seen in a tool's result reappears as a later call's argument.

    TRACES are `planfilter run` traces.jsonl files or OpenAI-style chat logs (assistant
    tool_calls and tool messages; JSON Lines or a JSON array). Each proposal is printed with
    its evidence (calls) and the file:line of an example. With --out, the registry is written
    with the proposals added: no field is dropped or changed, items are only added, and each
    tool's additions are noted under `inferred.learned` for review.

    \b
    Example:
      planfilter contracts learn runs/a/traces.jsonl chat.jsonl --contracts drafted.yaml \\
          --out learned.yaml
    """
    import yaml

    from ..core.loading import load_registry, read_document
    from ..core.outputs import atomic_write, check_comments, check_file_target
    from ..infer.learn import learn as learn_edges
    from ..infer.learn import merge
    from ..infer.write import check_written

    try:
        if out is not None:
            if registry_path.is_dir():
                raise click.BadParameter(f"{registry_path} is a folder: --out writes one "
                                         "registry file, so give --contracts FILE",
                                         param_hint="--contracts")
            check_file_target(out, force=force, replaces=registry_path)
        registry = load_registry(registry_path)
        proposals, runs, reuses = learn_edges(registry, traces, min_evidence)
        text = ""
        if out is not None:
            merged = merge(read_document(registry_path), proposals)
            text = (f"# {registry_path}, with edges learned by `planfilter contracts learn` "
                    f"from {len(traces)} trace file(s)\n"
                    + yaml.safe_dump(merged, sort_keys=False, allow_unicode=True, width=96,
                                     default_flow_style=False))
            check_written(text, str(out))
            check_comments(out, text, force=force)
    except PlanfilterError as exc:
        raise click.ClickException(str(exc)) from None
    for proposal in proposals:
        click.echo(str(proposal))
    click.echo(f"{len(traces)} trace files, {runs} runs, {reuses} values reused: "
               f"{len(proposals)} proposals")
    if out is not None:
        atomic_write(out, text)
        click.echo(f"wrote {out}", err=True)


@contracts.command()
@click.argument("drafted", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--against", "reviewed", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The reviewed registry of the same tools.")
def edges(drafted: Path, reviewed: Path) -> None:
    """Data-flow edges (producer -> consumer, variable) of DRAFTED against a reviewed
    registry: recall, precision, and each edge missed or extra.

    \b
    Example:
      planfilter contracts edges domains/shop/drafted/shop.yaml --against domains/shop/shop.yaml
    """
    from ..core.loading import load_registry
    from ..infer.edges import compare_edges

    try:
        mine, theirs = load_registry(drafted), load_registry(reviewed)
        shared = set(mine.names) & set(theirs.names)
        if not shared:
            raise PlanfilterError(f"{drafted} and {reviewed} name no tool in common: there are "
                                  "no edges to compare (recall and precision would mean "
                                  "nothing)")
        found = compare_edges(mine, theirs)
        if not found.reviewed and not found.drafted:
            raise PlanfilterError(f"{drafted} and {reviewed}: no data-flow edge between the "
                                  f"{len(shared)} tools they share, in either: nothing to "
                                  "compare")
    except PlanfilterError as exc:
        raise click.ClickException(str(exc)) from None
    for label, listed in (("missed", found.missed), ("extra", found.extra)):
        for producer, consumer, variable in listed:
            click.echo(f"{label}: {producer} -> {consumer} ({variable})")
    click.echo(f"edges: {len(found.kept)} of {len(found.reviewed)} reviewed drafted "
               f"(recall {found.recall:.2f}), {len(found.kept)} of {len(found.drafted)} drafted "
               f"reviewed (precision {found.precision:.2f})")


@contracts.command("eval")
@paths_option("--registry", "registry_path",
              "Hand-written registry (repeatable). Default: bundled.")
@paths_option("--tasks", "tasks_path", "Tasks with gold chains. Default: the bundled benchmark.")
@click.option("--model", help="Also measure with this model proposing for open tools.")
@click.option("--embedder", type=click.Choice(["auto", "minilm", "none"]), default="none",
              show_default=True)
@click.option("--details", is_flag=True, help="List the tasks whose frontier changed.")
def evaluate(registry_path: tuple[Path, ...], tasks_path: tuple[Path, ...], model: str | None,
             embedder: str, details: bool) -> None:
    """Strip a registry's contracts, infer them back, and score the draft.

    Prints precision and recall of requires, produces and risk, and the share of tasks
    whose CMTF frontier is unchanged at every step of the gold chain.
    """
    from ..core.loading import load_registry, load_suite
    from ..core.resources import default_registry, default_suite
    from ..infer.evaluate import evaluate as run_eval
    from ..infer.infer import InferOptions, Proposer

    try:
        hand = load_registry(list(registry_path) or default_registry())
        suite = load_suite(list(tasks_path) or default_suite())
        scored = [t for t in suite if all(n in hand for n in t.gold)]
        if not len(hand):
            raise PlanfilterError(f"{hand.source or 'the registry'}: holds no tool to score")
        if not scored:
            raise PlanfilterError(f"{suite.source or 'the suite'}: no task whose gold chain "
                                  f"names only tools of {hand.source or 'the registry'}: "
                                  "the frontier share would be computed on nothing")
        emb = _embedder(embedder)
        runs: list[tuple[str, bool, bool, Proposer | None]] = [
            ("parameters + returns + descriptions", True, False, None),
            ("the same, every other tool in camelCase", True, True, None),
            ("parameters + descriptions", False, False, None)]
        if model:
            from ..infer.model import model_proposer
            from ..models import check_model

            check_model(model)
            runs.append((f"parameters + descriptions + {model}", False, False,
                         model_proposer(model, progress=_progress)))
        results = [run_eval(hand, suite, with_returns=wr, label=label, mixed_spelling=mixed,
                            options=InferOptions(embedder=emb,  # type: ignore[arg-type]
                                                 proposer=proposer))
                   for label, wr, mixed, proposer in runs]
    except PlanfilterError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{len(hand)} tools, {len(results[0].tasks)} tasks")
    click.echo("| from | requires P/R | produces P/R | risk accuracy | risk high P/R | "
               "frontier unchanged | merges | open tools |")
    click.echo("|---|---|---|---|---|---|---|---|")
    for r in results:
        high = r.risk["high"]
        click.echo(f"| {r.label} | {r.requires.precision:.2f} / {r.requires.recall:.2f} | "
                   f"{r.produces.precision:.2f} / {r.produces.recall:.2f} | "
                   f"{r.risk_accuracy:.2f} | {high.precision:.2f} / {high.recall:.2f} | "
                   f"{sum(t.unchanged for t in r.tasks)}/{len(r.tasks)} = "
                   f"{r.unchanged_share:.3f} | {r.merges} | {r.open_tools} |")
        if details:
            for t in r.tasks:
                if not t.unchanged:
                    click.echo(f"    {t.task}: {t.difference}")
