"""cmtf-recover: a failed step is answered with a recovery set, never the same failing tool."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_agent import script  # noqa: F401  (the scripted litellm provider fixture)

from planfilter.bench.agent import AgentOptions, run_task
from planfilter.core.errors import ContractError
from planfilter.core.loading import load_registry, load_suite
from planfilter.core.resources import data_dir, default_registry
from planfilter.core.tasks import Task
from planfilter.core.validate import validate_paths
from planfilter.filters import FILTERS, PAPER_METHODS, Attempt, FilterOptions
from planfilter.filters.recovery import cmtf_recover, recover_filter
from planfilter.models import CallOptions
from planfilter.suites.mocked import execute

REGISTRY = load_registry(default_registry())
RECOVERY = load_suite(data_dir("tasks") / "recovery.yaml")
OPTIONS = AgentOptions(call=CallOptions(sleep=lambda s: None))


def _failed(tool: str, error: str = "down") -> FilterOptions:
    return FilterOptions(history=(Attempt(tool, f"tool {tool} failed: {error}"),))


def test_recovery_suite_shape_and_validation():
    assert len(RECOVERY) >= 24
    for domain in ("calendar", "email", "files"):
        assert sum(t.domain == domain for t in RECOVERY) >= 8
    bench = load_suite(data_dir("tasks") / "benchmark")
    assert not {t.id for t in RECOVERY} & {t.id for t in bench}
    assert all(t.failures for t in RECOVERY)
    report = validate_paths([*default_registry(), data_dir("tasks")])
    assert report.ok and not report.problems, report.problems


def test_failures_field_is_frozen_validated_and_checked(tmp_path: Path):
    task = RECOVERY.task("recover-email-draft-001")
    assert task.failures == {"search_emails": "mailbox unavailable"}
    with pytest.raises(TypeError):
        task.failures["x"] = "y"  # type: ignore[index]
    with pytest.raises(ValueError, match="failures"):
        Task.model_validate({**task.model_dump(), "failures": ["search_emails"]})
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "tasks:\n"
        "  - {id: t1, query: q, state: {date: d}, goal: [event_list], gold: [list_events],\n"
        "     mocks: {list_events: {}}, failures: {list_events: down, nope: x}}\n"
        "  - {id: t2, query: q, state: {date: d}, goal: [free_slots],\n"
        "     failures: {check_availability: down}}\n")
    problems = [str(p) for p in validate_paths([*default_registry(), bad]).problems]
    assert any("task 't1' field 'failures.nope': unknown tool 'nope'" in p for p in problems)
    assert any("'failures.list_events': the gold chain calls 'list_events'" in p
               for p in problems)
    assert any("task 't2' field 'failures': no route to the goal avoids" in p for p in problems)


def test_a_failing_tool_fails_in_the_environment():
    task = RECOVERY.task("recover-email-draft-001")
    args = {"contact_email": task.state["contact_email"], "email_topic": "Q3 budget"}
    out = execute(REGISTRY, task, task.state, "search_emails", args)
    assert not out.ok and out.error == "tool search_emails failed: mailbox unavailable"
    assert out.state == dict(task.state)
    assert execute(REGISTRY, task, task.state, "search_email_ids", args).ok


def test_without_a_failure_it_is_cmtf_and_other_filters_ignore_history():
    task = RECOVERY.task("recover-email-draft-001")
    plain = FILTERS["cmtf"](REGISTRY, task, task.state)
    assert cmtf_recover(REGISTRY, task, task.state).tools == plain.tools == ("search_emails",)
    for name in PAPER_METHODS:
        with_history = FILTERS[name](REGISTRY, task, task.state, _failed("search_emails"))
        assert with_history == FILTERS[name](REGISTRY, task, task.state), name


def test_recovery_set_replaces_the_failing_tool():
    email = RECOVERY.task("recover-email-draft-001")
    shown = cmtf_recover(REGISTRY, email, email.state, _failed("search_emails"))
    assert shown.tools == ("search_email_ids",)  # the tie, minus the failed tool
    assert "recovery set after failed search_emails" in shown.info
    files = RECOVERY.task("recover-files-read-001")
    shown = cmtf_recover(REGISTRY, files, files.state, _failed("search_files"))
    assert shown.tools == ("search_emails", "search_email_ids")  # another, longer route
    assert "search_files" not in shown.tools
    # a success that changed nothing counts as a failure too
    stuck = FilterOptions(history=(Attempt("search_emails", None, frozenset()),))
    assert "search_emails" not in cmtf_recover(REGISTRY, email, email.state, stuck).tools


def test_no_causal_path_falls_back_to_a_named_filter():
    task = RECOVERY.task("recover-calendar-list-001")
    options = FilterOptions(history=(Attempt("list_events", "x"), Attempt("get_day_agenda", "y")))
    shown = cmtf_recover(REGISTRY, task, task.state, options)
    assert shown.info.startswith("fallback keyword-5: no causal path avoiding failed "
                                 "list_events, get_day_agenda")
    assert shown.tools and not {"list_events", "get_day_agenda"} & set(shown.tools)
    unreachable = task.model_copy(update={"goal": frozenset({"no_such_variable"})})
    other = recover_filter("keyword-10")(REGISTRY, unreachable, task.state)
    assert other.info.startswith("fallback keyword-10: no causal path") and len(other.tools) == 10


def test_paper_methods_stop_at_an_environment_error_recover_goes_on(script):  # noqa: F811
    task = RECOVERY.task("recover-email-archive-001")
    args = {"contact_email": task.state["contact_email"], "email_topic": "newsletter"}
    script.call("search_emails", **args)
    strict = run_task(REGISTRY, task, method="cmtf", model="script/m", options=OPTIONS)
    assert len(strict.steps) == 1 and not strict.run.success
    assert strict.run.error == "tool search_emails failed: mailbox unavailable"
    assert strict.steps[0].tool_failed and strict.steps[0].done

    script.call("search_emails", **args)
    script.call("search_email_ids", **args)
    script.call("archive_email", email_id="msg_705")
    outcome = run_task(REGISTRY, task, method="cmtf-recover", model="script/m", options=OPTIONS)
    assert outcome.run.success and [s.chosen for s in outcome.steps] == [
        "search_emails", "search_email_ids", "archive_email"]
    first, second = outcome.steps[0], outcome.steps[1]
    assert first.tool_failed and first.error and not first.done
    assert second.visible == ("search_email_ids",) and "recovery set" in second.info
    # the model is told the call failed
    assert "search_emails -> failed: tool search_emails failed" in \
        script.seen[-2]["messages"][-1]["content"]


def test_recover_stays_within_the_step_limit(script):  # noqa: F811
    task = RECOVERY.task("recover-calendar-list-001")
    script.call("list_events", date="2026-12-04")
    script.call("get_day_agenda", date=20261204)  # invalid arguments: an environment error
    outcome = run_task(REGISTRY, task, method="cmtf-recover", model="script/m",
                       options=AgentOptions(max_steps=2, call=OPTIONS.call))
    assert len(outcome.steps) == 2 and not outcome.run.success
    assert outcome.run.error == "step limit (2) reached without the goal"


@pytest.mark.parametrize("model", ["sim/careful", "sim/confusable"])
def test_recover_beats_strict_cmtf_on_the_recovery_suite(model):
    success = {}
    for method in ("cmtf", "cmtf-recover"):
        runs = [run_task(REGISTRY, t, method=method, model=model, options=OPTIONS).run
                for t in RECOVERY]
        success[method] = sum(r.success for r in runs) / len(runs)
    # strict CMTF shows the failing tool and the run ends; the recovery set routes around it
    assert success == {"cmtf": 0.0, "cmtf-recover": 1.0}


def test_unknown_failure_field_shape_names_task_and_field(tmp_path: Path):
    bad = tmp_path / "t.yaml"
    bad.write_text("tasks:\n  - {id: t9, query: q, goal: [x], failures: {search_emails: 3}}\n")
    with pytest.raises(ContractError, match=r"task 't9' field 'failures.search_emails'"):
        load_suite(bad)
