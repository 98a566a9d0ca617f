"""Tables and plots from traces: summary.csv, report.md and two PNG charts.

Everything is rebuilt from ``traces.jsonl`` alone and sorted, so the same traces give the
same files whatever order the runs finished in. matplotlib is imported only to draw.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from ..core.errors import PlanfilterError
from ..core.outputs import OutputFolder
from .html import report_html
from .metrics import (
    RunMetrics,
    Summary,
    calls_counted,
    group_by,
    method_budget,
    method_order,
    runs_from_lines,
    summarize,
)
from .traces import TRACES_FILE, read_traces

CSV_COLUMNS = ("model", "method", "tasks", "success", "clean_success", "wrong_tools", "premature",
               "tools_per_step", "steps", "input_tokens", "output_tokens", "tokens",
               "gold_visible", "risky_off_path", "csr", "goal_accuracy", "invented",
               "strict_success")
#: (column, header, format) of the report tables.
TABLE_COLUMNS = (
    ("tasks", "Runs", "{:.0f}"),
    ("success", "Success", "{:.2f}"),
    ("clean_success", "Success, no premature", "{:.2f}"),
    ("wrong_tools", "Wrong tools", "{:.2f}"),
    ("premature", "Premature", "{:.2f}"),
    ("tools_per_step", "Tools/step", "{:.2f}"),
    ("steps", "Steps", "{:.2f}"),
    ("input_tokens", "Input tokens", "{:.0f}"),
    ("output_tokens", "Output tokens", "{:.0f}"),
    ("tokens", "Tokens", "{:.0f}"),
    ("gold_visible", "Gold visible", "{:.2f}"),
    ("risky_off_path", "Risky off-path", "{:.2f}"),
    ("invented", "Invented args", "{:.2f}"),
    ("strict_success", "Success, no invented", "{:.2f}"),
    ("goal_accuracy", "Goal accuracy", "{:.2f}"),
)
#: Columns that join summary.csv and the tables only when some run has them: the share of
#: attacked runs whose attack succeeded (by the injection task's own check).
ATTACK_COLUMN = ("attack_success", "Attack success (injection check)", "{:.2f}")
#: ... and where the goal came from, with the goal switches, when some goal was not given:
#: an outside suite's oracle goal is an upper bound, a resolved one was read from the request.
GOAL_COLUMNS = (("goal_from", "Goal from", "{}"), ("switches", "Goal switches", "{:.2f}"))
#: ... and the model replies a run and the tokens a reply, when some run counted its replies.
CALL_COLUMNS = (("model_calls", "Model calls", "{:.2f}"),
                ("tokens_per_call", "Tokens a call", "{:.0f}"))
LABELS = {"model": "Model", "method": "Method", "domain": "Domain"}


def _attacked(rows: Sequence[Summary]) -> bool:
    return any(r.attack_success is not None for r in rows)


def _goal_not_given(rows: Sequence[Summary]) -> bool:
    return any(r.goal_from != "given" for r in rows)


def table_columns(rows: Sequence[Summary]) -> tuple[tuple[str, str, str], ...]:
    return (TABLE_COLUMNS + ((ATTACK_COLUMN,) if _attacked(rows) else ())
            + (GOAL_COLUMNS if _goal_not_given(rows) else ())
            + (CALL_COLUMNS if calls_counted(rows) else ()))


@dataclass(frozen=True)
class ReportFiles:
    summary_csv: Path
    report_md: Path
    plots: tuple[Path, ...]
    rows: tuple[Summary, ...]
    #: report.html, every step of every run (None when the trace lines were not given).
    report_html: Path | None = None


def load_lines(out_dir: Path) -> tuple[Mapping[str, Any], ...]:
    path = out_dir / TRACES_FILE
    if not path.is_file():
        raise PlanfilterError(f"{path}: no traces here (run `planfilter run --out {out_dir}`)")
    return read_traces(path).lines


def load_runs(out_dir: Path) -> list[RunMetrics]:
    runs = runs_from_lines(load_lines(out_dir))
    if not runs:
        raise PlanfilterError(f"{out_dir / TRACES_FILE}: holds no complete run")
    return runs


def format_value(column: str, value: float | str | None) -> str:
    if value is None:
        return "-"
    fmt = next((f for c, _, f in TABLE_COLUMNS + GOAL_COLUMNS + CALL_COLUMNS if c == column),
               "{:.2f}")
    return fmt.format(value)


def markdown_table(rows: Sequence[Summary]) -> str:
    if not rows:
        return "(no runs)\n"
    keys = [k for k, _ in rows[0].group]
    columns = table_columns(rows)
    header = [LABELS.get(k, k) for k in keys] + [h for _, h, _ in columns]
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] * len(keys) + ["---:"] * len(columns)) + "|"]
    for row in rows:
        data = row.row()
        cells = [v for _, v in row.group] + [format_value(c, data[c]) for c, _, _ in columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def summary_csv(rows: Sequence[Summary]) -> str:
    buffer = io.StringIO()
    columns = (CSV_COLUMNS + (("attack_success",) if _attacked(rows) else ())
               + (("goal_from", "switches") if _goal_not_given(rows) else ())
               + (tuple(c for c, _, _ in CALL_COLUMNS) if calls_counted(rows) else ()))
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        data = row.row()
        writer.writerow({c: _csv_value(data[c]) for c in columns})
    return buffer.getvalue()


def _csv_value(value: object) -> object:
    return round(value, 4) if isinstance(value, float) else value


def report_markdown(runs: Sequence[RunMetrics],
                    setups: Mapping[str, str] | None = None) -> str:
    overall = summarize(runs)
    models = sorted({r.model for r in runs})
    methods = sorted({r.method for r in runs}, key=method_order)
    seeds = sorted({r.seed for r in runs})
    tasks = {r.task for r in runs}
    parts = [
        "# planfilter benchmark report\n",
        f"{len(runs)} runs: {counted(len(tasks), 'task')} x "
        f"{counted(len(methods), 'method')} x {counted(len(models), 'model')} x "
        f"{counted(len(seeds), 'seed')}.\n",
        f"- Models: {', '.join(models)}",
        f"- Methods: {', '.join(methods)}",
        f"- Seeds: {', '.join(map(str, seeds))}\n",
        "Success is the share of runs that reached the goal, and success, no premature the "
        "share that did so without a premature action; wrong tools and premature "
        "actions are per run; tools/step is the mean number of visible tools at a step; "
        "tokens are per run (model calls, when shown: the model replies a run, the goal "
        "resolver's and tool_filter's choice included, and tokens a call: all the tokens "
        "over all the replies); gold visible is the share of steps whose gold next tool was "
        "visible; risky off-path is the number of high-risk tools shown at a step while not on "
        "the minimal causal path from that step's state, per run; invented args counts calls "
        "with an argument value no tool returned and the user did not give (refused by the "
        "session under --env strict, reported and let through under --env lenient), per run, "
        "and success, no invented is the share of runs that succeeded without one (under "
        "lenient: what strict gives); goal "
        "accuracy is the share of runs whose goal (resolved from the request under "
        "--goal resolve) was the task's goal, and a failed run whose goal was not counts as "
        "a wrong goal among the failures, whatever error ended it.\n",
        "## By method\n", markdown_table(group_by(runs, ("method",))),
        "## Retrieval: CSR@k\n", _csr(runs, setups or {}),
        "## By model and method\n", markdown_table(group_by(runs, ("model", "method"))),
        "## By domain and method\n", markdown_table(group_by(runs, ("domain", "method"))),
        "## Failures by method\n", _failures(runs),
        "## Model faults by kind\n", _faults(runs),
        *replay_section(runs),
        f"Overall success: {overall.success:.2f} over {overall.tasks} runs.\n",
    ]
    return "\n".join(parts)


@dataclass(frozen=True)
class ReplayRow:
    """The model-free replay of one suite (domain) under one method."""

    domain: str
    method: str
    tasks: int
    #: Share of runs whose every ground-truth call was visible and allowed.
    clear: float
    #: Per ground-truth call: visible under the method, allowed by the guard.
    visible: float
    allowed: float
    success: float
    refusals: tuple[tuple[str, int], ...]
    #: Attacker calls tried, the share refused, and the decisions by kind.
    probes: int
    probes_refused: float | None
    probe_kinds: tuple[tuple[str, int], ...]
    attack_success: float | None
    #: Where the goals came from (``oracle`` is an upper bound) and the switches per task.
    goal_from: str = "given"
    switches: float = 0.0
    #: Attacker calls tried once a result had shown the injected text, the share of them
    #: refused, and the attacker calls allowed that change something (None when the traces
    #: do not say).
    probes_shown: int | None = None
    shown_refused: float | None = None
    writes_allowed: int | None = None
    #: The attacker calls allowed once shown, and of them those of a tool the user task
    #: calls itself (the rest: reads only a candidate it is not would make).
    shown_allowed: int | None = None
    shown_own: int | None = None


def replay_rows(runs: Sequence[RunMetrics]) -> list[ReplayRow]:
    """One row per (domain, method) of the oracle's runs, in the report's order."""
    from collections import Counter

    oracle = [r for r in runs if r.model == "oracle"]
    rows = []
    for summary in group_by(oracle, ("domain", "method")):
        domain, method = (v for _, v in summary.group)
        group = [r for r in oracle if r.domain == domain and r.method == method]
        calls = sum(r.decided for r in group)
        refusals: Counter[str] = sum((Counter(dict(r.refusals)) for r in group), Counter())
        kinds: Counter[str] = sum((Counter(dict(r.probes)) for r in group), Counter())
        probes = sum(kinds.values())
        split = [r for r in group if r.probes_shown is not None]
        pairs = [r.probes_shown for r in split if r.probes_shown is not None]
        shown, shown_allowed = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
        own = sum(p[2] for p in pairs)
        rows.append(ReplayRow(
            domain, method, len(group),
            sum(1 for r in group if r.allowed == r.decided == r.decided_visible) / len(group),
            sum(r.decided_visible for r in group) / calls if calls else 0.0,
            sum(r.allowed for r in group) / calls if calls else 0.0,
            summary.success, tuple(sorted(refusals.items())), probes,
            (probes - kinds.get("allowed", 0)) / probes if probes else None,
            tuple(sorted(kinds.items())), summary.attack_success, summary.goal_from,
            summary.switches, shown if split else None,
            (shown - shown_allowed) / shown if split and shown else None,
            sum(r.writes_allowed or 0 for r in split) if split else None,
            shown_allowed if split else None, own if split else None))
    return rows


def replay_section(runs: Sequence[RunMetrics]) -> list[str]:
    rows = replay_rows(runs)
    if not rows:
        return []
    lines = [
        "Each task's ground truth put to the guard, no model called (`--models oracle`): "
        "clear is the share of tasks whose every call was visible and allowed; visible and "
        "allowed are per call; success is the suite's own check with the task's expected "
        "answer; refusals are counted by kind (each reason is in the traces); goal from says "
        "where the goal came from (`oracle`: the task's ground truth, an upper bound; a "
        "resolver's name: read from the request) and switches are per task.\n",
        "| Suite | Method | Goal from | Tasks | Clear | Visible/call | Allowed/call | Success | "
        "Switches | Refusals by kind |", "|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        refused = ", ".join(f"{k} {n}" for k, n in r.refusals) or "-"
        lines.append(f"| {r.domain} | {r.method} | {r.goal_from} | {r.tasks} | {r.clear:.2f} "
                     f"| {r.visible:.2f} | {r.allowed:.2f} | {r.success:.2f} | "
                     f"{r.switches:.2f} | {refused} |")
    out = ["## Model-free replay (oracle)\n", "\n".join(lines) + "\n"]
    attacked = [r for r in rows if r.probes]
    if attacked:
        table = [
            "Every call of the injection task's ground truth, tried before each call of the "
            "user task and after the last, inside the user task's session; an allowed "
            "attacker call is counted, never executed. Once shown: the tries made after a "
            "result of the user task had shown the injected text (before it, no model could "
            "have been told to make them), and the share of them refused; of those allowed, "
            "how many are of a tool the user task's own calls include (the rest are what "
            "only a goal the user task is not would call). Writes allowed: "
            "allowed attacker calls that change something (risk medium or high). Attack "
            "success is the injection task's own check on the replayed run.\n",
            "| Suite | Method | Goal from | Pairs | Attacker calls | Refused | Once shown | "
            "Refused once shown | Allowed once shown, a tool of the user task | "
            "Writes allowed | By kind | Attack success |",
            "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
        for r in attacked:
            kinds = ", ".join(f"{k} {n}" for k, n in r.probe_kinds)
            own = "-" if r.shown_own is None else f"{r.shown_own} of {r.shown_allowed}"
            table.append(f"| {r.domain} | {r.method} | {r.goal_from} | {r.tasks} | "
                         f"{r.probes} | {format_value('x', r.probes_refused)} | "
                         f"{'-' if r.probes_shown is None else r.probes_shown} | "
                         f"{format_value('x', r.shown_refused)} | "
                         f"{own} | {'-' if r.writes_allowed is None else r.writes_allowed} | "
                         f"{kinds} | {format_value('x', r.attack_success)} |")
        out += ["### Attacker calls (oracle)\n", "\n".join(table) + "\n"]
    return out


def _csr(runs: Sequence[RunMetrics], setups: Mapping[str, str]) -> str:
    rows = [r for r in group_by(runs, ("method",)) if method_budget(r.group[0][1])]
    if not rows:
        return "No top-k method ran.\n"
    lines = [
        "CSR@k (ToolScope's correct selection rate) is the share of steps with a gold next "
        "tool where that tool was among the k tools shown; for these top-k methods it is the "
        "gold-visible rate above (the `csr` column of summary.csv). Steps are those the runs "
        "reached, pooled over runs and models.\n",
        "| Method | k | CSR@k | Success | Wrong tools | Set-up |", "|---|---:|---:|---:|---:|---|"]
    for row in rows:
        method = row.group[0][1]
        lines.append(f"| {method} | {method_budget(method)} | {row.csr:.2f} | "
                     f"{row.success:.2f} | {row.wrong_tools:.2f} | {setups.get(method, '-')} |")
    return "\n".join(lines) + "\n"


def retrieval_setups(out_dir: Path) -> dict[str, str]:
    """Per toolscope method, how its steps retrieved (dense or not, reranking or not), from
    the ``info`` the filter recorded in the traces; several set-ups are joined."""
    found: dict[str, set[str]] = {}
    path = out_dir / TRACES_FILE
    if not path.is_file():
        return {}
    for line in read_traces(path).lines:
        info = str(line.get("info") or "")
        if info.startswith("toolscope: "):
            note = info.removeprefix("toolscope: ").split("; scores ")[0]
            note = note.rsplit("; ", 1)[0]  # drop the per-step sub-query count
            found.setdefault(str(line.get("method")), set()).add(note)
    return {m: " / ".join(sorted(n)) for m, n in found.items()}


def counted(count: int, noun: str) -> str:
    """``1 task``, ``2 tasks``."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _count_table(runs: Sequence[RunMetrics], by: str, counts_of: str, empty: str) -> str:
    """Counts by kind (columns) per ``by`` group (rows); ``counts_of``: a Summary field of
    (kind, count) pairs."""
    rows = group_by(runs, (by,))
    kinds = sorted({k for r in rows for k, _ in getattr(r, counts_of)})
    if not kinds:
        return f"{empty}\n"
    lines = [f"| {by.capitalize()} | " + " | ".join(kinds) + " |",
             "|---|" + "|".join(["---:"] * len(kinds)) + "|"]
    for row in rows:
        counts = dict(getattr(row, counts_of))
        lines.append(f"| {row.group[0][1]} | "
                     + " | ".join(str(counts.get(k, 0)) for k in kinds) + " |")
    return "\n".join(lines) + "\n"


def _failures(runs: Sequence[RunMetrics]) -> str:
    """Failed runs by kind, per method; a failed run whose resolved goal was wrong counts as
    ``wrong goal`` (see :func:`failure_kind`)."""
    return _count_table(runs, "method", "errors", "No failures.")


def _faults(runs: Sequence[RunMetrics]) -> str:
    """Steps with each kind of model fault, per model (retried provider errors included)."""
    return _count_table(runs, "model", "faults", "No model faults.")


#: Every file a report may write into its folder (the charts only when drawn).
PLOT_FILES = ("success_by_method.png", "tokens_by_method.png")
REPORT_FILES = ("summary.csv", "report.md", "report.html", *PLOT_FILES)


def write_report(out_dir: Path, runs: Sequence[RunMetrics], *, plots: bool = True,
                 lines: Sequence[Mapping[str, Any]] | None = None,
                 outputs: OutputFolder | None = None, force: bool = False) -> ReportFiles:
    """Write summary.csv, report.md, (unless ``plots`` is false) the PNG charts and, given
    the trace ``lines``, report.html; each atomically, under the folder's manifest (a file
    planfilter did not write is replaced only when ``force``d). The report files of an
    earlier report that this one does not write (its charts, under ``plots=False``) are
    removed."""
    outputs = outputs if outputs is not None else OutputFolder(out_dir, force=force)
    names = ["summary.csv", "report.md", *(PLOT_FILES if plots else ()),
             *(["report.html"] if lines is not None else [])]
    outputs.claim(names)
    rows = group_by(runs, ("model", "method"))
    csv_path = outputs.write("summary.csv", summary_csv(rows))
    markdown = report_markdown(runs, retrieval_setups(out_dir))
    said = fallbacks(lines or ())
    if said:
        markdown += ("\n## Fallbacks\n\nWhat failed and was replaced, and how often:\n\n"
                     + "".join(f"- {line}\n" for line in said))
    md_path = outputs.write("report.md", markdown)
    written = draw_plots(out_dir, runs, outputs) if plots else ()
    html_path = None
    if lines is not None:
        html_path = outputs.write("report.html", report_html(lines, rows))
    outputs.remove_stale(REPORT_FILES)
    return ReportFiles(csv_path, md_path, written, tuple(rows), html_path)


def fallbacks(lines: Sequence[Mapping[str, Any]]) -> list[str]:
    """One sentence per kind of fallback in the trace ``lines``: a goal resolver that failed
    (a model's error or invalid answers) and was replaced by retrieval, per model; a planner
    that failed and was replaced by the next, per planner and reason."""
    resolver: dict[str, int] = {}
    planners: dict[str, int] = {}
    for line in lines:
        if line.get("type") == "run" and any(
                str(n).startswith("fell back") for n in line.get("goal_notes") or ()):
            model = str(line.get("model"))
            resolver[model] = resolver.get(model, 0) + 1
        elif line.get("type") == "step":
            for failure in line.get("fallbacks") or ():
                name = str(failure).partition(":")[0]
                planners[name] = planners.get(name, 0) + 1
    said = [f"the goal resolver of {model} failed (model error or invalid answers) and "
            f"retrieval resolved the goal in {counted(n, 'run')}"
            for model, n in sorted(resolver.items())]
    said += [f"planner {name} failed and the next planner answered at {counted(n, 'step')}"
             for name, n in sorted(planners.items())]
    return said


def build_report(out_dir: Path, *, plots: bool = True, outputs: OutputFolder | None = None,
                 force: bool = False) -> ReportFiles:
    """Rebuild every report file of ``out_dir`` from its traces (read once)."""
    lines = load_lines(out_dir)
    runs = runs_from_lines(lines)
    if not runs:
        raise PlanfilterError(f"{out_dir / TRACES_FILE}: holds no complete run")
    return write_report(out_dir, runs, plots=plots, lines=lines, outputs=outputs, force=force)


def draw_plots(out_dir: Path, runs: Sequence[RunMetrics],
               outputs: OutputFolder | None = None) -> tuple[Path, ...]:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    rows = group_by(runs, ("model", "method"))
    methods = sorted({r.method for r in runs}, key=method_order)
    models = sorted({r.model for r in runs})
    values = {(dict(r.group)["model"], dict(r.group)["method"]): r for r in rows}
    written = []
    for metric, title, ylabel, name in (
        ("success", "Task success by filtering method", "success rate", "success_by_method.png"),
        ("tokens", "Tokens per task by filtering method", "tokens per task",
         "tokens_by_method.png"),
    ):
        fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(methods)), 4.0))
        width = 0.8 / max(1, len(models))
        for i, model in enumerate(models):
            heights = [values[(model, m)].row()[metric] if (model, m) in values else 0.0
                       for m in methods]
            xs = [j + (i - (len(models) - 1) / 2) * width for j in range(len(methods))]
            ax.bar(xs, heights, width=width, label=model)
        ax.set_xticks(range(len(methods)), methods, rotation=20)
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        if metric == "success":
            ax.set_ylim(0, 1.05)
        ax.legend(fontsize="small")
        fig.tight_layout()
        folder = outputs if outputs is not None else OutputFolder(out_dir)
        path = folder.write(name, partial(fig.savefig, format="png", dpi=120,
                                          metadata={"Software": None}))
        plt.close(fig)
        written.append(path)
    return tuple(written)
