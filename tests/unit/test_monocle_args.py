"""Tool arguments recorded without their names by older monocle-apptrace releases (edge cases; the real
files are checked in tests/conformance/test_layered_recordings.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder


def _attrs(span_type: str, *entities: tuple[str, str]) -> dict[str, Any]:
    attrs: dict[str, Any] = {"monocle_apptrace.version": "0.5.3", "span.type": span_type}
    for i, (name, etype) in enumerate(entities, start=1):
        attrs[f"entity.{i}.name"] = name
        attrs[f"entity.{i}.type"] = etype
    return attrs


def _trace(
    calls: list[dict[str, Any]], inputs: list[tuple[str, Any]], *, tool_type: str = "tool.langgraph"
) -> ta.Trace:
    """An agent whose model asks for ``calls`` (Monocle's ``{"assistant": [...]}`` form) and then runs the
    tools ``(name, recorded data.input)`` in that order."""
    b = SpanBuilder()
    agent = b.span(
        "graph.invoke", _attrs("agentic.invocation", ("a", "agent.langgraph")), duration_ns=10_000_000
    )
    if calls:
        response = {"assistant": [{"tool_id": f"c{i}", **call} for i, call in enumerate(calls)]}
        b.span(
            "chat.invoke",
            _attrs("inference.framework", ("m", "model.llm.m")),
            parent=agent,
            events=(ta.SpanEvent("data.output", None, {"response": json.dumps(response)}),),
        )
    for name, recorded in inputs:
        b.span(
            "BaseTool.run",
            _attrs("agentic.tool.invocation", (name, tool_type)),
            parent=agent,
            events=(ta.SpanEvent("data.input", None, {"input": recorded}),),
        )
    return b.trace()


def _call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_name": name, "tool_arguments": json.dumps(args)}


def test_values_take_the_names_of_the_request_they_match_by_value() -> None:
    """Two parallel calls of one tool, run in the other order: each gets its own request's names."""
    trace = _trace(
        [
            _call("route", origin="Paris", destination="Rome"),
            _call("route", origin="Oslo", destination="Bergen"),
        ],
        [("route", ("Bergen", "Oslo")), ("route", ("Paris", "Rome"))],
    )
    assert [t.arguments for t in trace.tool_executions] == [
        {"origin": "Oslo", "destination": "Bergen"},
        {"origin": "Paris", "destination": "Rome"},
    ]
    assert [t.call_id for t in trace.tool_executions] == ["c1", "c0"]


def test_numbers_match_their_text() -> None:
    trace = _trace([_call("book", city="Paris", nights=2)], [("book", ("Paris", "2"))])
    (tool,) = trace.tool_executions
    assert tool.arguments == {"city": "Paris", "nights": 2}


def test_values_no_request_matches_are_not_named_by_position() -> None:
    trace = _trace([_call("route", origin="Paris", destination="Rome")], [("route", ("Lyon", "Nice"))])
    (tool,) = trace.tool_executions
    assert tool.arguments == {"input": ["Lyon", "Nice"]}


def test_one_value_without_a_request_is_the_bare_value() -> None:
    trace = _trace([], [("get_weather", ("Paris",))])
    (tool,) = trace.tool_executions
    assert tool.arguments == {"input": "Paris"}


def test_crewai_name_value_strings() -> None:
    trace = _trace([], [("book", ("city: Paris", "nights: 2"))], tool_type="tool.crewai")
    (tool,) = trace.tool_executions
    assert tool.arguments == {"city": "Paris", "nights": "2"}
    # CrewAI recorded the text of the value; the checks match "2" to 2
    ta.TraceAsserter(trace).called_agent("a").has_tool_executed_with("book", {"city": "Paris", "nights": 2})


def test_crewai_input_repr_drops_crewais_own_entry() -> None:
    recorded = (
        "input: {'city': 'Paris', 'nights': 2, 'security_context': {'agent_fingerprint': {'uuid_str': 'x'}}}"
    )
    trace = _trace([], [("book", (recorded,))], tool_type="tool.crewai")
    (tool,) = trace.tool_executions
    assert tool.arguments == {"city": "Paris", "nights": 2}


def test_a_text_argument_that_looks_like_name_value_is_left_alone_outside_crewai() -> None:
    trace = _trace([_call("note", text="todo: buy milk")], [("note", ("todo: buy milk",))])
    (tool,) = trace.tool_executions
    assert tool.arguments == {"text": "todo: buy milk"}


def test_naming_work_is_linear_in_the_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    """One agent, 400 requests of one tool and 400 executions whose values match none: every execution
    is looked up in an index, never compared with every pending request (counting work, not time)."""
    from traceassert._dialects import _monocle_args

    n = 400
    calls = [0]
    key = _monocle_args._key

    def counting_key(value: Any) -> str:
        calls[0] += 1
        return key(value)

    monkeypatch.setattr(_monocle_args, "_key", counting_key)
    trace = _trace(
        [_call("lookup", q=f"v{i}", r="y") for i in range(n)], [("lookup", (f"w{i}", "x")) for i in range(n)]
    )
    assert len(trace.tool_executions) == n
    assert trace.tool_executions[0].arguments == {"input": ["w0", "x"]}
    assert calls[0] <= 6 * n
