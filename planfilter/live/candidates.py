"""Candidate goals for a request: the resolver's goal, the goals it ranked next, and reads
that inform an action.

Goal recognition (planfilter.live.recognition) weighs candidates; this module says which
ones. The resolver's answer comes first, then the vocabulary options in the resolver's order
(retrieval's ranking of the request). An action is often asked for with values nobody typed:
"pay the invoice in 'invoice-0412.pdf'" names neither the recipient nor the amount, and the
action alone, planned to its effect, goes straight to the payment. So beside every action
among the options the request ranks highest, the candidates hold the action preceded by a
read that can inform it, as a goal in two steps (read, then act). The contracts say which
reads those are, and when a read is likely needed:

- a read *informs* an action when its result holds fields named like the action's
  parameters (a result with ``recipient_email`` and ``payment_amount`` informs
  ``send_payment``), or when it answers in text and the request states its input (the file
  the request names: a text can hold any value); the reads that inform it most come first,
  retrieval's order breaking ties;
- when a ``sensitive`` parameter of the tools that reach the action (a recipient, an amount)
  has no value the request states (planfilter.live.request_values), the read-then-act
  candidates rank ahead of the action alone; when the request states them all ("send
  250.00 USD to billing@acme.example"), the action alone ranks ahead;
- a read a sentence of the request points at ("the details are in Maria's email",
  planfilter.live.directions) is the first read paired with every action, and that pair
  ranks ahead of the action alone: the user has said where the values are.

A read that takes names the model writes (``get_venue_prices(venue_names)``) needs those
names from somewhere: from the request ("the 'Harbor Hall'") or from a read that *lists*
that kind of thing (``list_venues_in_city`` answers with venue names; its name says so, and
it takes no such name itself). When the request states no such name, the candidates hold the
list first, then the reads (and the actions that take such a name), in two steps. When an
action the request asks for writes such a name too ("book the cheapest venue"), the read
singles one thing out for it: the candidates hold the list, the read, then the action, in
three steps.

A request may name several kinds of thing to look up ("suggest a venue, a caterer and a
florist with the best reviews"); its ranking as a whole favours one of them. Then one
candidate, first, asks for every kind's listing and the reads the request asks of any of
them (the reviews and the prices of each), in one step and in any order; a kind no listing
lists joins it when the request states what its read requires (a train from Lyon to Turin).

Reads of one kind of thing that answer with the same variable stand in for one another:
the recent e-mails and a search of the e-mails (both give e-mail ids), the files listed
recently and the files searched. Whichever of them a candidate's next step shows, the
session shows its kin too (:func:`kin_reads`): the request rarely says which one, and a read
is low-risk.

Which of the orders the agent is on, the calls it makes tell (a read first keeps the
two-step candidates; the action first keeps the action alone).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..core.contracts import Registry, Steps, Tool
from ..core.planners.index import index_for, reduce_problem
from ..core.schemas import schema_kind
from ..core.sentences import sentences
from ..core.text import PLAIN_READ_VERBS, singular
from ..core.text import words as split_words
from .directions import direction_sentences
from .goals import GoalOption, Resolution, goal_vocabulary, rank_goals
from .recognition import Candidate, Origin, RecognitionOptions, candidates_from
from .request_values import states_parameter

#: Options of the ranking that candidates are drawn from (the best ones).
OPTIONS = 6
#: Reads (the best-ranked) paired with each action as read-then-act candidates.
READS = 2
#: Reads asked together, at most.
TOGETHER = 4
#: Options of the ranking whose reads join the listing of their kind ("list then use", and
#: a kind the request names): the reads of one kind the request asks for.
NAMED = 12
#: A sentence's best option is a part of the request when retrieval scores it above this: a
#: sentence with no word of any tool ("1.") scores its best option by meaning alone, half
#: the hybrid score at most.
PART_SCORE = 0.5
#: Options of a sentence's ranking its action is looked for among.
PART_OPTIONS = 3
#: Quoted text (an apostrophe inside a word, "I'm", opens no quote), and the {placeholders}
#: a template leaves.
_QUOTED = re.compile(r"(?<![A-Za-z])'[^'\n]*'(?![A-Za-z])|\"[^\"\n]*\"|\{[^}]*\}")


def result_fields(schema: Any) -> frozenset[str]:
    """Every property name anywhere in a JSON Schema (objects, list items, definitions)."""
    found: set[str] = set()
    todo = [schema]
    while todo:
        node = todo.pop()
        if isinstance(node, Mapping):
            properties = node.get("properties")
            if isinstance(properties, Mapping):
                found.update(str(k) for k in properties)
            todo.extend(node.values())
        elif isinstance(node, list | tuple):
            todo.extend(node)
    return frozenset(found)


def _text_result(schema: Any) -> bool:
    """The read answers in text (``str``, or ``str | None``)."""
    return isinstance(schema, Mapping) and schema_kind(schema) == "string"


#: Words that name no kind of thing in a parameter's or a result's name.
_GENERIC = frozenset({"name", "id", "all", "in", "for", "of", "by", "to", "per", "the", "a",
                      "and", "list", "get", "type", "info", "detail", "data", "value", "day"})


def _kinds(name: str) -> frozenset[str]:
    """The kinds of thing a name speaks of: its words, made singular, less the generic ones
    (``venue_names`` -> venue; ``list_catering_companies_in_city`` -> catering, company,
    city)."""
    words = (singular(w, english=False) for w in split_words(name))
    return frozenset(w[:-2] + "y" if w.endswith("ie") else w for w in words) - _GENERIC


def said_kinds(text: str) -> frozenset[str]:
    """The kinds of thing the words of ``text`` name (each word as :func:`_kinds` reads
    it): "the details are in Maria's email" names an email."""
    return frozenset().union(*(_kinds(w) for w in split_words(text)))


def own_kinds(tool: Tool) -> frozenset[str]:
    """The kinds of thing a tool's name speaks of, less how it looks and the heads that
    name no kind (``read_email`` -> email; ``get_contact_details`` -> contact)."""
    return _kinds(tool.name) - _NO_HEAD - PLAIN_READ_VERBS


def listed_kinds(tool: Tool) -> frozenset[str]:
    """What a list-answering read lists (the kinds its results are named by, less those it
    takes as input): ``list_venues_in_city(city)`` lists venues."""
    if not tool.reads or not (_text_result(tool.returns) or schema_kind(tool.returns or {})
                              == "array" or tool.name.startswith(("get_all", "list"))):
        return frozenset()
    return frozenset().union(*(_kinds(v) for v in tool.produces)) - parameter_kinds((tool,))


def option_lists(registry: Registry, option: GoalOption) -> frozenset[str]:
    """What the tools that reach the option list (:func:`listed_kinds`)."""
    return frozenset().union(*(listed_kinds(t) for t in registry.producers(option.variables)))


def parameter_kinds(tools: Iterable[Tool]) -> frozenset[str]:
    """The kinds of thing the tools' parameters name (a venue, a contact, a file)."""
    return frozenset().union(*(_kinds(p) for t in tools
                               for p in t.parameters.get("properties") or {}))


@lru_cache(maxsize=16)
def registry_things(registry: Registry) -> frozenset[str]:
    """The kinds of thing the registry's parameters name."""
    return parameter_kinds(registry)


def written_kinds(tool: Tool, request: str, known: Mapping[str, Any]) -> frozenset[str]:
    """The kinds of thing whose names the tool takes as text the model writes, when the
    request (or the user) gives none of them."""
    return frozenset().union(*(_kinds(p) for p in tool.authored
                               if tool.variable_of(p) not in known
                               and not states_parameter(tool, p, request)))


def listing_reads(registry: Registry, option: GoalOption, reads: Sequence[GoalOption],
                  request: str, known: Mapping[str, Any]) -> list[GoalOption]:
    """The reads that list the things whose names the option's tools write and the request
    does not give, best (most kinds in common) first."""
    wanted = frozenset().union(*(written_kinds(t, request, known)
                                 for t in registry.producers(option.variables)))
    if not wanted:
        return []
    scored: list[tuple[int, int, GoalOption]] = []
    for read in reads:
        if read.variables & option.variables:
            continue
        common = max((len(listed_kinds(t) & wanted) for t in registry.producers(read.variables)),
                     default=0)
        if common:
            scored.append((-common, len(scored), read))
    return [r for _, _, r in sorted(scored, key=lambda item: item[:2])]


#: Words that end the head of a tool's name and open what it is about ("reviews *for*
#: venues") or how it is found ("files *by* name").
_ABOUT = frozenset({"for", "of", "in", "from", "with", "to", "per"})
_BY = frozenset({"by"})
#: Heads that name no kind of thing (``get_contact_details``, ``get_file_content``).
_NO_HEAD = _GENERIC | frozenset({"information", "result", "detail", "content"})


def _head_and_object(name: str, things: frozenset[str]) -> tuple[str, frozenset[str]]:
    """A read's name as the kind of thing it returns (its last noun before a preposition,
    made singular) and what it is about: the ``things`` named before the head and the kinds
    after ``for``/``of``/``in``... (what follows ``by`` says how, not what).
    ``get_reviews_for_venues`` -> (review, {venue}); ``get_venue_prices`` -> (price,
    {venue}); ``list_recent_emails`` and ``find_files_by_name`` -> (email, {}), (file,
    {})."""
    words = split_words(name)
    cut = next((i for i, w in enumerate(words) if w in _ABOUT | _BY), len(words))
    head = singular(words[cut - 1], english=False) if cut else ""
    before = _kinds("_".join(words[: cut - 1])) & things if cut else frozenset()
    after = frozenset() if cut == len(words) or words[cut] in _BY else \
        _kinds("_".join(words[cut + 1:]))
    return ("" if head in _NO_HEAD else head), before | after


@lru_cache(maxsize=16)
def kin_reads(registry: Registry) -> Mapping[str, tuple[str, ...]]:
    """Read -> the other low-risk reads of the same kind of thing about the same things that
    produce a variable it produces too (the e-mail ids every e-mail read answers with), in
    registry order: alternatives, not steps (reading an e-mail and summarising it produce
    different things). The things are what the registry's parameters name (a venue, a
    contact), so "recent" or "archived" qualify a kind, not a thing."""
    things = registry_things(registry)
    reads = [t for t in registry if t.reads and t.risk == "low"]
    kinds = {t.name: _head_and_object(t.name, things) for t in reads}
    return {t.name: tuple(o.name for o in reads if o.name != t.name
                          and kinds[o.name] == kinds[t.name] and kinds[t.name][0]
                          and o.produces & t.produces)
            for t in reads}


@lru_cache(maxsize=16)
def kin_of_variables(registry: Registry) -> Mapping[str, frozenset[str]]:
    """Variable -> the kin (:func:`kin_reads`) of the tools that produce it: the reads that
    stand in for its producers."""
    kin = kin_reads(registry)
    return {v: frozenset(k for t in registry.producers({v}) for k in kin.get(t.name, ()))
            for v in registry.produced}


def names_read(tool: Tool) -> frozenset[str]:
    """What a read's result is named by: its result's fields and its produced variables,
    plurals made singular (``emails`` names ``email``)."""
    names = result_fields(tool.returns) | tool.produces
    return frozenset(names) | frozenset(singular(n, english=False) for n in names)


def asked_input(tool: Tool, request: str, known: Mapping[str, Any]) -> bool:
    """The request (or the user) gives a value one of the tool's parameters takes: the read
    the request points at ("the file 'notes.txt'", "the article at www.example.com")."""
    return any(tool.variable_of(p) in known or states_parameter(tool, p, request)
               for p in tool.parameters.get("properties", {}))


def _stated_inputs(tool: Tool, request: str, known: Mapping[str, Any]) -> bool:
    """The request (or the user) gives a value of every input the tool requires (it
    requires one at least): it is looked up by what the request states."""
    required = tool.parameters.get("required") or ()
    return bool(required) and all(tool.variable_of(p) in known
                                  or states_parameter(tool, p, request) for p in required)


def directed_reads(registry: Registry, request: str,
                  every_read: Sequence[GoalOption] | None = None) -> tuple[GoalOption, ...]:
    """The reads a sentence of the request points at (planfilter.live.directions: "the
    details are in Maria's email"), in ``every_read``'s order: every kind of thing a tool
    that reaches it is named by (its name's words, less how it looks) is a word of the
    sentence (the email), or the sentence states a value one of its parameters takes ("the
    agenda is on www.example.com/agenda"). ``every_read`` defaults to every read of the
    vocabulary."""
    if every_read is None:
        every_read = [o for o in goal_vocabulary(registry) if is_read(registry, o)]
    out: list[GoalOption] = []
    for sentence in direction_sentences(request):
        said = said_kinds(sentence)
        out += [read for read in every_read if read not in out and any(
            _points_at(t, sentence, said) for t in registry.producers(read.variables))]
    return tuple(out)


def _points_at(tool: Tool, sentence: str, said: frozenset[str]) -> bool:
    """The sentence (whose words name ``said``) names every kind the tool's name speaks of,
    or states a value one of its parameters takes."""
    own = own_kinds(tool)
    return (bool(own) and own <= said) or any(
        states_parameter(tool, p, sentence) for p in tool.parameters.get("properties", {}))


def informs(registry: Registry, read: GoalOption, action: GoalOption, request: str,
            known: Mapping[str, Any]) -> int:
    """How much a read can inform an action: the action's parameters its result is named by
    (its fields, its variables), or, for a text result, every one of them (a text can hold
    any value) when the request states its input; one more when the request points at the
    read (states a value of one of its parameters: "the invoice 'invoice-0412.pdf'")."""
    params = frozenset(singular(p, english=False) for t in registry.producers(action.variables)
                       for p in t.parameters.get("properties", {}))
    best = 0
    for tool in registry.producers(read.variables):
        pointed = asked_input(tool, request, known)
        named = len(params) if _text_result(tool.returns) and pointed else \
            len(params & names_read(tool))
        best = max(best, named + (1 if pointed and named else 0))
    return best


def needs(registry: Registry, goal: frozenset[str]) -> frozenset[str]:
    """Every variable a plan for ``goal`` may need (its requirements, and theirs): a read of
    one of them is on the action's own plan already, no step of its own."""
    index = index_for(registry)
    return frozenset(index.names_of(reduce_problem(index, frozenset(), goal).need))


def is_read(registry: Registry, option: GoalOption) -> bool:
    """Every tool that reaches the option only looks (reads, searches, lists)."""
    producers = registry.producers(option.variables)
    return bool(producers) and all(t.reads for t in producers)


def stated_enough(registry: Registry, option: GoalOption, request: str,
                  known: Mapping[str, Any]) -> bool:
    """The request states a value for every sensitive parameter of some tool that reaches
    the option (or the user gave one): nothing needs to be read first."""
    for tool in registry.producers(option.variables):
        if all(tool.variable_of(p) in known or states_parameter(tool, p, request)
               for p in tool.sensitive):
            return True
    return False


def together(reads: list[GoalOption]) -> list[GoalOption]:
    """The best-ranked reads asked together, two to ``TOGETHER`` of them, as one step in no
    order ("tell me the owner, the size and the date of the file")."""
    out: list[GoalOption] = []
    for size in range(2, min(TOGETHER, len(reads)) + 1):
        chosen = reads[:size]
        out.append(GoalOption(" + ".join(o.name for o in chosen),
                              frozenset().union(*(o.variables for o in chosen)),
                              Origin.READS_TOGETHER))
    return out


def listed_first(registry: Registry, option: GoalOption, origin: Origin,
                 every_read: Sequence[GoalOption], asked: Sequence[GoalOption], request: str,
                 known: Mapping[str, Any], actions: Sequence[GoalOption] = ()
                 ) -> list[tuple[str, Steps, Origin]]:
    """The option, and before it the option preceded by the read that lists the names it
    writes, when the request gives none (see the module docstring); the reads the request
    asks for (``asked``: those its ranking puts among the first ``NAMED`` options) that take
    the same names join the option's step (the price, the reviews and the address of the
    venues listed). When an action the request asks for (``actions``, best first) writes
    such a name too, first the three steps: list, read, then act on the one the reads
    single out (book the cheapest venue)."""
    alone = (option.name, option.goal_steps, origin)
    listing = listing_reads(registry, option, every_read, request, known)[:1]
    if not listing:
        return [alone]
    lister = listing[0]
    kinds = option_lists(registry, lister)
    siblings = [o for o in asked if o is not option and o is not lister and any(
        written_kinds(t, request, known) & kinds for t in registry.producers(o.variables))]
    use = frozenset().union(option.variables, *(o.variables for o in siblings))
    name = " + ".join([option.name, *(o.name for o in siblings)])
    listed = (f"{lister.name} -> {name}", (*lister.goal_steps, use), Origin.LIST_THEN_USE)
    act = next((a for a in actions if any(written_kinds(t, request, known) & kinds
                                          for t in registry.producers(a.variables))), None)
    if act is None:
        return [listed, alone]
    # the read singles one thing out for the action: the option alone (a sibling is another
    # way to single it out, with a candidate of its own), not every read asked
    return [(f"{lister.name} -> {option.name} -> {act.name}",
             (*lister.goal_steps, option.variables, *act.goal_steps), Origin.LIST_READ_ACT),
            listed, alone]


def named_listings(registry: Registry, request: str, every_read: Sequence[GoalOption]
                   ) -> list[GoalOption]:
    """The reads that list a kind of thing the request names, in the order it names them
    ("a venue, a caterer and a florist": the venues, the caterers and the florists of a
    city): most of the kinds a listing lists are words
    of the request, and none is inside a thing another lists."""
    named = [_kinds(w) for w in split_words(request)]
    positions = {k: i for i, kinds in reversed(list(enumerate(named))) for k in kinds}
    found: list[tuple[int, GoalOption]] = []
    for read in every_read:
        kinds = option_lists(registry, read)
        hits = [positions[k] for k in kinds if k in positions]
        if kinds and 2 * len(hits) >= len(kinds):
            found.append((min(hits), read))
    # a listing inside a thing another one lists (the attendees of an event) is no kind apart
    listed = {r.name: option_lists(registry, r) for _, r in found}
    taken = {r.name: parameter_kinds(registry.producers(r.variables)) for _, r in found}
    return [r for _, r in sorted(found, key=lambda item: item[0])
            if not any(taken[r.name] & kinds for name, kinds in listed.items()
                       if name != r.name)]


def kinds_named(registry: Registry, asked: Sequence[GoalOption],
                every_read: Sequence[GoalOption], request: str, known: Mapping[str, Any]
                ) -> tuple[str, Steps, Origin] | None:
    """One goal for a request that names several kinds of thing to look up ("suggest a
    venue, a caterer and a florist with the best reviews"): each kind's listing and its
    reads, in one step, in any order. A kind's reads are those the request asks for
    (``asked``: the reads it ranks among its first ``NAMED`` options), and those that read
    what such a read reads of another kind (the reviews of the venues as of the caterers):
    the request asks the same of each kind, and its ranking as a whole favours one. Once one
    listed kind is looked up, a read the request ranks of a kind no other read lists, named
    in the request, joins as a kind of its own when the request states every input it
    requires (the trains from Lyon to Turin, beside the caterers); its kind is what its name
    speaks of less what it takes (trains, not the city of the venues in a city). None for
    fewer than two kinds."""
    things = registry_things(registry)
    heads = {_head_and_object(t.name, things)[0] for o in asked
             for t in registry.producers(o.variables)} - {""}
    parts: list[GoalOption] = []
    looked_up = 0
    for lister in named_listings(registry, request, every_read):
        kinds = option_lists(registry, lister)
        reads = [o for o in every_read if o is not lister and any(
            written_kinds(t, request, known) & kinds and (
                o in asked or _head_and_object(t.name, things)[0] in heads)
            for t in registry.producers(o.variables))]
        if reads:
            parts += [lister, *(r for r in reads if r not in parts)]
            looked_up += 1
    if looked_up:  # a kind no listing lists, looked up by what the request states
        said = said_kinds(request)
        lists = {r.name: option_lists(registry, r) for r in every_read}
        for option in asked:
            tools = registry.producers(option.variables)
            # the kind it looks up, not what it is about (the venues *in a city*)
            own = frozenset().union(*(own_kinds(t) - parameter_kinds((t,)) for t in tools))
            listed = frozenset().union(*(k for n, k in lists.items() if n != option.name))
            if option not in parts and own & said and not own & listed and all(
                    not written_kinds(t, request, known) and _stated_inputs(t, request, known)
                    for t in tools):
                parts.append(option)
                looked_up += 1
    if looked_up < 2:
        return None
    goal = frozenset().union(*(p.variables for p in parts))
    return (" + ".join(p.name for p in parts), (goal,), Origin.KINDS_NAMED)


def candidate_goals(registry: Registry, resolution: Resolution, request: str,
                    known: Mapping[str, Any],
                    options: RecognitionOptions) -> tuple[Candidate, ...]:
    """The candidates of a resolved request, best first (see the module docstring); the
    resolver's goal alone when ``options.candidates`` is 1."""
    first: tuple[str, Steps, Origin] = (resolution.name, resolution.goal_steps,
                                     Origin(resolution.resolver))
    if options.candidates == 1:
        return candidates_from([first], options)
    by_name = {o.name: o for o in goal_vocabulary(registry)}
    ranked = [by_name[n] for n in resolution.ranked if n in by_name][:OPTIONS]
    if resolution.name in by_name and by_name[resolution.name] not in ranked:
        ranked.insert(0, by_name[resolution.name])
    given = {**resolution.known, **known}
    order = {n: i for i, n in enumerate(resolution.ranked)}
    every_read = [o for o in goal_vocabulary(registry) if is_read(registry, o)]
    goals: list[tuple[str, Steps, Origin]] = []
    asked_reads = [o for o in ranked if is_read(registry, o)]
    siblings = [o for o in (by_name[n] for n in resolution.ranked[:NAMED] if n in by_name)
                if is_read(registry, o)]
    actions = [o for o in ranked if not is_read(registry, o)]
    pointed = directed_reads(registry, request, every_read)
    for option in ranked:
        origin = Origin(resolution.resolver) if option.name == resolution.name \
            else Origin.RETRIEVAL
        alone = (option.name, option.goal_steps, origin)
        if option.name == resolution.name and len(resolution.goal_steps) > 1:
            goals.append(first)  # a goal in steps the resolver chose stands as it is
            continue
        if is_read(registry, option):
            goals += listed_first(registry, option, origin, every_read, siblings, request,
                                  given, actions)
            if option is (asked_reads[0] if asked_reads else None):
                goals += [(o.name, o.goal_steps, Origin.READS_TOGETHER)
                          for o in together(asked_reads)]
            continue
        goals += action_goals(registry, option, alone, every_read, pointed, order, request,
                              given)
    several = kinds_named(registry, siblings, every_read, request, given)
    if several:  # several kinds named: looking each of them up leads
        goals.insert(0, several)
    modelled = resolution.resolver not in (Origin.RETRIEVAL, Origin.GIVEN)
    goals = model_first(goals, first) if modelled else \
        goals if any(g[1] == first[1] for g in goals) else [first, *goals]
    return candidates_from(goals, options, modelled)


def action_goals(registry: Registry, option: GoalOption, alone: tuple[str, Steps, Origin],
                 every_read: Sequence[GoalOption], pointed: Sequence[GoalOption],
                 order: Mapping[str, int], request: str,
                 given: Mapping[str, Any]) -> list[tuple[str, Steps, Origin]]:
    """An action's candidates as ``(name, steps, origin)``: the action ``alone`` and the
    read-then-act pairs of the reads that inform it (the reads the request directs to
    first, then one listing, then the best-informing reads, ``READS`` at most); the action
    alone first when the request states enough for it and directs to no read."""
    scored = sorted(((informs(registry, r, option, request, given),
                      order.get(r.name, len(order)), r) for r in every_read),
                    key=lambda item: (-item[0], item[1]))
    needed = needs(registry, option.variables)
    told = [r for r in pointed if not r.variables & needed]  # where the request says
    reads = [*told, *(r for score, _, r in scored
                      if score > 0 and r not in told and not r.variables & needed)][:READS]
    listing = [r for r in listing_reads(registry, option, every_read, request, given)
               if r not in reads and not r.variables & needed][:1]
    pairs = [(f"{r.name} -> {option.name}", (*r.goal_steps, *option.goal_steps),
              Origin.READ_THEN_ACT) for r in (*told[:READS], *listing, *reads[len(told):])]
    if stated_enough(registry, option, request, given) and not told:
        return [alone, *pairs]
    return [*pairs, alone]


def model_first(goals: list[tuple[str, Steps, Origin]], first: tuple[str, Steps, Origin]
                ) -> list[tuple[str, Steps, Origin]]:
    """``goals`` led by the goal a model named (``first``): the model's own goal leads, the
    rest wait for the calls to speak. A model that named one step named where the task
    ends, and the contracts give the way there: the first of ``goals`` that ends there (a
    read first when the request states no value for the action's sensitive parameters). A
    goal in steps the model named names the way too: it stands as it is."""
    named = first
    if len(first[1]) == 1 and any(g[1] == first[1] for g in goals):
        named = next(g for g in goals if g[1][-1] == first[1][-1])
    return [named, *(g for g in goals if g[1] != named[1])]


@lru_cache(maxsize=256)
def request_parts(registry: Registry, request: str) -> tuple[GoalOption, ...]:
    """The action each sentence of a request of several asks for, in order, each once
    ("Summarize the Globex kickoff. Then e-mail the summary to ops@northwind.example": the
    e-mail): the
    best-ranked action among the sentence's first ``PART_OPTIONS`` options, its quoted text
    left out (a title or a message to write is what the action carries, not what to do).
    The whole request's ranking favours its first part, and the calls that serve it are off
    every plan of the later ones; so the session weighs a later part from the moment the
    leading candidate is reached (planfilter.live.session)."""
    pointing = direction_sentences(request)  # where to read, not what to do
    parts = [s for s in sentences(request) if s not in pointing]
    if len(parts) < 2:
        return ()
    options = goal_vocabulary(registry)
    out: list[GoalOption] = []
    for sentence in parts:
        order, scores, _ = rank_goals(registry, _QUOTED.sub(" ", sentence))
        best = next((options[i] for i in order[:PART_OPTIONS]
                     if scores[i] > PART_SCORE and not is_read(registry, options[i])), None)
        if best is not None and best not in out:
            out.append(best)
    return tuple(out)
