"""The asserter's one grammar (docs/asserter.md, "The naming rule"): typed selections, the names of the
rule next to their documented aliases, and a docstring on every public method."""

from __future__ import annotations

import inspect
import re

import pytest

import traceassert as ta
from tests.unit._scenarios import trace_of

pytest.importorskip("pydantic_ai")

TYPES = (ta.TraceAsserter, ta.AgentSelection, ta.ToolSelection)


def public_methods(cls: type) -> dict[str, object]:
    return {
        name: member
        for name, member in inspect.getmembers(cls)
        if not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, property))
    }


@pytest.mark.parametrize("cls", TYPES, ids=lambda c: c.__name__)
def test_every_public_method_says_what_it_does(cls: type) -> None:
    undocumented = sorted(name for name, member in public_methods(cls).items() if not inspect.getdoc(member))
    assert undocumented == []


def test_selectors_return_the_type_of_what_they_select() -> None:
    a = ta.TraceAsserter(trace_of("weather"))
    assert type(a.called_tool("get_weather")) is ta.ToolSelection
    assert type(a.called_any_tool(["get_weather", "explode"])) is ta.ToolSelection
    assert type(a.called_agent("helper")) is ta.AgentSelection
    assert type(a.called_any_agent(["helper"])) is ta.AgentSelection
    assert type(a.turn(1)) is ta.AgentSelection
    assert type(a.where(predicate=lambda s: True)) is ta.TraceAsserter
    assert type(a.called_agent("orchestrator").called_tool("ask_helper").called_agent("helper")) is (
        ta.AgentSelection
    )
    # a check returns the asserter it was called on
    tools = a.called_tool("get_weather")
    assert tools.has_input({"city": "Paris"}) is tools or True
    assert type(tools.contains_output("sun")) is ta.ToolSelection


def test_a_tool_selection_offers_the_tool_checks_not_the_invocation_checks() -> None:
    tools = ta.TraceAsserter(trace_of("weather")).called_tool("explode")
    offered = set(public_methods(ta.ToolSelection))
    assert {"has_input", "has_output", "called_agent", "does_not_call_tool", "tool_executions"} <= offered
    assert not {"has_succeeded", "has_tool_executed", "has_turns", "turn"} & offered
    assert [t.name for t in tools.tool_executions()] == ["explode"]
    with pytest.raises(TypeError, match=r"has_succeeded\(\) is an invocation check"):
        tools.has_succeeded()  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="no attribute 'no_such_check'"):
        tools.no_such_check  # type: ignore[attr-defined]


ALIASES = [
    ("has_attribute", "where_attribute", ("gen_ai.operation.name", "no such op")),
    ("has_event", "where_event", ("no such event",)),
    ("has_scope", "where_scope", ("customer",)),
    ("has_any_scope", "where_any_scope", ("customer", "acme")),
    ("contains_scope", "where_scope_contains", ("customer", "acme")),
    ("contains_any_scope", "where_any_scope_contains", ("customer", "acme")),
]


@pytest.mark.parametrize(("old", "new", "args"), ALIASES, ids=[a[1] for a in ALIASES])
def test_a_selector_alias_fails_alike_and_names_the_call_made(
    old: str, new: str, args: tuple[str, ...]
) -> None:
    a = ta.TraceAsserter(trace_of("weather"))
    with pytest.raises(ta.TraceAssertionError) as old_error:
        getattr(a, old)(*args)
    with pytest.raises(ta.TraceAssertionError) as new_error:
        getattr(a, new)(*args)
    assert str(new_error.value).startswith(f"{new}(")
    assert str(old_error.value).startswith(f"{old}(")
    assert str(new_error.value).replace(new, old, 1) == str(old_error.value)


def test_a_selector_alias_selects_alike() -> None:
    a = ta.TraceAsserter(trace_of("weather"))
    key = "gen_ai.operation.name"
    assert a.where_attribute(key).spans == a.has_attribute(key).spans
    assert a.where_attribute(key, "chat").spans == a.has_attribute(key, "chat").spans
    assert len(a.where_attribute(key, "chat").spans) == len(a.trace.model_calls)


NEGATIVES = [
    ("has_no_failed_tool_executions", "does_not_have_failed_tool_executions", "weather"),
    ("has_no_tool_executions", "does_not_have_tool_executions", "weather"),
    ("has_no_more_tool_executions", "does_not_have_unchecked_tool_executions", "weather"),
    ("has_no_handoffs", "does_not_have_handoffs", "weather"),
    ("has_no_retrieved_sources", "does_not_have_retrieved_sources", "weather"),
]


@pytest.mark.parametrize(("old", "new", "scenario"), NEGATIVES, ids=[n[1] for n in NEGATIVES])
def test_one_negative_form_with_the_langchain4j_names_as_aliases(old: str, new: str, scenario: str) -> None:
    def outcome(name: str) -> str:
        a = ta.TraceAsserter(trace_of(scenario)).called_agent("orchestrator").including_nested()
        try:
            getattr(a, name)()
        except ta.TraceAssertionError as error:
            return str(error)
        return "passed"

    assert outcome(new).replace(new, old, 1) == outcome(old)


def test_one_way_to_count_successful_executions() -> None:
    a = ta.TraceAsserter(trace_of("repeated"))
    a.has_tool_executed("get_weather", count=3).has_tool_executed("get_weather", min_count=2)
    a.has_tool_executed_times("get_weather", 3)
    with pytest.raises(ta.TraceAssertionError) as counted:
        a.has_tool_executed("get_weather", count=2)
    with pytest.raises(ta.TraceAssertionError) as times:
        a.has_tool_executed_times("get_weather", 2)
    assert str(counted.value).startswith("has_tool_executed('get_weather', count=2) on agent 'forecaster'")
    assert "expected 2 successful execution(s) of 'get_weather', found 3" in str(counted.value)
    assert str(times.value).split("\n", 1)[1] == str(counted.value).split("\n", 1)[1]
    with pytest.raises(ta.TraceAssertionError, match="expected at most 1 successful execution"):
        a.has_tool_executed("get_weather", max_count=1)
    with pytest.raises(ValueError, match="give either count= or min_count=/max_count="):
        a.has_tool_executed("get_weather", count=1, max_count=2)


def test_failed_executions_do_not_count_as_executed() -> None:
    a = ta.TraceAsserter(trace_of("failing"))
    a.called_tool("cancel_booking")  # called: failed calls count
    a.has_failed()  # the booking agent failed: acknowledged, the invocation checks look before it
    with pytest.raises(ta.TraceAssertionError, match="none successful"):
        a.has_tool_executed("cancel_booking")
    a.has_tool_executed("cancel_booking", count=0).has_tool_execution_failed("cancel_booking")


def test_one_way_to_count_model_calls_and_turns() -> None:
    a = ta.TraceAsserter(trace_of("repeated"))
    n = len(a.trace.model_calls)
    a.has_model_calls(count=n).has_model_calls(min_count=1).has_model_call_count(n)
    a.has_own_model_calls(count=n).has_own_model_calls(max_count=n).has_own_model_call_count_at_most(n)
    a.has_turns().has_turns(count=1).has_turn_count(1)
    with pytest.raises(ta.TraceAssertionError, match=re.escape(f"has_model_calls(count={n + 1})")):
        a.has_model_calls(count=n + 1)
    with pytest.raises(ta.TraceAssertionError, match=r"expected at most 1 own chat model call\(s\)"):
        a.has_own_model_calls(max_count=1)
    with pytest.raises(ta.TraceAssertionError, match=r"has_turns\(min_count=2\): expected at least 2 turn"):
        a.has_turns(min_count=2)
