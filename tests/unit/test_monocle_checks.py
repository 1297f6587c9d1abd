"""Every Monocle-compatible check, passing and failing, on the live Pydantic AI scenario."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder


@pytest.fixture
def trace(scenario_trace: ta.Trace) -> ta.Trace:
    return ta.Trace(scenario_trace.spans)  # its own ledger: what one test's checks remember stays there


@pytest.fixture
def a(trace: ta.Trace) -> ta.TraceAsserter:
    return ta.TraceAsserter(trace)


def fails(match: str) -> pytest.RaisesContext[ta.TraceAssertionError]:
    return pytest.raises(ta.TraceAssertionError, match=match)


def test_called_tool_and_counts(a: ta.TraceAsserter) -> None:
    a.called_tool("get_weather").called_tool("get_weather", count=1)
    a.called_tool("explode", min_count=1, max_count=1)  # a failed execution was still called
    a.called_tool("ask_helper", agent_name="orchestrator")
    with fails(r"expected at least 1 call\(s\) of tool 'nope', found 0"):
        a.called_tool("nope")
    with fails("expected exactly 2 call"):
        a.called_tool("get_weather", count=2)
    with fails("by agent 'helper'"):
        a.called_tool("get_weather", agent_name="helper")


def test_called_tool_narrows_to_the_executions(a: ta.TraceAsserter) -> None:
    weather = a.called_tool("get_weather")
    weather.has_input({"city": "Paris"}).contains_output("sunny")
    with fails("expected an input equal to"):
        weather.has_input({"city": "London"})


def test_count_arguments_are_validated(a: ta.TraceAsserter) -> None:
    with pytest.raises(ValueError, match="either count"):  # as Monocle: an impossible combination
        a.called_tool("get_weather", count=1, min_count=1)
    with pytest.raises(ValueError, match="either count"):
        a.called_agent("helper", count=1, max_count=2)
    with pytest.raises(TypeError, match="count must be an int"):  # a wrong type stays a TypeError
        a.called_tool("get_weather", count="1")
    with pytest.raises(ValueError, match=">= 0"):
        a.called_tool("get_weather", count=-1)
    with pytest.raises(ValueError, match="greater than"):
        a.called_agent("helper", min_count=3, max_count=1)


def test_does_not_call_tool(a: ta.TraceAsserter) -> None:
    a.does_not_call_tool("delete_everything").does_not_call_tool(["x", "y"])
    a.does_not_call_tool("get_weather", agent_name="helper")
    with fails(r"expected no call of 'explode', found 1"):
        a.does_not_call_tool("explode")


def test_called_agent_and_chains(a: ta.TraceAsserter) -> None:
    a.called_agent("orchestrator", count=1).called_tool("ask_helper")
    a.called_agent("orchestrator").called_agent("helper")
    a.called_agent("helper").does_not_call_tool("get_weather")
    with fails(r"called_tool\('get_weather'\): expected at least 1 call\(s\) of tool 'get_weather', found 0"):
        a.called_agent("helper").called_tool("get_weather")
    with fails("invocation\\(s\\) of agent 'planner', found 0"):
        a.called_agent("planner")


def test_does_not_call_agent(a: ta.TraceAsserter) -> None:
    a.does_not_call_agent("planner")
    a.called_agent("helper").does_not_call_agent("orchestrator")
    with fails("expected no invocation of agent 'helper', found 1"):
        a.does_not_call_agent("helper")


def test_under_token_limit(a: ta.TraceAsserter) -> None:
    a.under_token_limit(646)
    a.called_agent("helper").under_token_limit(44)
    with fails("expected at most 645 tokens, used 646 in 5 model call"):
        a.under_token_limit(645)
    with fails("expected at most 43 tokens, used 44"):
        a.called_agent("helper").under_token_limit(43)


def test_under_token_limit_without_token_data_fails_and_says_so(a: ta.TraceAsserter) -> None:
    with fails("no token usage is recorded on the 0 model call"):
        a.called_tool("get_weather").under_token_limit(10_000)


def test_under_duration(a: ta.TraceAsserter) -> None:
    a.under_duration(60).under_duration(60_000, units="ms").under_duration(1, units="minutes")
    a.under_duration(60, span_type="tool").under_duration(60, span_type="agent")
    with fails("expected every workflow span to take at most 0 seconds"):
        a.under_duration(0)
    with pytest.raises(ValueError, match="unknown units"):
        a.under_duration(1, units="fortnights")
    with fails("no span of type 'agentic.turn'"):
        a.under_duration(1, span_type="agentic.turn")


def test_has_attribute_narrows(a: ta.TraceAsserter) -> None:
    tools = a.has_attribute("gen_ai.operation.name", "execute_tool")
    assert len(tools.spans) == 3
    tools.has_attribute("gen_ai.tool.name", "explode")
    with fails("no span has attribute 'gen_ai.tool.name' = 'nope'"):
        tools.has_attribute("gen_ai.tool.name", "nope")
    with fails("values of 'gen_ai.tool.name' in the selection: 'ask_helper', 'explode', 'get_weather'"):
        tools.has_attribute("gen_ai.tool.name", "nope")


def test_does_not_have_attribute(a: ta.TraceAsserter) -> None:
    a.does_not_have_attribute("secret").does_not_have_attribute("gen_ai.tool.name", "nope")
    with fails("expected no span with attribute 'gen_ai.tool.name', found 3"):
        a.does_not_have_attribute("gen_ai.tool.name")


def test_has_event(a: ta.TraceAsserter) -> None:
    failed = a.has_event("exception")
    assert [s.name for s in failed.spans] == ["execute_tool explode"]
    a.has_event("exception", "exception.type", "pydantic_ai.exceptions.ToolRetryError")
    with fails("no span has event 'nope'"):
        a.has_event("nope")


def test_where_and_does_not_match(a: ta.TraceAsserter) -> None:
    chats = a.where(attribute={"gen_ai.operation.name": "chat", "gen_ai.request.model": None})
    assert len(chats.spans) == 5
    a.where(event={"name": "exception", "attributes": {"exception.type": None}})
    a.where(predicate=lambda s: s.name.startswith("invoke_agent"))
    a.does_not_match(attribute={"gen_ai.tool.name": "nope"})
    with fails("no span matches"):
        a.where(attribute={"gen_ai.operation.name": "embeddings"})
    with fails("expected no matching span, found 1"):
        a.does_not_match(event="exception")
    with pytest.raises(ValueError, match="at least one"):
        a.where()
    with pytest.raises(ValueError, match="at least one"):
        a.does_not_match()


def test_where_by_event_finds_what_a_scan_finds() -> None:
    """``where(event=...)`` reads the trace's event index: the same spans as checking each span."""
    b = SpanBuilder()
    kinds = ["inference", "tool", None]
    event_sets: list[tuple[ta.SpanEvent, ...]] = [
        (),
        (ta.SpanEvent("metadata", 1, {"tokens": 3}),),
        (ta.SpanEvent("metadata", 1), ta.SpanEvent("metadata", 2, {"tokens": 5})),
        (ta.SpanEvent("exception", 1, {"exception.type": "E"}), ta.SpanEvent("metadata", 2)),
        (ta.SpanEvent("exception", 1),),
    ]
    for i in range(40):
        kind = kinds[i % 3]
        b.span(f"s{i}", {"span.type": kind} if kind else {"other": i}, events=event_sets[i % 5])
    trace = b.trace()
    a = ta.TraceAsserter(trace)

    def scan(spans: Any, kind: Any, name: str, attrs: dict[str, Any] | None) -> list[str]:
        return [
            s.name
            for s in spans
            if (kind is None or s.attributes.get("span.type", object()) == kind)
            and any(
                e.name == name and all(e.attributes.get(k) == v for k, v in (attrs or {}).items())
                for e in s.events
            )
        ]

    for kind in ["inference", "tool", None]:
        for name in ["metadata", "exception"]:
            for attrs in [None, {"tokens": 5}]:
                expected = scan(trace.spans, kind, name, attrs)
                attribute = {"span.type": kind} if kind else None
                event: Any = {"name": name, "attributes": attrs} if attrs else {"name": name}
                if not expected:
                    with fails("no span matches"):
                        a.where(attribute=attribute, event=event)
                    continue
                found = a.where(attribute=attribute, event=event)
                assert [s.name for s in found.spans] == expected, (kind, name, attrs)
    again = ta.TraceAsserter(trace).where(attribute={"span.type": "inference"}, event="metadata")
    assert [s.name for s in again.spans] == scan(trace.spans, "inference", "metadata", None)  # cached
    narrowed = a.where(attribute={"span.type": "tool"})
    assert [s.name for s in narrowed.where(event="metadata").spans] == scan(
        trace.spans, "tool", "metadata", None
    )
    assert [s.name for s in narrowed.has_event("metadata", "tokens", 3).spans] == scan(
        trace.spans, "tool", "metadata", {"tokens": 3}
    )
    assert [s.name for s in a.where(event="exception", predicate=lambda s: s.name < "s2").spans] == [
        n for n in scan(trace.spans, None, "exception", None) if n < "s2"
    ]
    with fails("no span matches"):
        a.where(attribute={"span.type": "inference"}, event="nope")
    with fails("no span has event 'nope'"):
        a.has_event("nope")


def test_input_checks(a: ta.TraceAsserter) -> None:
    tool = a.called_tool("ask_helper")
    tool.has_input({"question": "What should I wear?"}).has_any_input(
        {"x": 1}, {"question": "What should I wear?"}
    )
    tool.does_not_have_input({"question": "no"}).does_not_have_any_input({"a": 1}, {"b": 2})
    tool.contains_input("WEAR").contains_any_input("nope", "should")
    tool.does_not_contain_input("umbrella").does_not_contain_any_input("umbrella", "snow")
    with fails("expected an input equal to"):
        tool.has_input({"question": "no"})
    with fails("equal to one of"):
        tool.has_any_input({"a": 1}, {"b": 2})
    with fails("expected no input to be"):
        tool.does_not_have_input({"question": "What should I wear?"})
    with fails("expected no input to be"):
        tool.does_not_have_any_input({"a": 1}, {"question": "What should I wear?"})
    with fails("expected an input containing 'umbrella'"):
        tool.contains_input("umbrella")
    with fails("containing one of"):
        tool.contains_any_input("umbrella", "snow")
    with fails("expected no input to contain 'wear'"):
        tool.does_not_contain_input("wear")
    with fails("expected no input to contain 'wear'"):
        tool.does_not_contain_any_input("snow", "wear")


def test_output_checks(a: ta.TraceAsserter) -> None:
    tool = a.called_tool("ask_helper")
    tool.has_output("Wear a light jacket.").has_any_output("x", "Wear a light jacket.")
    tool.does_not_have_output("x").does_not_have_any_output("x", "y")
    tool.contains_output("light JACKET").contains_any_output("x", "jacket")
    tool.does_not_contain_output("coat").does_not_contain_any_output("coat", "scarf")
    with fails("expected an output equal to 'x'"):
        tool.has_output("x")
    with fails("equal to one of"):
        tool.has_any_output("x", "y")
    with fails("expected no output to be"):
        tool.does_not_have_output("Wear a light jacket.")
    with fails("expected no output to be"):
        tool.does_not_have_any_output("x", "Wear a light jacket.")
    with fails("expected an output containing 'coat'"):
        tool.contains_output("coat")
    with fails("containing one of"):
        tool.contains_any_output("coat", "scarf")
    with fails("expected no output to contain 'jacket'"):
        tool.does_not_contain_output("jacket")
    with fails("expected no output to contain 'jacket'"):
        tool.does_not_contain_any_output("coat", "jacket")


def test_span_level_inputs_and_outputs(a: ta.TraceAsserter) -> None:
    chats = a.where(attribute={"gen_ai.operation.name": "chat"})
    chats.contains_output("light jacket")
    b = SpanBuilder()
    b.span("plain", {"k": 1})
    with fails("no output is recorded in the selection, so nothing can match"):
        ta.TraceAsserter(b.trace()).contains_output("x")
    ta.TraceAsserter(b.trace()).does_not_contain_output("x")


def test_message_is_prepended(a: ta.TraceAsserter) -> None:
    with pytest.raises(ta.TraceAssertionError) as info:
        a.called_tool("nope", message="the agent must look things up")
    text = str(info.value)
    assert text.startswith("the agent must look things up\ncalled_tool('nope')")
    assert "invocation tree:" in text
    assert "tool get_weather(city='Paris') -> 'Sunny, 21C in Paris' ok" in text
    assert "tool explode() FAILED" in text


def test_selectors_return_new_asserters(a: ta.TraceAsserter) -> None:
    narrowed = a.called_agent("helper")
    assert narrowed is not a
    assert len(a.spans) == 10
    assert len(narrowed.spans) == 2


def test_soft_collects_every_failure(a: ta.TraceAsserter) -> None:
    with pytest.raises(ta.TraceAssertionError) as info, ta.soft():
        a.called_tool("one")
        a.called_agent("two")
        a.called_tool("get_weather")
    text = str(info.value)
    assert text.startswith("2 checks failed:")
    assert "tool 'one'" in text and "agent 'two'" in text
    assert text.count("invocation tree:") == 1


def test_works_on_plain_span_lists(trace: ta.Trace) -> None:
    ta.assert_trace(list(trace.spans)).called_tool("get_weather")


# -- inputs as the producer recorded them (Monocle parity) -----------------------------------------

MONOCLE_LANGGRAPH = Path(__file__).resolve().parents[1] / "data" / "monocle_langgraph.json"


def test_tool_input_matches_the_recorded_python_repr_and_by_json_equality() -> None:
    """Monocle records a LangGraph tool's input as the Python repr of its arguments."""
    a = ta.TraceAsserter(ta.load_trace(MONOCLE_LANGGRAPH))
    weather = a.called_tool("get_weather")
    assert weather.selected_tools()[0].raw_arguments == "{'city': 'Paris'}"
    weather.has_input("{'city': 'Paris'}")  # the raw text, as Monocle compares it
    weather.has_input({"city": "Paris"})  # the parsed arguments
    weather.has_input('{"city": "Paris"}').has_input('{"city":"Paris"}')  # JSON text, any spacing
    weather.contains_input("'city': 'Paris'").contains_input('"city": "Paris"')
    weather.does_not_have_input("{'city': 'London'}").does_not_have_input('{"city": "Paris", "x": 1}')
    with pytest.raises(
        ta.TraceAssertionError, match=re.escape("expected an input equal to \"{'city': 'London'}\"")
    ):
        weather.has_input("{'city': 'London'}")
    with pytest.raises(ta.TraceAssertionError, match="expected no input to be"):
        weather.does_not_have_input("{'city': 'Paris'}")
    # span-level inputs: the tool span's recorded text, matched by the structure it holds
    span = a.has_attribute("entity.1.name", "get_weather")
    span.has_input("{'city': 'Paris'}").has_input({"city": "Paris"}).has_input('{"city":"Paris"}')
    with pytest.raises(ta.TraceAssertionError, match="found none"):
        span.has_input({"city": "Paris", "units": "C"})
    a.called_tool("explode").has_input({}).has_input("{}")
