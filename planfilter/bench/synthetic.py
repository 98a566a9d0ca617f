"""Seeded synthetic registries with the benchmark's mix, at any size, for benchmarks and tests.

Each registry holds workflow chains (a search tool, then tools that need what the previous
one produced, 1 to 4 steps to a goal), near-duplicates of chain tools (same contract, another
name: ties), premature and relevant-but-wrong tools (they need a chain's intermediate variable
and produce something no goal asks for), and cross-domain distractors that need only session
variables, so they are executable in every state but never goal-directed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..core.contracts import Registry, Tool

SESSION = ("user_id", "user_email", "timezone", "workspace_id", "locale", "current_date")
DOMAINS = ("calendar", "email", "files", "finance", "web", "support", "analytics", "payments",
           "security", "database", "crm", "hr")
VERBS = ("search", "read", "update", "summarize", "extract", "create", "delete", "send",
         "share", "list", "export", "archive")


@dataclass(frozen=True)
class Query:
    known: frozenset[str]
    goal: frozenset[str]
    steps: int


def synthetic_registry(size: int, seed: int = 0) -> tuple[Registry, tuple[Query, ...]]:
    """A registry of exactly ``size`` tools and goals of 1-4 steps on its chains."""
    rng = random.Random(seed)
    tools: list[Tool] = []
    names: set[str] = set()
    chains: list[tuple[str, ...]] = []  # variables x0 -> x1 -> ... (x0 and inputs known)

    def add(name: str, requires: set[str], produces: set[str], action: str) -> None:
        base, n = name, 1
        while name in names:
            n += 1
            name = f"{base}_v{n}"
        names.add(name)
        tools.append(Tool(name=name, requires=frozenset(requires), produces=frozenset(produces),
                          action=action, risk=rng.choice(("low", "low", "medium", "high"))))

    # About 30% chain tools, 10% near-duplicates, 20% premature/wrong, 40% cross-domain.
    n_chain = max(4, size * 3 // 10)
    chain_id = 0
    while sum(1 for t in tools) < n_chain:
        domain = rng.choice(DOMAINS)
        length = rng.randint(1, 4)
        variables = [f"{domain}_input_{chain_id}"] + [
            f"{domain}_{VERBS[k % len(VERBS)]}_{chain_id}_{k}" for k in range(length)]
        extra = f"{domain}_param_{chain_id}"
        for k in range(length):
            needs = {variables[k]} | ({extra} if k == length - 1 else set())
            add(f"{domain}_{VERBS[k]}_{chain_id}", needs, {variables[k + 1]}, VERBS[k])
        chains.append(tuple(variables) + (extra,))
        chain_id += 1
    core = list(tools)
    n_dup = size // 10
    for _ in range(n_dup):
        t = rng.choice(core)
        add(f"{t.name}_alt", set(t.requires), set(t.produces), t.action or "search")
    n_wrong = size // 5
    for i in range(n_wrong):
        chain = rng.choice(chains)
        mid = rng.choice(chain[:-1])
        verb = rng.choice(VERBS)
        add(f"{verb}_{mid}_{i}", {mid}, {f"side_effect_{i}"}, verb)
    i = 0
    while len(tools) < size:
        domain = rng.choice(DOMAINS)
        verb = rng.choice(VERBS)
        needs = set(rng.sample(SESSION, rng.randint(0, 2)))
        add(f"{domain}_{verb}_{i}", needs, {f"{domain}_{verb}_result_{i}"}, verb)
        i += 1
    rng.shuffle(tools)
    registry = Registry(tools=tuple(tools[:size]))
    queries = []
    for chain in chains:
        steps = len(chain) - 2
        known = frozenset(SESSION) | {chain[0], chain[-1]}
        queries.append(Query(known, frozenset({chain[-2]}), steps))
    return registry, tuple(queries)
