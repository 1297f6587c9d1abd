"""OpenAI Agents SDK + OpenLLMetry (Traceloop) stack, and the scripted scenario.

Instrumentation
---------------
`instrument` switches on OpenLLMetry's two instrumentors, as ``Traceloop.init()`` would, but without
the Traceloop SDK (which wants an exporter endpoint and sends its own telemetry):

- ``OpenAIAgentsInstrumentor(replace_existing_processors=True)`` (``opentelemetry-instrumentation-
  openai-agents``) adds a trace processor to the Agents SDK and removes the SDK's own processors, so
  nothing is exported to OpenAI's tracing backend;
- ``OpenAIInstrumentor`` (``opentelemetry-instrumentation-openai``) wraps the ``openai`` client.

`uninstrument` removes the Agents SDK trace processors again (leaving none: the SDK's default exporter
is not put back) and unwraps the client.

What it records (0.62.x)
------------------------
``Agent Workflow`` (``traceloop.span.kind=workflow``) is the root of every SDK trace. Each agent run is
``<agent>.agent`` (``traceloop.span.kind=agent``, ``gen_ai.agent.name``), each tool call
``<tool>.tool`` (``traceloop.span.kind=tool``, ``gen_ai.tool.name``, ``gen_ai.tool.call.arguments`` /
``.result``; no call id), each model request ``openai.response`` (CLIENT, ``gen_ai.operation.name=chat``,
``gen_ai.input.messages`` / ``gen_ai.output.messages``, ``gen_ai.usage.*`` incl. ``total_tokens``),
with the ``openai`` instrumentor's own ``openai.response`` span (scope
``opentelemetry.instrumentation.openai.v1``, the same usage, ``gen_ai.is_streaming``) inside it: one
logical call, two spans. Agent spans carry neither input nor output.

Two quirks matter for reconstruction. Every agent span is parented on ``Agent Workflow``: the helper
agent that ``ask_helper`` runs is a sibling of the orchestrator, not inside the tool (traceassert nests
it by time). A failing tool's span is ERROR with the SDK's error repr'd as the status description
(``{'message': 'Error running tool (non-fatal)', 'data': {...}}``; the exception's own message is
redacted by the SDK) and the message the model was sent as the result.

The scenario
------------
Real ``Agent`` / ``Runner`` objects on ``OpenAIResponsesModel`` with an ``AsyncOpenAI`` client whose
HTTP transport is an ``httpx.MockTransport``: a handler plays the script (``_traceloop_common``) as
Responses API replies, usage included. No socket is opened and no key is needed.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Sequence
from typing import Any

import httpx
from agents import Agent, OpenAIResponsesModel, Runner, function_tool, set_trace_processors
from openai import AsyncOpenAI
from opentelemetry import trace
from opentelemetry.instrumentation.openai import OpenAIInstrumentor
from opentelemetry.instrumentation.openai_agents import OpenAIAgentsInstrumentor
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ._routing import RoutingTracerProvider
from ._traceloop_common import (
    EXPECTED,
    EXPLODE_MESSAGE,
    HELPER_TURNS,
    ORCHESTRATOR_TURNS,
    PROMPT,
    Turn,
    remove_wrappers,
)

__all__ = [
    "EXPECTED",
    "PROMPT",
    "helper",
    "instrument",
    "orchestrator",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]

# --------------------------------------------------------------------------------------------------
# Instrumentation
# --------------------------------------------------------------------------------------------------


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Turn on OpenLLMetry's OpenAI Agents SDK and OpenAI instrumentation (replacing an earlier call).

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up each time a
            span starts (so a provider installed later, e.g. by the traceassert pytest plugin, is used).
    """
    uninstrument()
    provider = RoutingTracerProvider() if tracer_provider is None else tracer_provider
    OpenAIAgentsInstrumentor(replace_existing_processors=True).instrument(tracer_provider=provider)
    OpenAIInstrumentor().instrument(tracer_provider=provider)


#: the modules whose classes ``OpenAIInstrumentor`` wraps (see `remove_wrappers`)
_OPENAI_MODULES = (
    "openai.resources.chat.completions",
    "openai.resources.completions",
    "openai.resources.embeddings",
    "openai.resources.images",
    "openai.resources.responses",
    "openai.resources.beta.assistants",
    "openai.resources.beta.threads.runs",
    "openai.resources.beta.threads.messages",
    "openai.resources.beta.realtime.realtime",
)


def uninstrument() -> None:
    """Switch both instrumentors off and leave the Agents SDK without trace processors."""
    agents_instrumentor = OpenAIAgentsInstrumentor()
    if agents_instrumentor.is_instrumented_by_opentelemetry:
        agents_instrumentor.uninstrument()
    openai_instrumentor = OpenAIInstrumentor()
    if openai_instrumentor.is_instrumented_by_opentelemetry:
        openai_instrumentor.uninstrument()
        remove_wrappers(_OPENAI_MODULES, "opentelemetry.instrumentation.openai.")
    # the instrumentor never removes the processor it added: the SDK would keep feeding it
    set_trace_processors([])


# --------------------------------------------------------------------------------------------------
# The scripted scenario
# --------------------------------------------------------------------------------------------------

_SCRIPTS: dict[str, Sequence[Turn]] = {
    "scripted-orchestrator": ORCHESTRATOR_TURNS,
    "scripted-helper": HELPER_TURNS,
}


def _output_item(turn: Turn, index: int) -> dict[str, Any]:
    if turn.tool is None:
        content = [{"type": "output_text", "text": turn.text, "annotations": []}]
        return {
            "type": "message",
            "id": f"msg_{index}",
            "role": "assistant",
            "status": "completed",
            "content": content,
        }
    return {
        "type": "function_call",
        "id": f"fc_{index}",
        "call_id": turn.call_id(index),
        "name": turn.tool,
        "arguments": json.dumps(dict(turn.args)),
        "status": "completed",
    }


def _respond(request: httpx.Request) -> httpx.Response:
    """The fake Responses API: the model name picks the script, the tool results so far pick the turn."""
    if request.method != "POST" or not request.url.path.endswith("/responses"):
        return httpx.Response(
            404, json={"error": {"message": f"not scripted: {request.method} {request.url}"}}
        )
    body = json.loads(request.content)
    model = body.get("model")
    turns = _SCRIPTS.get(model) if isinstance(model, str) else None
    if turns is None:
        return httpx.Response(400, json={"error": {"message": f"no script for model {model!r}"}})
    items = body.get("input") if isinstance(body.get("input"), list) else []
    index = sum(1 for item in items if isinstance(item, dict) and item.get("type") == "function_call_output")
    if index >= len(turns):
        return httpx.Response(400, json={"error": {"message": f"the script has only {len(turns)} turns"}})
    turn = turns[index]
    usage = {
        "input_tokens": turn.input_tokens,
        "output_tokens": turn.output_tokens,
        "total_tokens": turn.input_tokens + turn.output_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    }
    reply = {
        # unique, as OpenAI's are: OpenLLMetry keeps every response it saw by id, process-wide, and
        # traces a response id it has seen before in the first one's context (or not at all)
        "id": f"resp_{uuid.uuid4().hex}",
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "model": model,
        "output": [_output_item(turn, index)],
        "usage": usage,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    return httpx.Response(200, json=reply)


def _client() -> AsyncOpenAI:
    # openai 3.x is typed for its ``httpx2`` clients and accepts ``httpx`` ones too (as 1.x and 2.x do)
    http_client: Any = httpx.AsyncClient(transport=httpx.MockTransport(_respond))
    return AsyncOpenAI(api_key="test", base_url="http://scripted.invalid/v1", http_client=http_client)


_CLIENT = _client()

helper = Agent(
    name="helper",
    instructions="Give clothing advice.",
    model=OpenAIResponsesModel("scripted-helper", _CLIENT),
)


@function_tool
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return f"Sunny, 21C in {city}"


@function_tool
def explode() -> str:
    """A tool that always fails; the SDK reports the failure back to the model."""
    raise RuntimeError(EXPLODE_MESSAGE)


@function_tool
async def ask_helper(question: str) -> str:
    """Ask the helper agent for advice."""
    result = await Runner.run(helper, question)
    return str(result.final_output)


orchestrator = Agent(
    name="orchestrator",
    instructions="Answer weather questions; ask the helper for clothing advice.",
    model=OpenAIResponsesModel("scripted-orchestrator", _CLIENT),
    tools=[get_weather, explode, ask_helper],
)


def run_scenario() -> str:
    """Run the scenario to completion and return the orchestrator's output."""
    return str(Runner.run_sync(orchestrator, PROMPT).final_output)


async def run_scenario_async() -> str:
    """Like `run_scenario`, in the running event loop."""
    result = await Runner.run(orchestrator, PROMPT)
    return str(result.final_output)


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented under an in-memory exporter; return its spans (instrumentation off)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrument(provider)
    try:
        run_scenario()
    finally:
        uninstrument()
        provider.shutdown()
    return list(exporter.get_finished_spans())


def main(argv: Sequence[str]) -> None:
    """``python -m instrumentation.openai_agents_traceloop [PATH]``: record the scenario as OTLP JSON."""
    import traceassert as ta

    path = argv[0] if argv else "tests/data/traceloop_openai_agents.json"
    ta.dump_trace(record_spans(), path, redact=True)
    print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
