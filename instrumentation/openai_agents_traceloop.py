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
``instrumentation/_openai_agents_scenario.py``: real ``Agent`` / ``Runner`` objects on
``OpenAIResponsesModel`` with an ``AsyncOpenAI`` client whose HTTP transport is an
``httpx.MockTransport`` playing the script as Responses API replies, usage included.
"""

from __future__ import annotations

import uuid

import httpx
from agents import Runner, function_tool, set_trace_processors
from opentelemetry import trace
from opentelemetry.instrumentation.openai import OpenAIInstrumentor
from opentelemetry.instrumentation.openai_agents import OpenAIAgentsInstrumentor
from opentelemetry.sdk.trace import ReadableSpan

from . import _openai_agents_scenario as _oa
from . import _recording
from ._instrumentors import remove_wrappers, switch_off
from ._routing import RoutingTracerProvider
from ._scenario import EXPECTED, EXPLODE_MESSAGE, PROMPT

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
    switch_off(OpenAIAgentsInstrumentor())
    if switch_off(OpenAIInstrumentor()):
        remove_wrappers(_OPENAI_MODULES, "opentelemetry.instrumentation.openai.")
    # the instrumentor never removes the processor it added: the SDK would keep feeding it
    set_trace_processors([])


# --------------------------------------------------------------------------------------------------
# The scripted scenario
# --------------------------------------------------------------------------------------------------


@function_tool
def explode() -> str:
    """A tool that always fails; the SDK reports the failure back to the model."""
    raise RuntimeError(EXPLODE_MESSAGE)


# Response ids are unique, as OpenAI's are: OpenLLMetry keeps every response it saw by id, process-wide,
# and traces a response id it has seen before in the first one's context (or not at all).
_CLIENT = _oa.mock_client(httpx, response_id=lambda model, index: f"resp_{uuid.uuid4().hex}", created_at=0)
orchestrator, helper = _oa.build_agents(_CLIENT, explode, lambda: None)


def run_scenario() -> str:
    """Run the scenario to completion and return the orchestrator's output."""
    return str(Runner.run_sync(orchestrator, PROMPT).final_output)


async def run_scenario_async() -> str:
    """Like `run_scenario`, in the running event loop."""
    result = await Runner.run(orchestrator, PROMPT)
    return str(result.final_output)


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented under an in-memory exporter; return its spans (instrumentation off)."""
    return _recording.record_spans(instrument, uninstrument, run_scenario)
