"""The OpenInference AutoGen AgentChat instrumentation's own shapes, on hand-built spans: an agent's turn
named only in ``<agent>.on_messages_stream``, and a swarm handoff recorded as the TOOL span
``<agent>.transfer_to_<target>``, which is a `Handoff`, never a tool execution."""

from __future__ import annotations

import json

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._dialects import _span_names, openinference

_ASKS = "llm.output_messages.0.message.tool_calls.0.tool_call."


def _turn(b: SpanBuilder, agent: str, parent: ta.Span) -> ta.Span:
    attrs = {"openinference.span.kind": "AGENT", "graph.node.id": agent, "input.value": "{}"}
    return b.span(f"{agent}.on_messages_stream", attrs, parent=parent)


def _swarm(*, helper_runs: bool = True) -> ta.Trace:
    b = SpanBuilder()
    swarm = b.span("Swarm.run_stream", {"openinference.span.kind": "CHAIN", "input.value": "{}"})
    first = _turn(b, "orchestrator", swarm)
    b.span(
        "OpenAIChatCompletionClient.create",
        {
            "openinference.span.kind": "LLM",
            "llm.model_name": "m",
            f"{_ASKS}id": "call_1",
            f"{_ASKS}function.name": "transfer_to_helper",
            f"{_ASKS}function.arguments": json.dumps({}),
        },
        parent=first,
    )
    b.span(
        "orchestrator.transfer_to_helper",
        {
            "openinference.span.kind": "TOOL",
            "tool.name": "transfer_to_helper",
            "output.value": "Transferred to helper, adopting the role of helper immediately.",
        },
        parent=first,
    )
    if helper_runs:
        _turn(b, "helper", swarm)
    return ta.Trace(b.spans)


def test_agent_name_from_the_turn_span() -> None:
    b = SpanBuilder()
    span = b.span("helper.on_messages_stream", {"openinference.span.kind": "AGENT"})
    op = openinference.classify(span)
    assert op is not None and (op.kind, op.name) == ("agent", "helper")
    assert _span_names.autogen_agent_name(b.span("x.run", {})) is None
    assert _span_names.autogen_agent_name(b.span(".on_messages_stream", {})) is None


def test_the_transfer_tool_span_is_a_handoff_to_the_next_turn() -> None:
    trace = _swarm()
    orchestrator, helper = trace.agents
    (handoff,) = trace.handoffs
    assert (handoff.from_agent, handoff.to_agent) == ("orchestrator", "helper")
    assert handoff.to_invocation is helper and helper.via_handoff is handoff
    assert handoff.from_invocation is orchestrator
    assert trace.tool_executions == ()
    assert trace.unexecuted_tool_requests == ()
    assert "handoff orchestrator -> helper" in trace.render()


def test_a_transfer_nobody_took_up_stays_a_tool_execution() -> None:
    trace = _swarm(helper_runs=False)
    assert trace.handoffs == ()
    assert [t.name for t in trace.tool_executions] == ["transfer_to_helper"]
