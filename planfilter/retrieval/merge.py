"""ToolScopeMerger: find near-duplicate tools, merge them, and relabel the benchmark to match.

Stages (ToolScope, section 3):

S1 candidates   every tool's document (name, description, argument names) is embedded; each
                tool's ``neighbours`` nearest tools with cosine >= ``threshold`` are pairs.
S2 edges        a pair becomes an edge when (a) their contracts agree, same ``requires`` and
                same ``produces`` (always checked first: tools that differ in contract are
                never merged, whatever a judge says), and (b) the judge says they are
                interchangeable. Connected components of the edges are the proposed clusters.
S3 consolidate  Auto-Correction checks every pair inside a proposed cluster, not only its
                edges (equivalence judged pairwise is not transitive); a cluster that fails is
                split greedily, in registry order, into groups whose members are all pairwise
                equivalent. Each group of two or more keeps one representative: the lowest
                risk, then the most documented arguments, then registry order.

The result maps every original tool to exactly one merged tool (itself when unmerged); gold
chains and mocks of tasks are relabelled through that map so the benchmark still scores on
the merged registry.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from ..core.contracts import RISK_LEVELS, Registry, Tool
from ..core.errors import PlanfilterError
from ..core.frozen import thaw
from ..core.tasks import Suite, Task
from .embedders import Embedder
from .toolscope import tool_document

DEFAULT_THRESHOLD = 0.6
DEFAULT_NEIGHBOURS = 5
DEFAULT_JUDGE = "sim/judge"


class MergeError(PlanfilterError):
    """The merge cannot be applied as asked (e.g. a task's mocks conflict after relabelling)."""


class Judge(Protocol):
    @property
    def name(self) -> str: ...

    def __call__(self, a: Tool, b: Tool) -> tuple[bool, str]:
        """(interchangeable?, the reason in a sentence)."""
        ...


JUDGE_SYSTEM = (
    "You audit a tool registry for duplicates. Two tools are interchangeable when an agent "
    "could call either one for the same purpose with the same arguments and get the same "
    "kind of result. Answer 'yes: <reason>' or 'no: <reason>' in one line."
)


def judge_messages(a: Tool, b: Tool) -> list[dict[str, str]]:
    """The judge's prompt: only the two tools' names, descriptions and argument schemas."""
    def block(tool: Tool) -> str:
        return json.dumps(tool.function_schema()["function"], indent=1, sort_keys=True)

    user = (f"Tool A:\n{block(a)}\nTool B:\n{block(b)}\n"
            "Answer: are Tool A and Tool B interchangeable?")
    return [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": user}]


@dataclass(frozen=True)
class ModelJudge:
    """Asks a model through litellm (``sim/judge`` offline); any provider litellm knows."""

    name: str = DEFAULT_JUDGE

    def __call__(self, a: Tool, b: Tool) -> tuple[bool, str]:
        from ..models import complete

        reply = complete(self.name, judge_messages(a, b), [], seed=0)
        text = (reply.content or "").strip()
        verdict = text.lower().lstrip("*# ").startswith("yes")
        return verdict, text.splitlines()[0][:300] if text else "(no answer: taken as no)"


def contract_difference(a: Tool, b: Tool) -> str | None:
    """Why two tools' contracts differ, or None when requires, produces and the facts
    they need and establish agree."""
    problems = []
    if a.requires != b.requires:
        problems.append(f"requires {sorted(a.requires)} vs {sorted(b.requires)}")
    if a.produces != b.produces:
        problems.append(f"produces {sorted(a.produces)} vs {sorted(b.produces)}")
    for facts in ("needs", "establishes"):
        if getattr(a, facts) != getattr(b, facts):
            problems.append(f"{facts} {sorted(getattr(a, facts))} vs "
                            f"{sorted(getattr(b, facts))}")
    return "; ".join(problems) or None


@dataclass(frozen=True)
class Verdict:
    a: str
    b: str
    equivalent: bool
    #: "contract" when the contract check decided, else the judge's name.
    by: str
    reason: str


@dataclass(frozen=True)
class Cluster:
    members: tuple[str, ...]
    representative: str
    #: merged: the proposed cluster held; split: Auto-Correction cut a proposed cluster and
    #: this is one of its parts.
    status: Literal["merged", "split"]
    #: The proposed cluster this one came from (itself when it held).
    proposed: tuple[str, ...]
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class MergeResult:
    original: Registry
    registry: Registry
    #: original tool -> merged tool, for every original tool.
    mapping: Mapping[str, str]
    clusters: tuple[Cluster, ...]
    #: Proposed clusters Auto-Correction dissolved entirely (no two members equivalent).
    dissolved: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]
    candidates: tuple[tuple[str, str, float], ...]
    verdicts: tuple[Verdict, ...]
    settings: Mapping[str, Any] = field(default_factory=dict)


def candidate_pairs(registry: Registry, embedder: Embedder, threshold: float = DEFAULT_THRESHOLD,
                    neighbours: int = DEFAULT_NEIGHBOURS) -> list[tuple[str, str, float]]:
    """S1: pairs of tools among each other's nearest neighbours with cosine >= threshold."""
    names = registry.names
    vectors = embedder.encode([tool_document(t) for t in registry])
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    pairs: dict[tuple[int, int], float] = {}
    for i in range(len(names)):
        for j in np.argsort(-sims[i], kind="stable")[:neighbours]:
            if sims[i, j] >= threshold:
                pairs[(min(i, int(j)), max(i, int(j)))] = float(sims[i, j])
    return [(names[i], names[j], s) for (i, j), s in sorted(pairs.items())]


class _Decider:
    """Contract check, then the judge; every pair decided once, every decision recorded."""

    def __init__(self, registry: Registry, judge: Judge):
        self.registry, self.judge = registry, judge
        self.verdicts: dict[tuple[str, str], Verdict] = {}

    def __call__(self, a: str, b: str) -> Verdict:
        key = (a, b) if self.registry.position(a) < self.registry.position(b) else (b, a)
        if key not in self.verdicts:
            ta, tb = self.registry.tool(key[0]), self.registry.tool(key[1])
            differ = contract_difference(ta, tb)
            if differ:
                verdict = Verdict(*key, False, "contract", f"contracts differ: {differ}")
            else:
                same, why = self.judge(ta, tb)
                verdict = Verdict(*key, same, self.judge.name, why)
            self.verdicts[key] = verdict
        return self.verdicts[key]


def components(names: Sequence[str], edges: Sequence[tuple[str, str]]) -> list[tuple[str, ...]]:
    """Connected components with two or more members, each in ``names`` order."""
    parent = {n: n for n in names}

    def root(n: str) -> str:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for a, b in edges:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb, key=names.index)] = min(ra, rb, key=names.index)
    groups: dict[str, list[str]] = {}
    for n in names:
        groups.setdefault(root(n), []).append(n)
    return [tuple(g) for g in groups.values() if len(g) > 1]


def auto_correct(members: Sequence[str], decide: Callable[[str, str], Verdict]
                 ) -> tuple[list[tuple[str, ...]], list[str]]:
    """S3: the proposed cluster's parts whose members are all pairwise equivalent, and why
    any pair failed. A cluster that holds comes back whole."""
    groups: list[list[str]] = []
    reasons: list[str] = []
    for name in members:
        for group in groups:
            failed = [v for v in (decide(other, name) for other in group) if not v.equivalent]
            if not failed:
                group.append(name)
                break
            reasons.extend(f"{v.a} / {v.b}: {v.reason}" for v in failed)
        else:
            groups.append([name])
    return [tuple(g) for g in groups], reasons


def representative(registry: Registry, members: Sequence[str]) -> str:
    """Lowest risk, then the most documented arguments, then registry order."""
    def key(name: str) -> tuple[int, int, int]:
        tool = registry.tool(name)
        return (RISK_LEVELS.index(tool.risk), -len(tool.parameters.get("properties", {})),
                registry.position(name))

    return min(members, key=key)


def merge_registry(registry: Registry, *, embedder: Embedder, judge: Judge,
                   threshold: float = DEFAULT_THRESHOLD,
                   neighbours: int = DEFAULT_NEIGHBOURS) -> MergeResult:
    """Run S1-S3 on ``registry``; the original is left as it is."""
    decide = _Decider(registry, judge)
    candidates = candidate_pairs(registry, embedder, threshold, neighbours)
    edges = [(a, b) for a, b, _ in candidates if decide(a, b).equivalent]
    clusters: list[Cluster] = []
    dissolved = []
    for proposed in components(registry.names, edges):
        parts, reasons = auto_correct(proposed, decide)
        kept = [p for p in parts if len(p) > 1]
        if not kept:
            dissolved.append((proposed, tuple(reasons)))
        status: Literal["merged", "split"] = "merged" if len(parts) == 1 else "split"
        for part in kept:
            clusters.append(Cluster(part, representative(registry, part), status, proposed,
                                    tuple(reasons)))
    mapping = {n: n for n in registry.names}
    for cluster in clusters:
        for member in cluster.members:
            mapping[member] = cluster.representative
    merged = Registry(tools=tuple(t for t in registry if mapping[t.name] == t.name),
                      source=f"merged({registry.source or 'registry'})")
    return MergeResult(
        original=registry, registry=merged, mapping=mapping, clusters=tuple(clusters),
        dissolved=tuple(dissolved), candidates=tuple(candidates),
        verdicts=tuple(decide.verdicts.values()),
        settings={"embedder": getattr(embedder, "name", type(embedder).__name__),
                  "judge": judge.name, "threshold": threshold, "neighbours": neighbours},
    )


def relabel_task(task: Task, mapping: Mapping[str, str]) -> Task:
    """The task with gold chain and mocks named by merged tools.

    Mocks of tools merged into one must agree; the representative's own mock wins, then the
    gold chain's tool's; disagreeing outputs are an error naming the task and the tools.
    """
    gold = tuple(dict.fromkeys(mapping.get(n, n) for n in task.gold))
    mocks: dict[str, Any] = {}
    source: dict[str, str] = {}
    order = sorted(task.mocks, key=lambda n: (mapping.get(n, n) != n, n not in task.gold))
    for name in order:
        target = mapping.get(name, name)
        output = thaw(task.mocks[name])
        if target in mocks:
            if mocks[target] != output:
                raise MergeError(
                    f"task '{task.id}': mocks of '{source[target]}' and '{name}' differ "
                    f"({mocks[target]!r} vs {output!r}) but both become '{target}'")
            continue
        mocks[target], source[target] = output, name
    if gold == task.gold and set(mocks) == set(task.mocks):
        return task
    # Validated anew, so the relabelled task is frozen and checked like a loaded one.
    return Task.model_validate({**task.model_dump(), "gold": list(gold), "mocks": mocks})


def relabel_suite(suite: Suite, mapping: Mapping[str, str]) -> Suite:
    return Suite(tasks=tuple(relabel_task(t, mapping) for t in suite),
                 source=f"relabelled({suite.source or 'suite'})")
