"""``report.html``: every step of every run in one self-contained page.

The page needs no server and no network: the data, the script and the styles are inline, and
the charts are SVG drawn here. What it shows:

- the summary table of the paper's Table 4 (sortable) and two charts;
- the runs, filtered by model, method, domain and outcome, in a list that renders only the
  rows in view (so 10,000 runs scroll without freezing the page);
- one run step by step: the state, the visible tools (the gold next tool marked, and whether
  it was visible), the call and its arguments, the guard's decision and the result;
- one task side by side under two methods.

Each run's steps are stored as their own JSON text and parsed only when the run is opened.
Tool names are interned (a step's visible set is a list of numbers), which keeps the file to
a few kilobytes per run even with 100 tools shown at every step.

A run's outcome is one of: ``success`` (the goal, with no premature action and no invented
value), ``wrong goal`` (failed pursuing a goal resolved wrongly under ``--goal resolve``),
``invented argument``, ``premature``, ``wrong tool`` (failed after choosing a tool other than
the gold next one) and ``error`` (failed otherwise), tested in that order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from ..core.compile import render
from .metrics import (
    WRONG_GOAL,
    RunMetrics,
    Summary,
    calls_counted,
    failure_kind,
    method_order,
    run_metrics,
)
from .traces import iter_runs

OUTCOMES = ("success", WRONG_GOAL, "invented argument", "premature", "wrong tool", "error")
#: (column, header, decimals) of the summary table.
SUMMARY_COLUMNS = (
    ("tasks", "Runs", 0), ("success", "Success", 2), ("clean_success", "No premature", 2),
    ("strict_success", "No invented", 2), ("wrong_tools", "Wrong tools", 2),
    ("premature", "Premature", 2), ("tools_per_step", "Tools/step", 2), ("steps", "Steps", 2),
    ("tokens", "Tokens", 0), ("gold_visible", "Gold visible", 2),
    ("goal_accuracy", "Goal accuracy", 2),
)
#: ... and, when some run counted its model replies, the replies a run and tokens a reply.
CALL_COLUMNS = (("model_calls", "Model calls", 2), ("tokens_per_call", "Tokens a call", 0))


def outcome(run: RunMetrics) -> str:
    if run.success and not run.premature and not run.invented:
        return "success"
    if failure_kind(run) == WRONG_GOAL:
        return WRONG_GOAL
    if run.invented:
        return "invented argument"
    if run.premature:
        return "premature"
    if run.wrong_tools and not run.success:
        return "wrong tool"
    return "success" if run.success else "error"


class _Names:
    """Interned strings: each distinct name once, referred to by its index."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, name: Any) -> int:
        if name is None:
            return -1
        return self.index.setdefault(str(name), len(self.index))

    def table(self) -> list[str]:
        return list(self.index)


def _step(line: Mapping[str, Any], names: _Names) -> dict[str, Any]:
    return {
        "n": line.get("step"), "v": [names(t) for t in line.get("visible") or ()],
        "g": names(line.get("gold_next")), "c": names(line.get("chosen")),
        "a": line.get("arguments"), "s": line.get("state_before") or {},
        "p": line.get("produced") or {}, "e": line.get("error"),
        "pm": bool(line.get("premature")), "iv": bool(line.get("invented")),
        "ap": line.get("approval"), "i": str(line.get("info") or "")[:300],
        "t": int(line.get("input_tokens") or 0) + int(line.get("output_tokens") or 0),
        "cg": list(line.get("goals") or ()),
    }


def report_data(lines: Iterable[Mapping[str, Any]],
                rows: Sequence[Summary]) -> dict[str, Any]:
    """What the page shows, as plain JSON-ready data."""
    names = _Names()
    values: dict[str, _Names] = {k: _Names() for k in ("model", "method", "domain")}
    runs: list[list[Any]] = []
    steps: list[str] = []
    queries: dict[str, str] = {}
    for key, step_lines, end in iter_runs(lines):
        metrics = run_metrics(key, step_lines, end)
        queries.setdefault(key.task, str(end.get("query") or ""))
        runs.append([key.task, values["model"](key.model), values["method"](key.method),
                     key.seed, values["domain"](metrics.domain), OUTCOMES.index(outcome(metrics)),
                     metrics.steps, metrics.input_tokens + metrics.output_tokens,
                     str(end.get("error") or ""), list(end.get("goal") or ()),
                     bool(end.get("goal_correct", True)), metrics.goal_by, metrics.switches])
        steps.append(json.dumps([_step(s, names) for s in step_lines], separators=(",", ":"),
                                ensure_ascii=False, default=str))
    columns = SUMMARY_COLUMNS + (CALL_COLUMNS if calls_counted(rows) else ())
    summary = [{**dict(r.group), **{c: r.row()[c] for c, _, _ in columns}} for r in rows]
    methods = sorted(values["method"].table(), key=method_order)
    return {"tools": names.table(), "models": values["model"].table(),
            "methods": values["method"].table(), "method_order": methods,
            "domains": values["domain"].table(), "outcomes": list(OUTCOMES),
            "runs": runs, "steps": steps, "queries": queries, "summary": summary,
            "columns": [[c, h, d] for c, h, d in columns]}


def bar_chart(rows: Sequence[Summary], metric: str, title: str, maximum: float | None = None,
              ) -> str:
    """A grouped bar chart (methods along x, one bar per model): inline SVG in a figure whose
    legend is HTML below it, one model a line, so a long model name is cut with an ellipsis
    (the whole name on hover) instead of running out of the drawing."""
    methods = sorted({dict(r.group)["method"] for r in rows}, key=method_order)
    models = sorted({dict(r.group)["model"] for r in rows})
    value = {(dict(r.group)["model"], dict(r.group)["method"]): r.row()[metric] for r in rows}
    top = maximum or max([*value.values(), 1e-9])
    width, height, left, bottom = max(360, 90 * len(methods)), 200, 50, 24
    group = (width - left - 10) / max(1, len(methods))
    bar = group * 0.8 / max(1, len(models))
    parts = [f'<figure class="chart"><svg class="plot" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{escape(title)}"><title>{escape(title)}</title>',
             f'<text x="{left}" y="14" class="t">{escape(title)}</text>']
    for tick in (0.0, 0.5, 1.0):
        y = height - bottom - tick * (height - bottom - 24)
        parts.append(f'<line x1="{left}" x2="{width - 10}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'class="grid"/><text x="{left - 4}" y="{y + 4:.1f}" class="ax" '
                     f'text-anchor="end">{_short(tick * top)}</text>')
    for i, method in enumerate(methods):
        x0 = left + i * group + group * 0.1
        parts.append(f'<text x="{x0 + group * 0.4:.1f}" y="{height - bottom + 14}" class="ax" '
                     f'text-anchor="middle">{escape(method)}</text>')
        for j, model in enumerate(models):
            v = value.get((model, method), 0.0)
            h = (v / top) * (height - bottom - 24)
            parts.append(f'<rect x="{x0 + j * bar:.1f}" y="{height - bottom - h:.1f}" '
                         f'width="{bar * 0.92:.1f}" height="{h:.1f}" class="s{j % 6}">'
                         f'<title>{escape(model)} {escape(method)}: {_short(v)}</title></rect>')
    legend = "".join(f'<li title="{escape(m)}"><span class="l{j % 6}">■</span> {escape(m)}</li>'
                     for j, m in enumerate(models))
    parts.append(f'</svg><figcaption><ul class="legend">{legend}</ul></figcaption></figure>')
    return "".join(parts)


def _short(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.2f}"


def report_html(lines: Iterable[Mapping[str, Any]], rows: Sequence[Summary],
                title: str = "planfilter benchmark report") -> str:
    data = report_data(lines, rows)
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False, default=str)
    # Inside <script> only "</" can end the element early; JSON allows "<\/".
    payload = payload.replace("</", "<\\/")
    charts = [bar_chart(rows, "success", "Success by method", 1.0),
              bar_chart(rows, "tokens", "Tokens per run by method")]
    return render("report.html.j2", title=title, data=payload, charts=charts,
                  runs=len(data["runs"]))
