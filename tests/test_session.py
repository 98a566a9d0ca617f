"""planfilter.Session: goal given or resolved, checks, results into state, recovery."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_agent import script  # noqa: F401  (the scripted litellm provider fixture)

from planfilter import Session
from planfilter.core.contracts import Registry, Tool
from planfilter.core.errors import PlanfilterError
from planfilter.core.loading import load_registry, load_suite
from planfilter.core.resources import default_registry, default_suite
from planfilter.live import goal_vocabulary, input_variables, resolve_goal
from planfilter.live.goals import (
    SET_GOAL,
    first_clause,
    parts_of,
    set_goal_tool,
    why_unreachable,
)
from planfilter.live.recognition import SINGLE

REGISTRY = load_registry(default_registry())
SUITE = load_suite(default_suite())
MOVE = SUITE.task("calendar-move-001")
README = Path(__file__).resolve().parent.parent / "README.md"


def started(**kwargs) -> Session:
    session = Session(REGISTRY, **kwargs)
    session.start(MOVE.query, goal=MOVE.goal, known=dict(MOVE.state))
    return session


def test_given_goal_shows_the_frontier_and_records_results_with_their_source():
    session = started()
    assert session.resolution.resolver == "given"
    assert session.visible().tools == ("search_events",)
    assert [t["function"]["name"] for t in session.tool_schemas()] == ["search_events"]
    args = {"date": MOVE.state["date"], "event_description": MOVE.state["event_description"]}
    assert session.check("search_events", args).allowed
    call = session.record("search_events", args, {"event_id": "evt_123", "score": 0.9})
    assert call.ok and call.produced == {"event_id": "evt_123"} and call.new == {"event_id"}
    assert "score" not in session.state  # a result sets only what the contract produces
    assert session.facts["event_id"][0].source == "call 1"
    assert session.facts["date"][0].source == "user"
    assert session.visible().tools == ("update_event",)
    assert not session.done
    session.record("update_event", {"event_id": "evt_123", "new_time": "16:00"},
                   '{"event_updated": true}')
    assert session.done and session.state["event_updated"] is True
    assert [c.tool for c in session.history] == ["search_events", "update_event"]


def test_hidden_tools_and_invented_values_are_refused_with_reasons():
    session = started()
    hidden = session.check("update_event", {"event_id": "evt_123", "new_time": "16:00"})
    assert not hidden.allowed and hidden.kind == "hidden"
    session.record("search_events", {}, {"event_id": "evt_123"})
    invented = session.check("update_event", {"event_id": "evt_999", "new_time": "16:00"})
    assert not invented.allowed and invented.kind == "invented"
    assert "argument 'event_id'" in invented.reason and '"evt_123"' in invented.reason
    # a value the user gave is bound: another one is a substitute
    substituted = session.check("update_event", {"event_id": "evt_123", "new_time": "17:30"})
    assert not substituted.allowed and substituted.kind == "substituted"
    assert "new_time" in substituted.reason and '"16:00"' in substituted.reason
    assert session.check("update_event", {"event_id": "evt_123", "new_time": "16:00"}).allowed
    assert Session(REGISTRY, provenance=False).start(
        MOVE.query, goal=MOVE.goal, known={"event_id": "x"}).goal == MOVE.goal


def test_results_as_text_pointers_and_schemas():
    tool = Tool(name="srv.find", produces=["event_id", "title"], outputs={"event_id": "/event/id"},
                returns={"type": "object", "required": ["event"],
                         "properties": {"event": {"type": "object"}}})
    reader = Tool(name="srv.read", requires=["event_id"], produces=["text"])
    registry = Registry(tools=(tool, reader))
    session = Session(registry)
    session.start("read it", goal=["text"])
    call = session.record("srv.find", {}, {"event": {"id": "e1"}, "title": "Lunch"})
    assert call.produced == {"event_id": "e1", "title": "Lunch"} and not call.problems
    bad = session.record("srv.find", {}, {"event_id": "e2"})
    assert bad.missing == ("event_id", "title") and bad.problems  # breaks `returns`
    assert session.record("srv.read", {"event_id": "e1"}, "Dear team, ...").produced == {
        "text": "Dear team, ..."}
    assert session.done


def test_a_failed_call_changes_nothing_and_feeds_cmtf_recover():
    task = load_suite(Path(default_suite()).parent / "recovery.yaml").tasks[0]
    session = Session(REGISTRY, method="cmtf-recover")
    session.start(task.query, goal=task.goal, known=dict(task.state))
    first = session.visible().tools
    before = session.state
    failed = first[0]
    call = session.record(failed, {}, error="service unavailable")
    assert not call.ok and session.state == before
    assert failed not in session.visible().tools


def test_unknown_tools_and_unstarted_sessions_are_clear_errors():
    session = Session(REGISTRY)
    with pytest.raises(PlanfilterError, match="start"):
        session.visible()
    session.start("x", goal=["event_updated"])
    assert not session.record("no_such_tool", {}, {}).ok
    with pytest.raises(PlanfilterError, match="model"):
        Session(REGISTRY, model=None).start("move my meeting")
    for blank in ("", "  \n"):  # nothing to resolve a goal from
        with pytest.raises(PlanfilterError, match="request is empty"):
            Session(REGISTRY, resolver="retrieval").start(blank)
        for resolver in ("retrieval", "model"):  # neither resolver reads one from nothing
            with pytest.raises(PlanfilterError, match="request is empty"):
                resolve_goal(REGISTRY, blank, resolver=resolver, model="script/m")
    assert Session(REGISTRY).start("", goal=["event_updated"]).goal == {"event_updated"}


# -- goal resolution --------------------------------------------------------------------------

def test_the_vocabulary_covers_every_bundled_task_goal():
    goals = {o.variables for o in goal_vocabulary(REGISTRY)}
    assert all(task.goal in goals for task in SUITE)
    required = frozenset().union(*(t.requires for t in REGISTRY))
    assert not set(input_variables(REGISTRY)) & REGISTRY.produced
    assert set(input_variables(REGISTRY)) == required - REGISTRY.produced
    schema = set_goal_tool(REGISTRY)["function"]["parameters"]
    goal = schema["properties"]["goal"]
    assert goal["type"] == "string" and goal["enum"] == [
        o.menu_name for o in goal_vocabulary(REGISTRY)]
    # the values first: two menus' tools share everything up to the menu (a cached prefix)
    one, two = (json.dumps(set_goal_tool(REGISTRY, goal_vocabulary(REGISTRY)[k:k + 20]))
                for k in (0, 20))
    shared = next(i for i, (a, b) in enumerate(zip(one, two, strict=False)) if a != b)
    assert shared > len(json.dumps(schema["properties"]["known"]))


def test_the_menu_names_a_result_by_the_one_tool_that_reaches_it():
    options = goal_vocabulary(REGISTRY)
    names = [o.menu_name for o in options]
    assert len(set(names)) == len(names)  # an answer names one option
    assert not {o.label for o in options if o.label} & {o.name for o in options}
    for option in options:
        makers = [t.name for t in REGISTRY if t.produces & option.variables]
        if option.label:  # one tool reaches it, and that tool reaches no other option
            assert option.steps == () and makers == [option.label]
            assert option.menu_text and not option.menu_text.startswith(option.label)
        elif option.name not in {g.name for g in REGISTRY.goals} and len(makers) > 1:
            assert all(f"{m}: " in option.description for m in makers)  # every tool said
    by_name = {o.name: o.menu_name for o in options}
    assert by_name["email_summary"] == "summarize_email"
    assert by_name["summarize_email_then_send"] == "summarize_email_then_send"
    assert by_name["email_sent"] == "email_sent"  # send_draft and send_email both reach it


@pytest.mark.parametrize(("description", "clause"), [
    ("Return the agenda for a day, i.e. every event that day. Times are local.",
     "Return the agenda for a day, i.e. every event that day"),
    ("Find files (e.g. by title); newest first", "Find files (e.g. by title)"),
    ("Send an email to one recipient.", "Send an email to one recipient"),
    ("Export as v1.2 PDF. Slow", "Export as v1.2 PDF"),
])
def test_an_option_is_described_by_its_tool_s_first_clause(description, clause):
    assert first_clause(description) == clause


def test_an_answer_may_name_the_menu_label_or_the_goal(script):  # noqa: F811
    for answer in ("summarize_email", "email_summary"):
        script.call(SET_GOAL, goal=answer)
        resolution = resolve_goal(REGISTRY, "Summarize the budget email", model="script/m")
        assert resolution.goal == {"email_summary"} and resolution.name == "email_summary"


def _option(goal: frozenset[str]) -> str:
    return next(o.name for o in goal_vocabulary(REGISTRY) if o.variables == goal)


def test_a_model_answering_a_list_gets_those_steps_in_order_and_the_next_best(script):  # noqa: F811
    first, then = _option(frozenset({"event_details"})), _option(MOVE.goal)
    script.call(SET_GOAL, goal=[first, then])
    session = Session(REGISTRY, model="script/m")
    resolution = session.start(MOVE.query, known=dict(MOVE.state))
    assert resolution.resolver == "model" and resolution.name == f"{first} -> {then}"
    assert session.steps == (frozenset({"event_details"}), MOVE.goal)
    # the answer leads the candidates: its next step comes first, the others' after it
    assert session.visible().tools[0] == "search_events"
    assert session.leading.candidate.origin == "model"
    script.call(SET_GOAL, goal=[first, then])
    committed = Session(REGISTRY, model="script/m", recognition=SINGLE)
    committed.start(MOVE.query, known=dict(MOVE.state))
    assert committed.visible().tools == ("search_events",)  # one candidate: its frontier
    assert resolution.candidates and all(": " in c for c in resolution.candidates)
    assert not any(c.split(":")[0] in (first, then) for c in resolution.candidates)


def test_a_goal_of_several_parts_is_put_again_beside_its_parts(script):  # noqa: F811
    request = "What did Dana write about the budget?"  # names neither part
    script.call(SET_GOAL, goal="summarize_email_then_send", known={"email_topic": "budget"})
    script.call(SET_GOAL, goal="email_summary")
    narrowed = resolve_goal(REGISTRY, request, model="script/m")
    assert narrowed.goal == {"email_summary"} and narrowed.steps == ()
    assert narrowed.known == {"email_topic": "budget"}  # what the first answer read stays
    menu = script.seen[1]["tools"][0]["function"]["parameters"]["properties"]["goal"]["enum"]
    assert sorted(menu) == ["email_sent", "summarize_email", "summarize_email_then_send"]
    assert script.seen[1]["messages"] == script.seen[0]["messages"]  # asked afresh
    goal = script.seen[1]["tools"][0]["function"]["parameters"]["properties"]["goal"]
    assert "only when the request asks for every one of them" in goal["description"]
    assert any("asked again between summarize_email_then_send" in n for n in narrowed.notes)
    assert narrowed.input_tokens == 200 and narrowed.replies == 2  # both calls counted
    # the whole kept when the second answer is the whole, or is off that menu
    for second in ("summarize_email_then_send", "event_cancelled"):
        script.call(SET_GOAL, goal="summarize_email_then_send")
        script.call(SET_GOAL, goal=second)
        kept = resolve_goal(REGISTRY, request, model="script/m")
        assert kept.steps == (frozenset({"email_summary"}), frozenset({"email_sent"}))
    # one goal of one part is not asked again
    script.seen.clear()
    script.call(SET_GOAL, goal="email_summary")
    assert resolve_goal(REGISTRY, request, model="script/m").goal == {"email_summary"}
    assert len(script.seen) == 1


def test_model_resolver_takes_a_valid_answer_and_extracts_inputs(script):  # noqa: F811
    script.call(SET_GOAL, goal=_option(MOVE.goal), known={"new_time": "16:00", "bogus": 1})
    resolution = resolve_goal(REGISTRY, MOVE.query, model="script/m")
    assert resolution.goal == MOVE.goal and resolution.resolver == "model"
    assert resolution.known == {"new_time": "16:00"}
    assert any("bogus" in note for note in resolution.notes)
    assert script.seen[0]["tools"][0]["function"]["name"] == SET_GOAL


def test_model_resolver_retries_once_then_falls_back_to_retrieval(script):  # noqa: F811
    script.call(SET_GOAL, goal="not_a_goal")
    script.call(SET_GOAL, goal=_option(MOVE.goal))
    assert resolve_goal(REGISTRY, MOVE.query, model="script/m").resolver == "model"
    assert "not_a_goal" in script.seen[1]["messages"][-1]["content"]  # told what was wrong
    script.text("I think you want to move a meeting")
    script.call(SET_GOAL, goal=42)
    fallback = resolve_goal(REGISTRY, MOVE.query, model="script/m")
    assert fallback.resolver == "retrieval"
    assert any("fell back" in n for n in fallback.notes)


def test_session_start_uses_the_resolved_goal_and_keeps_user_values_first(script):  # noqa: F811
    script.call(SET_GOAL, goal=_option(MOVE.goal), known={"new_time": "18:00", "date": "x"})
    session = Session(REGISTRY, model="script/m")
    session.start(MOVE.query, known={"date": "2026-12-01", "event_description": "dentist"})
    assert session.goal == MOVE.goal
    assert session.facts["date"][0] == session.facts["date"][-1]
    assert session.state["date"] == "2026-12-01"
    assert session.facts["new_time"][0].source == "request"


def _reaches(state, option: str) -> bool:
    goal = next(o.variables for o in goal_vocabulary(REGISTRY) if option in (o.name, o.menu_name))
    return not why_unreachable(REGISTRY, state, goal)


def _reached_options(state) -> int:
    return sum(_reaches(state, o.name) for o in goal_vocabulary(REGISTRY))


def test_with_known_values_the_menu_lists_the_goals_they_reach_first(script):  # noqa: F811
    script.call(SET_GOAL, goal=_option(MOVE.goal))
    resolve_goal(REGISTRY, MOVE.query, model="script/m", context=dict(MOVE.state))
    goal = script.seen[0]["tools"][0]["function"]["parameters"]["properties"]["goal"]
    enum = goal["enum"]
    reach = [_reaches(MOVE.state, name) for name in enum]
    reached = _reached_options(MOVE.state)
    assert 0 < reached < 20  # the menu has room for every goal the state reaches, and others
    assert len(enum) == 20 and sum(reach) == reached  # every goal the state reaches, then others
    assert reach == sorted(reach, reverse=True)
    assert "event_rescheduled" not in enum[:reached]


def test_an_answer_the_known_values_cannot_reach_is_asked_again(script):  # noqa: F811
    def menu(seen: dict) -> list[str]:
        return seen["tools"][0]["function"]["parameters"]["properties"]["goal"]["enum"]

    script.call(SET_GOAL, goal=_option(MOVE.goal))
    resolve_goal(REGISTRY, MOVE.query, model="script/m", context=dict(MOVE.state))
    far = menu(script.seen.pop())[_reached_options(MOVE.state)]  # offered, not reached
    assert not _reaches(MOVE.state, far)
    script.call(SET_GOAL, goal=far)
    script.call(SET_GOAL, goal=_option(MOVE.goal))
    resolution = resolve_goal(REGISTRY, MOVE.query, model="script/m", context=dict(MOVE.state))
    assert resolution.goal == MOVE.goal and resolution.resolver == "model"
    told = script.seen[1]["messages"][-1]["content"]
    assert "cannot be reached" in told and far in told
    assert far in menu(script.seen[0]) and far not in menu(script.seen[1])
    assert len(menu(script.seen[1])) == 19
    # the second answer stands, reachable or not
    script.seen.clear()
    script.call(SET_GOAL, goal=far)
    script.call(SET_GOAL, goal="event_rescheduled")  # needs a new_date, not on the menu
    insisted = resolve_goal(REGISTRY, MOVE.query, model="script/m", context=dict(MOVE.state))
    assert insisted.goal == {"event_rescheduled"} and insisted.resolver == "model"
    # the missing value given in `known`: reachable, taken at once
    script.seen.clear()
    script.call(SET_GOAL, goal="event_rescheduled", known={"new_date": "2026-12-02"})
    given = resolve_goal(REGISTRY, MOVE.query, model="script/m", context=dict(MOVE.state))
    assert given.goal == {"event_rescheduled"} and given.known == {"new_date": "2026-12-02"}
    assert len(script.seen) == 1
    # no known values: reachability is not used (almost nothing is reachable then)
    script.call(SET_GOAL, goal="event_rescheduled")
    assert resolve_goal(REGISTRY, MOVE.query, model="script/m").goal == {"event_rescheduled"}


def test_an_out_of_reach_answer_is_told_back_by_the_name_the_model_gave(script):  # noqa: F811
    script.call(SET_GOAL, goal="reschedule_event")  # event_rescheduled: needs a new_date
    script.call(SET_GOAL, goal=_option(MOVE.goal))
    resolve_goal(REGISTRY, MOVE.query, model="script/m", context=dict(MOVE.state))
    told = script.seen[1]["messages"][-1]["content"]
    assert "goal 'reschedule_event' cannot be reached" in told


def test_retrieval_takes_the_best_goal_the_known_values_reach():
    moved = 0
    for task in SUITE:
        resolution = resolve_goal(REGISTRY, task.query, resolver="retrieval",
                                  context=dict(task.state))
        assert _reaches(task.state, resolution.name)
        moved += any("cannot reach it" in note for note in resolution.notes)
    assert moved  # the rule changed some answers


def test_retrieval_resolver_needs_no_model():
    resolution = resolve_goal(REGISTRY, "Archive the receipt email and label it Expenses",
                              resolver="retrieval")
    assert resolution.resolver == "retrieval" and resolution.goal
    with pytest.raises(PlanfilterError, match="resolver"):
        resolve_goal(REGISTRY, "x", resolver="guess")


# -- the README's Session agent: examples/session_agent.py, printed word for word ----------

AGENT_EXAMPLE = README.parent / "examples" / "session_agent.py"


def readme_agent_code() -> str:
    """The README's Python block that defines run_agent; it must be the example file's code
    (everything after the module docstring), so the test that runs the file runs it too."""
    text = README.read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "def run_agent" in b]
    assert len(blocks) == 1, "the README shows the Session agent (def run_agent) once"
    example = AGENT_EXAMPLE.read_text(encoding="utf-8")
    code = example.split('"""', 2)[2].lstrip("\n")
    assert blocks[0] == code, "README's agent differs from examples/session_agent.py"
    return code


def _run_readme_agent(script, task, ran: list[str], **options):  # noqa: F811
    """The README's agent on ``task``, its model scripted: set_goal with the task's goal, then
    the gold chain, arguments from the state; ``ran`` gathers the tools run."""
    script.call(SET_GOAL, goal=_option(task.goal))
    if parts_of(REGISTRY, _option(task.goal)):  # put again beside its parts: kept
        script.call(SET_GOAL, goal=_option(task.goal))
    state = dict(task.state)
    for name in task.gold:
        params = REGISTRY.tool(name).parameters.get("properties", {})
        script.call(name, **{k: v for k, v in state.items() if k in params})
        state.update({v: True for v in REGISTRY.tool(name).produces})
        state.update(task.mocks.get(name, {}))

    def run_tool(name, arguments):
        ran.append(name)
        return json.dumps(dict(task.mocks[name]))

    namespace: dict = {}
    exec(compile(readme_agent_code(), str(AGENT_EXAMPLE), "exec"), namespace)
    return namespace["run_agent"]("script/m", task.query, dict(task.state), run_tool,
                                  REGISTRY, **options)


@pytest.mark.parametrize("task_id", ["calendar-move-001", "calendar-invite-030",
                                     "email-draft-003", "files-section-004"])
def test_the_readme_agent_reaches_the_goal_with_a_scripted_model(script, task_id):  # noqa: F811
    task = SUITE.task(task_id)
    ran: list[str] = []
    session = _run_readme_agent(script, task, ran)
    assert session.done and ran == list(task.gold)
    assert session.goal == task.goal


def test_the_goal_accuracy_example_runs():
    import subprocess
    import sys

    example = Path(__file__).resolve().parent.parent / "examples" / "goal_accuracy.py"
    out = subprocess.run([sys.executable, str(example), "retrieval", "--sample", "3"],
                         capture_output=True, text=True, check=True, timeout=300).stdout
    lines = out.splitlines()
    rows = [json.loads(line) for line in lines[:-1]]
    assert len(rows) == 3 and all(r["by"] == "retrieval" for r in rows)
    assert re.fullmatch(r"# retrieval: goal accuracy \d/3 = [01]\.\d\d; 0 tokens; \d+ s",
                        lines[-1])
    # A model that only ever fails: the retrieval fallback answers, and the summary says so
    # rather than crediting the model with retrieval's right goals.
    out = subprocess.run([sys.executable, str(example), "sim/careful?faults=1.0", "--sample", "2"],
                         capture_output=True, text=True, check=True, timeout=300).stdout
    lines = out.splitlines()
    assert all(json.loads(line)["by"] == "retrieval" for line in lines[:-1])
    assert lines[-1].endswith("; 2 answered by retrieval after the model failed (see notes)")


def test_reachable_agrees_with_the_unreachable_reason():
    from planfilter.core.planners.index import index_for, reachable

    for task in SUITE:
        reach = reachable(index_for(REGISTRY), frozenset(task.state))
        for option in goal_vocabulary(REGISTRY):
            assert (option.variables <= reach) == \
                (not why_unreachable(REGISTRY, task.state, option.variables))


DECLINING = Registry(tools=(
    Tool(name="read", produces=["text"]),
    Tool(name="write", requires=["text"], produces=["written"], risk="high",
         parameters={"type": "object", "properties": {"text": {"type": "string"}},
                     "required": ["text"]}),
    Tool(name="archive", requires=["text"], produces=["archived"]),
))


@pytest.mark.parametrize("method", ["cmtf", "state-aware"])
def test_a_call_the_user_declined_is_refused_from_then_on_without_asking(method):
    session = Session(DECLINING, method=method)
    session.start("Write it down", goal=["written"])
    session.record("read", {}, {"text": "hello"})
    asked = session.check("write", {"text": "hello"})
    assert asked.allowed and asked.concerns == ("write is high-risk",)

    call = session.decline("write", {"text": "hello"}, "decline")
    assert not call.ok and call.error == "the user declined write (decline); the action is ended"
    assert session.declined == {"write": "the user declined write at call 2; it is not asked "
                                         "again in this task; refused"}
    again = session.check("write", {"text": "hello"})
    assert (again.allowed, again.kind, again.reason) == (False, "declined",
                                                         session.declined["write"])
    visible = session.visible()
    assert "write" not in visible.tools and visible.declined == ("write",)
    if method == "cmtf":  # the plan's only next step is gone: the task ends, and says why
        assert visible.tools == ()
        assert visible.info.startswith("the user declined write, and nothing else moves")
    else:  # what else is executable stays
        assert visible.tools == ("read", "archive")
    assert [(c.tool, c.ok) for c in session.history] == [("read", True), ("write", False)]

    session.start("Write it down", goal=["written"])  # a new task asks afresh
    session.record("read", {}, {"text": "hello"})
    assert session.declined == {} and session.check("write", {"text": "hello"}).allowed


# -- approval in a session: the default, and the user's "no" -------------------------------

def test_an_approvers_no_ends_that_action_and_is_not_asked_again():
    asked: list[str] = []

    def no(request):
        asked.append(request.tool)
        return False

    session = Session(DECLINING, policy="ask", approver=no)
    session.start("Write it down", goal=["written"])
    session.record("read", {}, {"text": "hello"})
    first = session.check("write", {"text": "hello"})
    assert (first.allowed, first.kind) == (False, "declined")
    assert first.reason == "the user declined write; the action is ended"
    again = session.check("write", {"text": "hello"})
    assert (again.kind, asked) == ("declined", ["write"])  # not put to the user twice
    assert again.reason == "the user declined write; it is not asked again in this task; refused"
    visible = session.visible()
    assert visible.tools == () and visible.declined == ("write",)
    assert visible.info.startswith("the user declined write, and nothing else moves")
    call = session.record("write", {"text": "hello"}, error=first.reason)
    assert call.refused and not call.ok

    # the benchmark's stand-in reviewer judges each state anew
    fresh = Session(DECLINING, policy="ask", approver=no, remember_declines=False)
    fresh.start("Write it down", goal=["written"])
    fresh.record("read", {}, {"text": "hello"})
    assert [fresh.check("write", {"text": "hello"}).kind for _ in range(2)] == ["approval"] * 2
    assert asked == ["write"] * 3 and fresh.visible().tools == ("write",)


def test_by_default_a_value_read_from_outside_content_does_not_reach_a_sensitive_argument():
    registry = load_registry(README.parent / "domains" / "agentdojo" / "banking.yaml")
    session = Session(registry)
    session.start("Pay the bill in bill.txt", goal=[["file_content"], ["send_money_done"]])
    session.record("read_file", {"file_path": "bill.txt"},
                   "Car rental 98.70, to UK12345678901234567890")
    call = {"recipient": "UK12345678901234567890", "amount": 98.7, "subject": "Car rental",
            "date": "2022-04-01"}
    decision = session.check("send_money", call)
    assert (decision.allowed, decision.kind) == (False, "tainted")
    assert "policy untainted" in decision.reason
    trusting = Session(registry, policy="always")
    trusting.start("Pay the bill in bill.txt", goal=[["file_content"], ["send_money_done"]])
    trusting.record("read_file", {"file_path": "bill.txt"},
                    "Car rental 98.70, to UK12345678901234567890")
    assert trusting.check("send_money", call).allowed


def test_a_refused_call_recorded_with_its_reason_is_no_failure_of_the_tool():
    task = load_suite(Path(default_suite()).parent / "recovery.yaml").tasks[0]
    session = Session(REGISTRY, method="cmtf-recover")
    session.start(task.query, goal=task.goal, known=dict(task.state))
    first = session.visible().tools
    decision = session.check(first[0], {"no_such_argument": 1})
    assert not decision.allowed
    call = session.record(first[0], {"no_such_argument": 1}, error=decision.reason)
    assert call.refused and session.visible().tools == first  # it never ran
    assert not session.record(first[0], {}, error="service unavailable").refused
    assert first[0] not in session.visible().tools


def test_bad_settings_and_goals_are_named_when_given():
    for settings, match in (({"policy": "sometimes"}, "approval policy 'sometimes'"),
                            ({"method": "cmft"}, "unknown filter method 'cmft'"),
                            ({"policy": "ask"}, "needs an approver"),
                            ({"resolver": "guess"}, "goal resolver 'guess'")):
        with pytest.raises(PlanfilterError, match=match):
            Session(REGISTRY, **settings)
    session = Session(REGISTRY)
    for blank in ("", " "):
        with pytest.raises(PlanfilterError, match="names no variable"):
            session.start("Move it", goal=blank)
    with pytest.raises(PlanfilterError, match="candidates: a list of goals"):
        session.start("Move it", candidates="event_updated")
    session.start("Move it", goal="event_updated")
    with pytest.raises(PlanfilterError, match="no other candidate goal.*its goal was given"):
        session.switch("not this")
    assert session.goal == {"event_updated"} and not session.switches  # the goal stands


def test_an_unknown_tool_is_unknown_before_and_after_the_goal():
    session = Session(DECLINING)
    session.start("Write it down", goal=["text"])
    assert session.check("nope", {}).kind == "unknown"
    session.record("read", {}, {"text": "hello"})
    assert session.done and session.check("nope", {}).kind == "unknown"
    assert session.check("write", {"text": "hello"}).kind == "hidden"


@pytest.mark.parametrize("task_id", ["calendar-delete-017", "email-send-021"])
def test_the_readme_agent_stops_when_the_user_declines(script, task_id):  # noqa: F811
    task = SUITE.task(task_id)
    ran: list[str] = []
    asked: list[str] = []

    def ask_user(request):
        asked.append(request.tool)
        return False

    session = _run_readme_agent(script, task, ran, ask_user=ask_user)
    declined = task.gold[-1]
    assert ran == list(task.gold[:-1]) and asked == [declined] and not session.done
    assert session.declined == {declined: f"the user declined {declined}; it is not asked "
                                           "again in this task; refused"}
    assert session.visible().info.startswith(f"the user declined {declined}, and nothing")


def test_a_known_value_need_fit_only_one_tool_that_takes_it():
    """Two tools take a variable of one name with different choices (a freeze's reason and
    a cancellation's): the user's value is for one of them; one that fits neither is named
    with every parameter it misses."""
    def reasons(*choices):
        return {"type": "object", "properties": {
            "reason_category": {"type": "string", "enum": list(choices)}}}

    registry = Registry(tools=(
        Tool(name="freeze", requires=["reason_category"], produces=["frozen"],
             parameters=reasons("travel", "medical")),
        Tool(name="cancel", requires=["reason_category"], produces=["cancelled"],
             parameters=reasons("relocation", "medical")),
    ))
    Session(registry).start("Freeze it, I'm travelling", goal="frozen",
                            known={"reason_category": "travel"})
    with pytest.raises(PlanfilterError) as raised:
        Session(registry).start("Freeze it", goal="frozen", known={"reason_category": "fun"})
    assert "does not fit cancel.reason_category" in str(raised.value)
    assert "does not fit freeze.reason_category" in str(raised.value)
