"""MCP stack: the Anthropic tool loop of ``instrumentation.anthropic_openinference`` whose tools live on an
MCP server, with ``openinference-instrumentation-mcp``.

The app
-------
An ``MCPServer`` (``mcp`` 2.x) serves ``get_weather``, ``explode`` (raises ``ToolError`` with the
scenario's message) and ``ask_helper``, which runs the ``helper`` agent *on the server* (the same
Anthropic loop, its own model call). The orchestrator runs on the client side and calls each tool with
``Client.call_tool``; a result with ``is_error`` is a failure (the loop's tool span records it, and
the message goes back to the model). Client and server share one process without sharing a task:
``Client(server, mode="legacy")`` runs the server on mcp's in-memory *stream* transport, with JSON-RPC
framing and the initialize handshake as over stdio (no subprocess, no sockets). (mcp's default
in-process mode calls the handler in the caller's task instead: the server span then nests by the
ambient context, with no propagation and no client span.)

Spans
-----
- the loop's own (OpenInference ``OITracer``: ``AGENT`` and ``TOOL`` spans) and the model calls
  (``openinference-instrumentation-anthropic`` ``messages.create`` spans, plus the Anthropic SDK's
  own ``anthropic.messages.create`` spans), as in ``instrumentation.anthropic_openinference``;
- mcp 2.x traces itself (tracer ``mcp-python-sdk``, which `instrument` points at the chosen provider):
  every request the client sends is a CLIENT span ``MCP send <method> [<name>]`` (``mcp.method.name``,
  ``jsonrpc.request.id``), and every request the server handles a SERVER span ``<method> [<name>]``:
  ``tools/call get_weather`` with ``mcp.method.name = tools/call``, ``gen_ai.operation.name =
  execute_tool``, ``gen_ai.tool.name``, ``jsonrpc.request.id``, ``mcp.protocol.version``; a tool that
  failed has status ERROR (no description) and ``error.type = tool_error``. No arguments, no result.
  Also the ``initialize`` handshake, ``notifications/initialized`` and ``tools/list`` (the client
  lists the tools after its first call). The client writes the W3C trace context into each request's
  ``_meta`` (mcp's SEP-414) and the server starts its span from it: ``tools/call get_weather`` is the
  child of ``MCP send tools/call get_weather``, the child of the loop's ``get_weather`` TOOL span, and
  the server's work (the ``helper`` agent and its model call) nests under the SERVER span.
- ``openinference-instrumentation-mcp`` (2.0) makes no span: it wraps the stdio, SSE and Streamable
  HTTP transports (and ``ServerSession.__init__``) to carry the trace context in ``_meta`` for SDKs that
  do not. On mcp 2.x that is built in; on the in-memory transport it wraps nothing. The stack switches
  it on as a user would; the trace is the same without it.

How traceassert reads it: the loop's TOOL span and the server's ``tools/call`` span are one tool
execution (two layers: OpenInference on the client, GenAI on the server), and the ``helper`` agent that
runs under the SERVER span is nested in ``orchestrator`` through ``ask_helper``. The other MCP spans
(``mcp.method.name`` without a tool) are read as protocol traffic (``other``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared import _otel as mcp_otel
from openinference.instrumentation.mcp import MCPInstrumentor
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _anthropic_scenario as _loop
from . import _recording
from . import anthropic_openinference as _agent
from ._instrumentors import switch_off, switch_on
from ._routing import RoutingTracer, RoutingTracerProvider
from ._scenario import EXPECTED, EXPLODE_MESSAGE, PROMPT
from ._scenario import get_weather as _weather

__all__ = [
    "EXPECTED",
    "PROMPT",
    "instrument",
    "make_server",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]

#: mcp's own tracer (``mcp.shared._otel._tracer``), as mcp made it: `uninstrument` puts it back
_MCP_TRACER = mcp_otel._tracer


def instrument(tracer_provider: trace.TracerProvider | None = None, *, sdk_spans: bool = True) -> None:
    """Switch on the agent's instrumentation (``anthropic_openinference``), OpenInference's MCP
    instrumentation, and point mcp's own tracer at the same provider.

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up as each span
            starts.
        sdk_spans: the Anthropic client's own spans go to the same provider; False switches them off.
    """
    uninstrument()
    _agent.instrument(tracer_provider, sdk_spans=sdk_spans)
    switch_on(MCPInstrumentor(), tracer_provider=RoutingTracerProvider(tracer_provider))
    mcp_otel._tracer = RoutingTracer(tracer_provider, "mcp-python-sdk")


def uninstrument() -> None:
    """Switch both instrumentations off; mcp's tracer is the one it made (the global provider's)."""
    switch_off(MCPInstrumentor())
    _agent.uninstrument()
    mcp_otel._tracer = _MCP_TRACER


def make_server() -> MCPServer:
    """The MCP server with the scenario's tools; ``ask_helper`` runs the ``helper`` agent here."""
    server = MCPServer("weather-tools")

    @server.tool()
    def get_weather(city: str) -> str:
        """Current weather in a city."""
        return _weather(city)

    @server.tool()
    def explode() -> str:
        """A tool that always fails."""
        raise ToolError(EXPLODE_MESSAGE)

    @server.tool()
    async def ask_helper(question: str) -> str:
        """Ask the helper agent for advice."""
        recorder, telemetry = _agent.loop_options()
        return await _loop.run_helper_async(question, recorder, telemetry)

    return server


class MCPToolError(RuntimeError):
    """A tool call the server answered with ``is_error``: its text is the message."""


async def run_scenario_async(*, agent_spans: bool = True) -> str:
    """Run the scenario, the tools on an in-process MCP server; the orchestrator's answer."""
    recorder, telemetry = _agent.loop_options(agent_spans)
    async with Client(make_server(), mode="legacy") as client:

        async def call(name: str, arguments: Mapping[str, Any]) -> str:
            result = await client.call_tool(name, dict(arguments))
            text = "".join(getattr(block, "text", "") for block in result.content)
            if result.is_error:
                raise MCPToolError(text)
            return text

        return await _loop.run_async(recorder, telemetry, remote=call)


def run_scenario(*, agent_spans: bool = True) -> str:
    """`run_scenario_async` in a new event loop (not inside a running one)."""
    return asyncio.run(run_scenario_async(agent_spans=agent_spans))


def record_spans(*, agent_spans: bool = True, sdk_spans: bool = True) -> list[ReadableSpan]:
    """Run the scenario instrumented under an in-memory exporter; return its finished spans.

    Leaves the instrumentation switched off afterwards.
    """
    return _recording.record_spans(
        lambda p: instrument(p, sdk_spans=sdk_spans),
        uninstrument,
        lambda: run_scenario(agent_spans=agent_spans),
    )
