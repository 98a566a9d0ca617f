"""Loading contracts and suites: frozen data, and errors that name file, tool, field, value."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError
from strategies import reached

from planfilter.core.contracts import Registry, Tool
from planfilter.core.errors import CompileError, ContractError
from planfilter.core.loading import load_registry, load_suite
from planfilter.core.naming import NameMap
from planfilter.core.resources import default_registry


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_registry_is_frozen_and_ordered(example_registry):
    assert example_registry.names[:3] == ("search_events", "read_event", "update_event")
    tool = example_registry.tool("search_events")
    assert tool.requires == frozenset({"date", "event_description"})
    assert tool.domain == "calendar"  # from the file's top-level domain
    with pytest.raises(ValidationError):
        tool.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        tool.parameters["type"] = "array"  # type: ignore[index]
    schema = tool.function_schema()
    schema["function"]["parameters"]["required"].append("x")  # a copy, not the contract
    assert "x" not in tool.parameters["required"]


#: Loaded once: a property test that loaded it per example ran past hypothesis's deadline on a
#: loaded machine (a registry is frozen, so sharing it cannot leak between examples).
BUNDLED = load_registry(default_registry())


@given(st.sets(st.sampled_from(sorted(BUNDLED.variables)), max_size=3))
def test_producers_are_the_tools_that_produce_a_variable_in_registry_order(variables):
    producers = BUNDLED.producers(variables)
    assert [t.name for t in producers] == [
        name for name in BUNDLED.names if BUNDLED.tool(name).produces & variables]
    assert all(t.produces & variables for t in producers)


def test_suite_is_frozen(example_suite):
    task = example_suite.task("calendar-move-001")
    assert task.known == frozenset({"date", "event_description", "new_time"})
    assert task.goal == frozenset({"event_updated"})
    assert task.gold == ("search_events", "update_event")
    with pytest.raises(TypeError):
        task.state["date"] = "x"  # type: ignore[index]


def test_json_and_folders(tmp_path, example_registry):
    data = {"domain": "calendar", "tools": [t.model_dump(mode="json") for t in example_registry]}
    write(tmp_path, "b.json", json.dumps(data))
    write(tmp_path, "a.yaml", "tools:\n  - {name: zeta, produces: [z]}\n")
    registry = load_registry(tmp_path)
    assert registry.names[0] == "zeta"  # files in sorted order, tools in file order
    assert registry.names[1:] == example_registry.names


def test_every_problem_in_a_file_is_reported(tmp_path):
    path = write(tmp_path, "bad.yaml", """
tools:
  - name: ok_tool
    produces: [x]
  - name: bad_risk
    produces: [x]
    risk: extreme
  - name: no_produces
    requires: [a]
  - name: typo
    produces: [y]
    requiers: [a]
  - name: "bad name!"
    produces: [y]
  - name: neg_cost
    produces: [y]
    cost: -2
""")
    with pytest.raises(ContractError) as err:
        load_registry(path)
    text = str(err.value)
    assert f"{path}: tool 'bad_risk' field 'risk'" in text and "'extreme'" in text
    assert f"{path}: tool 'no_produces' field 'produces': a tool must produce" in text
    assert f"{path}: tool 'typo' field 'requiers': unknown field" in text
    assert "tool 'bad name!' field 'name'" in text
    assert "tool 'neg_cost' field 'cost'" in text and "-2" in text
    assert len(err.value.problems) == 5


def test_a_field_that_takes_a_list_says_so(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text("tools:\n  - name: x\n    requires: 5\n    produces: [y]\n")
    with pytest.raises(ContractError) as err:
        load_registry(path)
    assert f"{path}: tool 'x' field 'requires': should be a list (got 5)" in str(err.value)
    assert "frozenset" not in str(err.value)


def test_malformed_yaml_names_line(tmp_path):
    path = write(tmp_path, "broken.yaml", "tools:\n  - name: a\n    produces: [x\n")
    with pytest.raises(ContractError, match=r"broken.yaml:\d+:\d+: invalid YAML"):
        load_registry(path)


def test_duplicate_tool_names_across_files(tmp_path):
    write(tmp_path, "a.yaml", "tools:\n  - {name: same, produces: [x]}\n")
    write(tmp_path, "b.yaml", "tools:\n  - {name: same, produces: [y]}\n")
    with pytest.raises(ContractError, match=r"b.yaml: tool 'same' field 'name': duplicate"):
        load_registry(tmp_path)


def test_task_errors_name_task_and_field(tmp_path):
    path = write(tmp_path, "t.yaml", """
tasks:
  - id: t1
    query: q
    goal: []
  - id: t2
    query: q
    goal: [x]
    state: {a: {b: 1}}
""")
    with pytest.raises(ContractError) as err:
        load_suite(path)
    text = str(err.value)
    assert "task 't1' field 'goal'" in text
    assert "task 't2' field 'state.a" in text


def test_missing_path_and_wrong_top_level(tmp_path):
    with pytest.raises(ContractError, match="no such file or folder"):
        load_registry(tmp_path / "nope.yaml")
    path = write(tmp_path, "list.yaml", "tools: 3\n")
    with pytest.raises(ContractError, match="field 'tools' must be a list"):
        load_registry(path)


def test_name_collision_after_mapping_names_both():
    from planfilter.core.compile import compile_domain
    from planfilter.core.errors import CompileError

    registry = Registry(tools=(Tool(name="Send_Email", produces=["x"]),
                               Tool(name="send_email", produces=["y"])))
    with pytest.raises(CompileError, match="'Send_Email' and 'send_email'"):
        compile_domain(registry)


names = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,12}", fullmatch=True)


def _spelled(name: str) -> str:
    """The PDDL name the naming rules give ``name`` (no '.' in these): lowered, and
    prefixed with 't-' when it does not start with a letter or is a PDDL keyword."""
    lowered = name.lower()
    keyword = lowered in {"and", "or", "not", "imply", "forall", "exists", "when", "either",
                          "define", "domain", "problem", "object", "number", "increase",
                          "decrease", "assign", "total-cost", "at", "over", "all", "start",
                          "end", "minimize", "maximize"}
    return f"t-{lowered}" if keyword or not lowered[0].isalpha() else lowered


@given(st.lists(names, min_size=1, max_size=20, unique=True))
def test_name_map_is_injective_and_round_trips(raw):
    seen: dict[str, str] = {}
    clash = None
    for name in raw:
        if clash is None and _spelled(name) in seen:
            clash = (seen[_spelled(name)], name, _spelled(name))
        seen.setdefault(_spelled(name), name)
    if clash is not None:
        # Two names that land on one PDDL name are refused, naming both: the first such pair.
        reached("refused: two names on one PDDL name")
        first, second, pddl = clash
        with pytest.raises(CompileError) as refused:
            NameMap.build("tool", raw, prefix="t")
        assert str(refused.value) == (
            f"tool names {first!r} and {second!r} both map to the PDDL name {pddl!r} "
            "(PDDL names are case-insensitive); rename one of them")
        return
    reached("built")
    mapping = NameMap.build("tool", raw, prefix="t")
    assert dict(mapping.to_pddl) == {name: _spelled(name) for name in raw}
    assert len(set(mapping.to_pddl.values())) == len(raw)
    for name in raw:
        pddl = mapping.to_pddl[name]
        assert mapping.user(pddl) == name and mapping.user(pddl.upper()) == name
        assert pddl[0].isalpha() and pddl == pddl.lower()


def test_the_documented_registry_example_loads(tmp_path):
    import re
    from pathlib import Path

    formats = Path(__file__).resolve().parent.parent / "docs" / "reference" / "formats.md"
    block = re.search(r"## Registry.*?```yaml\n(.*?)```", formats.read_text(), re.S).group(1)
    (tmp_path / "registry.yaml").write_text(block)
    registry = load_registry(tmp_path)
    assert registry.tools[0].returns is not None and registry.tools[0].outputs
    assert [g.name for g in registry.goals] == ["find_event", "find_and_tell"]
    assert registry.goals[1].goal_steps == (frozenset({"event_id"}), frozenset({"message_sent"}))
    send = registry.tool("send_message")
    assert send.authored == {"body"} and send.variable_of("recipient") == "contact_email"


def test_mcp_style_names_and_their_pddl_spelling():
    from planfilter.core.compile import compile_domain
    from planfilter.core.errors import CompileError

    tool = Tool(name="git.git_add", requires=["repo_path"], produces=["git.staged"])
    domain = compile_domain(Registry(tools=(tool,)))
    assert "git--git_add" in domain.text and domain.actions.user("git--git_add") == "git.git_add"
    with pytest.raises(ValueError):
        Tool(name=".hidden", produces=["x"])
    with pytest.raises(ValueError):
        Tool(name="x" * 129, produces=["x"])
    clash = (tool, Tool(name="git--git_add", produces=["y"]))
    with pytest.raises(CompileError, match="both map"):
        compile_domain(Registry(tools=clash))


def test_outputs_must_name_produced_variables_and_be_pointers():
    with pytest.raises(ValueError, match="does not produce"):
        Tool(name="t", produces=["a"], outputs={"b": "/b"})
    with pytest.raises(ValueError, match="JSON Pointer"):
        Tool(name="t", produces=["a"], outputs={"a": "a/b"})
