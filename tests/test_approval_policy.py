"""One approval policy: one type (planfilter.filters.risk.ApprovalPolicy), one default
(``untainted``) for the guard and the session; the gateway's ``never`` is its own explicit
choice, and its unattended decision is the library's ``approve``. The guard reads the
request and the goal as a filter query, not as a benchmark task."""

from __future__ import annotations

from typing import get_args

import pytest

from planfilter.core.contracts import Registry
from planfilter.core.loading import load_registry, load_suite
from planfilter.core.resources import default_registry, default_suite
from planfilter.core.tasks import Task
from planfilter.filters import FILTERS, Visible
from planfilter.filters.base import Query
from planfilter.filters.guard import ToolGuard
from planfilter.filters.risk import (
    DEFAULT_POLICY,
    POLICIES,
    ApprovalPolicy,
    ApprovalRequest,
    approve,
)
from planfilter.gateway.service import APPROVE_RISKY, Checked, GatewayOptions, unattended
from planfilter.live import Session

REGISTRY = load_registry(default_registry())
MOVE = load_suite(default_suite()).task("calendar-move-001")


def test_one_type_and_one_default():
    assert POLICIES == get_args(ApprovalPolicy) and DEFAULT_POLICY == "untainted"
    assert ToolGuard(REGISTRY, MOVE.goal).policy == DEFAULT_POLICY
    assert Session(REGISTRY).policy == DEFAULT_POLICY
    # the gateway's own default, explicit: nobody was shown the call
    assert GatewayOptions().approve_risky == "never"
    assert set(APPROVE_RISKY) == set(POLICIES) - {"ask"}


@pytest.mark.parametrize("policy", APPROVE_RISKY)
@pytest.mark.parametrize("tainted", [False, True])
def test_the_gateway_decides_a_contracted_call_as_the_library_does(policy, tainted):
    concerns = ("x.write is high-risk",) + (
        ("sensitive argument 'path' = \"/x\" was not given by the user",) if tainted else ())
    checked = Checked(task=None, tool="x.write", arguments={}, risky=True,  # type: ignore[arg-type]
                      concerns=concerns)
    request = ApprovalRequest("x.write", {}, {}, frozenset(), concerns,
                              tainted=concerns[1:])
    assert (unattended(policy, checked, "why") is None) is \
        approve(policy, request, None).approved


def test_the_guard_hands_its_filter_a_query_not_a_task(monkeypatch):
    seen = []

    def record(registry: Registry, task, state, options=None) -> Visible:
        seen.append(task)
        return Visible(registry.names)

    monkeypatch.setitem(FILTERS, "recording", record)
    guard = ToolGuard(REGISTRY, MOVE.goal, "recording", query=MOVE.query)
    guard.visible(dict(MOVE.state))
    unnamed = ToolGuard(REGISTRY, frozenset({"b_var", "a_var"}), "recording")
    unnamed.visible({})
    assert seen == [Query(MOVE.query, MOVE.goal), Query("a_var b_var", frozenset({"a_var",
                                                                                   "b_var"}))]
    assert not any(isinstance(q, Task) for q in seen)
