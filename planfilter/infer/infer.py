"""The pipeline: tool specs -> vocabulary -> drafted contracts (a Registry) with notes."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.contracts import Registry, Tool
from ..core.errors import ContractError
from ..core.frozen import freeze
from .dataflow import (
    IN_WORDS,
    PROSE_KEYS,
    SAVED_NAME,
    authored_candidates,
    authored_note,
    listed_in_text,
    named_parties,
    returned_words,
    sensitive_of,
    text_listings,
    untrusted_of,
)
from .facts import Facts, draft_facts
from .names import local_name, normalise, tokens
from .nested import Followed, followed
from .outputs import READING, is_record
from .produce import produces_of
from .risk import ACTING, RiskDraft, action_of, risk_of
from .rules import ID_KEYS, Context, Drafted, consumers_of, requires_of
from .spec import ToolSpec
from .vocabulary import Encoder, Merge, Vocabulary, build_vocabulary


@dataclass(frozen=True)
class Proposal:
    """What a model proposed for an open tool, already checked against the candidates."""

    produces: frozenset[str]
    #: required input property -> the existing variable it is
    aliases: Mapping[str, str]
    note: str


#: (tool spec, variables it may produce, variables its inputs may be) -> Proposal or None;
#: see ``model.py``.
Proposer = Callable[[ToolSpec, Sequence[str], Sequence[str]], Proposal | None]


@dataclass(frozen=True)
class InferOptions:
    embedder: Encoder | None = None
    #: Asked for the produces of tools the rules leave open (``effect`` only).
    proposer: Proposer | None = None
    cost: float = 1.0
    domain: str | None = None


@dataclass(frozen=True)
class Inference:
    registry: Registry
    vocabulary: Vocabulary
    #: tool -> name of the rule that drafted its produces ("output-schema", "lookup-id", ...,
    #: "effect", "model")
    produce_rules: Mapping[str, str] = field(default_factory=dict)

    @property
    def merges(self) -> tuple[Merge, ...]:
        return self.vocabulary.merges

    @property
    def open_tools(self) -> tuple[str, ...]:
        return tuple(n for n, r in self.produce_rules.items() if r == "effect")


def _alias_note(tool: str, props: Sequence[str], side: str, vocab: Vocabulary) -> str:
    renamed = [f"{p} -> {vocab.variable(tool, p, side)}" for p in props
               if vocab.variable(tool, p, side) != p]
    return f"; alias: {', '.join(renamed)}" if renamed else ""


def _authored(specs: Sequence[ToolSpec], vocab: Vocabulary) -> dict[str, dict[str, str]]:
    """Tool -> {parameter: why} of the free-text and date parameters, and the names read out
    of a text listing, that no output key names; prose (a description, a note, a message
    body: :data:`PROSE_KEYS`) even where one does: a claim's description in the
    customer's words is written, not copied from the record a read showed."""
    declared: dict[str, set[str]] = {}  # variable -> the tools whose results name it
    for s in specs:
        if not is_record(s):  # a record's fields are not all produced
            for p in s.output_properties:
                declared.setdefault(vocab.variable(s.name, p, "out"), set()).add(s.name)
    listings = text_listings(specs)
    returned = returned_words(specs)
    everything = frozenset(vocab.mapping.values())
    drafted = {}
    for s in specs:
        why = {**listed_in_text(s, listings), **authored_candidates(s, returned)}
        drafted[s.name] = {p: why[p] for p in s.properties
                           if p in why and (not _elsewhere(v := vocab.variable(s.name, p),
                                                           s.name, declared)
                                            or why[p] == SAVED_NAME
                                            or _prose(s, p, why[p], v, everything))}
    return drafted


def _elsewhere(variable: str, tool: str, producers: Mapping[str, Collection[str]]) -> bool:
    """Some tool other than ``tool`` yields ``variable``: a result that echoes the call's
    own argument (a calculator's ``expression`` beside its result, a request's ``notes``)
    is no source of it."""
    return bool(set(producers.get(variable, ())) - {tool})


def _prose(spec: ToolSpec, param: str, why: str, variable: str,
           variables: frozenset[str]) -> bool:
    """The parameter is free text of a tool that changes something (creates, updates,
    sends: :data:`~planfilter.infer.risk.ACTING`), its last word names prose
    (:data:`PROSE_KEYS`) or its description says it is written in words (:data:`IN_WORDS`),
    and it is not an entity's own (``email_body`` where ``email_id`` exists, which a read
    yields): the model writes it (a claim's description in the customer's words) even where
    some result has a field so called. A read's text (what it summarises, translates) stays
    what another tool yields."""
    words = tokens(param)
    schema = spec.properties.get(param)
    said = schema.get("description") if isinstance(schema, Mapping) else None
    worded = isinstance(said, str) and bool(IN_WORDS.search(said))
    return why == "free text" and bool(words) and (words[-1] in PROSE_KEYS or worded) \
        and action_of(spec)[0] in ACTING and not _of_entity(variable, variables)


def _of_entity(variable: str, variables: frozenset[str]) -> bool:
    """``<entity>_<word>`` where some variable identifies that entity (``<entity>_id``)."""
    head = "_".join(tokens(variable)[:-1])
    return bool(head) and any(f"{head}_{key}" in variables for key in ID_KEYS)


@dataclass(frozen=True)
class _Draft:
    spec: ToolSpec
    #: parameter -> the variable it carries
    carries: Mapping[str, str]
    req_note: str
    drafted: Drafted
    rule: str


def _own_whole_results(drafts: list[_Draft]) -> list[_Draft]:
    """A whole result (``outputs: {var: ''}``: a list, a record) that several tools would
    produce under one name is each tool's own, ``<tool>_result``: ``list_files`` and
    ``search_files`` both return files, yet "the files found by content" is not satisfied by
    listing every file; one shared name would let either stand for the other."""
    whole: dict[str, list[str]] = defaultdict(list)
    for d in drafts:
        for var, ptr in d.drafted.outputs.items():
            if ptr == "":
                whole[var].append(d.spec.name)
    # an identifier is one value whoever finds it (``user_id`` by name or by email)
    shared = {v for v, users in whole.items() if len(users) > 1
              and tokens(v)[-1:] and tokens(v)[-1] not in ID_KEYS}
    if not shared:
        return drafts
    out = []
    for d in drafts:
        renamed = {v: f"{normalise(local_name(d.spec.name))}_result" for v in shared
                   if d.drafted.outputs.get(v) == ""}
        if not renamed:
            out.append(d)
            continue
        outputs = {renamed.get(v, v): p for v, p in d.drafted.outputs.items()}
        note = d.drafted.note + "; " + ", ".join(
            f"{v} -> {n} (other tools return a {v} too)" for v, n in sorted(renamed.items()))
        drafted = Drafted(frozenset(renamed.get(v, v) for v in d.drafted.variables), note,
                          freeze(outputs))
        out.append(replace(d, drafted=drafted))
    return out


def _nested(specs: Sequence[ToolSpec], vocab: Vocabulary,
            consumers: Mapping[str, frozenset[str]]) -> Followed:
    """Tool -> {variable: pointer} of what each read's result holds for other tools, at any
    depth (planfilter.infer.nested)."""
    reads = frozenset(s.name for s in specs if action_of(s)[0] in READING)
    wanted = {s.name: frozenset(v for v, users in consumers.items() if users - {s.name})
              - requires_of(s, vocab).variables for s in specs}
    described: dict[str, list[str]] = defaultdict(list)
    for s in specs:
        for param, schema in s.properties.items():
            text = schema.get("description") if isinstance(schema, Mapping) else None
            if text:
                described[vocab.variable(s.name, param)].append(str(text))
    return followed(specs, reads, wanted, vocab.of_name,
                    {v: tuple(d) for v, d in described.items()})


def _facts_of(tool: str, facts: Facts, inferred: dict[str, str]
              ) -> tuple[frozenset[str], frozenset[str]]:
    """The facts ``tool`` needs and establishes (planfilter.infer.facts), each noted in
    ``inferred``."""
    establishes = facts.establishes.get(tool, {})
    needs = [n for n in facts.needs.get(tool, ()) if n.fact not in establishes]
    if needs:
        said = []
        for need in needs:
            by = ", ".join(facts.establishers(need.fact)) or \
                "no tool (the user's state must hold it)"
            said.append(f"description says {need.phrase!r} -> {need.fact}, established by {by}")
        inferred["needs"] = "rule: " + "; ".join(said)
    if establishes:
        inferred["establishes"] = "; ".join(establishes.values())
    return frozenset(n.fact for n in needs), frozenset(establishes)


def infer_contracts(specs: Sequence[ToolSpec], options: InferOptions | None = None
                    ) -> Inference:
    """Draft a contract for every tool of ``specs``; every drafted field notes its source."""
    options = options or InferOptions()
    vocab = build_vocabulary(specs, options.embedder)
    parties = {s.name: named_parties(s) for s in specs}
    candidates = {name: {**why, **parties[name]}
                  for name, why in _authored(specs, vocab).items()}
    everything = frozenset(vocab.mapping.values())
    # ``email_body`` names an entity's content (``email_id`` exists): a read may yield it,
    # so the produce rules still see it required; bare ``body``, ``start_time`` they do not
    skip = {name: frozenset(v for p in params if not _of_entity(v := vocab.variable(name, p),
                                                               everything))
            for name, params in candidates.items()}
    consumers = consumers_of(specs, vocab, skip)
    deeper = _nested(specs, vocab, consumers)
    ctx = Context(vocab, consumers, deeper.outputs, deeper.elsewhere)
    drafts = _own_whole_results([_draft(spec, ctx, options, everything) for spec in specs])
    producers: dict[str, set[str]] = {}
    for d in drafts:
        for v in d.drafted.variables:
            producers.setdefault(v, set()).add(d.spec.name)
    produced = frozenset(producers)
    # a name some tool passes or returns as a value is not drafted as a fact
    valued = produced | {v for d in drafts for v in d.carries.values()}
    facts = draft_facts(specs).without(valued)
    tools, rules, problems = [], {}, []
    for d in drafts:
        spec = d.spec
        authored = {p: why for p, why in candidates[spec.name].items()
                    if (p in parties[spec.name]
                        or not _elsewhere(d.carries[p], spec.name, producers)
                        or _prose(spec, p, why, d.carries[p], everything))
                    and d.carries[p] == vocab.variable(spec.name, p)}  # not a model alias
        data = _contract_data(d, authored, vocab, facts, options)
        try:
            tools.append(Tool.model_validate(data))
        except ValueError as exc:
            problems.append(f"{spec.origin}: tool '{spec.name}': cannot draft a contract: "
                            f"{exc}")
            continue
        rules[spec.name] = d.rule
    if problems:
        raise ContractError(problems)
    registry = Registry(tools=tuple(tools), source="<inferred>")
    return Inference(registry, vocab, rules)


def _draft(spec: ToolSpec, ctx: Context, options: InferOptions,
           everything: frozenset[str]) -> _Draft:
    """``spec``'s requires and produces by the rules, the proposer asked for what the rules
    leave open (``effect``): its produces replace the rules', its aliases rename inputs."""
    vocab = ctx.vocabulary
    req = requires_of(spec, vocab)
    carries = {p: vocab.variable(spec.name, p) for p in spec.properties}
    req_note = req.note + _alias_note(spec.name, spec.required, "in", vocab)
    drafted, rule = produces_of(spec, ctx)
    if rule == "effect" and options.proposer is not None:
        proposal = options.proposer(
            spec, sorted(ctx.consumed_by_others(spec.name) - req.variables),
            sorted(everything - req.variables))
        if proposal is not None and proposal.produces:
            drafted, rule = Drafted(proposal.produces, proposal.note), "model"
        elif proposal is not None and not proposal.aliases:
            drafted = replace(drafted, note=f"{drafted.note}; {proposal.note}")
        if proposal is not None and proposal.aliases:
            carries.update({p: v for p, v in proposal.aliases.items() if p in carries})
            req_note += "; " + proposal.note
    return _Draft(spec, carries, req_note, drafted, rule)


def _contract_data(d: _Draft, authored: Mapping[str, str], vocab: Vocabulary, facts: Facts,
                   options: InferOptions) -> dict[str, Any]:
    """The fields of ``d``'s contract, for ``Tool.model_validate``; ``inferred`` notes where
    each drafted one came from."""
    spec, drafted = d.spec, d.drafted
    requires = {d.carries[p] for p in spec.required if p not in authored}
    risk = risk_of(spec)
    inferred = _first_notes(d, authored, risk, vocab, options)
    needs, establishes = _facts_of(spec.name, facts, inferred)
    if drafted.outputs:
        inferred["outputs"] = ("schema: where each variable is in the result ('' the "
                               "whole result, * every list item)")
    inputs = {p: v for p, v in d.carries.items() if v != p}
    if inputs:
        inferred["inputs"] = "alias: " + ", ".join(f"{p} -> {v}" for p, v in inputs.items())
    if authored:
        inferred["authored"] = authored_note(authored)
    untrusted = untrusted_of(spec, risk.action)
    if untrusted:
        inferred["untrusted"] = untrusted
    sensitive = sensitive_of(spec, risk.risk, frozenset(authored))
    if sensitive:
        words = ", ".join(sorted(set(sensitive.values())))
        inferred["sensitive"] = (f"rule: a high-risk tool's {words}, a list of people or "
                                 f"an address the model writes ({', '.join(sensitive)})")
    return {
        "name": spec.name, "description": spec.description[:10_000],
        "requires": frozenset(requires), "produces": drafted.variables,
        "needs": needs, "establishes": establishes,
        "risk": risk.risk, "action": risk.action, "cost": options.cost,
        "parameters": spec.input_schema, "returns": spec.output_schema,
        "outputs": drafted.outputs, "domain": options.domain,
        "inputs": inputs, "authored": frozenset(authored),
        "sensitive": frozenset(sensitive), "untrusted": untrusted is not None,
        "inferred": freeze(inferred),
    }


def _first_notes(d: _Draft, authored: Mapping[str, str], risk: RiskDraft, vocab: Vocabulary,
                 options: InferOptions) -> dict[str, str]:
    """The notes every contract has: where its requires (less the authored parameters),
    produces, risk, action and cost came from."""
    spec = d.spec
    req_note = d.req_note
    dropped = [p for p in spec.required if p in authored]
    if dropped:
        req_note += f"; less the authored ({', '.join(dropped)})"
    return {
        "requires": req_note,
        "produces": d.drafted.note + (_alias_note(spec.name, list(spec.output_properties),
                                                  "out", vocab)
                                      if d.rule == "output-schema" else ""),
        "risk": risk.note,
        "action": risk.action_note,
        "cost": "rule: 1 unless told" if options.cost == 1.0 else "rule: --cost",
    }
