"""State facts from names and descriptions: which tools establish a fact without a value, and
which need it (planfilter.core.contracts: ``needs``, ``establishes``).

A fact is a state another tool sets up and no argument carries: being logged in, a
connection open, a device switched on, a working directory chosen. Each kind of state is one
row of :data:`KINDS`: the words of a tool's name (or the first words of its description) that
set it up, and the phrases of a description that say a tool needs it. A description may also
name the tool to call first (``Call `open_store` first``): that tool then establishes
``<tool>_called`` and the describing tool needs it.

Only a login is drafted as needed when no tool of the set establishes it (the user's own
state may hold it: an already authenticated session); every other kind needs a tool that sets
it up, or it is not drafted, since "relative to the working directory" is true of any file
tool whether or not a directory can be chosen.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..core.text import words as split_words
from .names import local_name, normalise, tokens
from .spec import ToolSpec


@dataclass(frozen=True)
class Kind:
    """One kind of state: its fact, what sets it up, and what says a tool needs it."""

    fact: str
    #: A tool's name sets it up when its words hold one of these (each a tuple of words,
    #: matched as consecutive words or written together: ``log_in``, ``login``).
    names: tuple[tuple[str, ...], ...]
    #: A description says a tool needs it.
    phrases: re.Pattern[str]
    #: Needed even when no tool of the set sets it up.
    held_by_user: bool = False


KINDS: tuple[Kind, ...] = (
    Kind("logged_in",
         (("login",), ("log", "in"), ("signin",), ("sign", "in"), ("authenticate",),
          ("auth",), ("logon",), ("log", "on")),
         re.compile(r"requires? (?:user )?(?:authentication|login|logging in|"
                    r"(?:to be |being )?(?:logged|signed) in)|must (?:first )?(?:be )?"
                    r"(?:logged|signed) in|after (?:logging|signing) in|"
                    r"authenticated (?:users?|sessions?) only|only (?:for|when) "
                    r"(?:logged|signed)[- ]in", re.IGNORECASE),
         held_by_user=True),
    Kind("connected",
         (("connect",), ("open", "connection"), ("open", "session")),
         re.compile(r"requires? (?:an? )?(?:open |active |established )?(?:connection|session)"
                    r"|must (?:first )?be connected|after connecting|"
                    r"(?:while|once|when) connected", re.IGNORECASE)),
    Kind("powered_on",
         (("turn", "on"), ("power", "on"), ("switch", "on"), ("poweron",), ("wake",)),
         re.compile(r"(?:must|needs? to|has to|should) be (?:switched|turned|powered) on|"
                    r"requires? (?:the \w+ to be )?(?:switched |turned |powered )on|"
                    r"only (?:works )?when (?:the \w+ is )?(?:switched |turned |powered )?on\b",
                    re.IGNORECASE)),
    Kind("directory_chosen",
         (("cd",), ("chdir",), ("change", "directory"), ("set", "working", "directory"),
          ("change", "working", "directory"), ("select", "directory")),
         re.compile(r"(?:in|relative to|within|of) the (?:current |chosen |selected )?"
                    r"working directory|after (?:changing|choosing|selecting|setting) the "
                    r"(?:working )?directory", re.IGNORECASE)),
)

#: "Call `open_store` first", "after calling open_store", "open_store must be called before".
_CALL_FIRST = re.compile(
    r"(?:call|use|run|invoke) `?(?P<a>[A-Za-z_][\w.-]*)`? (?:first|before)|"
    r"after (?:calling|using|running) `?(?P<b>[A-Za-z_][\w.-]*)`?|"
    r"`?(?P<c>[A-Za-z_][\w.-]*)`? (?:must|has to|needs to) (?:be called|run) (?:first|before)|"
    r"requires? (?:a )?(?:prior|previous) call to `?(?P<d>[A-Za-z_][\w.-]*)`?",
    re.IGNORECASE)


@dataclass(frozen=True)
class Need:
    """A fact a tool needs, and the phrase of its description it rests on."""

    fact: str
    phrase: str


@dataclass(frozen=True)
class Facts:
    """What the drafts say of facts: tool -> facts it establishes (with why), and tool ->
    facts it needs (with the phrase)."""

    establishes: Mapping[str, Mapping[str, str]]
    needs: Mapping[str, tuple[Need, ...]]

    def establishers(self, fact: str) -> list[str]:
        return sorted(t for t, facts in self.establishes.items() if fact in facts)

    def without(self, names: frozenset[str]) -> Facts:
        """These facts less ``names`` (names the drafts use as variables with a value)."""
        return Facts({t: {f: w for f, w in fs.items() if f not in names}
                      for t, fs in self.establishes.items()},
                     {t: tuple(n for n in ns if n.fact not in names)
                      for t, ns in self.needs.items()})


def _sets_up(name: str, description: str, kind: Kind) -> str | None:
    """Why the tool sets up ``kind`` (its name's words, or its description's first words),
    or None."""
    words = tokens(local_name(name))
    said = split_words(description, digits=False)[:2]
    opening = {said[0], "".join(said)} if said else set()
    for phrase in kind.names:
        if _holds(words, phrase):
            return f"name: {' '.join(phrase)}"
        if said[:len(phrase)] == list(phrase) or "".join(phrase) in opening:
            return f"description opens: {' '.join(phrase)}"
    return None


def _holds(words: Sequence[str], phrase: tuple[str, ...]) -> bool:
    """The words hold the phrase, word by word or written together (``log_in``, ``login``)."""
    n, joined = len(phrase), "".join(phrase)
    return any(tuple(words[i:i + n]) == phrase or
               any("".join(words[i:i + k]) == joined for k in (1, 2, 3))
               for i in range(len(words)))


def establishers_by_kind(specs: Sequence[ToolSpec]) -> dict[str, dict[str, str]]:
    """Fact -> {tool: why} of the tools that set up each kind of state."""
    out: dict[str, dict[str, str]] = {}
    for kind in KINDS:
        for spec in specs:
            why = _sets_up(spec.name, spec.description, kind)
            if why is not None:
                out.setdefault(kind.fact, {})[spec.name] = why
    return out


def call_first_fact(tool: str) -> str:
    """The fact a tool another tool must be called after establishes: ``<tool>_called``
    (``<tool>_done`` is the value a drafted effect produces)."""
    return f"{normalise(local_name(tool))}_called"


def draft_facts(specs: Sequence[ToolSpec]) -> Facts:
    """The facts each tool establishes and needs (see the module docstring)."""
    by_kind = establishers_by_kind(specs)
    names = {s.name: s.name for s in specs} | {local_name(s.name): s.name for s in specs}
    establishes: dict[str, dict[str, str]] = {}
    needs: dict[str, tuple[Need, ...]] = {}
    for spec in specs:
        found: list[Need] = []
        for kind in KINDS:
            match = kind.phrases.search(spec.description)
            if match is None or spec.name in by_kind.get(kind.fact, {}):
                continue
            if kind.held_by_user or by_kind.get(kind.fact):
                found.append(Need(kind.fact, match.group(0)))
        for match in _CALL_FIRST.finditer(spec.description):
            other = names.get(next(g for g in match.groups() if g))
            if other is None or other == spec.name:
                continue
            fact = call_first_fact(other)
            establishes.setdefault(other, {})[fact] = (
                f"rule: {spec.name}'s description says {match.group(0)!r}")
            found.append(Need(fact, match.group(0)))
        if found:
            needs[spec.name] = tuple({n.fact: n for n in found}.values())
    wanted = {n.fact for found in needs.values() for n in found}
    for fact, tools in by_kind.items():
        if fact not in wanted:
            continue  # a login nothing needs is a tool like any other
        for tool, why in tools.items():
            establishes.setdefault(tool, {})[fact] = f"rule: sets up {fact} ({why})"
    return Facts({t: dict(sorted(f.items())) for t, f in sorted(establishes.items())},
                 {t: n for t, n in sorted(needs.items())})


def fact_of_tool(name: str, description: str = "") -> str:
    """The fact a tool would establish, for a proposal from traces: its kind's fact when it
    sets up a known kind of state, else ``<tool>_called``."""
    for kind in KINDS:
        if _sets_up(name, description, kind) is not None:
            return kind.fact
    return call_first_fact(name)
