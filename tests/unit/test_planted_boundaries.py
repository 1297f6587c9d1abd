"""Boundary rules of reconstruction: touching instants, equal start times, the nearest candidate."""

from __future__ import annotations

import json

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._report import trace_view

START = 1_000_000_000
ARGS = json.dumps({"q": "weather"})


def _oi_agent(b: SpanBuilder) -> ta.Span:
    return b.span(
        "planner",
        {"openinference.span.kind": "AGENT", "agent.name": "planner"},
        start_ns=START,
        duration_ns=100_000,
    )


def _oi_tool(b: SpanBuilder, parent: ta.Span, start: int, *, result: str | None = None) -> ta.Span:
    attrs = {"openinference.span.kind": "TOOL", "tool.name": "search", "input.value": ARGS}
    if result is not None:
        attrs["output.value"] = result
    return b.span("search", attrs, parent=parent, start_ns=start, duration_ns=1_000)


def _genai_agent(b: SpanBuilder) -> ta.Span:
    return b.span(
        "invoke_agent planner",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner"},
        start_ns=START + 1,
        duration_ns=99_000,
    )


def test_layers_tool_starting_the_instant_the_other_layers_ends_is_one_step() -> None:
    # two layers' records of one step that touch at one instant still overlap: one record
    a = SpanBuilder("a" * 32)
    oi = _oi_tool(a, _oi_agent(a), START + 2_000)
    b = SpanBuilder("b" * 32)
    assert oi.end_ns is not None
    b.tool("search", _genai_agent(b), args=ARGS, result="sunny", start_ns=oi.end_ns, duration_ns=900)
    trace = ta.Trace([*a.spans, *b.spans])
    (tool,) = trace.tool_executions
    assert tool.result == "sunny" and tool.arguments == {"q": "weather"}
    ta.TraceAsserter(trace).called_tool("search", count=1)


def test_layers_tool_pairs_with_the_nearest_candidate_of_the_other_layer() -> None:
    # the GenAI layer records the tool twice (parallel calls); the other layer's record belongs to
    # the call that started nearest to it, and the farther one stays a record of its own
    b = SpanBuilder("b" * 32)
    agent = _genai_agent(b)
    far = b.tool("search", agent, args=ARGS, start_ns=START + 1_000, duration_ns=10_000)
    near = b.tool("search", agent, args=ARGS, start_ns=START + 4_000, duration_ns=2_000)
    a = SpanBuilder("a" * 32)
    _oi_tool(a, _oi_agent(a), START + 4_001, result="sunny")
    trace = ta.Trace([*a.spans, *b.spans])
    tools = sorted(trace.tool_executions, key=lambda t: t.start_ns)
    assert [t.start_ns for t in tools] == [far.start_ns, near.start_ns]
    assert [t.result for t in tools] == [None, "sunny"]


def _asks(name: str, arguments: object) -> str:
    parts = [{"type": "tool_call", "name": name, "arguments": arguments}]
    return json.dumps([{"role": "assistant", "parts": parts}])


def test_execution_starting_with_the_model_call_that_asked_for_it_is_matched() -> None:
    # no call id: the request is matched by name and arguments to an execution starting no earlier
    # than the model call, and "no earlier" includes the same instant
    b = SpanBuilder()
    agent = b.agent("assistant")
    chat = b.chat(agent, **{"gen_ai.output.messages": _asks("lookup", {"city": "Rome"})})
    b.tool("lookup", agent, args='{"city": "Rome"}', start_ns=chat.start_ns)
    trace = b.trace()
    (call,) = trace.model_calls
    (request,) = call.requested_tools
    (execution,) = trace.tool_executions
    assert request.execution is execution and execution.request is request and request.executed


def test_nested_agent_starting_with_the_model_call_that_asked_for_it_is_linked() -> None:
    # an agent run as a tool with no tool span of its own: the request names the nested agent, which
    # started at the very instant of the model call
    b = SpanBuilder()
    boss = b.agent("boss")
    chat = b.chat(boss, **{"gen_ai.output.messages": _asks("researcher", {"topic": "tides"})})
    b.span(
        "invoke_agent researcher",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "researcher"},
        parent=boss,
        start_ns=chat.start_ns,
        duration_ns=2_000_000,
    )
    trace = b.trace()
    (call,) = (c for c in trace.model_calls if c.agent is not None and c.agent.name == "boss")
    (request,) = call.requested_tools
    researcher = next(inv for inv in trace.all_agents() if inv.name == "researcher")
    assert request.agent is researcher and request.executed


def test_two_layers_handoff_records_touching_at_one_instant_are_one_handoff() -> None:
    # OpenInference and OpenLLMetry on one Agents SDK app; one layer's handoff span starts the
    # instant the other's ends: still the same handoff
    b = SpanBuilder()
    oi_root = b.span("Agent workflow", {"openinference.span.kind": "CHAIN"}, duration_ns=50_000_000)
    tl_root = b.span("Agent Workflow", {"traceloop.span.kind": "workflow"}, duration_ns=50_000_000)
    start = b.clock + 1_000
    oi = b.span(
        "concierge",
        {"openinference.span.kind": "AGENT", "agent.name": "concierge"},
        parent=oi_root,
        start_ns=start,
        duration_ns=5_000_000,
    )
    tl = b.span(
        "concierge.agent",
        {"traceloop.span.kind": "agent", "gen_ai.agent.name": "concierge"},
        parent=tl_root,
        start_ns=start + 10,
        duration_ns=5_000_000,
    )
    oi_handoff = b.span(
        "handoff to bookings",
        {"openinference.span.kind": "TOOL", "input.value": "concierge", "output.value": "bookings"},
        parent=oi,
        start_ns=start + 100,
        duration_ns=1_000,
    )
    assert oi_handoff.end_ns is not None
    b.span(
        "concierge → bookings.handoff",
        {
            "traceloop.span.kind": "handoff",
            "gen_ai.handoff.from_agent": "concierge",
            "gen_ai.handoff.to_agent": "bookings",
        },
        parent=tl,
        start_ns=oi_handoff.end_ns,
        duration_ns=1_000,
    )
    trace = b.trace()
    (concierge,) = trace.agents
    (handoff,) = trace.handoffs
    assert (handoff.from_agent, handoff.to_agent) == ("concierge", "bookings")
    assert list(concierge.handoffs) == [handoff]


def test_waterfall_row_of_a_span_shared_by_a_failed_record_and_an_ok_one_shows_failed() -> None:
    # a tool span at the root is both the ok tool and the span of the work outside any agent, which
    # failed (its model call failed): the row shows the failure whichever record is judged last
    b = SpanBuilder()
    root = b.tool("lookup", None, args='{"q": 1}', duration_ns=10_000_000)
    b.span(
        "chat m",
        {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"},
        parent=root,
        status="ERROR",
        description="boom",
    )
    trace = b.trace()
    (tool,) = trace.tool_executions
    (run,) = trace.all_agents()
    assert tool.span is root and run.span is root
    assert not tool.failed and run.failed
    view = trace_view(trace)
    failed = view["fields"].index("failed")
    rows = {row[0]: row for row in view["spans"]}
    assert rows[root.span_id][failed] is True
