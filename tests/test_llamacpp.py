"""The ``llamacpp/...`` litellm provider, with llama.cpp replaced by a scripted stand-in.

The real model is exercised by tests/test_llamacpp_model.py when the [local] extra is
installed; here every path between litellm and llama.cpp is checked without it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import Any

import pytest
from test_toolcall import QWEN_TEMPLATE, TOOLS

from planfilter.bench.agent import AgentOptions, run_task
from planfilter.bench.runner import RunConfig, plan_runs, workers
from planfilter.core.errors import PlanfilterError
from planfilter.models import CallOptions, check_model, complete, in_process
from planfilter.models import llamacpp as provider
from planfilter.models.llamacpp import parse_spec

MESSAGES = [{"role": "system", "content": "Call exactly one tool."},
            {"role": "user", "content": "Move tomorrow's dentist appointment to 4 PM"}]


class Tokens(list):
    def tolist(self) -> list[int]:
        return list(self)


@dataclass
class Script:
    """What the stand-in answers, and what it was asked."""
    answer: str = '<tool_call>\n{"name": "search_events", "arguments": {}}\n</tool_call>'
    grammars: list[Any] = field(default_factory=list)
    prompts: list[list[int]] = field(default_factory=list)
    loads: int = 0
    specs: list[str] = field(default_factory=list)


def fake_llama_cpp(script: Script, template: str = QWEN_TEMPLATE) -> Any:
    class Llama:
        def __init__(self, model_path: str, n_ctx: int, n_batch: int, n_threads: int,
                     verbose: bool):
            script.loads += 1
            self.metadata = {"tokenizer.chat_template": template}
            self._input_ids = Tokens()

        longest_token_prefix = staticmethod(
            lambda a, b: next((i for i, (x, y) in enumerate(zip(a, b, strict=False))
                               if x != y), min(len(a), len(b))))

        def tokenize(self, text: bytes, add_bos: bool, special: bool) -> list[int]:
            return list(text)

        def detokenize(self, tokens: list[int], special: bool = False) -> bytes:
            return b"<|endoftext|>"

        def token_bos(self) -> int:
            return -1

        def token_eos(self) -> int:
            return 7

        def create_completion(self, prompt: list[int], max_tokens: int, temperature: float,
                              top_k: int, seed: int, grammar: Any) -> dict[str, Any]:
            script.prompts.append(prompt)
            script.grammars.append(grammar)
            self._input_ids = Tokens(prompt)
            return {"choices": [{"text": script.answer}],
                    "usage": {"prompt_tokens": len(prompt), "completion_tokens": 11}}

    class LlamaGrammar:
        @staticmethod
        def from_string(text: str, verbose: bool) -> str:
            return text

    return SimpleNamespace(Llama=Llama, LlamaGrammar=LlamaGrammar)


@pytest.fixture
def script(monkeypatch, tmp_path):
    script = Script()
    module = fake_llama_cpp(script)
    monkeypatch.setattr(provider, "_require_llama_cpp", lambda name: module)
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    def model_path(spec: str):
        script.specs.append(spec)
        return gguf

    monkeypatch.setattr(provider, "model_path", model_path)
    monkeypatch.setattr(provider, "_MODELS", {})
    return script


def test_a_required_call_is_decoded_under_the_grammar_of_the_visible_tools(script):
    reply = complete("llamacpp/model.gguf", MESSAGES, TOOLS, seed=1)
    assert [c.name for c in reply.calls] == ["search_events"]
    assert json.loads(reply.calls[0].arguments) == {}
    assert reply.output_tokens == 11
    assert reply.input_tokens == len(script.prompts[0])  # llama.cpp's own count
    grammar = script.grammars[0]
    assert 'name ::= "search_events" | "update_event"' in grammar
    prompt = bytes(script.prompts[0]).decode()
    assert prompt.index("update_event") < prompt.index("dentist")  # tools in the prefix


def test_one_model_instance_serves_every_call(script):
    for _ in range(3):
        complete("llamacpp/model.gguf", MESSAGES, TOOLS)
    assert script.loads == 1
    model = provider.get_model("model.gguf")
    assert model.prompt_tokens == 3 * len(script.prompts[0])
    # only the first prompt was evaluated in full; the others reused all but one token
    assert model.evaluated_tokens == len(script.prompts[0]) + 2


def test_a_plain_text_answer_is_parsed_leniently(script):
    script.answer = 'Sure. ```json\n{"name": "update_event", "arguments": {"x": 1}}\n```'
    reply = complete("llamacpp/model.gguf", MESSAGES, [])
    assert reply.calls == () and reply.content == script.answer
    script.grammars.clear()
    from planfilter.models import load_litellm

    response = load_litellm().completion(model="llamacpp/model.gguf", messages=MESSAGES,
                                         tools=TOOLS, tool_choice="auto")
    assert script.grammars == [None]
    call = response.choices[0].message.tool_calls[0]
    assert call.function.name == "update_event"
    assert json.loads(call.function.arguments) == {"x": 1}


def test_tool_choice_none_shows_the_tools_and_answers_in_words(script):
    """AgentDojo's tool filter asks with every tool in view and ``tool_choice="none"``: the
    answer is read as words, even when it looks like a call."""
    script.answer = '<tool_call>\n{"name": "search_events", "arguments": {}}\n</tool_call>'
    reply = complete("llamacpp/model.gguf", MESSAGES, TOOLS, tool_choice="none")
    assert reply.calls == () and "search_events" in (reply.content or "")
    assert script.grammars == [None]
    assert "update_event" in bytes(script.prompts[0]).decode()  # the tools were in view


@pytest.mark.parametrize("answer, error", [
    ("I would rather not.", "model called no tool: 'I would rather not.'"),
    ('<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>',
     "'delete_everything' does not exist; refused"),
    ('<tool_call>{"name": "search_events", "arguments": "{\\"date\\": "}</tool_call>',
     "not valid JSON"),
])
def test_garbage_is_a_recorded_failure_of_the_step(script, registry, suite, answer, error):
    script.answer = answer
    task = suite.task("move-001")
    outcome = run_task(registry, task, method="cmtf", model="llamacpp/model.gguf",
                       options=AgentOptions(call=CallOptions(max_tries=1)))
    assert not outcome.run.success
    assert error in str(outcome.steps[-1].error)


def test_a_prompt_longer_than_the_context_fails_that_step_only(script, registry, suite):
    task = suite.task("move-001")
    outcome = run_task(registry, task, method="all", model="llamacpp/model.gguf?n_ctx=2000",
                       options=AgentOptions(call=CallOptions(max_tries=3, base_delay=0)))
    step = outcome.steps[0]
    assert "more than the context of 2000" in str(step.error)
    assert "n_ctx=" in str(step.error)
    assert script.prompts == []  # refused before llama.cpp was asked


@pytest.mark.parametrize("model, spec", [
    ("llamacpp//abs/dir/model.gguf", "/abs/dir/model.gguf"),
    ("llamacpp/rel/dir/model.gguf?n_ctx=4096", "rel/dir/model.gguf"),
    ("llamacpp/qwen2.5-coder-0.5b", "qwen2.5-coder-0.5b"),
])
def test_the_model_part_of_the_name_reaches_the_loader_intact(script, model, spec):
    complete(model, MESSAGES, TOOLS)
    assert script.specs == [spec]


def test_model_names_and_options(script):
    assert parse_spec("llamacpp/a.gguf?n_ctx=8192&threads=2") == provider.ModelSpec(
        "a.gguf", 8192, 2)
    for bad, message in [("llamacpp/", "name a .gguf file"),
                         ("llamacpp/a.gguf?ctx=1", "unknown option 'ctx'"),
                         ("llamacpp/a.gguf?n_ctx=big", "must be an integer"),
                         ("llamacpp/a.gguf?n_ctx=0", "out of range")]:
        with pytest.raises(PlanfilterError, match=message):
            parse_spec(bad)


def test_without_the_extra_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "llama_cpp", None)
    with pytest.raises(PlanfilterError, match=r"pip install 'planfilter\[local\]'"):
        check_model("llamacpp/qwen2.5-coder-0.5b")


def test_local_runs_go_one_at_a_time_grouped_by_method(registry, suite):
    config = RunConfig(registry=registry, suite=suite, methods=("all", "cmtf"),
                       models=("llamacpp/m.gguf",), concurrency=4)
    assert in_process("llamacpp/m.gguf") and not in_process("sim/careful")
    assert workers(config) == 1
    assert workers(replace(config, models=("sim/careful",))) == 4
    methods = [key.method for key in plan_runs(config)]
    assert methods == ["all"] * len(suite) + ["cmtf"] * len(suite)



def test_a_model_that_does_not_load_stops_the_benchmark_before_it_starts(script, monkeypatch):
    def broken(**kwargs: Any) -> None:
        raise ValueError("Failed to load model from file")

    monkeypatch.setattr(provider._require_llama_cpp("x"), "Llama", broken)
    with pytest.raises(PlanfilterError, match="llama.cpp cannot load .*model.gguf: Failed"):
        check_model("llamacpp/model.gguf")


def test_a_broken_gguf_file_is_a_clean_cli_error(tmp_path, monkeypatch):
    pytest.importorskip("llama_cpp", reason="the [local] extra is not installed")
    from click.testing import CliRunner

    from planfilter.cli import cli

    monkeypatch.setattr(provider, "_MODELS", {})
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 64)
    result = CliRunner().invoke(cli, ["run", "--models", f"llamacpp/{bad}", "--sample", "1",
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code != 0
    assert "cannot load" in result.output and str(bad) in result.output
    assert "Traceback" not in result.output
