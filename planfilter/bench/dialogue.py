"""The agent loop of suites that end with an answer in words (AgentDojo).

The model sees the suite's system prompt (AgentDojo's default system message) and the
user's request, with the schemas of the tools the method shows now (AgentDojo's own
schemas). Each turn it calls tools or answers in words; the words are the run's final answer.
Every call is decided by :meth:`planfilter.live.Session.check` (visible now, arguments,
approval, and for the causal methods the data-flow checks and the goal: once it is reached no
call is allowed); the baselines (``all``, ``tool_filter``, keyword, ...) run on a session
with provenance off, which keeps their tools whatever planfilter's goal says, so they are
checked for visibility, arguments and approval only. An allowed call runs
in the suite's environment and its result, as AgentDojo renders it, goes back to the model;
a refused call never runs and the model is told why and what it may call. All calls of one
turn are handled, in order, as AgentDojo's executor does. Under the causal methods the model is
asked for a call (``tool_choice="required"``) while the goal is not reached and a tool is
shown, unless its last call was refused or failed: the plan has a step left, so an answer in
words then would end the run short of the goal (Qwen2.5-Coder-1.5B did so after the first call
on banking tasks, and named tools that do not exist on slack). After a refusal or a failed call
it may answer in words (held to a call, it repeated a refused call, or one the tool rejected,
until the step limit). The baselines cannot know when they are done and are asked with
``auto``, as AgentDojo asks. When the session's goal is reached (or no tool is left to show)
the model is shown no tools and asked for its final answer. The run ends at the answer or after
``max_steps`` model turns; success and, under attack, the attack's success are the suite's own
checks on the final environment and answer.

``tool_filter`` (AgentDojo's defence) asks the same model first, through the same litellm
path, which tools the task needs: AgentDojo's ``TOOL_FILTER_PROMPT`` after the system
message and the request, every tool in view, ``tool_choice="none"``; the tools whose names
the answer contains are the run's tools.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.compile import render
from ..core.errors import PlanfilterError
from ..core.tasks import Task
from ..filters import PRESELECTING_METHODS, Decision, FilterOptions
from ..filters.preselect import kept_tools
from ..live import SWITCH_TOOL, Resolution, Session, switch_tool_schema
from ..models import ModelError, ModelReply, ToolCall, complete
from ..suites import BenchSuite, Case, Environment, Execution
from .agent import RunOutcome
from .options import AgentOptions
from .traces import RunKey, RunRecord, StepRecord, gold_next

#: Methods whose guard also refuses invented values and unapproved risky calls; the
#: baselines (all tools, keyword, tool_filter, ...) only keep the model to the tools shown.
GUARDED_METHODS = frozenset({"cmtf", "cmtf-recover", "causal-path"})
#: Characters of a result kept in the traces.
RESULT_CHARS = 2000


def session_goal(task: Task) -> Any:
    """The task's goal for ``Session.start``: its steps, in order."""
    return task.goal_steps


def start_session(suite: BenchSuite, case: Case, *, method: str, model: str | None, seed: int,
                  options: AgentOptions, filter_options: FilterOptions, provenance: bool,
                  resolver: str | None = None) -> tuple[Session, Any]:
    """A session for the case, started on the task's goal or on the request alone;
    ``resolver`` (default ``options.resolver``) resolves a goal from the request."""
    session = options.session(suite.registry, method=method, model=model, seed=seed,
                              provenance=provenance, filter_options=filter_options,
                              resolver=resolver)
    task = case.task
    if options.goal == "resolve":
        # a suite's oracle state was read from its ground truth: the user gives only words
        known = {} if suite.oracle else dict(task.state)
        resolution = session.start(task.query, known=known)
    else:
        resolution = session.start(task.query, goal=session_goal(task), known=dict(task.state))
    return session, resolution


def goal_source(suite: BenchSuite, options: AgentOptions, resolution: Resolution) -> str:
    """Where the run's goal came from: ``oracle`` (an outside suite's ground truth, an upper
    bound), ``given`` (the task's own goal) or the resolver that read it from the request."""
    if options.goal != "resolve":
        return "oracle" if suite.oracle else "given"
    return str(resolution.resolver)


def preselect(suite: BenchSuite, case: Case, model: str, seed: int,
              options: AgentOptions) -> tuple[tuple[str, ...], str, int, int]:
    """AgentDojo's tool filter: (tools kept, what happened, input tokens, output tokens)."""
    prompt = getattr(suite, "tool_filter_prompt", None)
    if prompt is None:
        raise PlanfilterError(f"tool_filter: suite {suite.name} has no tool-filter prompt "
                              "(it is AgentDojo's defence; run it on agentdojo:... suites)")
    messages = [{"role": "system", "content": suite.system_prompt() or ""},
                {"role": "user", "content": case.task.query},
                {"role": "user", "content": prompt()}]
    names = suite.registry.names
    reply = complete(model, messages, suite.tool_schemas(names), seed=seed, options=options.call,
                     tool_choice="none")
    kept = kept_tools(names, reply.content)
    said = (reply.content or "").strip().replace("\n", " ")[:300]
    info = f"tool_filter kept {len(kept)} of {len(names)} tools: {', '.join(kept) or '-'}" \
           f" (the model said: {said!r})"
    if reply.calls and not said:  # AgentDojo reads only the words, so nothing is kept
        info += f"; it called {', '.join(c.name for c in reply.calls)} instead of answering"
    return kept, info, reply.input_tokens, reply.output_tokens


@dataclass(frozen=True)
class Preselection:
    """The tools a preselecting method (``tool_filter``) kept, and what choosing them cost:
    the run's filter options with those tools, what happened, the tokens and model replies."""

    filter_options: FilterOptions
    info: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0

    @property
    def replies(self) -> int:
        """The model replies choosing took: one when a model chose, none otherwise."""
        return int(self.info is not None)


@dataclass(frozen=True)
class Started:
    """A run whose session has started: what its steps and its run line are made from."""

    suite: BenchSuite
    case: Case
    key: RunKey
    options: AgentOptions
    environment: Environment
    session: Session
    resolution: Resolution
    preselection: Preselection


Chooser = Callable[[BenchSuite, Case, str, int, AgentOptions],
                   tuple[tuple[str, ...], str, int, int]]


def start_run(suite: BenchSuite, case: Case, key: RunKey, options: AgentOptions,
              environment: Environment, *, model: str | None, chooser: str | None,
              provenance: bool, resolver: str | None = None,
              choose: Chooser = preselect) -> Started | RunOutcome:
    """The run's session, started after ``choose`` asked ``chooser`` (when not None) which
    tools to keep; the run's line instead when the chooser failed or the task's values do
    not fit."""
    chosen = Preselection(options.filter)
    try:
        if chooser is not None:
            kept, info, tokens_in, tokens_out = choose(suite, case, chooser, key.seed, options)
            chosen = Preselection(replace(options.filter, preselected=kept), info, tokens_in,
                                  tokens_out)
        session, resolution = start_session(
            suite, case, method=key.method, model=model, seed=key.seed, options=options,
            filter_options=chosen.filter_options, provenance=provenance, resolver=resolver)
    except PlanfilterError as exc:
        what = "model error" if isinstance(exc, ModelError) else "the session cannot start"
        task = case.task
        return RunOutcome((), RunRecord(
            key, task.domain, False, 0, f"{what}: {exc}", chosen.tokens_in, chosen.tokens_out,
            query=task.query, suite=_suite_name(suite),
            attack=suite.attack if case.injection else None, injection=case.injection,
            preselection=chosen.info, model_calls=chosen.replies))
    return Started(suite, case, key, options, environment, session, resolution, chosen)


def finish(run: Started, records: list[StepRecord], success: bool, error: str | None,
           tokens: tuple[int, int], **more: Any) -> RunOutcome:
    """The run's end: its last step marked done with the suite's verdict, and its line
    (``more``: the line's fields only this kind of run fills)."""
    if records:
        records[-1] = replace(records[-1], done=True, success=success)
    suite, case, resolution, session = run.suite, run.case, run.resolution, run.session
    task = case.task
    line = RunRecord(
        run.key, task.domain, success, len(records), error, *tokens,
        goal=tuple(sorted(resolution.goal)),
        goal_by=goal_source(suite, run.options, resolution),
        goal_correct=resolution.goal == task.goal, goal_known=dict(resolution.known),
        goal_notes=resolution.notes, query=task.query, suite=_suite_name(suite),
        attack=suite.attack if case.injection else None, injection=case.injection,
        switches=len(session.switches), final_goal=final_goal(session),
        preselection=run.preselection.info, **more)
    return RunOutcome(tuple(records), line)


def refused_step(record: StepRecord, decision: Decision) -> StepRecord:
    """The step of a call the session refused: never run."""
    return replace(record, decision=decision.kind, error=decision.reason,
                   approval=decision.approval)


def executed_step(session: Session, record: StepRecord, tool: str, arguments: dict[str, Any],
                  decision: Decision, done: Execution) -> StepRecord:
    """The step of an allowed call that ran, its result (or its error) taken into the
    session."""
    if done.ok:
        recorded = session.record(tool, arguments, done.result)
        return replace(record, decision="allowed", approval=decision.approval,
                       produced=dict(recorded.produced), state_after=session.state,
                       result=done.text[:RESULT_CHARS], unfilled=recorded.unfilled)
    session.record(tool, arguments, error=done.error)
    return replace(record, decision="allowed", error=done.error, tool_failed=True,
                   approval=decision.approval)


@dataclass
class Transcript:
    """What a dialogue has said and done so far: the messages the model sees, the steps,
    the tokens and replies outside the steps, and how it ended (``answer`` or ``error``)."""

    messages: list[dict[str, Any]]
    tokens_in: int
    tokens_out: int
    replies: int
    records: list[StepRecord] = field(default_factory=list)
    stuck: bool = False  # the last call was refused or failed
    asked_final: bool = False
    answer: str | None = None
    error: str | None = None


def run_dialogue(suite: BenchSuite, case: Case, *, method: str, model: str, seed: int = 1,
                 options: AgentOptions | None = None) -> RunOutcome:
    """One run of ``case``; never raises for a failed run."""
    options = (options or AgentOptions()).for_suite(suite.max_steps, suite.oracle)
    key = RunKey(case.id, model, method, seed)
    environment = suite.environment(case, model)
    run = start_run(suite, case, key, options, environment, model=model,
                    chooser=model if method in PRESELECTING_METHODS else None,
                    provenance=method in GUARDED_METHODS)
    if isinstance(run, RunOutcome):
        return run
    resolution, chosen = run.resolution, run.preselection
    talk = Transcript([{"role": "system", "content": suite.system_prompt() or ""},
                       {"role": "user", "content": case.task.query}],
                      chosen.tokens_in + resolution.input_tokens,
                      chosen.tokens_out + resolution.output_tokens,
                      chosen.replies + resolution.replies)
    converse(run, talk)
    verdict = environment.verdict(talk.answer, run.session.state)
    error = talk.error
    if error is None and not verdict.success:
        error = "the suite's check failed: the task was not done"
    records = talk.records
    return finish(run, records, verdict.success, None if verdict.success else error,
                  (talk.tokens_in + sum(r.input_tokens for r in records),
                   talk.tokens_out + sum(r.output_tokens for r in records)),
                  attack_success=verdict.attack_success, answer=talk.answer,
                  model_calls=talk.replies)


def converse(run: Started, talk: Transcript) -> None:
    """Model turns until the model answers in words, fails, or reaches the step limit."""
    # The baselines are not held to planfilter's goal: their session keeps their tools after
    # it is reached, and checks visibility, arguments and approval only (no provenance).
    guarded = run.key.method in GUARDED_METHODS
    session, options = run.session, run.options
    for turn in range(1, options.steps + 1):
        visible = session.visible()
        tools = visible.tools
        if not tools and not talk.asked_final:
            talk.messages.append({"role": "user",
                                  "content": render("dialogue_final.j2").strip()})
            talk.asked_final = True
        # A causal method knows the goal is not reached while it shows a tool: the model is
        # asked for a call then, unless its last call was refused or failed (it may give up
        # in words).
        choice = "required" if (guarded and tools and not session.done
                                and not talk.stuck) else "auto"
        schemas = run.suite.tool_schemas(tools)
        if tools and session.weighing:
            schemas.append(switch_tool_schema())
        try:
            reply = complete(run.key.model, talk.messages, schemas, seed=run.key.seed,
                             options=options.call, tool_choice=choice)
        except ModelError as exc:
            talk.error = f"model error: {exc}"
            return
        talk.replies += 1
        if not reply.calls:  # the answer turn has no step of its own: its tokens count here
            talk.tokens_in += reply.input_tokens
            talk.tokens_out += reply.output_tokens
            talk.answer = reply.content or ""
            return
        ids = [f"call_{turn}_{k}" for k in range(len(reply.calls))]
        talk.messages.append({"role": "assistant", "content": reply.content, "tool_calls": [
            {"id": i, "type": "function",
             "function": {"name": c.name, "arguments": c.arguments}}
            for i, c in zip(ids, reply.calls, strict=True)]})
        for k, (call_id, call) in enumerate(zip(ids, reply.calls, strict=True)):
            # every call makes one step (take_call records it), so this is the next one
            record = step_record(run, len(talk.records) + 1, visible, reply, k)
            content = take_call(run, talk, record, call)
            talk.messages.append({"role": "tool", "tool_call_id": call_id, "name": call.name,
                                  "content": content})
    talk.error = f"step limit ({options.steps} model turns) reached without an answer"


def step_record(run: Started, step: int, visible: Any, reply: ModelReply, k: int) -> StepRecord:
    """The step of the ``k``-th call of ``reply``, before the session decides it (the reply's
    tokens, latency and faults go to its first call)."""
    session, task = run.session, run.case.task
    call = reply.calls[k]
    state = session.state
    return StepRecord(
        key=run.key, domain=task.domain, step=step, visible=visible.tools, chosen=call.name,
        arguments=_arguments(call.arguments), gold_next=gold_next(run.suite.registry, task,
                                                                  state),
        state_before=state, state_after=state, calls=tuple(c.name for c in reply.calls),
        info=visible.info, planner=visible.planner, fallbacks=visible.fallbacks,
        input_tokens=reply.input_tokens if k == 0 else 0,
        output_tokens=reply.output_tokens if k == 0 else 0,
        latency_ms=round(reply.latency_ms, 3) if k == 0 else 0.0,
        attempts=reply.attempts, faults=reply.retried if k == 0 else (),
        goals=session.describe_candidates() if session.weighing else ())


def take_call(run: Started, talk: Transcript, record: StepRecord, call: ToolCall) -> str:
    """One call of the model's: a switch, or the session's decision and, when allowed, the
    call in the environment; its step goes to the transcript, and what the model is told
    back is returned."""
    session = run.session
    if call.name == SWITCH_TOOL and session.weighing:
        shown = session.switch(_reason(call.arguments))
        content = session.switch_text(shown)
        talk.records.append(replace(record, decision="switch", result=content))
        return content
    decision = session.check(call.name, call.arguments)
    talk.stuck = not decision.allowed
    if not decision.allowed:
        talk.records.append(refused_step(record, decision))
        return render("dialogue_refused.j2", reason=decision.reason,
                      visible=record.visible).strip()
    arguments = dict(decision.arguments or {})
    done = run.environment.execute(call.name, arguments, record.state_before)
    talk.records.append(executed_step(session, record, call.name, arguments, decision, done))
    if done.ok:
        return done.text
    talk.stuck = True
    return done.text or str(done.error)


def final_goal(session: Session) -> tuple[str, ...]:
    """The leading candidate's goal at the end, when the session weighed several."""
    return tuple(sorted(session.goal)) if len(session.candidates) > 1 else ()


def _reason(arguments: str) -> str:
    parsed = _arguments(arguments)
    reason = parsed.get("reason") if isinstance(parsed, dict) else None
    return str(reason)[:300] if reason else ""


def _arguments(text: str) -> Any:
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError:
        return text


def _suite_name(suite: BenchSuite) -> str | None:
    return None if suite.kind == "yaml" else f"{suite.kind}:{suite.name}"
