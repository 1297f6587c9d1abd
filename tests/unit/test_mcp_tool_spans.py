"""An agent's tool call served by an MCP server: the agent's tool span and the server's ``tools/call``
span (mcp 2.x, a SERVER span started from the context the client propagated) are one tool execution,
whatever the layers, and the server's work nests under it. Shapes of mcp's stdio / HTTP transports (a
``MCP send`` CLIENT span between the two), from files with and without instrumentation scopes."""

from __future__ import annotations

from typing import Any

import pytest

import traceassert as ta

TRACE = "a" * 32
AGENT_SCOPE = "opentelemetry.util.genai.handler"
MCP_SCOPE = "mcp-python-sdk"


def _span(
    sid: str,
    parent: str | None,
    name: str,
    attributes: dict[str, Any],
    start: int,
    end: int,
    scope: str | None,
    *,
    kind: str = "INTERNAL",
    status: ta.Status | None = None,
) -> ta.Span:
    return ta.Span(
        TRACE,
        sid * 16,
        parent and parent * 16,
        name,
        kind=kind,
        start_ns=start,
        end_ns=end,
        attributes=attributes,
        scope_name=scope,
        **({"status": status} if status is not None else {}),
    )


def _spans(*, scoped: bool, client_span: bool, failed: bool = False) -> list[ta.Span]:
    agent_scope, mcp_scope = (AGENT_SCOPE, MCP_SCOPE) if scoped else (None, None)
    tool: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "ask_helper",
        "gen_ai.tool.call.id": "call_1",
        "gen_ai.tool.call.arguments": '{"question": "What should I wear?"}',
    }
    server_parent = "2"
    spans = [
        _span("1", None, "invoke_agent orchestrator", _agent("orchestrator"), 0, 100, agent_scope),
        _span(
            "2",
            "1",
            "execute_tool ask_helper",
            {**tool, **({"error.type": "RuntimeError"} if failed else {"gen_ai.tool.call.result": "Wear"})},
            10,
            60,
            agent_scope,
            status=ta.Status("ERROR", "the helper is away") if failed else None,
        ),
    ]
    if client_span:
        attrs = {"mcp.method.name": "tools/call", "jsonrpc.request.id": "2"}
        spans.append(
            _span("3", "2", "MCP send tools/call ask_helper", attrs, 11, 59, mcp_scope, kind="CLIENT")
        )
        server_parent = "3"
    server = {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "ask_helper",
        "jsonrpc.request.id": "2",
        **({"error.type": "tool_error"} if failed else {}),
    }
    status = ta.Status("ERROR") if failed else None
    spans.append(
        _span(
            "4",
            server_parent,
            "tools/call ask_helper",
            server,
            12,
            58,
            mcp_scope,
            kind="SERVER",
            status=status,
        )
    )
    spans.append(_span("5", "4", "invoke_agent helper", _agent("helper"), 13, 57, agent_scope))
    chat = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "m",
        "gen_ai.usage.input_tokens": 3,
        "gen_ai.usage.output_tokens": 4,
    }
    spans.append(_span("6", "5", "chat m", chat, 14, 56, "model-client" if scoped else None, kind="CLIENT"))
    return spans


def _agent(name: str) -> dict[str, Any]:
    return {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}


@pytest.mark.parametrize("client_span", [False, True], ids=["in-memory", "stdio"])
@pytest.mark.parametrize("scoped", [True, False], ids=["scoped", "scopeless"])
def test_one_execution_and_the_servers_work_under_it(scoped: bool, client_span: bool) -> None:
    trace = ta.Trace(_spans(scoped=scoped, client_span=client_span))
    (tool,) = trace.tool_executions
    assert (tool.name, tool.arguments, tool.call_id, tool.result) == (
        "ask_helper",
        {"question": "What should I wear?"},
        "call_1",
        "Wear",
    )
    (orchestrator,) = trace.agents
    (helper,) = orchestrator.nested
    assert helper.name == "helper"
    assert helper.via_tool is tool
    assert len(helper.model_calls) == 1


@pytest.mark.parametrize("scoped", [True, False], ids=["scoped", "scopeless"])
def test_a_failed_call_keeps_the_agents_message(scoped: bool) -> None:
    """The server's span says ``tool_error`` with no message; the agent's span has the message."""
    trace = ta.Trace(_spans(scoped=scoped, client_span=True, failed=True))
    (tool,) = trace.tool_executions
    assert tool.failed
    assert tool.error is not None and tool.error.message == "the helper is away"


@pytest.mark.parametrize("scoped", [True, False], ids=["scoped", "scopeless"])
def test_the_clients_send_span_is_known_and_no_record(scoped: bool) -> None:
    trace = ta.Trace(_spans(scoped=scoped, client_span=True))
    assert trace.unclassified == ()
    send = next(s for s in trace.spans if s.name.startswith("MCP send"))
    op = trace.operation(send)
    assert op is not None and (op.kind, op.dialect) == ("other", "genai")
