"""A walk of the command line as a hostile new user: every command, given bad input.

Each case of :data:`CASES` is one command with one bad input, run in process. Every case
must end with exit != 0, exactly one ``Error`` line that names the culprit, no traceback,
and every file of the working folder as it was (hashed before and after): a command that
refuses must refuse before it writes. Each case says which failure it guards against
(``kind``): a traceback, data loss, a silent wrong result (exit 0 on a figure computed on
nothing, a typo ignored, a run of zeros), or a wrong exit code (an error reported as a
success). Hypothesis draws further option values: numbers, comma lists and paths.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planfilter.cli import cli

FIXTURES = Path(__file__).parent / "fixtures" / "example"
UNSET = "PLANFILTER_WALK_UNSET_VARIABLE"
#: The smallest run: the example registry's two tasks, one method, the offline model.
RUN_BASE = ("run", "--registry", "{ws}/reg.yaml", "--tasks", "{ws}/tasks.yaml", "--no-plots",
            "--concurrency", "1")
SMALL_RUN = (*RUN_BASE, "--methods", "cmtf", "--models", "sim/careful")
PROBLEM = ("--registry", "{ws}/reg.yaml", "--goal", "event_updated", "--state", "date",
           "--state", "event_description", "--state", "new_time")
#: bench on the smallest cell, so that a bad value that is accepted costs little.
TINY_BENCH = ("bench", "--planners", "native", "--sizes", "10", "--queries", "1", "--budget",
              "0.2", "--cell-timeout", "20")


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]
    #: A word the error line must hold: the option, value, file or name at fault.
    culprit: str
    #: The failure this case guards against: traceback, data loss, silent, exit code.
    kind: str

    @property
    def command(self) -> str:
        return " ".join(a for a in self.args[:2] if not a.startswith("-")) \
            if self.args[0] == "contracts" else self.args[0]


def _numbers(command: tuple[str, ...], option: str, values: list[str], kind: str,
             tag: str) -> list[Case]:
    return [Case(f"{tag}{option}={v or 'empty'}", (*command, option, v), option, kind)
            for v in values]


NOT_FINITE = ["nan", "inf", "-inf", "NaN", "1e400", "abc"]
NEGATIVE = ["-1", "-0.5", "-1e9"]
NOT_POSITIVE_INT = ["0", "-1", "-100", "1.5", "two", "nan"]
TOO_BIG_INT = ["100000000000"]


def _cases() -> list[Case]:
    cases: list[Case] = []
    frontier = ("frontier", *PROBLEM, "--planner", "native")
    export = ("export", *PROBLEM, "--out", "{ws}/pddl")
    # -- numbers: finite, in range --------------------------------------------------------
    cases += _numbers(frontier, "--risk-lambda", NOT_FINITE + NEGATIVE, "exit code", "frontier")
    cases += _numbers(frontier, "--timeout", NOT_FINITE + NEGATIVE + ["0"], "exit code",
                      "frontier")
    cases += _numbers(export, "--risk-lambda", NOT_FINITE + NEGATIVE, "traceback", "export")
    for option in ("--seeds", "--concurrency", "--max-steps", "--sample"):
        cases += _numbers((*SMALL_RUN, "--out", "{ws}/r"), option,
                          NOT_POSITIVE_INT + TOO_BIG_INT[: option != "--sample"], "silent",
                          "run")
    for option in ("--repeat", "--queries"):
        cases += _numbers(TINY_BENCH, option, ["0", "-1", "x", "nan"], "silent", "bench")
    for option in ("--timeout", "--budget", "--cell-timeout"):
        cases += _numbers(TINY_BENCH, option, ["nan", "inf", "-1", "0"], "silent", "bench")
    cases += [Case(f"bench--sizes={v}", (*TINY_BENCH, "--repeat", "1", "--sizes", v),
                   "--sizes" if v in ("", ",,") else v.split(",")[-1].strip() or "--sizes",
                   "silent")
              for v in ("0", "-5", "10,0", "abc", "10,x", "2000000")]
    cases += _numbers(("merge", "--registry", "{ws}/reg.yaml", "--tasks", "{ws}/tasks.yaml",
                       "--out", "{ws}/m"), "--threshold", ["nan", "inf", "2", "-3"], "silent",
                      "merge")
    cases += _numbers(("merge", "--registry", "{ws}/reg.yaml", "--out", "{ws}/m"),
                      "--neighbours", ["0", "-2"], "traceback", "merge")
    cases += _numbers(("serve", "--config", "{ws}/mcp.json", "--contracts", "{ws}/reg.yaml"),
                      "--timeout", ["nan", "inf", "0", "-1"], "exit code", "serve")
    cases += _numbers(("contracts", "learn", "{ws}/prev/traces.jsonl", "--contracts",
                       "{ws}/reg.yaml"), "--min-evidence", ["0", "-1", "x"], "exit code",
                      "learn")
    # -- names: goals, state, tasks, methods, models, planners ----------------------------
    for command in (("frontier", "--planner", "native"), ("export", "--out", "{ws}/pddl")):
        name = command[0]
        base = (*command, "--registry", "{ws}/reg.yaml")
        cases += [
            Case(f"{name}-goal-typo", (*base, "--goal", "event_updpated", "--state", "date"),
                 "event_updpated", "exit code"),
            Case(f"{name}-goal-unknown", (*base, "--goal", "nothing_like_it", "--state",
                                          "date"), "nothing_like_it", "exit code"),
            Case(f"{name}-goal-second", (*base, "--goal", "event_updated", "--goal",
                                         "evnt_created", "--state", "date"), "evnt_created",
                 "exit code"),
            Case(f"{name}-state-typo", (*base, "--goal", "event_updated", "--state", "dat",
                                        "--state", "event_description", "--state",
                                        "new_time"), "dat", "silent"),
            Case(f"{name}-state-valued-typo", (*base, "--goal", "event_updated", "--state",
                                               "new_tme=16:00", "--state", "date"),
                 "new_tme", "silent"),
            Case(f"{name}-task-typo", (*command, "--registry", "{ws}/reg.yaml", "--tasks",
                                       "{ws}/tasks.yaml", "--task", "calendar-move-01"),
                 "calendar-move-01", "exit code"),
            Case(f"{name}-from-env-unset", (*command, "--registry", "{ws}/envreg.yaml",
                                            "--goal", "listing"), UNSET, "silent"),
            Case(f"{name}-empty-state", (*base, "--goal", "event_updated", "--state", "=x"),
                 "--state", "exit code"),
        ]
    cases += [
        Case("frontier-request-state-typo",
             ("frontier", "--registry", "{ws}/reg.yaml", "--request", "move my meeting",
              "--state", "dte=2026-12-01"), "dte", "silent"),
        Case("frontier-request-broken-model",
             ("frontier", "--registry", "{ws}/reg.yaml", "--request", "move my meeting",
              "--resolver", "model", "--model", "broken/x"), "broken", "silent"),
        Case("frontier-request-no-model",
             ("frontier", "--registry", "{ws}/reg.yaml", "--request", "move my meeting",
              "--resolver", "model"), "--model", "silent"),
        Case("frontier-request-unknown-called",
             ("frontier", "--registry", "{ws}/reg.yaml", "--request", "move my meeting",
              "--called", "no_such_tool"), "no_such_tool", "exit code"),
        Case("frontier-planner-unknown", ("frontier", *PROBLEM, "--planner", "nosuch"),
             "nosuch", "exit code"),
    ]
    run = (*SMALL_RUN, "--out", "{ws}/r")
    cases += [
        Case("run-models-unknown-provider", (*RUN_BASE, "--methods", "cmtf", "--models",
                                             "nosuch/xyz", "--out", "{ws}/r"), "nosuch",
             "silent"),
        Case("run-models-second-unknown", (*RUN_BASE, "--methods", "cmtf", "--models",
                                           "sim/careful,opena/gpt", "--out", "{ws}/r"),
             "opena", "silent"),
        Case("run-models-no-provider", (*RUN_BASE, "--methods", "cmtf", "--models", "gpt4",
                                        "--out", "{ws}/r"), "gpt4", "silent"),
        Case("run-models-sim-unknown", (*RUN_BASE, "--methods", "cmtf", "--models",
                                        "sim/nosuchprofile", "--out", "{ws}/r"), "nosuchprofile",
             "exit code"),
        Case("run-methods-unknown", (*RUN_BASE, "--methods", "cmtff", "--models",
                                     "sim/careful", "--out", "{ws}/r"), "cmtff", "exit code"),
        Case("run-methods-empty", (*RUN_BASE, "--methods", ",", "--out", "{ws}/r"),
             "--methods", "exit code"),
        Case("run-planner-unknown", (*run, "--planner", "nosuch"), "nosuch", "exit code"),
        Case("run-tool-filter-model-unknown", (*run, "--tool-filter-model", "nosuch/x"),
             "nosuch", "silent"),
        Case("run-gold-names-unknown-tool",
             ("run", "--registry", "{ws}/reg.yaml", "--tasks", "{ws}/badgold.yaml",
              "--methods", "cmtf", "--models", "sim/careful", "--no-plots", "--out",
              "{ws}/r"), "no_such_tool", "silent"),
        Case("run-registry-empty",
             ("run", "--registry", "{ws}/empty.yaml", "--tasks", "{ws}/tasks.yaml",
              "--methods", "cmtf", "--models", "sim/careful", "--no-plots", "--out",
              "{ws}/r"), "empty.yaml", "silent"),
        Case("run-injection-without-attack", (*run, "--injection-tasks", "injection_task_0"),
             "--attack", "exit code"),
        Case("run-out-under-file", (*SMALL_RUN, "--out", "{ws}/afile/r"), "afile",
             "traceback"),
        Case("run-out-is-file", (*SMALL_RUN, "--out", "{ws}/afile"), "afile", "traceback"),
        Case("run-summary-is-folder", (*SMALL_RUN, "--out", "{ws}/dirsummary"),
             "summary.csv", "traceback"),
        Case("run-foreign-traces", (*SMALL_RUN, "--out", "{ws}/foreign"), "--force",
             "data loss"),
        Case("run-merge-foreign", (*SMALL_RUN, "--merge", "--out", "{ws}/foreignmerge"),
             "--force", "data loss"),
        Case("run-resume-other-methods", ("run", "--registry", "{ws}/reg.yaml", "--tasks",
                                          "{ws}/tasks.yaml", "--methods", "all", "--models",
                                          "sim/careful", "--no-plots", "--concurrency", "1",
                                          "--out", "{ws}/prev", "--resume"), "methods",
             "silent"),
        Case("run-resume-other-max-steps", (*SMALL_RUN, "--out", "{ws}/prev", "--resume",
                                            "--max-steps", "3"), "max_steps", "silent"),
        Case("run-resume-other-env", (*SMALL_RUN, "--out", "{ws}/prev", "--resume", "--env",
                                      "lenient"), "env", "silent"),
        Case("run-resume-other-policy", (*SMALL_RUN, "--out", "{ws}/prev", "--resume",
                                         "--approve-risky", "never"), "approve_risky",
             "silent"),
        Case("run-resume-other-seeds", (*SMALL_RUN, "--out", "{ws}/prev", "--resume",
                                        "--seeds", "2"), "seeds", "silent"),
        Case("run-resume-other-registry", ("run", "--registry", "{ws}/reg2.yaml", "--tasks",
                                           "{ws}/tasks.yaml", "--methods", "cmtf", "--models",
                                           "sim/careful", "--no-plots", "--concurrency", "1",
                                           "--out", "{ws}/prev", "--resume"), "registry",
             "silent"),
        Case("run-resume-other-goal", (*SMALL_RUN, "--out", "{ws}/prev", "--resume", "--goal",
                                       "resolve"), "goal", "silent"),
        Case("run-resume-unknown-folder", (*SMALL_RUN, "--out", "{ws}/foreign", "--resume"),
             "no settings recorded", "silent"),
    ]
    # -- outputs: a file in the way, a file planfilter did not write ----------------------
    cases += [
        Case("export-out-under-file", ("export", *PROBLEM, "--out", "{ws}/afile/pddl"),
             "afile", "traceback"),
        Case("export-out-is-file", ("export", *PROBLEM, "--out", "{ws}/afile"), "afile",
             "traceback"),
        Case("export-foreign-domain", ("export", *PROBLEM, "--out", "{ws}/foreign"),
             "domain.pddl", "data loss"),
        Case("merge-out-under-file", ("merge", "--registry", "{ws}/reg.yaml", "--tasks",
                                      "{ws}/tasks.yaml", "--out", "{ws}/afile/m"), "afile",
             "traceback"),
        Case("merge-foreign-registry", ("merge", "--registry", "{ws}/reg.yaml", "--tasks",
                                        "{ws}/tasks.yaml", "--out", "{ws}/foreign"),
             "registry.yaml", "data loss"),
        Case("report-foreign-summary", ("report", "{ws}/foreign"), "summary.csv",
             "data loss"),
        Case("report-summary-is-folder", ("report", "{ws}/dirsummary"), "summary.csv",
             "traceback"),
        Case("report-no-traces", ("report", "{ws}/emptydir"), "traces.jsonl", "exit code"),
        Case("report-missing-folder", ("report", "{ws}/nowhere"), "nowhere", "exit code"),
        Case("infer-out-under-file", ("contracts", "infer", "{ws}/tools.json", "--out",
                                      "{ws}/afile/x.yaml"), "afile", "traceback"),
        Case("infer-out-is-folder", ("contracts", "infer", "{ws}/tools.json", "--out",
                                     "{ws}/emptydir"), "emptydir", "traceback"),
        Case("infer-foreign-out", ("contracts", "infer", "{ws}/tools.json", "--out",
                                   "{ws}/notes.yaml"), "notes.yaml", "data loss"),
        Case("infer-merge-drops-comments", ("contracts", "infer", "{ws}/tools.json", "--merge",
                                            "{ws}/commented.yaml", "--out",
                                            "{ws}/commented.yaml"), "comment", "data loss"),
        Case("infer-missing-source", ("contracts", "infer", "{ws}/nothing.json"),
             "nothing.json", "exit code"),
        Case("learn-foreign-out", ("contracts", "learn", "{ws}/prev/traces.jsonl",
                                   "--contracts", "{ws}/reg.yaml", "--out", "{ws}/notes.yaml"),
             "notes.yaml", "data loss"),
        Case("learn-merge-drops-comments", ("contracts", "learn", "{ws}/prev/traces.jsonl",
                                            "--contracts", "{ws}/commented.yaml", "--out",
                                            "{ws}/commented.yaml"), "comment", "data loss"),
        Case("learn-out-under-file", ("contracts", "learn", "{ws}/prev/traces.jsonl",
                                      "--contracts", "{ws}/reg.yaml", "--out",
                                      "{ws}/afile/x.yaml"), "afile", "traceback"),
    ]
    # -- figures computed on nothing --------------------------------------------------------
    cases += [
        Case("check-no-known-tool", ("contracts", "check", "{ws}/other.yaml",
                                     "{ws}/prev/traces.jsonl"), "none of the", "silent"),
        Case("check-no-step", ("contracts", "check", "{ws}/reg.yaml", "{ws}/nosteps.jsonl"),
             "no step", "silent"),
        Case("edges-no-tool-in-common", ("contracts", "edges", "{ws}/other.yaml", "--against",
                                         "{ws}/reg.yaml"), "no tool in common", "silent"),
        Case("edges-no-edge", ("contracts", "edges", "{ws}/other.yaml", "--against",
                               "{ws}/other.yaml"), "no data-flow edge", "silent"),
        Case("eval-zero-tasks", ("contracts", "eval", "--registry", "{ws}/other.yaml",
                                 "--tasks", "{ws}/tasks.yaml"), "no task", "silent"),
        Case("eval-empty-registry", ("contracts", "eval", "--registry", "{ws}/empty.yaml",
                                     "--tasks", "{ws}/tasks.yaml"), "no tool", "silent"),
        Case("validate-no-tools", ("validate", "{ws}/empty.yaml"), "no tool", "exit code"),
        Case("validate-gold-unknown", ("validate", "{ws}/reg.yaml", "{ws}/badgold.yaml"),
             "no_such_tool", "exit code"),
        Case("validate-broken-yaml", ("validate", "{ws}/broken.yaml"), "broken.yaml",
             "exit code"),
        Case("bench-planner-unknown", (*TINY_BENCH[:1], "--planners", "native,nosuch",
                                       "--sizes", "10", "--repeat", "1", "--queries", "1",
                                       "--budget", "0.2"), "nosuch", "silent"),
        Case("planners-bad-option", ("planners", "--jsn"), "--jsn", "exit code"),
        Case("local-models-bad-option", ("local-models", "--all"), "--all", "exit code"),
        Case("serve-missing-config", ("serve", "--config", "{ws}/none.json", "--contracts",
                                      "{ws}/reg.yaml"), "none.json", "exit code"),
        Case("serve-bad-http", ("serve", "--config", "{ws}/mcp.json", "--contracts",
                                "{ws}/reg.yaml", "--http", "localhost:99999"), "--http",
             "exit code"),
    ]
    # -- choices and names that click or the command must refuse --------------------------
    cases += [
        Case(f"run{option}={value}", (*SMALL_RUN, "--out", "{ws}/r", option, value), option,
             "exit code")
        for option, value in (("--approve-risky", "sometimes"), ("--env", "loose"),
                              ("--goal", "guess"), ("--embedder", "bert"),
                              ("--resolver", "oracle"), ("--candidates", "0"),
                              ("--shown", "0"), ("--replay-switches", "-1"),
                              ("--suite", "nosuch:thing"))]
    cases[-1] = Case(cases[-1].id, cases[-1].args, "nosuch", "exit code")
    cases += [
        Case(f"frontier{option}={value}", (*frontier, option, value), option, "exit code")
        for option, value in (("--ties", "some"), ("--objective", "speed"),
                              ("--resolver", "guess"))]
    cases += [
        Case("merge-judge-unknown-provider", ("merge", "--registry", "{ws}/reg.yaml", "--out",
                                              "{ws}/m", "--judge", "nosuch/judge"), "nosuch",
             "silent"),
        Case("merge-embedder-bad", ("merge", "--registry", "{ws}/reg.yaml", "--out", "{ws}/m",
                                    "--embedder", "bert"), "--embedder", "exit code"),
        Case("infer-model-unknown-provider", ("contracts", "infer", "{ws}/tools.json",
                                              "--model", "nosuch/x"), "nosuch", "silent"),
        Case("infer-embedder-bad", ("contracts", "infer", "{ws}/tools.json", "--embedder",
                                    "bert"), "--embedder", "exit code"),
        Case("infer-broken-source", ("contracts", "infer", "{ws}/broken.yaml"), "broken.yaml",
             "exit code"),
        Case("eval-model-unknown-provider", ("contracts", "eval", "--registry", "{ws}/reg.yaml",
                                             "--tasks", "{ws}/tasks.yaml", "--model",
                                             "nosuch/x"), "nosuch", "silent"),
        Case("check-missing-traces", ("contracts", "check", "{ws}/reg.yaml",
                                      "{ws}/none.jsonl"), "none.jsonl", "exit code"),
        Case("check-not-traces", ("contracts", "check", "{ws}/reg.yaml", "{ws}/reg.yaml"),
             "reg.yaml", "exit code"),
        Case("edges-missing-against", ("contracts", "edges", "{ws}/reg.yaml"), "--against",
             "exit code"),
        Case("learn-contracts-folder-with-out", ("contracts", "learn",
                                                 "{ws}/prev/traces.jsonl", "--contracts",
                                                 "{ws}/emptydir", "--out", "{ws}/x.yaml"),
             "--contracts", "traceback"),
        Case("serve-mode-bad", ("serve", "--config", "{ws}/mcp.json", "--contracts",
                                "{ws}/reg.yaml", "--mode", "fast"), "--mode", "exit code"),
        Case("serve-model-unknown-provider", ("serve", "--config", "{ws}/mcp.json",
                                              "--contracts", "{ws}/reg.yaml", "--model",
                                              "nosuch/x"), "nosuch", "silent"),
        Case("validate-missing-path", ("validate", "{ws}/nowhere.yaml"), "nowhere.yaml",
             "exit code"),
        Case("validate-neither", ("validate", "{ws}/mcp.json"), "mcp.json", "exit code"),
        Case("report-not-traces", ("report", "{ws}/badtraces"), "traces.jsonl", "exit code"),
        Case("export-task-and-goal", ("export", *PROBLEM, "--task", "calendar-move-001",
                                      "--out", "{ws}/pddl"), "--task", "exit code"),
        Case("frontier-called-without-request", ("frontier", *PROBLEM, "--called",
                                                 "search_events"), "--called", "exit code"),
        Case("frontier-no-goal", ("frontier", "--registry", "{ws}/reg.yaml"), "--goal",
             "exit code"),
    ]
    return cases


CASES = _cases()

REGISTRY_OTHER = """\
tools:
  - name: ping_host
    description: Ping a host and report whether it answers.
    requires: [host]
    produces: [reachable]
    parameters:
      type: object
      properties:
        host: {type: string}
      required: [host]
"""
REGISTRY_ENV = f"""\
environment:
  home_dir: {{from_env: {UNSET}}}
tools:
  - name: list_home
    description: List the files of a home folder.
    requires: [home_dir]
    produces: [listing]
    parameters:
      type: object
      properties:
        home_dir: {{type: string}}
      required: [home_dir]
"""
TOOLS_JSON = [{"type": "function", "function": {
    "name": "search_events", "description": "Search calendar events by date and text.",
    "parameters": {"type": "object", "properties": {
        "date": {"type": "string"}, "event_description": {"type": "string"}},
        "required": ["date", "event_description"]}}}]


def _build_template(root: Path) -> Path:
    ws = root / "template"
    ws.mkdir()
    registry = (FIXTURES / "registry.yaml").read_text()
    (ws / "reg.yaml").write_text(registry)
    (ws / "reg2.yaml").write_text(registry.replace("Read an event's details by id.",
                                                   "Read the details of an event by id."))
    tasks = (FIXTURES / "tasks.yaml").read_text()
    (ws / "tasks.yaml").write_text(tasks)
    (ws / "badgold.yaml").write_text(tasks.replace("gold: [search_events, update_event]",
                                                   "gold: [search_events, no_such_tool]"))
    (ws / "empty.yaml").write_text("tools: []\n")
    (ws / "broken.yaml").write_text("tools: [\n  - name: x\n")
    (ws / "other.yaml").write_text(REGISTRY_OTHER)
    (ws / "envreg.yaml").write_text(REGISTRY_ENV)
    (ws / "commented.yaml").write_text("# reviewed by hand: keep these notes\n" + registry)
    (ws / "notes.yaml").write_text("# my own notes\n")
    (ws / "tools.json").write_text(json.dumps(TOOLS_JSON))
    (ws / "mcp.json").write_text(json.dumps({"mcpServers": {}}))
    (ws / "afile").write_text("a regular file\n")
    (ws / "nosteps.jsonl").write_text(json.dumps({"type": "run", "task": "t", "model": "m",
                                                  "method": "x", "seed": 1}) + "\n")
    (ws / "emptydir").mkdir()
    (ws / "badtraces").mkdir()
    (ws / "badtraces" / "traces.jsonl").write_text("not a trace line\n{}\n")
    (ws / "dirsummary" / "summary.csv").mkdir(parents=True)
    result = CliRunner().invoke(cli, [a.replace("{ws}", str(ws)) for a in
                                      (*SMALL_RUN, "--out", "{ws}/prev")])
    assert result.exit_code == 0, result.output
    shutil.copy(ws / "prev" / "traces.jsonl", ws / "dirsummary" / "traces.jsonl")
    foreign = ws / "foreign"
    foreign.mkdir()
    shutil.copy(ws / "prev" / "traces.jsonl", foreign / "traces.jsonl")
    for name in ("summary.csv", "domain.pddl", "registry.yaml"):
        (foreign / name).write_text(f"the user's own {name}\n")
    (ws / "foreignmerge" / "merge").mkdir(parents=True)
    (ws / "foreignmerge" / "merge" / "registry.yaml").write_text("the user's own\n")
    return ws


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build_template(tmp_path_factory.mktemp("walk"))


def snapshot(folder: Path) -> dict[str, str]:
    """Every file below ``folder`` -> the sha256 of its bytes."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    output: str
    traceback: bool
    changed: tuple[str, ...]
    error_lines: tuple[str, ...]


def attempt(ws: Path, args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> Outcome:
    monkeypatch.chdir(ws)
    monkeypatch.delenv(UNSET, raising=False)
    before = snapshot(ws)
    result = CliRunner().invoke(cli, [a.replace("{ws}", str(ws)) for a in args])
    after = snapshot(ws)
    changed = tuple(sorted(k for k in before.keys() | after.keys()
                           if before.get(k) != after.get(k)))
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    lines = tuple(line for line in result.output.splitlines()
                  if line.lower().startswith("error"))
    return Outcome(result.exit_code, result.output, crashed, changed, lines)


def failures(case: Case, outcome: Outcome) -> list[str]:
    """What is wrong with the outcome of ``case`` (nothing when it failed as it should)."""
    found = []
    if outcome.traceback:
        found.append("traceback")
    if outcome.changed:
        found.append(f"data loss: {', '.join(outcome.changed)} changed")
    if outcome.exit_code == 0:
        found.append("silent wrong result" if case.kind == "silent" else "wrong exit code")
    elif not outcome.traceback:
        if len(outcome.error_lines) != 1:
            found.append(f"{len(outcome.error_lines)} error lines")
        elif case.culprit.lower() not in outcome.error_lines[0].lower():
            found.append(f"error line does not name {case.culprit!r}")
    return found


@pytest.fixture()
def workspace(template: Path, tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    shutil.copytree(template, ws, symlinks=True)
    # the fingerprint and manifests name the template's paths only through hashes
    return ws


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_refused_by_name_before_any_write(case: Case, workspace: Path,
                                                        monkeypatch: pytest.MonkeyPatch):
    outcome = attempt(workspace, case.args, monkeypatch)
    assert not failures(case, outcome), outcome.output


def test_the_walk_covers_every_command():
    from planfilter.cli.contracts import contracts

    commands = {c.command for c in CASES}
    assert set(cli.commands) - {"contracts"} <= commands
    assert {f"contracts {name}" for name in contracts.commands} <= commands
    assert len(CASES) >= 190
    assert {c.kind for c in CASES} == {"traceback", "data loss", "silent", "exit code"}


# -- values drawn by hypothesis ---------------------------------------------------------------

WALK_SETTINGS = settings(max_examples=12, deadline=None,
                         suppress_health_check=[HealthCheck.function_scoped_fixture])


@WALK_SETTINGS
@given(value=st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                       st.integers(-10**6, 10**6)))
def test_risk_lambda_is_accepted_exactly_when_finite_and_not_negative(
        value: float, workspace: Path, monkeypatch: pytest.MonkeyPatch):
    import math

    outcome = attempt(workspace, ("frontier", *PROBLEM, "--planner", "native", "--objective",
                                  "cost", "--risk-lambda", repr(value)), monkeypatch)
    valid = math.isfinite(value) and 0 <= value <= 1_000_000
    assert not outcome.traceback and not outcome.changed
    assert (outcome.exit_code == 0) == valid, outcome.output
    if not valid:
        assert len(outcome.error_lines) == 1 and "--risk-lambda" in outcome.error_lines[0]


@WALK_SETTINGS
@given(sizes=st.lists(st.integers(-10**7, 10**7), min_size=1, max_size=4).filter(
    lambda xs: any(not 1 <= x <= 1_000_000 for x in xs)))
def test_bench_sizes_out_of_range_are_refused_before_any_cell(
        sizes: list[int], workspace: Path, monkeypatch: pytest.MonkeyPatch):
    outcome = attempt(workspace, (*TINY_BENCH, "--repeat", "1", "--sizes",
                                  ",".join(map(str, sizes))), monkeypatch)
    bad = next(x for x in sizes if not 1 <= x <= 1_000_000)
    assert outcome.exit_code == 2 and not outcome.traceback
    assert len(outcome.error_lines) == 1 and str(bad) in outcome.error_lines[0]


@WALK_SETTINGS
@given(names=st.lists(st.sampled_from(["cmtf", "all", "keyword-5", "cmtf-x", "nosuch",
                                       "state aware"]), min_size=1, max_size=5).filter(
    lambda ns: any(n in ("cmtf-x", "nosuch", "state aware") for n in ns)))
def test_methods_lists_with_an_unknown_name_are_refused_naming_it(
        names: list[str], workspace: Path, monkeypatch: pytest.MonkeyPatch):
    outcome = attempt(workspace, (*RUN_BASE, "--methods", ",".join(names), "--models",
                                  "sim/careful", "--out", "{ws}/r"), monkeypatch)
    first = next(n for n in names if n in ("cmtf-x", "nosuch", "state aware"))
    assert outcome.exit_code != 0 and not outcome.traceback and not outcome.changed
    assert len(outcome.error_lines) == 1 and first in outcome.error_lines[0]


@WALK_SETTINGS
@given(parts=st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), min_size=1,
                      max_size=3))
def test_an_out_below_a_regular_file_is_one_error_naming_the_file(
        parts: list[str], workspace: Path, monkeypatch: pytest.MonkeyPatch):
    out = "/".join(["{ws}/afile", *parts])
    for args in (("export", *PROBLEM, "--out", out),
                 ("contracts", "infer", "{ws}/tools.json", "--out", out + ".yaml")):
        outcome = attempt(workspace, args, monkeypatch)
        assert outcome.exit_code != 0 and not outcome.traceback and not outcome.changed
        assert len(outcome.error_lines) == 1 and "afile" in outcome.error_lines[0]


# -- what should succeed, said ------------------------------------------------------------------

def test_a_name_given_twice_runs_once_and_is_said(workspace: Path,
                                                  monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(workspace)
    result = CliRunner().invoke(cli, [a.replace("{ws}", str(workspace)) for a in (
        "run", "--registry", "{ws}/reg.yaml", "--tasks", "{ws}/tasks.yaml", "--methods",
        "cmtf,cmtf", "--models", "sim/careful,sim/careful", "--no-plots", "--out",
        "{ws}/twice")])
    assert result.exit_code == 0, result.output
    assert "--methods: cmtf given more than once" in result.stderr
    assert "--models: sim/careful given more than once" in result.stderr
    runs = [json.loads(line) for line in (workspace / "twice" / "traces.jsonl").open()
            if '"type": "run"' in line]
    assert len(runs) == 2  # two tasks, once each


def test_a_model_resolver_that_falls_back_is_said(workspace: Path,
                                                  monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(workspace)
    result = CliRunner().invoke(cli, ["frontier", "--registry", str(workspace / "reg.yaml"),
                                      "--request", "move my dentist appointment",
                                      "--resolver", "model", "--model",
                                      "sim/careful?faults=1.0", "--json"])
    assert result.exit_code == 0, result.output
    assert "fallback: the model resolver (sim/careful?faults=1.0) failed" in result.stderr
    data = json.loads(result.stdout)
    assert data["fallback"].startswith("the model resolver")
    assert data["resolver"] == "retrieval"


def test_the_mocked_steps_carry_their_results_for_learn_and_check(
        template: Path, monkeypatch: pytest.MonkeyPatch):
    traces = template / "prev" / "traces.jsonl"
    steps = [json.loads(line) for line in traces.open() if '"type": "step"' in line]
    chosen = [s for s in steps if s.get("chosen") and not s.get("error")]
    assert chosen and all(isinstance(s.get("result"), str) for s in chosen)
    result = CliRunner().invoke(cli, ["contracts", "learn", str(traces), "--contracts",
                                      str(template / "reg.yaml")])
    assert result.exit_code == 0, result.output
    reused = int(result.output.rsplit(" values reused", 1)[0].rsplit(" ", 1)[1])
    assert reused > 0, result.output
