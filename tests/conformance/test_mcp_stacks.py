"""MCP: the Anthropic tool loop with its tools on an in-process MCP server (``mcp`` 2.x, which traces its
server side itself), with ``openinference-instrumentation-mcp``; live (needs ``mcp``, ``anthropic`` and
the instrumentations) and recorded (``tests/data/mcp_openinference.json``, needs nothing). Record again
with ``python -m tests._stackfacts mcp_openinference``.

The requirement: the tool execution the agent sees (the loop's TOOL span) and the server's handler span
(``tools/call <tool>``, a SERVER span started from the propagated context) are one execution, and what
the handler does (the ``helper`` agent) nests under it.
"""

from __future__ import annotations

from types import ModuleType

import pytest

import traceassert as ta
from instrumentation import ScenarioFacts
from tests._stackcases import live_and_recorded, live_async_trace, recorded_spans_trace
from tests._stackfacts import (
    check_facts,
    check_spans_follow_the_global_provider,
    check_with_asserter,
    stack_module,
)

STACK = "instrumentation.mcp_openinference"


case = live_and_recorded(STACK, "mcp_openinference")


def _server_spans(trace: ta.Trace) -> list[ta.Span]:
    """The server's ``tools/call`` spans (the client's ``MCP send tools/call`` spans carry the method too)."""
    return [
        s for s in trace.spans if s.attributes.get("mcp.method.name") == "tools/call" and s.kind == "SERVER"
    ]


def test_six_facts(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, facts = case
    check_facts(trace, facts, operation="chat")
    check_with_asserter(trace, facts)


def test_the_agents_tool_span_and_the_servers_are_one_execution(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, facts = case
    server = _server_spans(trace)
    tools = trace.tool_executions
    # a SERVER span per tool call, the child (through the context the request carried in ``_meta``) of
    # the client's ``MCP send`` span, itself the child of the loop's TOOL span of the same call ...
    assert [s.kind for s in server] == ["SERVER"] * len(facts.tools_in_order)
    assert [s.attributes["gen_ai.tool.name"] for s in server] == list(facts.tools_in_order)
    by_id = {s.span_id: s for s in trace.spans}
    sends = [by_id[s.parent_id] for s in server if s.parent_id is not None]
    assert [(s.kind, s.name) for s in sends] == [
        ("CLIENT", f"MCP send tools/call {n}") for n in facts.tools_in_order
    ]
    assert [s.parent_id for s in sends] == [t.span.span_id for t in tools if t.span is not None]
    # ... both read as tool executions, and merged: as many executions as calls, with the loop's details
    assert {trace.operation(s).kind for s in server} == {"tool"}  # type: ignore[union-attr]
    assert len(tools) == len(facts.tools_in_order)
    assert [t.call_id for t in tools] == ["toolu_0_get_weather", "toolu_1_explode", "toolu_2_ask_helper"]
    assert [t.dialect for t in tools] == ["openinference"] * 3


def test_the_servers_work_nests_under_the_execution(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, _ = case
    (helper,) = (a for a in trace.all_agents() if a.name == "helper")
    ask_helper = next(t for t in trace.tool_executions if t.name == "ask_helper")
    assert helper.via_tool is ask_helper
    assert helper.parent is not None and helper.parent.name == "orchestrator"
    # the helper agent's span is the child of the server's span, not of the loop's tool span
    (server,) = (s for s in _server_spans(trace) if s.attributes["gen_ai.tool.name"] == "ask_helper")
    assert helper.span is not None and helper.span.parent_id == server.span_id
    assert trace.render().count("tool ask_helper(") == 1


def test_mcp_protocol_spans_are_known(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    """``initialize``, ``tools/list``, the client's ``MCP send`` spans: read, as neither agents, tools nor
    model calls."""
    trace, _ = case
    assert trace.unclassified == ()
    protocol = [s for s in trace.spans if "mcp.method.name" in s.attributes]
    assert {trace.operation(s).kind for s in protocol} == {"other", "tool"}  # type: ignore[union-attr]


def test_the_failed_call(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    """The server's span says only ``tool_error``; the loop's span has the message mcp sent back."""
    trace, _ = case
    (explode,) = (t for t in trace.tool_executions if t.failed)
    assert explode.error is not None and explode.error.message is not None
    assert explode.error.message.endswith("explode failed: the detonator is broken")
    (server,) = (s for s in _server_spans(trace) if s.attributes["gen_ai.tool.name"] == "explode")
    assert (server.status.code, server.attributes["error.type"]) == ("ERROR", "tool_error")


# -- live only ---------------------------------------------------------------------------------------


@pytest.fixture
def stack() -> ModuleType:
    return stack_module(STACK)


def test_async(stack: ModuleType) -> None:
    check_facts(live_async_trace(stack), stack.EXPECTED)


def test_the_server_spans_alone(stack: ModuleType) -> None:
    """Without the loop's spans the server's are the executions (arguments from the model's requests);
    nothing links the server's work to a caller: ``helper`` is a top-level agent."""
    trace = recorded_spans_trace(stack, agent_spans=False)
    facts = stack.EXPECTED
    assert [t.name for t in trace.tool_executions] == list(facts.tools_in_order)
    assert [t.arguments for t in trace.tool_executions] == [dict(a) for a in facts.tool_arguments]
    assert [t.name for t in trace.tool_executions if t.failed] == list(facts.failed_tools)
    assert {t.dialect for t in trace.tool_executions} == {"genai"}
    assert [a.name for a in trace.agents if not a.implicit] == ["helper"]


def test_spans_follow_the_global_provider(stack: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    check_spans_follow_the_global_provider(stack, monkeypatch)


def test_uninstrument_gives_mcp_its_tracer_back(stack: ModuleType) -> None:
    from mcp.shared import _otel

    before = _otel._tracer
    stack.instrument()
    assert _otel._tracer is not before
    stack.uninstrument()
    assert _otel._tracer is before
