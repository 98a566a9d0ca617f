"""The foundation commands, through click's runner, on the example and the bundled registry."""

from __future__ import annotations

import json
import subprocess
import sys

from click.testing import CliRunner
from conftest import FIXTURES

from planfilter.cli import cli

REG = str(FIXTURES / "example" / "registry.yaml")
TASKS = str(FIXTURES / "example" / "tasks.yaml")


def invoke(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_frontier_running_example_on_bundled_registry():
    state = ["--state", "date=2026-12-01", "--state", "event_description=dentist appointment",
             "--state", "new_time=16:00"]
    first = invoke("frontier", *state, "--goal", "event_updated")
    assert first.exit_code == 0, first.output
    assert first.output.splitlines()[0] == "frontier: search_events"
    second = invoke("frontier", *state, "--state", "event_id=evt_123", "--goal",
                    "event_updated", "--json")
    data = json.loads(second.output)
    assert data["frontier"] == ["update_event"]
    assert data["plan"] == ["update_event"]
    assert data["status"] == "solved" and data["planner"] == "pyperplan" and data["reason"] == ""


def test_frontier_task_and_options():
    result = invoke("frontier", "--registry", REG, "--tasks", TASKS, "--task",
                    "calendar-move-001", "--planner", "native", "--ties", "all", "--json")
    data = json.loads(result.output)
    assert data["frontier"] == ["search_events"] and data["ties"] == "all"


def test_frontier_unknown_goal_is_an_error_naming_it():
    result = CliRunner().invoke(cli, ["frontier", "--registry", REG, "--state", "date",
                                      "--goal", "refund"])
    assert result.exit_code == 1
    assert "--goal: no variable 'refund' in" in result.output


def test_unknown_task_and_planner_are_clean_errors():
    result = CliRunner().invoke(cli, ["frontier", "--registry", REG, "--tasks", TASKS,
                                      "--task", "nope"])
    assert result.exit_code == 1 and "no task 'nope'" in result.output
    assert "Traceback" not in result.output
    result = CliRunner().invoke(cli, ["frontier", "--registry", REG, "--goal", "x",
                                      "--planner", "magic"])
    assert result.exit_code == 1 and "unknown planner 'magic'" in result.output


def test_export_writes_pddl(tmp_path):
    result = invoke("export", "--registry", REG, "--tasks", TASKS, "--task",
                    "calendar-move-001", "--out", str(tmp_path))
    assert result.exit_code == 0
    domain = (tmp_path / "domain.pddl").read_text()
    assert "(:action update_event" in domain
    assert "(event_updated)" in (tmp_path / "problem.pddl").read_text()
    names = json.loads((tmp_path / "names.json").read_text())
    assert names["actions"]["search_events"] == "search_events"


def test_validate_reports_every_problem(tmp_path):
    bad = tmp_path / "tasks.yaml"
    bad.write_text("""
tasks:
  - id: t-unknown
    query: q
    state: {date: d}
    goal: [event_details]
    gold: [search_everything]
    mocks: {search_everything: {event_id: e}}
  - id: t-invalid
    query: q
    state: {date: d, event_description: e}
    goal: [event_details]
    gold: [read_event, search_events]
    mocks: {search_events: {event_id: e}, read_event: {event_details: x}}
  - id: t-nogoal
    query: q
    state: {date: d}
    goal: [refund_issued]
""")
    result = CliRunner().invoke(cli, ["validate", REG, str(bad)])
    assert result.exit_code == 1
    out = result.output
    assert "task 't-unknown' field 'gold.0': unknown tool 'search_everything'" in out
    assert "task 't-unknown' field 'mocks.search_everything': unknown tool" in out
    assert "task 't-invalid' field 'gold': not a causal path: step 1: read_event needs" in out
    assert "task 't-nogoal' field 'goal': unreachable: no tool produces goal variable(s) " \
           "refund_issued" in out
    ok = invoke("validate", REG, TASKS)
    assert ok.exit_code == 0 and "0 errors" in ok.output


def test_validate_bundled_data():
    result = CliRunner().invoke(cli, ["validate"])
    assert result.exit_code == 0, result.output


def test_planners_lists_available_and_missing():
    result = invoke("planners", "--json")
    rows = {r["name"]: r for r in json.loads(result.output)}
    assert rows["native"]["available"] and rows["pyperplan"]["available"]
    missing = [r for r in rows.values() if not r["available"]]
    assert all("not installed" in r["detail"] for r in missing)


def test_frontier_command_stays_light():
    code = ("import sys; from planfilter.cli import main; sys.argv=['planfilter','frontier',"
            "'--goal','event_updated','--state','date','--state','event_description',"
            "'--state','new_time']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "heavy=[m for m in ('litellm','unified_planning','matplotlib') if m in sys.modules]\n"
            "print('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120).stdout
    assert "frontier: search_events" in out
    assert "HEAVY []" in out
