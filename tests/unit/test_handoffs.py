"""Handoffs as records, on hand-built spans: the shapes of producers that run in their own environments
(Google ADK, Strands: shaped like ``tests/data/adk_schema*.json`` / ``strands_*.json`` and what those
frameworks record for their handoff tools), and edge cases the live runs in tests/conformance lack."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder

ADK = "gcp.vertex.agent"
STRANDS = "strands.telemetry.tracer"


def _scoped(b: SpanBuilder, scope: str, name: str, attrs: dict[str, Any], **kw: Any) -> ta.Span:
    span = dataclasses.replace(b.span(name, attrs, **kw), scope_name=scope)
    b.spans[-1] = span
    return span


def _agent(b: SpanBuilder, name: str, parent: ta.Span | None = None, **kw: Any) -> ta.Span:
    attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
    return b.span(f"invoke_agent {name}", attrs, parent=parent, duration_ns=10_000_000, **kw)


def _asks(*calls: tuple[str, dict[str, Any], str]) -> str:
    """``gen_ai.output.messages`` of a response asking for ``(name, arguments, call id)`` calls."""
    parts = [{"type": "tool_call", "name": n, "arguments": a, "id": i} for n, a, i in calls]
    return json.dumps([{"role": "assistant", "parts": parts}])


def _pairs(trace: ta.Trace) -> list[tuple[str | None, str | None]]:
    return [(h.from_agent, h.to_agent) for h in trace.handoffs]


# -- Google ADK: the built-in transfer_to_agent tool ----------------------------------------------------


def _adk_transfer(schema: int) -> ta.Trace:
    """``concierge`` transfers to ``bookings`` as google-adk 2.x records it: the new agent's span is a
    sibling under the runner's span."""
    b = SpanBuilder()
    if schema == 2:
        root = _scoped(
            b,
            ADK,
            "invoke_workflow concierge",
            {"gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "concierge"},
        )
    else:
        root = _scoped(b, ADK, "invocation", {})
    concierge = _scoped(
        b,
        ADK,
        "invoke_agent concierge",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "concierge"},
        parent=root,
    )
    asked = {"id": "call-1", "name": "transfer_to_agent", "args": {"agent_name": "bookings"}}
    if schema == 2:
        _scoped(
            b,
            ADK,
            "generate_content gemini-x",
            {
                "gen_ai.operation.name": "generate_content",
                "gen_ai.request.model": "gemini-x",
                "gen_ai.usage.input_tokens": 10,
                "gen_ai.usage.output_tokens": 2,
                "gen_ai.output.messages": _asks(("transfer_to_agent", {"agent_name": "bookings"}, "call-1")),
            },
            parent=concierge,
        )
        args = {
            "gen_ai.tool.call.arguments": '{"agent_name": "bookings"}',
            "gen_ai.tool.call.result": '{"result": null}',
        }
    else:
        response = {
            "content": {"role": "model", "parts": [{"function_call": asked}]},
            "finish_reason": "STOP",
            "usage_metadata": {"prompt_token_count": 10, "candidates_token_count": 2},
        }
        _scoped(
            b,
            ADK,
            "call_llm",
            {
                "gen_ai.system": ADK,
                "gen_ai.request.model": "gemini-x",
                "gcp.vertex.agent.llm_request": "{}",
                "gcp.vertex.agent.llm_response": json.dumps(response),
            },
            parent=concierge,
        )
        args = {
            "gcp.vertex.agent.tool_call_args": '{"agent_name": "bookings"}',
            "gcp.vertex.agent.tool_response": '{"result": null}',
            "gcp.vertex.agent.llm_request": "{}",
            "gcp.vertex.agent.llm_response": "{}",
        }
    _scoped(
        b,
        ADK,
        "execute_tool transfer_to_agent",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "transfer_to_agent",
            "gen_ai.tool.type": "TransferToAgentTool",
            "gen_ai.agent.name": "concierge",
            "gen_ai.tool.call.id": "call-1",
            **args,
        },
        parent=concierge,
    )
    bookings = _scoped(
        b,
        ADK,
        "invoke_agent bookings",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "bookings"},
        parent=root,
    )
    _scoped(
        b,
        ADK,
        "execute_tool book_table",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "book_table",
            "gen_ai.tool.type": "FunctionTool",
            "gen_ai.agent.name": "bookings",
            "gen_ai.tool.call.id": "call-2",
            "gen_ai.tool.call.arguments": '{"guests": 2}',
            "gen_ai.tool.call.result": '{"result": "ok"}',
        },
        parent=bookings,
    )
    return b.trace()


@pytest.mark.parametrize("schema", [2, 1])
def test_adk_transfer_to_agent_is_a_handoff(schema: int) -> None:
    trace = _adk_transfer(schema)
    concierge, bookings = trace.agents
    (handoff,) = trace.handoffs
    assert (handoff.from_agent, handoff.to_agent, handoff.call_id) == ("concierge", "bookings", "call-1")
    assert handoff.arguments == {"agent_name": "bookings"} and handoff.dialect == "adk"
    assert handoff.from_invocation is concierge and handoff.to_invocation is bookings
    assert concierge.handoffs == (handoff,) and bookings.via_handoff is handoff and concierge.nested == ()
    assert [t.name for t in trace.tool_executions] == ["book_table"]
    (request,) = concierge.model_calls[0].requested_tools
    assert request.handoff is handoff and handoff.request is request and request.execution is None
    assert trace.unexecuted_tool_requests == ()
    ta.TraceAsserter(trace).called_agent("concierge").has_no_failed_tool_executions().has_no_tool_executions()
    assert "└─ handoff concierge -> bookings" in trace.render()


# -- Strands swarm: handoff_to_agent ------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["events", "latest"])
def test_strands_handoff_to_agent_is_a_handoff(layout: str) -> None:
    """A swarm's agents are siblings under ``invoke_swarm``; the handoff tool names the next agent."""
    b = SpanBuilder()
    marker = (
        {"gen_ai.system": "strands-agents"}
        if layout == "events"
        else {"gen_ai.provider.name": "strands-agents"}
    )
    swarm = _scoped(b, STRANDS, "invoke_swarm", {"gen_ai.operation.name": "invoke_swarm", **marker})

    def agent(name: str) -> ta.Span:
        attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name, **marker}
        return _scoped(b, STRANDS, f"invoke_agent {name}", attrs, parent=swarm, duration_ns=10_000_000)

    researcher = agent("researcher")
    cycle = _scoped(
        b,
        STRANDS,
        "execute_event_loop_cycle",
        {"gen_ai.operation.name": "execute_event_loop_cycle", **marker},
        parent=researcher,
    )
    args = {"agent_name": "coder", "message": "Write the parser", "context": {}}
    attrs = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "handoff_to_agent",
        "gen_ai.tool.call.id": "tooluse_1",
        "gen_ai.tool.status": "success",
        **marker,
    }
    if layout == "events":
        events = (
            ta.SpanEvent(
                "gen_ai.tool.message", 0, {"role": "tool", "content": json.dumps(args), "id": "tooluse_1"}
            ),
            ta.SpanEvent(
                "gen_ai.choice", 0, {"message": '[{"text": "Handed off to coder"}]', "id": "tooluse_1"}
            ),
        )
        _scoped(b, STRANDS, "execute_tool handoff_to_agent", attrs, parent=cycle, events=events)
    else:
        attrs["gen_ai.tool.call.arguments"] = json.dumps(args)
        attrs["gen_ai.tool.call.result"] = '[{"text": "Handed off to coder"}]'
        _scoped(b, STRANDS, "execute_tool handoff_to_agent", attrs, parent=cycle)
    coder = agent("coder")
    trace = b.trace()
    (handoff,) = trace.handoffs
    assert (handoff.from_agent, handoff.to_agent, handoff.call_id) == ("researcher", "coder", "tooluse_1")
    assert handoff.arguments["message"] == "Write the parser"
    assert handoff.to_invocation is not None and handoff.to_invocation.span is coder
    assert trace.tool_executions == ()
    ta.TraceAsserter(trace).called_agent("researcher").has_no_failed_tool_executions()


# -- OpenAI Agents SDK handoff spans: what is and is not recorded -----------------------------------


def test_openinference_handoff_span_with_several_requested() -> None:
    """The SDK marks its handoff span ERROR when the model asked for two handoffs; it still handed off."""
    b = SpanBuilder()
    root = b.span("Agent workflow", {"openinference.span.kind": "CHAIN"})
    concierge = b.span(
        "concierge", {"openinference.span.kind": "AGENT", "agent.name": "concierge"}, parent=root
    )
    b.span(
        "handoff to bookings",
        {"openinference.span.kind": "TOOL", "input.value": "concierge", "output.value": "bookings"},
        parent=concierge,
        status="ERROR",
        description="Multiple handoffs requested: {'requested_agents': ['bookings', 'weather']}",
    )
    b.span("bookings", {"openinference.span.kind": "AGENT", "agent.name": "bookings"}, parent=root)
    trace = b.trace()
    assert _pairs(trace) == [("concierge", "bookings")]
    assert trace.tool_executions == ()
    assert [a.status for a in trace.all_agents()] == ["succeeded", "succeeded"]


def test_traceloop_handoff_span_without_a_target_takes_the_next_agent() -> None:
    b = SpanBuilder()
    root = b.span("Agent Workflow", {"traceloop.span.kind": "workflow"})
    tl = {"traceloop.span.kind": "agent", "gen_ai.operation.name": "invoke_agent"}
    concierge = b.span("concierge.agent", {**tl, "gen_ai.agent.name": "concierge"}, parent=root)
    b.span(
        "concierge → unknown.handoff",
        {
            "traceloop.span.kind": "handoff",
            "gen_ai.operation.name": "handoff",
            "gen_ai.handoff.from_agent": "concierge",
        },
        parent=concierge,
    )
    b.span("bookings.agent", {**tl, "gen_ai.agent.name": "bookings"}, parent=root)
    trace = b.trace()
    (handoff,) = trace.handoffs
    assert (handoff.from_agent, handoff.to_agent, handoff.request) == ("concierge", "bookings", None)
    assert handoff.to_invocation is trace.agents[1]


# -- LangGraph: ParentCommand is control flow -----------------------------------------------------------


@pytest.mark.parametrize(
    ("events", "description"),
    [
        (
            (
                ta.SpanEvent(
                    "exception",
                    0,
                    {
                        "exception.type": "langgraph.errors.ParentCommand",
                        "exception.message": "Command(graph='x', goto='bookings')",
                    },
                ),
            ),
            "Command(graph='x', goto='bookings')",
        ),
        ((), "ParentCommand(Command(graph='__parent__', goto='bookings'))"),
        ((), "Command(graph='concierge:1', goto=[Send(node='bookings', arg={})])"),
    ],
    ids=["exception-event", "description", "command-description"],
)
def test_a_parent_command_is_not_an_agent_failure(events: tuple[ta.SpanEvent, ...], description: str) -> None:
    b = SpanBuilder()
    _agent(b, "concierge", status="ERROR", description=description, events=events)
    (concierge,) = b.trace().agents
    assert (concierge.status, concierge.error) == ("succeeded", None)


def test_a_real_error_beside_a_parent_command_still_fails() -> None:
    b = SpanBuilder()
    root = _agent(b, "concierge", status="ERROR", description="ParentCommand(Command(goto='bookings'))")
    b.span(
        "concierge",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "concierge"},
        parent=root,
        status="ERROR",
        events=(
            ta.SpanEvent("exception", 0, {"exception.type": "ValueError", "exception.message": "bad state"}),
        ),
    )
    (concierge,) = b.trace().agents
    assert concierge.status == "failed" and concierge.error is not None
    assert (concierge.error.type, concierge.error.message) == ("ValueError", "bad state")


# -- transfer_to_<agent> tools and calls, from any producer ------------------------------------------


def test_a_transfer_tool_followed_by_its_agent_is_a_handoff() -> None:
    b = SpanBuilder()
    root = b.span("invoke_workflow desk", {"gen_ai.operation.name": "invoke_workflow"})
    concierge = _agent(b, "concierge", root)
    b.chat(concierge, **{"gen_ai.output.messages": _asks(("transfer_to_bookings", {}, "c1"))})
    b.tool("transfer_to_bookings", concierge)
    bookings = _agent(b, "Bookings", root)
    trace = b.trace()
    (handoff,) = trace.handoffs
    assert (handoff.from_agent, handoff.to_agent, handoff.call_id) == ("concierge", "Bookings", "c1")
    assert handoff.to_invocation is not None and handoff.to_invocation.span is bookings
    assert trace.tool_executions == () and trace.unexecuted_tool_requests == ()


def test_a_transfer_tool_without_such_an_agent_stays_a_tool() -> None:
    """``transfer_to_savings`` moves money: no agent ``savings`` runs, so it is a tool execution."""
    b = SpanBuilder()
    bank = _agent(b, "bank")
    b.chat(bank, **{"gen_ai.output.messages": _asks(("transfer_to_savings", {"amount": 5}, "c1"))})
    b.tool("transfer_to_savings", bank, args='{"amount": 5}', result="done")
    trace = b.trace()
    assert trace.handoffs == ()
    (transfer,) = trace.tool_executions
    assert (transfer.name, transfer.arguments, transfer.call_id, transfer.failed) == (
        "transfer_to_savings",
        {"amount": 5},
        "c1",
        False,
    )


def test_a_requested_transfer_with_no_span_is_a_handoff_when_the_agent_ran() -> None:
    """Monocle records no span for LangGraph's handoff tools: the model's call shows the handoff."""
    b = SpanBuilder()
    concierge = _agent(b, "concierge")
    b.chat(
        concierge,
        **{
            "gen_ai.output.messages": _asks(
                ("transfer_to_bookings", {}, "c1"), ("transfer_to_weather", {}, "c2")
            )
        },
    )
    _agent(b, "bookings")
    trace = b.trace()
    (handoff,) = trace.handoffs
    assert handoff.span is None and handoff.request is not None and handoff.request.call_id == "c1"
    assert handoff.start_ns == trace.model_calls[0].start_ns
    # weather never ran: its call stays a request nobody executed (these hand-built spans record no
    # tool span, so the tree says no execution was recorded)
    assert [r.name for r in trace.unexecuted_tool_requests] == ["transfer_to_weather"]
    rendered = trace.render()
    assert (
        "├─ model chat m" in rendered
        and "│  └─ tool transfer_to_weather() (requested, no execution recorded)" in rendered
    )
    assert "└─ handoff concierge -> bookings" in rendered


def test_a_handoff_to_an_agent_that_never_ran() -> None:
    b = SpanBuilder()
    root = b.span("Agent workflow", {"openinference.span.kind": "CHAIN"})
    concierge = b.span(
        "concierge", {"openinference.span.kind": "AGENT", "agent.name": "concierge"}, parent=root
    )
    b.span(
        "handoff to weather",
        {"openinference.span.kind": "TOOL", "input.value": "concierge", "output.value": "weather"},
        parent=concierge,
    )
    trace = b.trace()
    (handoff,) = trace.handoffs
    assert handoff.to_agent == "weather" and handoff.to_invocation is None
    assert "handoff concierge -> weather (no invocation of weather recorded)" in trace.render()
    assert trace.summary()["agents"][0]["handoffs"] == [
        {"from": "concierge", "to": "weather", "taken_up": False}
    ]


def test_nested_when_the_producer_nests_it() -> None:
    """An agent run inside the agent that handed off (after the transfer) is nested and linked."""
    b = SpanBuilder()
    concierge = _agent(b, "concierge")
    b.tool("transfer_to_bookings", concierge)
    inner = _agent(b, "bookings", concierge)
    (top,) = b.trace().agents
    (handoff,) = top.handoffs
    assert [n.span for n in top.nested] == [inner] and handoff.to_invocation is top.nested[0]
    assert top.nested[0].via_tool is None and top.nested[0].via_handoff is handoff


def test_handoffs_in_start_order_and_a_chain() -> None:
    b = SpanBuilder()
    root = b.span("invoke_workflow desk", {"gen_ai.operation.name": "invoke_workflow"})
    for source, target in (("triage", "billing"), ("billing", "refunds")):
        agent = _agent(b, source, root)
        b.tool(f"transfer_to_{target}", agent)
    _agent(b, "refunds", root)
    trace = b.trace()
    assert _pairs(trace) == [("triage", "billing"), ("billing", "refunds")]
    triage, billing, refunds = trace.agents
    assert billing.via_handoff is trace.handoffs[0] and refunds.via_handoff is trace.handoffs[1]
    assert triage.all_handoffs() == (trace.handoffs[0],)
    assert trace.summary()["totals"]["handoffs"] == 2


def test_two_instrumentation_layers_record_one_handoff() -> None:
    """OpenInference and OpenLLMetry on one Agents SDK app: one handoff, not two."""
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
    b.span(
        "handoff to bookings",
        {"openinference.span.kind": "TOOL", "input.value": "concierge", "output.value": "bookings"},
        parent=oi,
        start_ns=start + 100,
    )
    b.span(
        "concierge → bookings.handoff",
        {
            "traceloop.span.kind": "handoff",
            "gen_ai.handoff.from_agent": "concierge",
            "gen_ai.handoff.to_agent": "bookings",
        },
        parent=tl,
        start_ns=start + 110,
    )
    trace = b.trace()
    assert len(trace.agents) == 1
    assert _pairs(trace) == [("concierge", "bookings")]


def test_public_names() -> None:
    assert ta.Handoff.__module__ == ta.ToolRequest.__module__ == "traceassert._model.records"
    assert {"Handoff", "ToolRequest"} <= set(ta.__all__)
