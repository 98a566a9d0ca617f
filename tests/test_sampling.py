"""``stratified_sample`` and ``planfilter run --sample``: balanced by domain and family,
deterministic, and in suite order."""

from __future__ import annotations

import json
from collections import Counter
from math import ceil

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from planfilter.bench.sampling import stratified_sample
from planfilter.cli import cli
from planfilter.core.errors import PlanfilterError
from planfilter.core.loading import load_suite
from planfilter.core.resources import default_suite
from planfilter.core.tasks import Suite, Task

DOMAINS = [None, "calendar", "email", "files", "web"]
FAMILIES = [None, "move", "send", "read", "share", "delete"]


@st.composite
def suites(draw, min_per_domain: int = 0) -> Suite:
    """Suites of up to four domains (None among them), families mixed and tasks shuffled."""
    domains = draw(st.lists(st.sampled_from(DOMAINS), min_size=1, max_size=4, unique=True))
    cells = [(domain, family) for domain in domains
             for family in draw(st.lists(st.sampled_from(FAMILIES),
                                         min_size=max(min_per_domain, 1), max_size=12))]
    cells = draw(st.permutations(cells))
    tasks = tuple(Task(id=f"t{i:02d}", domain=domain, family=family, query="q", goal={"g"})
                  for i, (domain, family) in enumerate(cells))
    return Suite(tasks=tasks, source="drawn.yaml")


def ids(suite: Suite) -> list[str]:
    return [task.id for task in suite]


def balanced(counts: Counter, sizes: Counter) -> bool:
    """No group is two or more below another unless it gave all it has."""
    return all(counts[a] >= counts[b] - 1 or counts[a] == sizes[a]
               for a in sizes for b in sizes)


@settings(max_examples=300, deadline=None)
@given(suites(), st.integers(1, 60))
def test_sample_is_a_balanced_ordered_subset(suite, n):
    sample = stratified_sample(suite, n)
    assert len(sample) == min(n, len(suite))
    assert len(set(ids(sample))) == len(sample)
    chosen = set(ids(sample))
    assert ids(sample) == [t for t in ids(suite) if t in chosen]  # a subset, in suite order
    domain_sizes = Counter(t.domain for t in suite)
    domain_counts = Counter(t.domain for t in sample)
    assert balanced(domain_counts, domain_sizes)
    for domain in domain_sizes:
        family_sizes = Counter(t.family for t in suite if t.domain == domain)
        family_counts = Counter(t.family for t in sample if t.domain == domain)
        assert balanced(family_counts, family_sizes)
        # as many distinct families as the domain's share allows
        assert len(family_counts) == min(domain_counts[domain], len(family_sizes))
        for family in family_sizes:  # within a family, the first tasks in suite order
            mine = [t.id for t in suite if (t.domain, t.family) == (domain, family)]
            assert mine[:family_counts[family]] == [
                t.id for t in sample if (t.domain, t.family) == (domain, family)]


@settings(max_examples=300, deadline=None)
@given(suites(), st.data())
def test_domains_with_enough_tasks_get_equal_shares(suite, data):
    sizes = Counter(t.domain for t in suite)
    # every domain holds at least ceil(n / domains) tasks, its equal share
    n = data.draw(st.integers(1, len(sizes) * min(sizes.values())))
    counts = Counter(t.domain for t in stratified_sample(suite, n))
    assert max(counts[d] for d in sizes) - min(counts[d] for d in sizes) <= 1


@settings(max_examples=300, deadline=None)
@given(suites(), st.integers(1, 60))
def test_families_with_enough_tasks_get_equal_shares(suite, n):
    sample = stratified_sample(suite, n)
    for domain in {t.domain for t in suite}:
        sizes = Counter(t.family for t in suite if t.domain == domain)
        counts = Counter(t.family for t in sample if t.domain == domain)
        share = ceil(sum(counts.values()) / len(sizes))
        if all(size >= share for size in sizes.values()):
            assert max(counts[f] for f in sizes) - min(counts[f] for f in sizes) <= 1


@settings(max_examples=200, deadline=None)
@given(suites(), st.integers(1, 60))
def test_sample_is_deterministic_and_grows_by_adding(suite, n):
    sample = stratified_sample(suite, n)
    again = stratified_sample(Suite(tasks=suite.tasks, source=suite.source), n)
    assert again == sample and ids(again) == ids(sample)
    # a larger sample keeps every task of a smaller one
    assert set(ids(sample)) <= set(ids(stratified_sample(suite, n + 1)))


@given(suites(), st.integers(0, 10))
def test_a_sample_as_large_as_the_suite_is_the_suite(suite, extra):
    assert stratified_sample(suite, len(suite) + extra) is suite


@given(suites(), st.integers(-5, 0))
def test_a_sample_below_one_task_is_an_error(suite, n):
    with pytest.raises(PlanfilterError, match=rf"--sample\) must be at least 1, not {n}$"):
        stratified_sample(suite, n)


def test_the_source_says_it_is_a_sample():
    suite = Suite(tasks=tuple(Task(id=f"t{i}", query="q", goal={"g"}) for i in range(5)),
                  source="tasks.yaml")
    assert stratified_sample(suite, 2).source == "tasks.yaml (stratified sample of 2 of 5 tasks)"


@pytest.fixture(scope="module")
def bundled():
    return load_suite(default_suite())


def test_eighteen_bundled_tasks_cover_six_families_in_each_domain(bundled):
    families = {d: {t.family for t in bundled if t.domain == d}
                for d in ("calendar", "email", "files")}
    assert {d: len(f) >= 6 for d, f in families.items()} == dict.fromkeys(families, True)
    sample = stratified_sample(bundled, 18)
    assert Counter(t.domain for t in sample) == {"calendar": 6, "email": 6, "files": 6}
    assert len({(t.domain, t.family) for t in sample}) == 18
    # pinned: a sampled run resumed by a later version must see the same tasks
    assert ids(sample) == [
        "calendar-move-001", "calendar-reschedule-006", "calendar-summarize-008",
        "calendar-details-011", "calendar-invite-012", "calendar-cancel-015",
        "email-draft-001", "email-summarize-006", "email-deadline-009", "email-actions-012",
        "email-forward-014", "email-archive-016",
        "files-summarize-001", "files-section-004", "files-extract-007", "files-tables-010",
        "files-translate-011", "files-share-012",
    ]


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_run_sample_runs_that_many_tasks_and_resumes(tmp_path):
    args = ["run", "--sample", "3", "--methods", "cmtf", "--models", "sim/careful",
            "--no-plots", "--out", str(tmp_path)]
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in (tmp_path / "traces.jsonl").read_text().splitlines()]
    runs = [line for line in lines if line["type"] == "run"]
    assert sorted(r["task"] for r in runs) == [
        "calendar-move-001", "email-draft-001", "files-summarize-001"]
    again = invoke(*args, "--resume")
    assert again.exit_code == 0, again.output
    assert "resumed: 3 runs were already complete, 0 ran now" in again.output


def test_run_sample_zero_is_a_message_not_a_traceback(tmp_path):
    result = invoke("run", "--sample", "0", "--methods", "cmtf", "--models", "sim/careful",
                    "--no-plots", "--out", str(tmp_path))
    assert result.exit_code != 0
    assert "'--sample': 0 is not in the range" in result.output
    assert "Traceback" not in result.output
