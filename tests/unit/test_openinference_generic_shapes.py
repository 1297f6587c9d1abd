"""The generic OpenInference mechanisms that frameworks with no module of their own rely on (the real
captures are tests/conformance/test_generic_path.py): a tool named only by a ``<name>.__call__`` span, tool
arguments inside an envelope the tool's schema does not fit, and nameless AGENT / TOOL spans inside a
named span of their kind (steps, never a second agent or execution)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder

KIND = "openinference.span.kind"
SCHEMA = json.dumps({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})


def _oi(b: SpanBuilder, name: str, kind: str, parent: ta.Span | None = None, **attrs: Any) -> ta.Span:
    status = attrs.pop("status", "UNSET")
    return b.span(name, {KIND: kind, **attrs}, parent=parent, status=status)


def _tool(trace: ta.Trace) -> ta.ToolExecution:
    (tool,) = trace.tool_executions
    return tool


def test_a_call_span_names_its_tool() -> None:
    b = SpanBuilder()
    root = _oi(b, "ReAct.forward", "CHAIN")
    _oi(b, "get_weather.__call__", "TOOL", root, **{"input.value": '{"kwargs": {"city": "Paris"}}'})
    tool = _tool(ta.Trace(b.spans))
    assert (tool.name, tool.arguments) == ("get_weather", {"city": "Paris"})


@pytest.mark.parametrize("name", ["__call__", ".__call__", "get_weather.run"])
def test_other_span_names_stay_as_they_are(name: str) -> None:
    b = SpanBuilder()
    _oi(b, name, "TOOL", _oi(b, "chain", "CHAIN"), **{"input.value": "{}"})
    assert _tool(ta.Trace(b.spans)).name == name


def test_tool_name_wins_over_the_span_name() -> None:
    b = SpanBuilder()
    _oi(b, "x.__call__", "TOOL", _oi(b, "chain", "CHAIN"), **{"tool.name": "lookup", "input.value": "{}"})
    assert _tool(ta.Trace(b.spans)).name == "lookup"


@pytest.mark.parametrize("schema_key", ["tool.json_schema", "tool.parameters"])
def test_arguments_out_of_an_envelope_the_schema_does_not_fit(schema_key: str) -> None:
    b = SpanBuilder()
    value = json.dumps({"input": {"city": "Paris"}, "options": None})
    _oi(
        b,
        "get_weather",
        "TOOL",
        _oi(b, "chain", "CHAIN"),
        **{"tool.name": "get_weather", "input.value": value, schema_key: SCHEMA},
    )
    assert _tool(ta.Trace(b.spans)).arguments == {"city": "Paris"}


def test_a_function_schema_and_no_parameters() -> None:
    b = SpanBuilder()
    schema = json.dumps(
        {"type": "function", "function": {"name": "explode", "parameters": {"properties": {}}}}
    )
    value = json.dumps({"input": {}, "options": None})
    _oi(
        b,
        "explode",
        "TOOL",
        _oi(b, "chain", "CHAIN"),
        **{"tool.name": "explode", "input.value": value, "tool.json_schema": schema},
    )
    assert _tool(ta.Trace(b.spans)).arguments == {}


@pytest.mark.parametrize(
    "value",
    [
        {"city": "Paris"},  # fits the schema: as it is
        {"input": {"city": "Paris"}, "options": {"retries": 2}},  # the rest carries data: kept whole
        {"a": {"city": "Paris"}, "b": {"city": "Rome"}},  # two candidates: kept whole
        {"input": {"town": "Paris"}},  # nothing fits: kept whole
    ],
)
def test_arguments_that_the_schema_fits_or_that_are_ambiguous_stay_whole(value: dict[str, Any]) -> None:
    b = SpanBuilder()
    _oi(
        b,
        "get_weather",
        "TOOL",
        _oi(b, "chain", "CHAIN"),
        **{"tool.name": "get_weather", "input.value": json.dumps(value), "tool.json_schema": SCHEMA},
    )
    assert _tool(ta.Trace(b.spans)).arguments == value


def test_without_a_schema_the_arguments_stay_whole() -> None:
    b = SpanBuilder()
    value = {"input": {"city": "Paris"}, "options": None}
    _oi(
        b,
        "get_weather",
        "TOOL",
        _oi(b, "chain", "CHAIN"),
        **{"tool.name": "get_weather", "input.value": json.dumps(value)},
    )
    assert _tool(ta.Trace(b.spans)).arguments == value


def test_a_nameless_agent_span_in_a_named_agent_is_a_step() -> None:
    b = SpanBuilder()
    agent = _oi(b, "orchestrator", "AGENT", **{"agent.name": "orchestrator"})
    _oi(b, "final_answer", "AGENT", agent)
    trace = ta.Trace(b.spans)
    assert [a.name for a in trace.all_agents()] == ["orchestrator"]


def test_a_named_agent_in_a_named_agent_is_nested() -> None:
    b = SpanBuilder()
    agent = _oi(b, "orchestrator", "AGENT", **{"agent.name": "orchestrator"})
    _oi(b, "helper", "AGENT", agent, **{"agent.name": "helper"})
    (top,) = ta.Trace(b.spans).agents
    assert [a.name for a in top.nested] == ["helper"]


def test_a_nameless_agent_under_a_chain_is_still_an_agent() -> None:
    """The rule needs a named parent of the same kind: elsewhere an AGENT span is read as before."""
    b = SpanBuilder()
    _oi(b, "runner", "AGENT", _oi(b, "chain", "CHAIN"))
    assert [a.name for a in ta.Trace(b.spans).all_agents() if not a.implicit] == ["runner"]


def test_a_nameless_tool_span_in_a_named_tool_is_not_a_second_execution() -> None:
    b = SpanBuilder()
    agent = _oi(b, "orchestrator", "AGENT", **{"agent.name": "orchestrator"})
    tool = _oi(
        b, "explode", "TOOL", agent, **{"tool.name": "explode", "input.value": "{}", "status": "ERROR"}
    )
    _oi(b, "error", "TOOL", tool, **{"input.value": '{"error": "Tool Error"}', "status": "ERROR"})
    trace = ta.Trace(b.spans)
    assert [(t.name, t.failed) for t in trace.tool_executions] == [("explode", True)]
    assert trace.summary()["totals"]["failed_tool_executions"] == 1


def test_a_named_tool_in_a_named_tool_is_its_own_execution() -> None:
    b = SpanBuilder()
    outer = _oi(b, "plan", "TOOL", _oi(b, "chain", "CHAIN"), **{"tool.name": "plan", "input.value": "{}"})
    _oi(b, "lookup", "TOOL", outer, **{"tool.name": "lookup", "input.value": "{}"})
    assert [t.name for t in ta.Trace(b.spans).tool_executions] == ["plan", "lookup"]


@pytest.mark.parametrize(
    ("written", "role"),
    [("ChatRole.USER", "user"), ("ChatRole.TOOL", "tool"), ("user", "user"), ("Role.user", "Role.user")],
)
def test_a_role_written_as_an_enum_member_is_its_name(written: str, role: str) -> None:
    """Haystack's instrumentation writes ``str(ChatRole.TOOL)``: the role is ``tool``."""
    from traceassert._dialects.openinference import flattened_messages

    attrs = {"llm.input_messages.0.message.role": written, "llm.input_messages.0.message.content": "hi"}
    assert flattened_messages(attrs, "llm.input_messages.")[0]["role"] == role
