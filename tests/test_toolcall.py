"""Tool calling for local models without a model: chat template, grammar, lenient parser."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planfilter.core.errors import PlanfilterError
from planfilter.models.toolcall import (
    ParsedCall,
    TemplateError,
    gbnf_literal,
    parse_tool_calls,
    render_chat,
    tool_call_grammar,
)

# The tool-calling part of Qwen2.5's chat template, as its GGUF files carry it.
QWEN_TEMPLATE = (
    "{%- if tools %}\n"
    "    {{- '<|im_start|>system\\n' }}\n"
    "    {%- if messages[0]['role'] == 'system' %}\n"
    "        {{- messages[0]['content'] }}\n"
    "    {%- else %}\n"
    "        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}\n"
    "    {%- endif %}\n"
    "    {{- \"\\n\\n# Tools\\n\\nYou may call one or more functions to assist with the user "
    "query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:"
    "\\n<tools>\" }}\n"
    "    {%- for tool in tools %}\n"
    "        {{- \"\\n\" }}\n"
    "        {{- tool | tojson }}\n"
    "    {%- endfor %}\n"
    "    {{- \"\\n</tools>\\n\\nFor each function call, return a json object with function "
    "name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n"
    "{\\\"name\\\": <function-name>, \\\"arguments\\\": <args-json-object>}\\n</tool_call>"
    "<|im_end|>\\n\" }}\n"
    "{%- else %}\n"
    "    {%- if messages[0]['role'] == 'system' %}\n"
    "        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}\n"
    "    {%- endif %}\n"
    "{%- endif %}\n"
    "{%- for message in messages %}\n"
    "    {%- if message.role == 'user' or (message.role == 'system' and not loop.first) %}\n"
    "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + "
    "'\\n' }}\n"
    "    {%- endif %}\n"
    "{%- endfor %}\n"
    "{%- if add_generation_prompt %}\n"
    "    {{- '<|im_start|>assistant\\n' }}\n"
    "{%- endif %}\n"
)

TOOLS = [
    {"type": "function", "function": {"name": "search_events", "description": "Find events",
                                      "parameters": {"type": "object", "properties": {
                                          "date": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "update_event", "description": "Change one",
                                      "parameters": {"type": "object", "properties": {}}}},
]
MESSAGES = [{"role": "system", "content": "Call exactly one tool."},
            {"role": "user", "content": "Move tomorrow's dentist appointment to 4 PM"}]


def test_template_puts_tools_in_a_prefix_shared_by_every_request():
    one = render_chat(QWEN_TEMPLATE, MESSAGES, TOOLS)
    other = render_chat(QWEN_TEMPLATE, [MESSAGES[0], {"role": "user", "content": "Other"}],
                        TOOLS)
    assert json.dumps(TOOLS[0], ensure_ascii=False) in one
    prefix = one[:one.index("<|im_start|>user")]
    assert other.startswith(prefix) and "search_events" in prefix
    assert one.endswith("<|im_start|>assistant\n")


def test_template_without_tools_support_still_shows_the_tools():
    plain = "{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}"
    text = render_chat(plain, MESSAGES, TOOLS)
    assert text.startswith("[system] Call exactly one tool.")
    assert "update_event" in text and "<tool_call>" in text


@pytest.mark.parametrize("template, message", [
    ("", "no chat template"),
    ("{% if %}", "does not compile"),
    ("{{ raise_exception('roles must alternate') }}", "roles must alternate"),
])
def test_template_errors_are_planfilter_errors(template, message):
    with pytest.raises(TemplateError, match=message):
        render_chat(template, MESSAGES, TOOLS)


# ------------------------------------------------------------------ grammar


def _rules(grammar: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in re.finditer(r"^(\w+)\s*::=(.*)$", grammar, re.M)}


def test_grammar_names_exactly_the_visible_tools():
    grammar = tool_call_grammar(["search_events", "update_event", "search_events"])
    rules = _rules(grammar)
    assert rules["name"].strip() == '"search_events" | "update_event"'
    assert rules["root"].strip().startswith('"<tool_call>\\n{\\"name\\": \\"" name')
    assert rules["root"].strip().endswith('object "}\\n</tool_call>"')
    referenced = set(re.findall(r"(?<![\"\\\w])([a-z]+)(?![\"\w])",
                                re.sub(r'"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]', "",
                                       grammar)))
    assert referenced <= set(rules), referenced - set(rules)


def test_grammar_needs_a_tool():
    with pytest.raises(PlanfilterError, match="at least one tool"):
        tool_call_grammar([])


@given(st.text(max_size=30))
def test_gbnf_literals_escape_everything_that_would_end_them(text):
    literal = gbnf_literal(text)
    inner = literal[1:-1]
    assert literal[0] == literal[-1] == '"'
    assert not re.search(r'(?<!\\)(\\\\)*"', inner)  # no unescaped quote inside
    assert "\n" not in inner and "\r" not in inner
    escapes = {"\\": "\\", '"': '"', "n": "\n", "r": "\r", "t": "\t"}
    assert re.sub(r"\\(.)", lambda m: escapes[m.group(1)], inner) == text


def test_grammar_compiles_in_llama_cpp():
    llama_cpp = pytest.importorskip("llama_cpp", reason="the [local] extra is not installed")
    grammar = llama_cpp.LlamaGrammar.from_string(tool_call_grammar(["a_b", 'we"ird']),
                                                 verbose=False)
    assert grammar is not None


# ------------------------------------------------------------------ parser


def test_parses_the_constrained_output():
    text = '<tool_call>\n{"name": "search_events", "arguments": {"date": "2026-12-01"}}\n' \
           "</tool_call>"
    calls, rest = parse_tool_calls(text)
    assert calls == (ParsedCall("search_events", '{"date": "2026-12-01"}'),)
    assert rest is None


@pytest.mark.parametrize("text, name, arguments", [
    # unclosed block, as when generation stops at max_tokens or an end token
    ('<tool_call>{"name": "a", "arguments": {"x": 1}}', "a", {"x": 1}),
    # fenced JSON with prose around it
    ('I will search first.\n```json\n{"name": "a", "arguments": {}}\n```', "a", {}),
    # bare object, "parameters" spelling, OpenAI nesting, arguments as a JSON text
    ('Calling {"name": "a", "parameters": {"x": "y"}} now', "a", {"x": "y"}),
    ('{"function": {"name": "a", "arguments": "{\\"x\\": 2}"}}', "a", {"x": 2}),
    ('[{"name": "a", "arguments": null}]', "a", {}),
])
def test_lenient_parsing(text, name, arguments):
    calls, _ = parse_tool_calls(text)
    assert [c.name for c in calls] == [name]
    assert json.loads(calls[0].arguments) == arguments


def test_several_blocks_are_several_calls_and_prose_is_kept():
    text = ('First <tool_call>{"name": "a", "arguments": {}}</tool_call> then '
            '<tool_call>{"name": "b", "arguments": {}}</tool_call>')
    calls, rest = parse_tool_calls(text)
    assert [c.name for c in calls] == ["a", "b"]
    assert rest == "First  then"


@pytest.mark.parametrize("text", ["", "I cannot help with that.", '{"answer": 42}',
                                  "<tool_call>not json</tool_call>", '{"name": ""}'])
def test_no_call_is_found_where_there_is_none(text):
    calls, rest = parse_tool_calls(text)
    assert calls == ()
    assert rest == (text.strip() or None)


@given(st.lists(st.from_regex(r"[a-z_]{1,12}", fullmatch=True), min_size=1, max_size=4),
       st.dictionaries(st.text(max_size=8), st.one_of(st.integers(), st.text(max_size=8),
                                                      st.booleans(), st.none()), max_size=4),
       st.sampled_from(["block", "fence", "bare"]))
def test_any_well_formed_call_round_trips(names, arguments, style):
    body = [json.dumps({"name": n, "arguments": arguments}) for n in names]
    if style == "block":
        text = "".join(f"<tool_call>\n{b}\n</tool_call>\n" for b in body)
    elif style == "fence":
        text = "".join(f"```json\n{b}\n```\n" for b in body)
    else:
        text = " ".join(body)
    calls, _ = parse_tool_calls(text)
    assert [c.name for c in calls] == names
    assert all(json.loads(c.arguments) == arguments for c in calls)


def test_a_required_enum_parameter_is_held_to_its_values():
    from planfilter.models.toolcall import required_enums

    tools = [{"type": "function", "function": {"name": "set_goal", "parameters": {
        "type": "object", "required": ["goal"],
        "properties": {"goal": {"type": "string", "enum": ["a", "b"]}, "known": {}}}}},
        {"type": "function", "function": {"name": "free", "parameters": {
            "type": "object", "properties": {"x": {"enum": ["only-optional"]}}}}}]
    enums = required_enums(tools)
    assert enums == {"set_goal": ("goal", ("a", "b"))}
    rules = _rules(tool_call_grammar(["set_goal", "free"], enums))
    assert rules["name"].strip() == '"free"'
    assert '( "\\"a\\"" | "\\"b\\"" )' in rules["args0"]
    assert tool_call_grammar(["free"], enums) == tool_call_grammar(["free"])
    steps = [{"type": "function", "function": {"name": "set_goal", "parameters": {
        "type": "object", "required": ["goal"], "properties": {
            "goal": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}}}}}]
    assert required_enums(steps) == {"set_goal": ("goal", ("a", "b"), True)}
    array_rule = _rules(tool_call_grammar(["set_goal"], required_enums(steps)))["args0"]
    assert '"[" ws ( "\\"a\\"" | "\\"b\\"" ) ws ( "," ws' in array_rule


def test_an_enum_grammar_compiles_and_constrains_in_llama_cpp():
    llama_cpp = pytest.importorskip("llama_cpp", reason="the [local] extra is not installed")
    grammar = tool_call_grammar(["set_goal"], {"set_goal": ("goal", ("a_b", 'we"ird'))})
    assert llama_cpp.LlamaGrammar.from_string(grammar, verbose=False) is not None
