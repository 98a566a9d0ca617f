"""The pipeline: tool specs -> vocabulary -> drafted contracts (a Registry) with notes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from ..core.contracts import Registry, Tool
from ..core.errors import ContractError
from ..core.frozen import freeze
from .risk import risk_of
from .rules import Context, Drafted, consumers_of, produces_of, requires_of
from .sources import ToolSpec
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


def infer_contracts(specs: Sequence[ToolSpec], options: InferOptions | None = None
                    ) -> Inference:
    """Draft a contract for every tool of ``specs``; every drafted field notes its source."""
    options = options or InferOptions()
    vocab = build_vocabulary(specs, options.embedder)
    ctx = Context(vocab, consumers_of(specs, vocab))
    tools, rules, problems = [], {}, []
    everything = frozenset(vocab.mapping.values())
    for spec in specs:
        req = requires_of(spec, vocab)
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
                req = Drafted(frozenset(proposal.aliases.get(p, vocab.variable(spec.name, p))
                                        for p in spec.required), req.note)
                req_note += "; " + proposal.note
        risk = risk_of(spec)
        inferred = {
            "requires": req_note,
            "produces": drafted.note + (_alias_note(spec.name, list(spec.output_properties),
                                                    "out", vocab)
                                        if rule == "output-schema" else ""),
            "risk": risk.note,
            "action": risk.action_note,
            "cost": "rule: 1 unless told" if options.cost == 1.0 else "rule: --cost",
        }
        if drafted.outputs:
            inferred["outputs"] = "schema: output keys named differently from the variables"
        data = {
            "name": spec.name, "description": spec.description[:10_000],
            "requires": req.variables, "produces": drafted.variables,
            "risk": risk.risk, "action": risk.action, "cost": options.cost,
            "parameters": spec.input_schema, "returns": spec.output_schema,
            "outputs": drafted.outputs, "domain": options.domain,
            "inferred": freeze(inferred),
        }
        try:
            tools.append(Tool.model_validate(data))
        except ValueError as exc:
            problems.append(f"{spec.origin}: tool '{spec.name}': cannot draft a contract: "
                            f"{exc}")
            continue
        rules[spec.name] = rule
    if problems:
        raise ContractError(problems)
    registry = Registry(tools=tuple(tools), source="<inferred>")
    return Inference(registry, vocab, rules)
