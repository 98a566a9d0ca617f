"""Files of a merge: merged registry, relabelled tasks, merge_report.md and merge_report.json.

Also measures what merging does to CMTF: how many frontiers along the gold chains are ties
(``ties="all"`` returns more than one tool) before and after the merge.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from ..core.contracts import Registry
from ..core.frontier import compute_frontier
from ..core.outputs import OutputFolder
from ..core.tasks import Suite
from .embedders import Embedder, get_embedder, try_embedder
from .merge import (
    DEFAULT_JUDGE,
    DEFAULT_NEIGHBOURS,
    MergeResult,
    ModelJudge,
    merge_registry,
    relabel_suite,
)

#: Cosine thresholds of S1 per embedder: hashing vectors of paraphrases are less alike.
THRESHOLDS = {"minilm": 0.5, "hashing": 0.35}


@dataclass(frozen=True)
class TieCount:
    #: Frontiers computed: one per step of every task's gold chain.
    frontiers: int
    #: Of those, the ones where more than one tool starts a minimal plan.
    tied: int
    #: Tasks with at least one tied frontier.
    tasks_with_ties: int


def count_ties(registry: Registry, suite: Suite, planner: str = "native") -> TieCount:
    """Walk every gold chain and count frontiers with ``ties="all"`` wider than one tool."""
    frontiers = tied = tasks = 0
    for task in suite:
        known = set(task.state)
        task_tied = False
        for name in task.gold:
            if task.goal <= known or name not in registry:
                break
            result = compute_frontier(registry, known, task.goal, planner=planner, ties="all")
            frontiers += 1
            if len(result.frontier) > 1:
                tied += 1
                task_tied = True
            known |= registry.tool(name).post
        tasks += task_tied
    return TieCount(frontiers, tied, tasks)


def default_embedder() -> tuple[Embedder, str]:
    """MiniLM when the toolscope extra is installed, else the hashing embedder; and why."""
    embedder, why = try_embedder("minilm")
    if embedder is not None:
        return embedder, "minilm"
    return get_embedder("hashing"), f"hashing (minilm unavailable: {why.splitlines()[0]})"


def merge_for(registry: Registry, *, embedder: str | None = None, judge: str = DEFAULT_JUDGE,
              threshold: float | None = None, neighbours: int = DEFAULT_NEIGHBOURS
              ) -> tuple[MergeResult, str]:
    """Merge with named components; returns the result and a note on the embedder used."""
    if embedder is None:
        chosen, note = default_embedder()
    else:
        chosen, note = get_embedder(embedder), embedder
    limit = threshold if threshold is not None else THRESHOLDS.get(chosen.name, 0.5)
    result = merge_registry(registry, embedder=chosen, judge=ModelJudge(judge),
                            threshold=limit, neighbours=neighbours)
    return result, note


def registry_yaml(registry: Registry, description: str = "") -> str:
    tools = [t.model_dump(mode="json", exclude_none=True) for t in registry]
    doc: dict[str, Any] = {"description": description} if description else {}
    doc["tools"] = tools
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def suite_yaml(suite: Suite, description: str = "") -> str:
    tasks = [t.model_dump(mode="json", exclude_none=True) for t in suite]
    doc: dict[str, Any] = {"description": description} if description else {}
    doc["tasks"] = tasks
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def report_data(result: MergeResult, note: str, ties: tuple[TieCount, TieCount] | None
                ) -> dict[str, Any]:
    return {
        "settings": {**result.settings, "embedder_note": note},
        "tools_before": len(result.original), "tools_after": len(result.registry),
        "candidates": [{"a": a, "b": b, "cosine": round(s, 4)} for a, b, s in result.candidates],
        "clusters": [asdict(c) for c in result.clusters],
        "dissolved": [{"proposed": list(p), "reasons": list(r)} for p, r in result.dissolved],
        "verdicts": [asdict(v) for v in result.verdicts],
        "mapping": {k: v for k, v in result.mapping.items() if k != v},
        "ties": None if ties is None else {"before": asdict(ties[0]), "after": asdict(ties[1])},
    }


def report_markdown(data: dict[str, Any]) -> str:
    s = data["settings"]
    verdicts = data["verdicts"]
    by_contract = sum(1 for v in verdicts if v["by"] == "contract")
    lines = [
        "# ToolScopeMerger report\n",
        f"{data['tools_before']} tools -> {data['tools_after']} tools. Embedder "
        f"{s['embedder_note']}, cosine >= {s['threshold']} among {s['neighbours']} nearest "
        f"neighbours: {len(data['candidates'])} candidate pairs; {by_contract} rejected by the "
        f"contract check (different requires or produces), "
        f"{len(verdicts) - by_contract} sent to the judge {s['judge']}.\n",
        "## Clusters\n",
    ]
    if not data["clusters"]:
        lines.append("No cluster: nothing was merged.\n")
    for c in data["clusters"]:
        why = {"merged": "kept: every pair passed the contract check and the judge",
               "split": "split by Auto-Correction from " + ", ".join(c["proposed"])}[c["status"]]
        lines.append(f"- **{c['representative']}** <- {', '.join(c['members'])} ({why})")
        lines.extend(f"  - {r}" for r in c["reasons"])
    for d in data["dissolved"]:
        lines.append(f"- dissolved by Auto-Correction: {', '.join(d['proposed'])}")
        lines.extend(f"  - {r}" for r in d["reasons"])
    judged = [v for v in verdicts if v["by"] != "contract"]
    lines += ["", "## Judge verdicts\n"]
    lines += [f"- {v['a']} / {v['b']}: {'yes' if v['equivalent'] else 'no'} ({v['reason']})"
              for v in judged] or ["(none)"]
    lines += ["", "## Rejected by the contract check (first 20)\n"]
    rejected = [v for v in verdicts if v["by"] == "contract"]
    lines += [f"- {v['a']} / {v['b']}: {v['reason']}" for v in rejected[:20]] or ["(none)"]
    if data["ties"]:
        b, a = data["ties"]["before"], data["ties"]["after"]
        lines += [
            "", "## CMTF ties before and after merging\n",
            "Frontiers along every task's gold chain, with `ties=\"all\"` (every tool that "
            "starts some minimal plan):\n",
            "| Registry | Frontiers | Tied (>1 tool) | Tasks with a tie |", "|---|---:|---:|---:|",
            f"| original | {b['frontiers']} | {b['tied']} | {b['tasks_with_ties']} |",
            f"| merged | {a['frontiers']} | {a['tied']} | {a['tasks_with_ties']} |",
        ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class MergeFiles:
    registry: Path
    tasks: Path | None
    report_md: Path
    report_json: Path


MERGE_FILES = ("registry.yaml", "tasks.yaml", "merge_report.md", "merge_report.json")


def write_merge(out: Path, result: MergeResult, note: str, suite: Suite | None = None,
                *, force: bool = False) -> tuple[MergeFiles, dict[str, Any]]:
    """Write the merged registry, relabelled tasks (given a suite) and the reports, each
    atomically, under the folder's manifest (planfilter.core.outputs): a file planfilter did
    not write is replaced only when ``force``d, and a tasks.yaml of an earlier merge that
    this one does not write is removed."""
    outputs = OutputFolder(out, force=force)
    outputs.claim([n for n in MERGE_FILES if suite is not None or n != "tasks.yaml"])
    reg_path = outputs.write("registry.yaml", registry_yaml(
        result.registry, "Merged by planfilter merge (ToolScopeMerger)."))
    tasks_path = None
    ties = None
    if suite is not None:
        relabelled = relabel_suite(suite, result.mapping)
        tasks_path = outputs.write("tasks.yaml", suite_yaml(
            relabelled, "Relabelled onto the merged registry."))
        ties = (count_ties(result.original, suite), count_ties(result.registry, relabelled))
    data = report_data(result, note, ties)
    md = outputs.write("merge_report.md", report_markdown(data))
    js = outputs.write("merge_report.json", json.dumps(data, indent=2, sort_keys=True) + "\n")
    outputs.remove_stale(MERGE_FILES)
    return MergeFiles(reg_path, tasks_path, md, js), data


def merged_inputs(registry: Registry, suite: Suite, out: Path, *, force: bool = False
                  ) -> tuple[Registry, Suite]:
    """``planfilter run --merge``: the merged registry and relabelled suite (default
    embedder, ``sim/judge``), with the merge's files written to ``out``."""
    result, note = merge_for(registry)
    write_merge(out, result, note, suite, force=force)
    return result.registry, relabel_suite(suite, result.mapping)
