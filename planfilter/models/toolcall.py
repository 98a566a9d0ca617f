"""Tool calling for small local models, without the model: prompt, grammar and parser.

Three pure pieces, used by the in-process llama.cpp provider (:mod:`.llamacpp`) and tested
on their own:

- :func:`render_chat` renders a model's own chat template (the Jinja text a GGUF file carries
  as ``tokenizer.chat_template``) with the messages and tool schemas, as Hugging Face
  ``apply_chat_template`` does. Templates that take ``tools`` (Qwen2.5, Llama 3.1, ...) put
  them in the system turn, ahead of the request: every prompt with the same tools then
  shares a long prefix, which is what lets llama.cpp reuse its KV cache across calls.
- :func:`tool_call_grammar` builds a llama.cpp GBNF grammar whose only sentences are exactly
  one ``<tool_call>`` block naming one of the visible tools, with a JSON object as its
  arguments. Decoding under it is how ``tool_choice="required"`` is honoured: the model still
  chooses which tool, and with which arguments.
- :func:`parse_tool_calls` reads tool calls out of free text leniently: ``<tool_call>``
  blocks (closed or not), fenced JSON, or bare JSON objects with a ``name``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

from ..core.errors import PlanfilterError

TOOL_CALL_OPEN = "<tool_call>"
TOOL_CALL_CLOSE = "</tool_call>"


class TemplateError(PlanfilterError):
    """A chat template that cannot be rendered, or a model without one."""


@dataclass(frozen=True)
class ParsedCall:
    name: str
    #: The arguments as a JSON text (an object, or "{}").
    arguments: str


# ---------------------------------------------------------------- chat template


@lru_cache(maxsize=8)
def _compiled(template: str) -> Any:
    from jinja2 import TemplateError as JinjaError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise TemplateError(f"chat template: {message}")

    def tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None,
               separators: Any = None, sort_keys: bool = False) -> str:
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent,
                          separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: date.today().strftime(fmt)
    try:
        return env.from_string(template)
    except JinjaError as exc:
        raise TemplateError(f"chat template does not compile: {exc}") from None


def render_chat(template: str, messages: Sequence[Mapping[str, Any]],
                tools: Sequence[Mapping[str, Any]] = (), *, bos_token: str = "",
                eos_token: str = "") -> str:
    """The prompt text of ``messages`` and ``tools`` under ``template``, ready to generate.

    Tool schemas are passed as the OpenAI-style ``{"type": "function", "function": ...}``
    objects they arrive as; a template that does not mention ``tools`` is given them in
    the system message instead, so no template silently drops them.
    """
    from jinja2 import TemplateError as JinjaError

    if not template.strip():
        raise TemplateError("the model has no chat template")
    chat = [dict(m) for m in messages]
    schemas = [dict(t) for t in tools]
    if schemas and "tools" not in template:
        chat = _tools_in_system(chat, schemas)
    try:
        return str(_compiled(template).render(
            messages=chat, tools=schemas or None, add_generation_prompt=True,
            bos_token=bos_token, eos_token=eos_token))
    except TemplateError:
        raise
    except JinjaError as exc:
        raise TemplateError(f"chat template failed to render: {exc}") from None


def _tools_in_system(messages: list[dict[str, Any]],
                     tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    listing = "\n".join(json.dumps(t, ensure_ascii=False) for t in tools)
    text = ("You can call these tools. To call one, answer with "
            f'{TOOL_CALL_OPEN}{{"name": <tool name>, "arguments": <JSON object>}}'
            f"{TOOL_CALL_CLOSE}.\n<tools>\n{listing}\n</tools>")
    if messages and messages[0].get("role") == "system":
        first = dict(messages[0], content=f"{messages[0].get('content') or ''}\n\n{text}")
        return [first, *messages[1:]]
    return [{"role": "system", "content": text}, *messages]


# ---------------------------------------------------------------- grammar

_JSON_RULES = r"""
object ::= "{" ws ( string ":" ws value ( "," ws string ":" ws value )* )? "}"
value  ::= ( object | array | string | number | "true" | "false" | "null" ) ws
array  ::= "[" ws ( value ( "," ws value )* )? "]"
string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} ) )* "\"" ws
number ::= "-"? ( [0-9] | [1-9] [0-9]{1,15} ) ( "." [0-9]{1,15} )? ( [eE] [-+]? [0-9]{1,3} )?
ws     ::= | " " | "\n" [ \t]{0,20}
""".strip()


def gbnf_literal(text: str) -> str:
    """``text`` as a GBNF string literal."""
    escaped = (text.replace("\\", "\\\\").replace('"', '\\"')
               .replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t"))
    return f'"{escaped}"'


#: Per tool: a required parameter and its allowed values, and whether it is an array of them.
EnumParam = tuple[str, tuple[str, ...]] | tuple[str, tuple[str, ...], bool]


def tool_call_grammar(names: Iterable[str],
                      enums: Mapping[str, EnumParam] | None = None) -> str:
    """A GBNF grammar for exactly one ``<tool_call>`` naming one of ``names``.

    The sentence is ``<tool_call>\\n{"name": "<name>", "arguments": {...}}\\n</tool_call>``,
    the shape Qwen2.5 and Hermes-style templates teach their models. ``enums`` maps a tool to
    one of its required string parameters and the values its schema allows (see
    :func:`required_enums`): that tool's arguments then open with that parameter set to one
    of those values (an array of them, when the parameter is an array), as a provider's
    strict mode would hold it.
    """
    unique = list(dict.fromkeys(names))
    if not unique:
        raise PlanfilterError("a tool-call grammar needs at least one tool name")
    head = gbnf_literal(f'{TOOL_CALL_OPEN}\n{{"name": "')
    tail = gbnf_literal(f"}}\n{TOOL_CALL_CLOSE}")
    constrained = {n: e for n, e in (enums or {}).items() if n in unique and e[1]}
    plain = [n for n in unique if n not in constrained]
    if not constrained:
        root = f'root ::= {head} name "\\", \\"arguments\\": " object {tail}'
        name = "name ::= " + " | ".join(gbnf_literal(n) for n in unique)
        return "\n".join((root, name, _JSON_RULES)) + "\n"
    rules = [f"root ::= {head} call {tail}"]
    calls = ['name "\\", \\"arguments\\": " object'] if plain else []
    if plain:
        rules.append("name ::= " + " | ".join(gbnf_literal(n) for n in plain))
    for i, (tool, entry) in enumerate(constrained.items()):
        param, values = entry[0], entry[1]
        opening = gbnf_literal(f'{tool}", "arguments": ')
        calls.append(f"{opening} args{i}")
        choices = " | ".join(gbnf_literal(json.dumps(v)) for v in values)
        held = f"( {choices} )"
        if len(entry) > 2 and entry[2]:
            held = f'"[" ws {held} ws ( "," ws {held} ws )* "]"'
        rules.append(f'args{i} ::= "{{" ws {gbnf_literal(json.dumps(param))} ws ":" ws '
                     f'{held} ws ( "," ws string ":" ws value )* "}}"')
    rules.insert(1, "call ::= " + " | ".join(calls))
    return "\n".join((*rules, _JSON_RULES)) + "\n"


def required_enums(tools: Iterable[Mapping[str, Any]]) -> dict[str, EnumParam]:
    """Per tool (OpenAI shape), its first required parameter whose schema is an enum of
    strings (or an array of such items), with the allowed values."""
    found: dict[str, EnumParam] = {}
    for tool in tools:
        function = tool.get("function", tool)
        params = function.get("parameters") or {}
        props = params.get("properties") or {}
        for param in params.get("required") or ():
            schema = props.get(param) or {}
            array = schema.get("type") == "array"
            values = (schema.get("items") or {}).get("enum") if array else schema.get("enum")
            if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
                name = str(function.get("name"))
                found[name] = (param, tuple(values), True) if array else (param, tuple(values))
                break
    return found


# ---------------------------------------------------------------- parser

_BLOCK = re.compile(re.escape(TOOL_CALL_OPEN) + r"(.*?)(?:" + re.escape(TOOL_CALL_CLOSE) + r"|\Z)",
                    re.S)
_FENCE = re.compile(r"```(?:json|tool_call|tool)?\s*\n?(.*?)```", re.S)


def parse_tool_calls(text: str) -> tuple[tuple[ParsedCall, ...], str | None]:
    """The tool calls in a model's text, and the text left over (None if nothing is).

    Looks, in order, for ``<tool_call>`` blocks (an unclosed last block counts), fenced
    code blocks, then bare JSON objects anywhere in the text. An object is a call when it has
    a string ``name`` (or ``function.name``); its ``arguments`` (or ``parameters``) may be an
    object or a JSON text of one. The first of the three that yields a call wins.
    """
    for pattern in (_BLOCK, _FENCE):
        spans = list(pattern.finditer(text))
        calls = [c for m in spans for c in _calls_in(m.group(1))]
        if calls:
            rest = pattern.sub("", text).strip()
            return tuple(calls), rest or None
    calls = list(_calls_in(text))
    if calls:
        return tuple(calls), None
    return (), text.strip() or None


def _calls_in(text: str) -> Iterable[ParsedCall]:
    for obj in _json_objects(text):
        items = obj if isinstance(obj, list) else [obj]
        for item in items:
            call = _as_call(item)
            if call is not None:
                yield call


def _json_objects(text: str) -> Iterable[Any]:
    """Every top-level JSON object or array in ``text``, left to right."""
    decoder = json.JSONDecoder()
    i = 0
    while i < len(text):
        start = min((p for p in (text.find("{", i), text.find("[", i)) if p >= 0), default=-1)
        if start < 0:
            return
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            i = start + 1
            continue
        yield value
        i = end


def _as_call(item: Any) -> ParsedCall | None:
    if not isinstance(item, Mapping):
        return None
    function = item.get("function")
    source = function if isinstance(function, Mapping) else item
    name = source.get("name")
    if not isinstance(name, str) or not name.strip():
        return None
    arguments = source.get("arguments", source.get("parameters", {}))
    if isinstance(arguments, str):
        text = arguments.strip() or "{}"
    elif arguments is None:
        text = "{}"
    else:
        text = json.dumps(arguments, ensure_ascii=False)
    return ParsedCall(name.strip(), text)
