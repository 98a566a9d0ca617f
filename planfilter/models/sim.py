"""The simulated model's decision rule: a documented, seeded stand-in for an LLM.

It is honest: :func:`decide` receives exactly what a real model receives through litellm, the
chat messages and the tool schemas, and nothing else (no gold chain, contracts, mocks or
registry). It reads planfilter's prompt format (``Request:``, ``Known state:`` lines of
``- name: <JSON value>``, ``Steps so far:`` lines of ``n. tool -> produced, ...``), as any
model reads its prompt, and falls back to the whole text when those sections are missing.

For every tool it is shown it computes features in [0, 1] from the prompt and the schema::

    lex     lexical overlap: (2 * |T & R| + |T & S - R|) / 8, capped at 1, where T are the
            words of the tool's name and description, R the request's, S the state's
            (names and values); stop words removed, plural "s" dropped
    fill    share of the tool's required parameters that are state keys
    new     1 if a required parameter was produced by an earlier step (acting on news)
    verb    1 if the request has any action verb and the tool's name has one
    repeat  1 if the tool was already called in an earlier step

and scores ``sum(weight * feature) + noise * N(0, 1)`` with the profile's weights
(``repeat`` weighs negatively). It calls the best-scoring tool (ties: the first shown),
with every parameter whose name is a state key filled from the state. A required text
parameter it cannot fill so, it writes: the text of what the latest step learned (the values
of the variables the last ``Steps so far`` line lists, other than true/false, joined by
"; "), as a model writes a message from what it just read; when the latest step learned no
such value, and for other parameters, it leaves the parameter out. The noise is drawn per
tool from a hash of (seed, messages, tool name): reproducible, and a tool keeps its noise
whichever other tools are shown, so filter methods are compared on common random numbers.

``careful`` checks that a tool can be called with what is known (high ``fill``) and acts on
what it learned; little noise. ``confusable`` reads mostly words, is noisy and is drawn to
action verbs in the request, so it acts before it can (a premature action).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..core.errors import lookup
from ..core.text import CHANGE_VERBS, QUESTION_STOP_WORDS, singular
from ..core.text import words as split


@dataclass(frozen=True)
class Profile:
    """Weights of the score's terms (``repeat`` is subtracted) and the noise's spread."""

    lex: float
    fill: float
    noise: float
    new: float = 0.0
    verb: float = 0.0
    repeat: float = 1.0


PROFILES: dict[str, Profile] = {
    "careful": Profile(lex=1.0, fill=1.5, noise=0.1, new=0.5, verb=0.0, repeat=1.0),
    "confusable": Profile(lex=1.0, fill=0.5, noise=0.3, new=0.2, verb=0.5, repeat=0.5),
}
FEATURES = ("lex", "fill", "new", "verb", "repeat")
_SIGN = {"repeat": -1.0}

_STATE_LINE = re.compile(r"^\s*-\s*([A-Za-z0-9_][A-Za-z0-9_.-]*):\s?(.*)$")
_STEP_LINE = re.compile(r"^\s*\d+\.\s*([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*(?:->\s*(.*))?$")


@lru_cache(maxsize=65536)
def words(text: str) -> frozenset[str]:
    """Lowercase words without stop words; a trailing plural ``s`` is dropped (events=event)."""
    return frozenset(singular(w, english=False) for w in split(text, stop=QUESTION_STOP_WORDS))


@dataclass(frozen=True)
class Prompt:
    request: str
    state: Mapping[str, Any]
    called: frozenset[str]
    #: Variables earlier steps produced (as listed under ``Steps so far``).
    learned: frozenset[str]
    #: Variables the latest step produced, in the order listed.
    latest: tuple[str, ...] = ()


def parse_prompt(messages: Sequence[Mapping[str, Any]]) -> Prompt:
    """Request, state and earlier steps, read from the last user message."""
    user = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    content = user.get("content") if user else ""
    text = content if isinstance(content, str) else json.dumps(content)
    request = ""
    state: dict[str, Any] = {}
    called: set[str] = set()
    learned: set[str] = set()
    latest: tuple[str, ...] = ()
    section = ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Request:"):
            request, section = stripped[len("Request:"):].strip(), "request"
        elif stripped.startswith("Known state:"):
            section = "state"
        elif stripped.startswith("Steps so far:"):
            section = "steps"
        elif not stripped:
            section = ""
        elif section == "request":
            request += " " + stripped
        elif section == "state" and (m := _STATE_LINE.match(line)):
            state[m.group(1)] = _value(m.group(2))
        elif section == "steps" and (m := _STEP_LINE.match(line)):
            called.add(m.group(1))
            latest = tuple(v.strip() for v in (m.group(2) or "").split(",") if v.strip())
            learned.update(latest)
    return Prompt(request or text, state, frozenset(called), frozenset(learned), latest)


def written_text(prompt: Prompt) -> str | None:
    """What the model writes into a text parameter it cannot fill: see the module docstring."""
    parts = [v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
             for name in prompt.latest if (v := prompt.state.get(name)) is not None
             and not isinstance(v, bool) and v != ""]
    return "; ".join(parts) or None


def _value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def features(prompt: Prompt, tool: Mapping[str, Any]) -> dict[str, float]:
    """The terms of a tool's score, from the prompt and the tool's schema only."""
    function = tool.get("function", tool)
    name = str(function.get("name", ""))
    params = function.get("parameters") or {}
    request = words(prompt.request)
    state = words(" ".join(f"{k.replace('_', ' ')} {v}" for k, v in prompt.state.items()))
    meta = words(f"{name.replace('_', ' ')} {function.get('description', '')}")
    shared = 2 * len(meta & request) + len(meta & state - request)
    required = list(params.get("required") or ())
    name_words = words(name.replace("_", " ").replace("-", " "))
    return {
        "lex": min(shared, 8) / 8,
        "fill": sum(r in prompt.state for r in required) / len(required) if required else 1.0,
        "new": float(any(r in prompt.learned for r in required)),
        "verb": float(bool(request & CHANGE_VERBS) and bool(name_words & CHANGE_VERBS)),
        "repeat": float(name in prompt.called),
    }


def _gauss(key: bytes) -> float:
    """A standard normal draw determined by ``key`` (Box-Muller on a hash)."""
    digest = hashlib.blake2b(key, digest_size=16).digest()
    u1 = (int.from_bytes(digest[:8], "big") + 1) / 2**64
    u2 = int.from_bytes(digest[8:], "big") / 2**64
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


def messages_digest(messages: Sequence[Mapping[str, Any]]) -> bytes:
    return hashlib.sha256(json.dumps(messages, sort_keys=True, default=str).encode()).digest()


@dataclass(frozen=True)
class Decision:
    tool: str
    arguments: dict[str, Any]
    scores: tuple[tuple[str, float], ...]


def get_profile(name: str) -> Profile:
    return lookup(PROFILES, name, "simulated model", prefix="sim/")


def decide(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]],
           profile: Profile, seed: int = 0) -> Decision | None:
    """The tool call the simulated model makes, or None when it is shown no tool."""
    if not tools:
        return None
    prompt = parse_prompt(messages)
    base = messages_digest(messages) + f"|{seed}|".encode()
    best: tuple[float, Mapping[str, Any]] | None = None
    scores = []
    for spec in tools:
        function = spec.get("function", spec)
        name = str(function.get("name", ""))
        terms = features(prompt, spec)
        score = sum(_SIGN.get(k, 1.0) * getattr(profile, k) * terms[k] for k in FEATURES)
        score += profile.noise * _gauss(base + name.encode())
        scores.append((name, round(score, 6)))
        if best is None or score > best[0]:
            best = (score, function)
    assert best is not None
    function = best[1]
    parameters = function.get("parameters") or {}
    properties = parameters.get("properties") or {}
    arguments = {k: v for k, v in prompt.state.items() if k in properties}
    text = written_text(prompt)
    for name in parameters.get("required") or ():
        kind = (properties.get(name) or {}).get("type", "string")
        if name not in arguments and text is not None and kind == "string":
            arguments[name] = text
    return Decision(str(function.get("name", "")), arguments, tuple(scores))
