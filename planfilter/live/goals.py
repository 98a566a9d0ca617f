"""Goal resolution: from a request in words to a goal state and the values the request gives.

The vocabulary is what a request can ask for: every variable some tool produces and no tool
requires (an end result, such as ``event_updated``), plus the registry's ``goals:`` entries
(several variables under one name). Two resolvers:

- ``model`` (default): one model call offered a single tool, ``set_goal``, whose arguments
  are ``goal`` (one item of an enum over the vocabulary, each option described; over the 20
  options retrieval ranks highest when the vocabulary is larger; a registry goal may be
  several steps, and then the resolution has those steps; a result one tool alone reaches
  is listed under that tool's name, an action as a registry goal's name is, see
  ``GoalOption.label``) and ``known`` (an object
  whose properties are the registry's input variables: required by some tool, produced by
  none), called with ``tool_choice="required"``. The answer is validated; an invalid one is
  asked again once, with what was wrong, and then the ``retrieval`` resolver answers.
  One choice, not a list of steps to fill: a small model offered an array lists several
  goals for a request that asks for one. Steps that no registry goal names are the caller's
  to give.
  A chosen goal of several parts (a registry goal naming several variables, or steps) is
  narrowed to the one part the request names when every part it leaves out is a side effect
  (``asked``: "Summarize the email from Ben" takes ``email_summary`` out of
  ``summarize_email_then_send``);
  otherwise it is put to the model once more on a menu of that goal and each of its parts,
  and the second answer stands: on a menu of 20, such goals drew requests that ask for one
  of their parts.
- ``retrieval``: BM25 (and, when installed, the dense embedder, mixed as ToolScope mixes
  them) over each option's name and description and the descriptions of the tools that
  produce it, less the sentences that only say where something is to be found
  (planfilter.live.directions). The values the request states it reads by rule
  (planfilter.live.request_values).

When the caller gives known values, they describe the state, and a goal they cannot reach is
most likely the wrong one of two near names (``event_rescheduled`` needs a ``new_date``;
``event_updated`` takes the ``new_time`` the user gave). So with known values:

- the model's menu lists the goals they reach first (in retrieval's order), then the others;
- a model answer whose goal cannot be reached from the known values and the values it read
  from the request (a model may give the missing ``new_date`` in ``known``) is told what is
  missing and asked once more, with that goal taken off the menu; the second answer stands;
- ``retrieval`` takes the best-ranked goal they reach.

Without known values almost nothing is reachable, and reachability is not used.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Literal

from ..core.contracts import Registry, Steps
from ..core.errors import PlanfilterError
from ..core.planners.index import index_for, reachable, unreachable_reason
from ..core.sentences import NOT_AN_ABBREVIATION
from ..models import CallOptions, ModelError, complete
from .dates import today_from
from .directions import without_directions
from .goal_parts import only_part_asked
from .goals_by_value import first_explained, read_for, request_values
from .request_values import stated_values

SET_GOAL = "set_goal"
Resolver = Literal["model", "retrieval"]
RESOLVERS: tuple[str, ...] = ("model", "retrieval")
#: Goals the model resolver offers at most (the best by retrieval) when there are more.
SHORTLIST = 20
#: Steps a resolved goal may have.
MAX_STEPS = 6
#: Characters of a tool description kept in an option's description: the option list is
#: part of every resolution prompt, so it is kept short.
_DESCRIPTION_CHARS = 100
#: A clause ends at a full stop or semicolon before a space ("i.e." ends none).
_CLAUSE_END = re.compile(r"[.;]" + NOT_AN_ABBREVIATION + r"(\s|$)")


#: Next-best goals a resolution carries, for a client to start again with the right one.
CANDIDATES = 5


@dataclass(frozen=True)
class GoalOption:
    name: str
    variables: frozenset[str]
    description: str
    #: The option's steps, when it is a registry goal of several.
    steps: Steps = ()
    #: What the model's menu calls it: the name of the one tool that reaches it, when one
    #: does (an action, as a registry goal's name is one), otherwise its name.
    label: str = ""

    @property
    def goal_steps(self) -> Steps:
        return tuple(self.steps) if self.steps else (self.variables,)

    @property
    def menu_name(self) -> str:
        return self.label or self.name

    @property
    def menu_text(self) -> str:
        """The description without the tool name that ``menu_name`` already says."""
        prefix = f"{self.label}: "
        return self.description[len(prefix):] if self.label and \
            self.description.startswith(prefix) else self.description


@dataclass(frozen=True)
class Resolution:
    """The goal a request was resolved to, and how."""

    goal: frozenset[str]
    #: The vocabulary option chosen (a variable, or a registry goal's name).
    name: str
    #: Values of input variables the resolver read out of the request.
    known: Mapping[str, Any] = field(default_factory=dict)
    #: given, model or retrieval.
    resolver: str = "given"
    notes: tuple[str, ...] = ()
    input_tokens: int = 0
    output_tokens: int = 0
    #: Model replies the resolver paid those tokens for (0: retrieval, or a given goal).
    replies: int = 0
    #: The goal's steps in order, when it has more than one.
    steps: Steps = ()
    #: Other goals the resolver ranked next, each "name: one line", best first.
    candidates: tuple[str, ...] = ()
    #: Every vocabulary option's name, best first by retrieval (the chosen one first): what
    #: goal recognition draws its candidates from.
    ranked: tuple[str, ...] = ()

    @property
    def goal_steps(self) -> Steps:
        return tuple(self.steps) if self.steps else (self.goal,)


@lru_cache(maxsize=16)
def goal_vocabulary(registry: Registry) -> tuple[GoalOption, ...]:
    """Every produced-and-never-required variable, in registry order of its first producer,
    then the registry's goals (the composite and special ones after the plain results)."""
    required = frozenset().union(*(t.pre for t in registry))
    named = [GoalOption(g.name, g.all_variables,
                        g.description or " -> ".join(", ".join(sorted(s)) for s in g.goal_steps),
                        tuple(g.steps))
             for g in registry.goals]
    options: list[GoalOption] = []
    seen = {o.name for o in named}
    for tool in registry:
        for variable in sorted(tool.post - required):
            if variable in seen:
                continue
            seen.add(variable)
            options.append(GoalOption(variable, frozenset({variable}), "; ".join(
                f"{t.name}: {first_clause(t.description)}"
                for t in registry.producers({variable}))))
    return _labelled(registry, (*options, *named))


@lru_cache(maxsize=16)
def _by_name(registry: Registry) -> Mapping[str, GoalOption]:
    """The vocabulary's options by name (read-only: it is cached)."""
    return MappingProxyType({o.name: o for o in goal_vocabulary(registry)})


def _labelled(registry: Registry, options: Sequence[GoalOption]) -> tuple[GoalOption, ...]:
    """``options``, each result that exactly one tool produces (a tool that reaches no other
    option) labelled with that tool's name, when no other option is named so.

    A request says what to do ("Decline Thursday's webinar", "Summarize the email from
    Ben"); a registry goal of several is named for the actions (``summarize_email_then_send``)
    and a single result for what it leaves (``rsvp_sent``, ``email_summary``). On a menu that
    mixes the two, the action named like the request's verb draws it even when it adds a step
    the user did not ask for, so the menu names every option it can by an action."""
    producers = {o.name: [t.name for t in registry.producers(o.variables)]
                 for o in options if not o.steps and len(o.variables) == 1}
    reaches = Counter(maker for makers in producers.values() for maker in makers)
    taken = {o.name for o in options}
    labelled = []
    for option in options:
        makers = producers.get(option.name, [])
        if len(makers) == 1 and reaches[makers[0]] == 1 and makers[0] not in taken:
            taken.add(makers[0])
            option = replace(option, label=makers[0])
        labelled.append(option)
    return tuple(labelled)


def first_clause(text: str) -> str:
    """The description up to its first full stop or semicolon, at most 100 characters."""
    match = _CLAUSE_END.search(text)
    clause = (text[: match.start()] if match else text).strip()
    return clause if len(clause) <= _DESCRIPTION_CHARS else \
        clause[: _DESCRIPTION_CHARS - 3].rstrip() + "..."


@lru_cache(maxsize=16)
def input_variables(registry: Registry) -> dict[str, str]:
    """Variables some tool requires and none produces, each with a description taken from a
    tool parameter of the same name when there is one."""
    required = frozenset().union(*(t.requires for t in registry))
    inputs: dict[str, str] = {}
    for name in sorted(required - registry.produced):
        described = ""
        for tool in registry:
            prop = tool.parameters.get("properties", {}).get(name)
            if isinstance(prop, Mapping) and prop.get("description"):
                described = str(prop["description"])
                break
        inputs[name] = described or name.replace("_", " ")
    return inputs


def why_unreachable(registry: Registry, known: Iterable[str], goal: frozenset[str]) -> str:
    """Why no plan reaches ``goal`` from the variables ``known`` ("" when one does)."""
    return unreachable_reason(index_for(registry), frozenset(known), goal)


def reachable_first(registry: Registry, order: Sequence[int], known: Iterable[str]
                    ) -> list[int]:
    """Vocabulary positions in ``order``, those whose goal ``known`` reaches first (stable)."""
    options, reach = goal_vocabulary(registry), reachable(index_for(registry), frozenset(known))
    near = [i for i in order if options[i].variables <= reach]
    return near + [i for i in order if not options[i].variables <= reach]


#: How the ``goal`` parameter reads on the full menu, and on a goal of parts beside its parts.
_GOAL_TEXT = ("What the request asks to have done, one of (a goal named for several things "
              "reaches them in the order its description gives):\n")
_PARTS_TEXT = ("What the request asks to have done, one of (choose a goal named for several "
               "things only when the request asks for every one of them; when it asks for one "
               "of them, choose that one):\n")


def set_goal_tool(registry: Registry, options: Sequence[GoalOption] | None = None, *,
                  parts: bool = False) -> dict[str, Any]:
    """The single tool the ``model`` resolver offers; ``options``: the goals in its enum
    (default: the whole vocabulary); ``parts``: the menu is a goal of several parts and its
    parts, and ``goal`` says when to choose the whole.

    ``known`` comes first in the schema: it is the same for every request to one registry,
    and the menu is not, so prompts that render the tool ahead of the request (llama.cpp's
    chat templates) share that part and a local model evaluates it once. The model still
    answers ``goal`` first (it is the call's required enum)."""
    options = goal_vocabulary(registry) if options is None else options
    listing = "\n".join(f"- {o.menu_name}: {o.menu_text}" for o in options)
    inputs = {name: {"type": ["string", "number", "boolean"], "description": text}
              for name, text in input_variables(registry).items()}
    properties: dict[str, Any] = {"known": {
        "type": "object", "properties": inputs, "additionalProperties": False,
        "description": "Values stated in the request, by name; leave out what the request "
                       "does not say."}}
    properties["goal"] = {"type": "string", "enum": [o.menu_name for o in options],
                          "description": (_PARTS_TEXT if parts else _GOAL_TEXT) + listing}
    return {"type": "function", "function": {
        "name": SET_GOAL,
        "description": "Record what the user's request asks to have done (the goal) and the "
                       "values the request itself gives.",
        "parameters": {"type": "object", "properties": properties, "required": ["goal"]},
    }}


def _messages(request: str, problem: str | None,
              context: Mapping[str, Any] | None) -> list[dict[str, str]]:
    system = ("You map a user's request to the goal it asks for. Call set_goal exactly once: "
              "choose the goal that, once reached, means the request is done, and copy into "
              "known the values the request states.")
    user = f"Request: {request}"
    if context:
        user += "\n\nKnown state:\n" + "\n".join(
            f"- {name}: {json.dumps(value, ensure_ascii=False, default=str)}"
            for name, value in context.items())
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    if problem:
        messages.append({"role": "user", "content": f"Your last answer was not valid: "
                                                    f"{problem}. Call set_goal again."})
    return messages


def check_answer(registry: Registry, arguments: Any) -> tuple[Resolution | None, str]:
    """A valid ``set_goal`` answer as a Resolution, or None and what is wrong with it."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError as exc:
            return None, f"arguments are not valid JSON ({exc})"
    if not isinstance(arguments, Mapping):
        return None, "arguments must be a JSON object"
    vocabulary = goal_vocabulary(registry)
    options = {**{o.menu_name: o for o in vocabulary}, **{o.name: o for o in vocabulary}}
    goal = arguments.get("goal")
    names = [goal] if isinstance(goal, str) else goal
    if not isinstance(names, list) or not names or len(names) > MAX_STEPS:
        return None, "goal must be one of the listed goals"
    wrong = [n for n in names if not isinstance(n, str) or n not in options]
    if wrong:
        return None, f"goal {wrong[0]!r} is not one of the listed goals"
    steps = tuple(step for n in names for step in options[n].goal_steps)
    known = arguments.get("known") or {}
    if not isinstance(known, Mapping):
        return None, "known must be an object"
    inputs = input_variables(registry)
    kept = {k: v for k, v in known.items()
            if k in inputs and isinstance(v, str | int | float | bool) and v != ""}
    notes = tuple(f"ignored known {k!r}: not an input variable with a plain value"
                  for k in known if k not in kept)
    return Resolution(frozenset().union(*steps), " -> ".join(options[n].name for n in names),
                      kept, "model", notes,
                      steps=steps if len(steps) > 1 else ()), ""


def _menu(registry: Registry, request: str, context: Mapping[str, Any] | None,
          shortlist: int | None) -> tuple[tuple[GoalOption, ...], Sequence[int], list[str]]:
    """The goals offered to the model (the vocabulary, or its ``shortlist`` best ranked,
    those the known values reach first), retrieval's ranking, and a note on the menu."""
    offered = goal_vocabulary(registry)
    notes: list[str] = []
    ranked, _, note = rank_goals(registry, request, context)
    if shortlist is not None and len(offered) > shortlist:
        order = reachable_first(registry, ranked, context) if context else ranked
        if context:
            note += "; goals the known values reach first"
        offered = tuple(offered[i] for i in order[:shortlist])
        notes.append(f"offered the {shortlist} of {len(order)} goals retrieval ranks highest "
                     f"({note})")
    return offered, ranked, notes


def resolve_with_model(registry: Registry, request: str, model: str, *,
                       seed: int | None = None, context: Mapping[str, Any] | None = None,
                       options: CallOptions | None = None,
                       shortlist: int | None = SHORTLIST) -> Resolution:
    """The ``model`` resolver; falls back to ``retrieval`` after two invalid answers.

    A goal of several parts it chooses is put to the model once more beside its parts
    (see ``narrow_to_asked``).

    With a vocabulary larger than ``shortlist``, the enum offers the ``shortlist`` goals the
    retrieval scores rank highest, best first, those the known values reach ahead (``None``:
    the whole vocabulary, in its order): a short menu is what lets a small model choose.
    Returns the model's resolution; when no answer validates after one retry, the
    ``retrieval`` resolver's."""
    offered, ranked, notes = _menu(registry, request, context, shortlist)
    tool = set_goal_tool(registry, offered)
    problem: str | None = None
    spent_in = spent_out = replies = 0
    for attempt in range(2):
        try:
            reply = complete(model, _messages(request, problem, context), [tool], seed=seed,
                             options=options or CallOptions())
        except ModelError as exc:
            notes.append(f"model error: {exc}")
            break
        spent_in += reply.input_tokens
        spent_out += reply.output_tokens
        replies += 1
        calls = [c for c in reply.calls if c.name == SET_GOAL]
        if not calls:
            problem = "no call to set_goal"
        else:
            found, problem = check_answer(registry, calls[0].arguments)
            if found is not None and attempt == 0 and context:
                why = why_unreachable(registry, {*context, *found.known}, found.goal)
                if why:  # asked once more, without it; the second answer stands
                    far = _by_name(registry)[found.name]
                    offered = tuple(o for o in offered if o.name != far.name)
                    tool = set_goal_tool(registry, offered)
                    found, problem = None, (f"goal {far.menu_name!r} cannot be reached from "
                                            f"the known values: {why}. Choose another goal")
            if found is not None:
                found, used_in, used_out, asked = narrow_to_asked(
                    registry, request, model, found, ranked, seed=seed, context=context,
                    options=options)
                return replace(found, notes=(*notes, *found.notes),
                               input_tokens=spent_in + used_in,
                               output_tokens=spent_out + used_out,
                               replies=replies + asked,
                               candidates=_next_best(goal_vocabulary(registry), ranked,
                                                     set(found.name.split(" -> "))),
                               ranked=_ranked_names(registry, ranked, found.name))
        notes.append(f"invalid answer: {problem}")
    fallback = resolve_with_retrieval(registry, request, context)
    return replace(fallback, notes=(*notes, "fell back to retrieval", *fallback.notes),
                   input_tokens=spent_in, output_tokens=spent_out, replies=replies)


def parts_of(registry: Registry, name: str) -> tuple[GoalOption, ...]:
    """The vocabulary options a goal of several variables is made of, one per variable, in
    the order of its steps (empty when it has one variable, or none of them is an option)."""
    options = _by_name(registry)
    chosen = options.get(name)
    if chosen is None or len(chosen.variables) < 2:
        return ()
    ordered = [v for step in chosen.goal_steps for v in sorted(step)]
    return tuple(options[v] for v in ordered
                 if v in options and options[v].variables == frozenset({v}))


def narrow_to_asked(registry: Registry, request: str, model: str, found: Resolution,
                    ranked: Sequence[int], *, seed: int | None = None,
                    context: Mapping[str, Any] | None = None,
                    options: CallOptions | None = None) -> tuple[Resolution, int, int, int]:
    """``found`` when it is one goal of one part; the part the request alone names, when the
    parts it leaves out are side effects (``goal_parts.only_part_asked``: no model call);
    otherwise the model's answer to a second ``set_goal`` whose menu is that goal and each of
    its parts, in the order of ``ranked`` (vocabulary positions, best first, as
    ``rank_goals`` gives them), and the input and output tokens and model replies it spent.

    On a menu of 20, a goal named for several things draws requests that ask for one of them
    (a request to summarize an e-mail resolved to ``summarize_email_then_send``, adding an
    action the user did not ask for). Retrieval scores cannot tell the two cases
    apart (the part a request does not ask for scores as high as parts that are asked), so
    the model is asked afresh, the same request on a menu where the whole and its parts stand
    side by side, ``goal`` saying when the whole is right. Only the menu differs from the
    first call, so a local model reuses the evaluated prompt up to it. (Asked instead as a
    follow-up in the same conversation, "X names several things; choose it only if ...", the
    1.5B model turned two of the first three requests that do ask for both to one part.) The
    values it read the first time stay; an invalid second answer keeps the first."""
    parts = parts_of(registry, found.name)
    if not parts:
        return found, 0, 0, 0
    vocabulary = goal_vocabulary(registry)
    whole = _by_name(registry)[found.name]
    part = only_part_asked(registry, request, whole, parts)
    if part is not None:
        left = ", ".join(p.name for p in parts if p is not part)
        note = (f"narrowed {found.name} to {part.name}: the request names {part.name} and "
                f"not {left}, a side effect")
        return replace(found, goal=part.variables, name=part.name, steps=(),
                       notes=(*found.notes, note)), 0, 0, 0
    rank = {vocabulary[i].name: k for k, i in enumerate(ranked)}
    menu = sorted({whole, *parts}, key=lambda o: rank[o.name])
    try:
        reply = complete(model, _messages(request, None, context),
                         [set_goal_tool(registry, menu, parts=True)], seed=seed,
                         options=options or CallOptions())
    except ModelError as exc:
        return replace(found, notes=(*found.notes, f"kept {found.name}: asking again between "
                                                   f"it and its parts failed ({exc})")), 0, 0, 0
    calls = [c for c in reply.calls if c.name == SET_GOAL]
    second, problem = check_answer(registry, calls[0].arguments) if calls else \
        (None, "no call to set_goal")
    if second is not None and second.name not in {o.name for o in menu}:
        problem = f"goal {second.name!r} was not on the menu"
        second = None
    if second is None:
        note = f"kept {found.name}: the answer between it and its parts was invalid ({problem})"
        return (replace(found, notes=(*found.notes, note)), reply.input_tokens,
                reply.output_tokens, 1)
    note = (f"asked again between {found.name} and its parts "
            f"({', '.join(o.name for o in parts)}): {second.name}")
    return (replace(second, known={**second.known, **found.known},
                    notes=(*found.notes, *second.notes, note)),
            reply.input_tokens, reply.output_tokens, 1)


def _documents(registry: Registry) -> tuple[str, ...]:
    docs = []
    for option in goal_vocabulary(registry):
        parts = [option.name, option.description,
                 *(f"{t.name} {t.description}" for t in registry.producers(option.variables))]
        docs.append(" ".join(parts).replace("_", " "))
    return tuple(docs)


@lru_cache(maxsize=8)
def _index(registry: Registry, embedder_name: str) -> tuple[Any, Any, Any, str]:
    import bm25s

    from ..retrieval.embedders import try_embedder
    from ..retrieval.toolscope import words

    docs = _documents(registry)
    bm25 = bm25s.BM25()
    bm25.index([words(d) or ["<empty>"] for d in docs], show_progress=False)
    embedder, why = (None, "dense off") if embedder_name == "none" else \
        try_embedder(embedder_name)
    vectors = embedder.encode(docs) if embedder is not None else None
    note = f"dense {embedder_name}" if embedder is not None else \
        f"sparse only ({why.splitlines()[0][:120]})"
    if embedder is None and embedder_name != "none":
        note += f"; {SPARSE_ONLY_COST}"
        _warn_sparse_only(why.splitlines()[0][:120])
    return bm25, embedder, vectors, note


#: What resolving goals by words alone costs, measured (docs/concepts/goals.md).
SPARSE_ONLY_COST = ("without dense retrieval, goals resolved from the request clear 65/97 "
                    "tasks of the AgentDojo replay instead of 80/97")
_warned: list[str] = []


def _warn_sparse_only(why: str) -> None:
    """Say once a process, on stderr (a ``RuntimeWarning``), that goals are resolved by words
    alone, why, and what it costs."""
    if not _warned:
        _warned.append(why)
        # said of planfilter, not of a line of its code: the reader can do nothing there
        warnings.warn_explicit(f"goals are resolved by words alone, {why}: "
                               f"{SPARSE_ONLY_COST}", RuntimeWarning, "planfilter", 0,
                               module=__name__)


def rank_goals(registry: Registry, request: str, context: Mapping[str, Any] | None = None,
               ) -> tuple[list[int], list[float], str]:
    """Vocabulary positions, best first, by the hybrid score of the request (with the names of
    the ``context`` variables), their scores, and a note on the set-up.

    The names of the known variables are read beside the request, as the toolscope filters
    read the state: "event description" and "new time" point to events."""
    import numpy as np

    from ..retrieval.toolscope import DEFAULT_ALPHA, DEFAULT_EMBEDDER, EMBEDDER_ENV, hybrid, words

    options = goal_vocabulary(registry)
    if not options:
        raise PlanfilterError(f"{registry.source or '<registry>'}: no goal to resolve to "
                              "(every produced variable is also required by some tool)")
    bm25, embedder, vectors, note = _index(
        registry, os.environ.get(EMBEDDER_ENV) or DEFAULT_EMBEDDER)
    query = " ".join([request, *(context or {})]).replace("_", " ")
    tokens = words(query)
    sparse = np.asarray(bm25.get_scores(tokens), dtype=np.float64) if tokens else \
        np.zeros(len(options))
    dense = vectors @ embedder.encode([query])[0] if embedder is not None else None
    scores = hybrid(dense, sparse, DEFAULT_ALPHA)
    order = [int(i) for i in np.argsort(-scores, kind="stable")]
    return order, [float(s) for s in scores], note


def resolve_with_retrieval(registry: Registry, request: str,
                           context: Mapping[str, Any] | None = None, *,
                           today: date | None = None) -> Resolution:
    """The ``retrieval`` resolver: the best-scoring vocabulary option for the request; with
    known values in ``context``, the best-scoring one they can reach (when one can). The
    sentences that only say where something is to be found are left out of the ranking
    (planfilter.live.directions); the values are read from the whole request."""
    order, scores, note = rank_goals(registry, without_directions(request), context)
    options = goal_vocabulary(registry)
    best = reachable_first(registry, order, context)[0] if context else order[0]
    if best != order[0]:
        note += f"; {options[order[0]].name} ranked higher and the known values cannot " \
                "reach it"
    day = today if today is not None else today_from()
    values = request_values(request, day)
    by_values = first_explained(registry, [options[i].variables for i in order], values,
                                context or {})
    if by_values is not None and order[by_values] != best:
        best = order[by_values]
        note += f"; {options[best].name} takes every value the request states"
    chosen = options[best]
    known = {k: v for k, v in stated_values(registry, request).items()
             if k not in (context or {})}
    read = read_for(registry, chosen.variables, values, {**(context or {}), **known},
                    described=by_values is not None)
    if read:
        note += f"; read {', '.join(f'{k}={v}' for k, v in read.items())} (today {day})"
    return Resolution(chosen.variables, chosen.name, {**known, **read}, "retrieval",
                      (f"retrieval: {note}; score {scores[best]:.2f}",),
                      steps=chosen.steps,
                      candidates=_next_best(options, order, {chosen.name}),
                      ranked=_ranked_names(registry, order, chosen.name))


def _ranked_names(registry: Registry, order: Sequence[int], chosen: str) -> tuple[str, ...]:
    """The vocabulary's names in ``order``, ``chosen`` first."""
    options = goal_vocabulary(registry)
    return (chosen, *(options[i].name for i in order if options[i].name != chosen))


def _next_best(options: Sequence[GoalOption], order: Sequence[int],
               chosen: set[str]) -> tuple[str, ...]:
    picked = [options[i] for i in order if options[i].name not in chosen][:CANDIDATES]
    return tuple(f"{o.name}: {o.description}" for o in picked)


def resolve_goal(registry: Registry, request: str, *, resolver: str = "model",
                 model: str | None = None, seed: int | None = None,
                 options: CallOptions | None = None,
                 context: Mapping[str, Any] | None = None) -> Resolution:
    """Resolve ``request`` with ``resolver`` (``model`` needs ``model``); ``context`` holds
    the values already known (the model sees them as the agent does)."""
    if not request.strip():  # nothing to read a goal from, by any resolver
        raise PlanfilterError("the request is empty: say what the user wants, or give the goal")
    if resolver == "retrieval":
        return resolve_with_retrieval(registry, request, context)
    if resolver != "model":
        raise PlanfilterError(f"goal resolver {resolver!r}: choose {' or '.join(RESOLVERS)}")
    if not model:
        raise PlanfilterError("the model goal resolver needs a model (a litellm name, e.g. "
                              "sim/careful or openai/gpt-4o-mini); or use resolver='retrieval'")
    return resolve_with_model(registry, request, model, seed=seed, options=options,
                              context=context)
