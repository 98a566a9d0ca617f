"""PDDL rendering: golden files, byte stability, and other parsers reading it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GOLDEN
from hypothesis import given, settings
from hypothesis import strategies as st

from planfilter.core.compile import compile_problem
from planfilter.core.contracts import Registry, Tool


def problem_for(registry, suite, objective="length", risk_lambda=0.0):
    task = suite.task("calendar-move-001")
    return compile_problem(registry, task.known, task.goal, objective=objective,
                           risk_lambda=risk_lambda, name=task.id)


@pytest.mark.parametrize("objective,suffix,lam", [("length", "", 0.0), ("cost", ".cost", 0.5)])
def test_golden_files(example_registry, example_suite, objective, suffix, lam):
    problem = problem_for(example_registry, example_suite, objective, lam)
    assert problem.domain.text == (GOLDEN / f"calendar-move-001{suffix}.domain.pddl").read_text()
    assert problem.text == (GOLDEN / f"calendar-move-001{suffix}.problem.pddl").read_text()


def test_rendering_is_byte_stable(example_registry, example_suite):
    a = problem_for(example_registry, example_suite)
    b = problem_for(example_registry, example_suite)
    assert a.domain.text.encode() == b.domain.text.encode() and a.text == b.text


def test_actions_in_registry_order(example_registry, example_suite):
    text = problem_for(example_registry, example_suite).domain.text
    positions = [text.index(f"(:action {n}\n") for n in example_registry.names]
    assert positions == sorted(positions)


hostile = st.text(min_size=0, max_size=60)


@settings(max_examples=100, deadline=None)
@given(description=hostile, action=st.text(max_size=20))
def test_user_text_never_reaches_pddl(description, action):
    """Descriptions and free-text fields are not rendered, so they cannot break the syntax."""
    registry = Registry(tools=(Tool(name="a", description=description, action=action or None,
                                    produces=["x"]),))
    text = compile_problem(registry, set(), {"x"}).domain.text
    baseline = compile_problem(Registry(tools=(Tool(name="a", produces=["x"]),)), set(), {"x"})
    assert text == baseline.domain.text


def test_pddl_package_parses(example_registry, example_suite):
    pytest.importorskip("pddl")
    from pddl.formatter import domain_to_string
    from pddl.parser.domain import DomainParser
    from pddl.parser.problem import ProblemParser

    problem = problem_for(example_registry, example_suite)
    domain = DomainParser()(problem.domain.text)
    parsed = ProblemParser()(problem.text)
    assert {a.name for a in domain.actions} == set(example_registry.names)
    assert parsed.name == "calendar-move-001"
    # Round trip through the pddl package's formatter keeps the same domain.
    assert DomainParser()(domain_to_string(domain)) == domain


def test_unified_planning_reads_and_fast_downward_solves(example_registry, example_suite,
                                                        tmp_path):
    pytest.importorskip("unified_planning")
    fd = pytest.importorskip("up_fast_downward")
    from unified_planning.io import PDDLReader

    problem = problem_for(example_registry, example_suite)
    up_problem = PDDLReader().parse_problem_string(problem.domain.text, problem.text)
    assert len(up_problem.actions) == len(example_registry)
    (tmp_path / "domain.pddl").write_text(problem.domain.text)
    (tmp_path / "problem.pddl").write_text(problem.text)
    driver = Path(fd.__file__).parent / "downward" / "fast-downward.py"
    if not driver.exists():
        pytest.skip("Fast Downward driver not found")
    subprocess.run([sys.executable, str(driver), "domain.pddl", "problem.pddl", "--search",
                    "astar(blind())"], cwd=tmp_path, check=True, capture_output=True,
                   timeout=120)
    plan = (tmp_path / "sas_plan").read_text().splitlines()
    assert [line for line in plan if not line.startswith(";")] == [
        "(search_events )", "(update_event )"]
