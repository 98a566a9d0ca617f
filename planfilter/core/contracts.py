"""Tool contracts and registries: the data every other stage reads.

A tool is ``(description, requires R, produces E, cost c, risk rho)`` plus the JSON Schema of
its arguments. Executable at state ``s`` when ``R <= s``; applying it gives ``s | E``.

For live use a tool may also say what its result looks like: ``returns`` (the output JSON
Schema, MCP's ``outputSchema``) and ``outputs`` (variable -> JSON Pointer into the result,
for a produced variable whose value is not under a key of its own name; ``*`` stands for
every item of a list, ``/*/id``). A registry may name ``goals``: several variables that
together are one thing a user asks for, or an ordered list of such steps; and
``environment``: the values the system supplies (planfilter.core.environment).

How arguments relate to variables, for the data-flow checks (planfilter.core.provenance):

- ``inputs``: parameter -> the variable it carries, where the names differ (``receiver_id``
  carries ``user_id``); any other parameter carries the variable of its own name.
- ``authored``: parameters the model writes (a message body, a subject, a date). They are
  never a precondition of the plan and their values are not checked for provenance.
- ``sensitive``: parameters whose value must not come from outside content unless the user
  gave it or approves (a recipient, an amount, a URL).
- ``untrusted``: the tool's results carry outside content (messages, files, web pages).

State facts carry no value: ``needs`` are facts that must hold before the tool runs (being
logged in, a device switched on) and ``establishes`` are facts a successful call makes hold.
The planner treats them as it treats variables (``pre`` is ``requires | needs``, ``post`` is
``produces | establishes``); no argument carries a fact, and a result never has to hold one:
a call that succeeds establishes its facts whatever it answers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from .errors import ContractError
from .frozen import freeze, thaw

#: What MCP allows in a tool name (so ``server.tool`` fits), not starting with '-' or '.'.
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
NAME_MAX = 128
#: A JSON Pointer (RFC 6901): empty (the whole result) or '/'-separated reference tokens;
#: ``*`` is every item of a list (or value of an object), and a token that is only ``~``
#: (which RFC 6901 leaves invalid: it escapes ``~`` as ``~0``) the keys of an object.
POINTER_PATTERN = re.compile(r"^(/(~|([^~/]|~[01])*))*$")
RISK_LEVELS = ("low", "medium", "high")
#: Actions with side effects: choosing one before its requirements hold is a premature action.
SIDE_EFFECT_ACTIONS = frozenset({"write", "send", "update", "share", "delete"})
#: Actions that only look: a tool with one of them changes nothing it reads.
READ_ACTIONS = frozenset({"read", "search", "list", "extract", "summarize"})
#: Actions that change something: its result reports the change, it found nothing.
CHANGING_ACTIONS = SIDE_EFFECT_ACTIONS | {"create", "purchase"}


def check_name(value: str) -> str:
    if not NAME_PATTERN.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a valid name: use letters, digits, '_', '-' and '.' "
            "(not starting with '-' or '.')"
        )
    return value


Name = Annotated[str, Field(max_length=NAME_MAX), AfterValidator(check_name)]
#: A set of variable names; serialised sorted so that output is byte-stable.
NameSet = Annotated[frozenset[Name], PlainSerializer(sorted, return_type=list[str])]
#: A JSON object stored deep-frozen and serialised back to plain dicts and lists.
FrozenJson = Annotated[
    Mapping[str, Any], AfterValidator(freeze), PlainSerializer(thaw, return_type=Any)
]


def _default_parameters() -> Mapping[str, Any]:
    return freeze({"type": "object", "properties": {}})


class Tool(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Name
    description: str = Field(default="", max_length=10_000)
    requires: NameSet = frozenset()
    #: Facts without a value that must hold before the tool runs (``logged_in``).
    needs: NameSet = frozenset()
    #: Facts without a value that a successful call makes hold.
    establishes: NameSet = frozenset()
    produces: NameSet = Field(default=frozenset(), validate_default=True)
    domain: str | None = None
    action: str | None = Field(default=None, max_length=64)
    risk: Literal["low", "medium", "high"] = "low"
    cost: float = Field(default=1.0, gt=0, le=1e9)
    parameters: FrozenJson = Field(default_factory=_default_parameters)
    #: The JSON Schema of a successful result (MCP's ``outputSchema``); results are checked
    #: against it when present.
    returns: FrozenJson | None = None
    #: Produced variable -> JSON Pointer into the result, where the value is not under a key
    #: of the variable's own name (``{event_id: /event/id}``).
    outputs: Annotated[Mapping[Name, str], AfterValidator(freeze),
                       PlainSerializer(thaw, return_type=Any)] = Field(
        default_factory=lambda: freeze({}))
    #: Where drafted fields came from, field -> note (``schema: ...``, ``rule: ...``,
    #: ``alias: ...``, ``model: ...``), as ``planfilter contracts infer`` writes them; a
    #: field not listed was written by hand.
    #: Parameter -> the variable it carries, where the names differ.
    inputs: Annotated[Mapping[Name, Name], AfterValidator(freeze),
                      PlainSerializer(thaw, return_type=Any)] = Field(
        default_factory=lambda: freeze({}))
    #: Parameters the model writes: never preconditions, not checked for provenance.
    authored: NameSet = frozenset()
    #: Parameters whose value may not come from an untrusted result without approval.
    sensitive: NameSet = frozenset()
    #: The tool's results carry outside content (messages, files, web pages, reviews).
    untrusted: bool = False
    inferred: Annotated[Mapping[str, str], AfterValidator(freeze),
                        PlainSerializer(thaw, return_type=Any)] = Field(
        default_factory=lambda: freeze({}))

    @field_validator("produces")
    @classmethod
    def _produces_something(cls, value: frozenset[str], info: ValidationInfo
                            ) -> frozenset[str]:
        if not value and not info.data.get("establishes"):
            raise ValueError("a tool must produce at least one variable (or establish a fact)")
        return value

    @model_validator(mode="after")
    def _facts_hold_no_value(self) -> Tool:
        problems = []
        for field_name, facts, values in (("needs", self.needs, self.requires),
                                          ("establishes", self.establishes, self.produces)):
            both = sorted(facts & values)
            if both:
                other = "requires" if field_name == "needs" else "produces"
                problems.append(f"{field_name} and {other} both name {both}: a fact has no "
                                "value, a variable has one")
        props = self.parameters.get("properties", {})
        facts = self.needs | self.establishes
        carried = sorted(p for p in props if self.variable_of(p) in facts)
        if carried:
            named = ", ".join(sorted({self.variable_of(p) for p in carried}))
            problems.append(f"parameters {carried} carry a fact ({named}): a fact has no value "
                            "to pass")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @field_validator("parameters")
    @classmethod
    def _object_schema(cls, value: Mapping[str, Any]) -> Mapping[str, Any]:
        if value.get("type") != "object":
            raise ValueError("parameters must be a JSON Schema with type: object")
        props = value.get("properties", {})
        if not isinstance(props, Mapping):
            raise ValueError("parameters.properties must be a mapping")
        required = value.get("required", ())
        if not isinstance(required, tuple | list) or not all(isinstance(r, str) for r in required):
            raise ValueError("parameters.required must be a list of property names")
        missing = sorted(set(required) - set(props))
        if missing:
            raise ValueError(f"parameters.required names undeclared properties {missing}")
        return value

    @field_validator("returns")
    @classmethod
    def _returns_schema(cls, value: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        if value is not None and not isinstance(value.get("type", "object"), str | tuple):
            raise ValueError("returns must be a JSON Schema")
        return value

    @field_validator("outputs")
    @classmethod
    def _pointers(cls, value: Mapping[str, str]) -> Mapping[str, str]:
        for variable, pointer in value.items():
            if not isinstance(pointer, str) or not POINTER_PATTERN.fullmatch(pointer):
                raise ValueError(f"outputs.{variable}: {pointer!r} is not a JSON Pointer "
                                 "(like /event/id, or '' for the whole result)")
        return value

    @model_validator(mode="after")
    def _outputs_are_produced(self) -> Tool:
        extra = sorted(set(self.outputs) - self.produces)
        if extra:
            raise ValueError(f"outputs name variables the tool does not produce: {extra}")
        return self

    @model_validator(mode="after")
    def _parameters_named(self) -> Tool:
        props = self.parameters.get("properties", {})
        problems = []
        for field_name in ("inputs", "authored", "sensitive"):
            named = getattr(self, field_name)
            # a contract without parameters takes them from its server (the gateway): what
            # it names is checked once they are known
            unknown = sorted(p for p in named if p not in props) if props else []
            if unknown:
                problems.append(f"{field_name} names parameters the tool does not declare: "
                                f"{unknown}")
        blocked = sorted(self.requires & {self.variable_of(p) for p in self.authored})
        if blocked:
            problems.append(f"requires {blocked}, which the model writes (authored): an "
                            "authored parameter is never a precondition")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def __hash__(self) -> int:
        return hash(self.name)

    def variable_of(self, parameter: str) -> str:
        """The variable an argument of ``parameter`` carries."""
        return self.inputs.get(parameter, parameter)

    # Plain properties, not cached: ``model_copy(update=...)`` copies a cached value as it was.
    @property
    def pre(self) -> frozenset[str]:
        """What must hold before the tool runs: its required variables and needed facts."""
        return self.requires | self.needs if self.needs else self.requires

    @property
    def post(self) -> frozenset[str]:
        """What holds after a successful call: its produced variables and established facts."""
        return self.produces | self.establishes if self.establishes else self.produces

    def executable(self, known: frozenset[str]) -> bool:
        return self.pre <= known

    def function_schema(self) -> dict[str, Any]:
        """The tool in OpenAI function-calling shape, as plain (mutable) dicts."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": thaw(self.parameters),
            },
        }

    @property
    def side_effecting(self) -> bool:
        return self.action in SIDE_EFFECT_ACTIONS

    @property
    def reads(self) -> bool:
        """Its action only looks (read, search, list, extract, summarize)."""
        return self.action in READ_ACTIONS

    @property
    def changes(self) -> bool:
        """Its action changes something (:data:`CHANGING_ACTIONS`): creates, updates, sends,
        shares, deletes, buys."""
        return self.action in CHANGING_ACTIONS


def _taken(tools: Iterable[Tool]) -> frozenset[str]:
    """The variables some tool requires or takes as an argument."""
    out: set[str] = set()
    for tool in tools:
        out |= tool.requires | {tool.variable_of(p) for p in tool.parameters.get("properties", {})}
    return frozenset(out)


def _facts_and_values(tools: Iterable[Tool], where: str) -> list[str]:
    """A name that is a fact for one tool (needs, establishes) and a variable with a value for
    another (requires, produces, a parameter's): one of the two contracts is wrong."""
    tools = tuple(tools)
    facts: dict[str, str] = {}
    for tool in tools:
        for name in sorted(tool.needs | tool.establishes):
            facts.setdefault(name, tool.name)
    problems = []
    for tool in tools:
        valued = tool.requires | tool.produces | {
            tool.variable_of(p) for p in tool.parameters.get("properties", {})}
        for name in sorted(valued & set(facts)):
            problems.append(f"{where}: tool '{tool.name}' treats '{name}' as a variable with a "
                            f"value, while tool '{facts[name]}' names it a fact (needs or "
                            "establishes): use needs/establishes in both")
    return problems


_ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"


class EnvironmentSource(BaseModel):
    """Where a value the system supplies comes from (a registry's ``environment:``, see
    planfilter.core.environment): exactly one of ``value``, ``from_env`` (an OS environment
    variable) and ``tool`` (a read tool called with no arguments, with an optional
    ``pointer`` into its result)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    value: Annotated[Any, AfterValidator(freeze), PlainSerializer(thaw, return_type=Any)] = None
    from_env: str | None = Field(default=None, pattern=_ENV_NAME)
    tool: Name | None = None
    pointer: str | None = Field(default=None, pattern=POINTER_PATTERN.pattern)

    @model_validator(mode="after")
    def _one_source(self) -> EnvironmentSource:
        given = [k for k in ("value", "from_env", "tool") if k in self.model_fields_set]
        if len(given) != 1:
            raise ValueError("give exactly one of value, from_env and tool"
                             + (f" (got {', '.join(given)})" if given else ""))
        if self.pointer is not None and self.tool is None:
            raise ValueError("pointer reads a tool's result: give it with tool")
        if isinstance(self.value, Mapping):
            raise ValueError("value must be text, a number, true/false or a list of them")
        return self

    @model_serializer(mode="plain")
    def _as_given(self) -> dict[str, Any]:
        """Only the source given (``{tool: pwd}``), so that a written registry loads back."""
        return {k: thaw(getattr(self, k)) for k in ("value", "from_env", "tool", "pointer")
                if k in self.model_fields_set}

    @property
    def kind(self) -> str:
        """``value``, ``env HOME`` or ``tool fs.cwd`` (``at /path`` with a pointer)."""
        if self.tool is not None:
            return f"tool {self.tool}" + (f" at {self.pointer}" if self.pointer else "")
        if self.from_env is not None:
            return f"env {self.from_env}"
        return "value"


#: A goal in steps: each step a set of variables, reached in order.
Steps = tuple[frozenset[str], ...]


def goal_steps(value: Any) -> Steps:
    """A goal as steps: one name, a list of names (one step), or a list of such steps
    (``[[current_time], [file_written]]``; a name alone in the list is a step of one)."""
    if isinstance(value, str):
        return (frozenset({value}),)
    items = list(value)
    if not items:
        raise ValueError("the goal names no variable")
    if all(isinstance(i, str) for i in items):
        return (frozenset(items),)
    steps = []
    for i, item in enumerate(items):
        step = frozenset({item}) if isinstance(item, str) else frozenset(item)
        if not step or not all(isinstance(v, str) for v in step):
            raise ValueError(f"goal step {i + 1} must name one or more variables")
        steps.append(step)
    return tuple(steps)


def show_steps(steps: Steps) -> str:
    """Steps in one line: ``current_time -> file_written``."""
    return " -> ".join(",".join(sorted(s)) for s in steps)


def _steps_out(steps: Steps) -> Any:
    return [sorted(s) for s in steps]


StepsField = Annotated[tuple[NameSet, ...], PlainSerializer(_steps_out, return_type=Any)]


class Goal(BaseModel):
    """A named goal, for goal resolution (``goals:`` in a registry file): several variables
    (``variables``), or an ordered list of steps (``steps``), each a set of variables."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Name
    description: str = Field(default="", max_length=10_000)
    variables: NameSet = frozenset()
    steps: StepsField = ()

    @model_validator(mode="after")
    def _one_shape(self) -> Goal:
        if bool(self.variables) == bool(self.steps):
            raise ValueError("give either variables (one step) or steps, not both or neither")
        if any(not s for s in self.steps):
            raise ValueError("every step names at least one variable")
        return self

    @property
    def goal_steps(self) -> Steps:
        return tuple(self.steps) if self.steps else (self.variables,)

    @property
    def all_variables(self) -> frozenset[str]:
        return frozenset().union(*self.goal_steps)


class Registry(BaseModel):
    """An ordered set of tools. Order matters: it is the planner tie-break order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tools: tuple[Tool, ...]
    source: str | None = None
    goals: tuple[Goal, ...] = ()
    #: Variables the system supplies (planfilter.core.environment), each with its source.
    environment: Annotated[Mapping[Name, EnvironmentSource], AfterValidator(freeze),
                           PlainSerializer(thaw, return_type=Any)] = Field(
        default_factory=lambda: freeze({}))

    def model_post_init(self, __context: Any) -> None:
        seen: dict[str, int] = {}
        problems = []
        where = self.source or "<registry>"
        goal_names: set[str] = set()
        for goal in self.goals:
            if goal.name in goal_names:
                problems.append(f"{where}: goal '{goal.name}' appears twice")
            goal_names.add(goal.name)
            unknown = sorted(goal.all_variables - self.produced)
            if unknown:
                problems.append(f"{where}: goal '{goal.name}' field 'variables': no tool "
                                f"produces {unknown}")
        for i, tool in enumerate(self.tools):
            if tool.name in seen:
                problems.append(
                    f"{self.source or '<registry>'}: tool '{tool.name}' (#{i + 1}) has the same "
                    f"name as tool #{seen[tool.name] + 1}"
                )
            else:
                seen[tool.name] = i
        problems += _facts_and_values(self.tools, where)
        problems += self._environment_problems(where)
        if problems:
            raise ContractError(problems)

    def _environment_problems(self, where: str) -> list[str]:
        """A tool source names a tool of the registry that needs nothing; every variable is
        one a tool takes; no fact (a fact has no value to supply)."""
        problems = []
        taken = _taken(self.tools)
        facts = self.facts
        for name, source in sorted(self.environment.items()):
            at = f"{where}: environment '{name}'"
            if name in facts:
                problems.append(f"{at}: '{name}' is a fact (needs, establishes), which has no "
                                "value to supply")
            elif name not in taken:
                problems.append(f"{at}: no tool requires or takes '{name}'")
            if source.tool is None:
                continue
            tool = self._by_name.get(source.tool)
            if tool is None:
                problems.append(f"{at} field 'tool': unknown tool '{source.tool}'")
            elif tool.pre or tool.parameters.get("required"):
                needed = sorted(tool.pre | set(tool.parameters.get("required") or ()))
                problems.append(f"{at} field 'tool': {source.tool} needs {needed}; a source "
                                "is called with no arguments before the task starts")
            elif tool.side_effecting or tool.risk == "high":
                problems.append(f"{at} field 'tool': {source.tool} acts ({tool.action}, "
                                f"{tool.risk} risk); a source runs unasked, so it must only "
                                "read")
        return problems

    # Lookups run inside every planner call: plain dicts, cached on first use (pydantic's
    # private attributes cost a __getattr__ detour on every access).
    @cached_property
    def _by_name(self) -> dict[str, Tool]:
        return {t.name: t for t in self.tools}

    @cached_property
    def _position(self) -> dict[str, int]:
        return {t.name: i for i, t in enumerate(self.tools)}

    def __len__(self) -> int:
        return len(self.tools)

    def __iter__(self) -> Iterator[Tool]:  # type: ignore[override]
        return iter(self.tools)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __hash__(self) -> int:
        return hash(tuple(t.name for t in self.tools))

    def tool(self, name: str) -> Tool:
        try:
            return self._by_name[name]
        except KeyError:
            raise ContractError(
                f"{self.source or '<registry>'}: unknown tool '{name}'"
            ) from None

    def position(self, name: str) -> int:
        return self._position[name]

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tools)

    @cached_property
    def variables(self) -> frozenset[str]:
        out: set[str] = set()
        for t in self.tools:
            out |= t.pre | t.post
        return frozenset(out)

    @cached_property
    def produced(self) -> frozenset[str]:
        out: set[str] = set()
        for t in self.tools:
            out |= t.post
        return frozenset(out)

    @cached_property
    def facts(self) -> frozenset[str]:
        """The names that are facts without a value (some tool needs or establishes them)."""
        return frozenset().union(*(t.needs | t.establishes for t in self.tools))

    @cached_property
    def descriptions(self) -> tuple[str, ...]:
        """Every tool's description and every parameter's, in registry order: how the tool
        set describes itself."""
        return tuple(text for t in self.tools for text in (
            t.description, *(schema.get("description")
                             for schema in t.parameters.get("properties", {}).values()
                             if isinstance(schema, Mapping)))
            if isinstance(text, str) and text)

    @cached_property
    def carriers(self) -> Mapping[str, tuple[tuple[Tool, str], ...]]:
        """Variable -> every (tool, parameter) that carries it, in registry order."""
        out: dict[str, list[tuple[Tool, str]]] = {}
        for t in self.tools:
            for parameter in t.parameters.get("properties", {}):
                out.setdefault(t.variable_of(parameter), []).append((t, parameter))
        return {variable: tuple(found) for variable, found in out.items()}

    def producers(self, variables: Iterable[str]) -> tuple[Tool, ...]:
        """The tools that produce any of ``variables`` (or establish it), in registry order."""
        wanted = frozenset(variables)
        return tuple(t for t in self.tools if t.post & wanted)

    def subset(self, names: Iterable[str]) -> Registry:
        """A new registry with only ``names``, in registry order."""
        keep = set(names)
        return self.with_tools(t for t in self.tools if t.name in keep)

    def with_tools(self, tools: Iterable[Tool]) -> Registry:
        """A new registry of ``tools``, with the goals and environment values that still
        apply to them."""
        tools = tuple(tools)
        produced = frozenset().union(*(t.post for t in tools))
        goals = tuple(g for g in self.goals if g.all_variables <= produced)
        taken, names = _taken(tools), {t.name for t in tools}
        environment = {n: s for n, s in self.environment.items() if n in taken and (
            s.tool is None or s.tool in names)}
        return Registry(tools=tools, source=self.source, goals=goals, environment=environment)
