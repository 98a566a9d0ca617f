"""Suites the runner can run: one small interface, one table of kinds.

A suite gives the runner its contracts (a registry), its tasks (planfilter ``Task``), an
environment per run that executes calls, a success check on each run's end and, for suites
with prompt injections, the (user task, injection task) pairs and a security check. Two
kinds: ``yaml`` (the bundled YAML suites and their mocks) and ``agentdojo``
(``agentdojo:banking`` and the other AgentDojo suites, with AgentDojo's own tools, checks
and attacks). Imports ``core`` and ``models``; ``bench`` and ``cli`` build on it.
"""

from __future__ import annotations

from .base import (
    BenchSuite,
    Case,
    Environment,
    Execution,
    GroundCall,
    SuiteOptions,
    Verdict,
    sample_injections,
)
from .kinds import SUITE_KINDS, load_bench_suite

__all__ = ["SUITE_KINDS", "BenchSuite", "Case", "Environment", "Execution", "GroundCall",
           "SuiteOptions", "Verdict", "load_bench_suite", "sample_injections"]
