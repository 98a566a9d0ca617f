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
from dataclasses import replace
from typing import Any

from ..core.compile import render
from ..core.errors import PlanfilterError
from ..core.tasks import Task
from ..filters import PRESELECTING_METHODS, FilterOptions
from ..filters.preselect import kept_tools
from ..live import SWITCH_TOOL, Session, switch_tool_schema
from ..models import ModelError, complete
from ..suites import BenchSuite, Case
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


def goal_source(suite: BenchSuite, options: AgentOptions, resolution: Any) -> str:
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


def run_dialogue(suite: BenchSuite, case: Case, *, method: str, model: str, seed: int = 1,
                 options: AgentOptions | None = None) -> RunOutcome:
    """One run of ``case``; never raises for a failed run."""
    options = (options or AgentOptions()).for_suite(suite.max_steps, suite.oracle)
    key = RunKey(case.id, model, method, seed)
    task = case.task
    registry = suite.registry
    environment = suite.environment(case, model)
    filter_options = options.filter
    tokens_in = tokens_out = replies = 0
    preselection = None
    records: list[StepRecord] = []
    answer: str | None = None
    error: str | None = None
    try:
        if method in PRESELECTING_METHODS:
            kept, preselection, tokens_in, tokens_out = preselect(suite, case, model, seed,
                                                                  options)
            replies = 1
            filter_options = replace(filter_options, preselected=kept)
        session, resolution = start_session(
            suite, case, method=method, model=model, seed=seed, options=options,
            filter_options=filter_options, provenance=method in GUARDED_METHODS)
    except PlanfilterError as exc:  # the model failed, or the task's values do not fit
        what = "model error" if isinstance(exc, ModelError) else "the session cannot start"
        run = RunRecord(key, task.domain, False, 0, f"{what}: {exc}", tokens_in,
                        tokens_out, query=task.query, suite=_suite_name(suite),
                        attack=suite.attack if case.injection else None,
                        injection=case.injection, preselection=preselection,
                        model_calls=replies)
        return RunOutcome((), run)
    tokens_in += resolution.input_tokens
    tokens_out += resolution.output_tokens
    replies += resolution.replies
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": suite.system_prompt() or ""},
        {"role": "user", "content": task.query},
    ]
    # The baselines are not held to planfilter's goal: their session keeps their tools after
    # it is reached, and checks visibility, arguments and approval only (no provenance).
    guarded = method in GUARDED_METHODS
    asked_final = stuck = False
    step = 0
    for turn in range(1, options.steps + 1):
        visible = session.visible()
        tools = visible.tools
        if not tools and not asked_final:
            messages.append({"role": "user", "content": render("dialogue_final.j2").strip()})
            asked_final = True
        # A causal method knows the goal is not reached while it shows a tool: the model is
        # asked for a call then, unless its last call was refused or failed (it may give up
        # in words).
        choice = "required" if (guarded and tools and not session.done
                                and not stuck) else "auto"
        schemas = suite.tool_schemas(tools)
        if tools and session.weighing:
            schemas.append(switch_tool_schema())
        try:
            reply = complete(model, messages, schemas, seed=seed,
                             options=options.call, tool_choice=choice)
        except ModelError as exc:
            error = f"model error: {exc}"
            break
        replies += 1
        if not reply.calls:  # the answer turn has no step of its own: its tokens count here
            tokens_in += reply.input_tokens
            tokens_out += reply.output_tokens
            answer = reply.content or ""
            break
        ids = [f"call_{turn}_{k}" for k in range(len(reply.calls))]
        messages.append({"role": "assistant", "content": reply.content, "tool_calls": [
            {"id": i, "type": "function",
             "function": {"name": c.name, "arguments": c.arguments}}
            for i, c in zip(ids, reply.calls, strict=True)]})
        for k, (call_id, call) in enumerate(zip(ids, reply.calls, strict=True)):
            step += 1
            state = session.state
            record = StepRecord(
                key=key, domain=task.domain, step=step, visible=tools, chosen=call.name,
                arguments=_arguments(call.arguments), gold_next=gold_next(registry, task, state),
                state_before=state, state_after=state, calls=tuple(c.name for c in reply.calls),
                info=visible.info, planner=visible.planner, fallbacks=visible.fallbacks,
                input_tokens=reply.input_tokens if k == 0 else 0,
                output_tokens=reply.output_tokens if k == 0 else 0,
                latency_ms=round(reply.latency_ms, 3) if k == 0 else 0.0,
                attempts=reply.attempts, faults=reply.retried if k == 0 else (),
                goals=session.describe_candidates() if session.weighing else ())
            if call.name == SWITCH_TOOL and session.weighing:
                shown = session.switch(_reason(call.arguments))
                content = session.switch_text(shown)
                records.append(replace(record, decision="switch", result=content))
                messages.append({"role": "tool", "tool_call_id": call_id, "name": call.name,
                                 "content": content})
                continue
            decision = session.check(call.name, call.arguments)
            stuck = not decision.allowed
            if not decision.allowed:
                content = render("dialogue_refused.j2", reason=decision.reason,
                                 visible=tools).strip()
                records.append(replace(record, decision=decision.kind, error=decision.reason,
                                       approval=decision.approval))
            else:
                arguments = dict(decision.arguments or {})
                done = environment.execute(call.name, arguments, state)
                if done.ok:
                    recorded = session.record(call.name, arguments, done.result)
                    content = done.text
                    records.append(replace(
                        record, decision="allowed", approval=decision.approval,
                        produced=dict(recorded.produced), state_after=session.state,
                        result=done.text[:RESULT_CHARS], unfilled=recorded.unfilled))
                else:
                    stuck = True
                    session.record(call.name, arguments, error=done.error)
                    content = done.text or str(done.error)
                    records.append(replace(record, decision="allowed", error=done.error,
                                           tool_failed=True, approval=decision.approval))
            messages.append({"role": "tool", "tool_call_id": call_id, "name": call.name,
                             "content": content})
    else:
        error = f"step limit ({options.steps} model turns) reached without an answer"
    verdict = environment.verdict(answer, session.state)
    if error is None and not verdict.success:
        error = "the suite's check failed: the task was not done"
    if records:
        records[-1] = replace(records[-1], done=True, success=verdict.success)
    run = RunRecord(
        key, task.domain, verdict.success, len(records), None if verdict.success else error,
        tokens_in + sum(r.input_tokens for r in records),
        tokens_out + sum(r.output_tokens for r in records),
        goal=tuple(sorted(resolution.goal)),
        goal_by=goal_source(suite, options, resolution),
        goal_correct=resolution.goal == task.goal, goal_known=dict(resolution.known),
        goal_notes=resolution.notes, query=task.query, suite=_suite_name(suite),
        attack=suite.attack if case.injection else None, injection=case.injection,
        attack_success=verdict.attack_success, answer=answer, preselection=preselection,
        switches=len(session.switches), final_goal=final_goal(session), model_calls=replies)
    return RunOutcome(tuple(records), run)


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
