"""Google GenAI SDK stack: ``google-genai`` with automatic function calling (AFC), traced by the official
``opentelemetry-instrumentation-google-genai``; the agents recorded by the app with util-genai.

Instrumentation
---------------
`instrument` switches on ``GoogleGenAiSdkInstrumentor`` (1.1b1, for ``google-genai`` 1.32 to 2.x; it
builds its spans with ``opentelemetry-util-genai``) with message content and tool arguments on the
spans (``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only``, set until `uninstrument`;
unset, neither is recorded), and builds the util-genai ``TelemetryHandler`` the app records its agents
with.

What the instrumentation records, per *public* ``Models.generate_content`` call (sync or async):

- one ``generate_content <model>`` CLIENT span: ``gen_ai.operation.name = generate_content``,
  ``gen_ai.provider.name = gemini``, ``gen_ai.request.model`` / ``gen_ai.response.model``,
  ``gen_ai.response.id``, ``gen_ai.response.finish_reasons``, ``gen_ai.usage.input_tokens`` /
  ``output_tokens``, ``gen_ai.input.messages`` / ``gen_ai.output.messages``,
  ``gen_ai.tool.definitions`` (name and description; ``parameters`` null);
- with AFC, the SDK calls the model, runs the Python functions the model asks for and calls it again,
  all inside that one public call. The instrumentation wraps each tool function: an
  ``execute_tool <name>`` INTERNAL span, child of the ``generate_content`` span, with
  ``gen_ai.tool.name``, ``gen_ai.tool.description`` (the docstring), ``gen_ai.tool.call.arguments``
  (JSON of ``code.function.parameters.<name>.type`` / ``.value`` pairs; traceassert's GenAI dialect
  reads them as ``{name: value}``) and ``gen_ai.tool.call.result`` (JSON). No tool call id.

What it does NOT record: the model turns *inside* AFC. The span is the whole loop: its usage, response
id and finish reason are those of the SDK's returned response, i.e. of the **last** turn (the SDK
returns the last response; the turns before it, with their function calls and tokens, are in no span),
and ``gen_ai.output.messages`` holds the final text only. So the orchestrator's four scripted model
turns are one recorded model call with the fourth turn's tokens: `EXPECTED` (built from the script for
this shape) counts one model call per ``generate_content`` call and the usage of each call's last
turn: 2 model calls, 234 tokens where the script spent 646.

Agents: the SDK has none. The app (this module) runs each "agent" (one ``generate_content`` call with
its instructions and tools) inside a util-genai ``invoke_agent <name>`` span (``gen_ai.agent.name``,
input and output messages): ``orchestrator``, and ``helper``, which the ``ask_helper`` tool runs, so
``helper`` nests under the ``execute_tool ask_helper`` span. `run_scenario(agent_spans=False)` leaves
only the instrumentation's spans (the work then belongs to no agent).

Tool failures
-------------
AFC catches a tool's exception and sends ``{"error": "Failed to invoke function explode ... because of
error <message>"}`` back to the model; the run goes on. The tool span (the instrumentation's wrapper
sees the exception first) has status ERROR with the exception's message and ``error.type``; util-genai
records no ``exception`` event.

The scenario runs on ``httpx.MockTransport`` clients passed in ``HttpOptions(httpx_client=...,
httpx_async_client=...)``, answering ``:generateContent`` requests from the script (no network, no key).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
from google import genai
from google.genai import types
from opentelemetry import trace
from opentelemetry.instrumentation.google_genai import GoogleGenAiSdkInstrumentor
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.util.genai.handler import TelemetryHandler

from . import _recording
from ._genai_spans import agent_span
from ._instrumentors import restore_environment, set_environment, switch_off, switch_on
from ._routing import RoutingTracerProvider
from ._scenario import (
    EXPLODE_MESSAGE,
    FINAL_OUTPUT,
    HELPER_INSTRUCTIONS,
    HELPER_MODEL,
    HELPER_TURNS,
    ORCHESTRATOR_INSTRUCTIONS,
    ORCHESTRATOR_MODEL,
    ORCHESTRATOR_TURNS,
    PROMPT,
    SCRIPTS,
    Turn,
    scenario_facts,
)
from ._scenario import get_weather as _weather

__all__ = [
    "EXPECTED",
    "PROMPT",
    "instrument",
    "make_client",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]

#: the ground truth for this shape: every tool execution of the script, but one model call per
#: ``generate_content`` call (AFC runs the turns inside it), with the usage of its last turn
EXPECTED = scenario_facts(
    {"orchestrator": ORCHESTRATOR_TURNS[-1:], "helper": HELPER_TURNS[-1:]},
    agents=("orchestrator",),
    nested={"orchestrator": ("helper",)},
    tools=[(turn.tool, turn.args) for turn in ORCHESTRATOR_TURNS if turn.tool is not None],
    failed=("explode",),
    output=FINAL_OUTPUT,
)

#: the content mode, and the event switch the instrumentation turns on for the whole process when it
#: instruments (``OTEL_INSTRUMENTATION_GENAI_EMIT_EVENT=true``, never restored): saved here so that
#: `uninstrument` gives the process its own value back
_ENV = {
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_only",
    "OTEL_INSTRUMENTATION_GENAI_EMIT_EVENT": "false",
}


@dataclass
class _State:
    #: one instrumentor: it is a singleton, but each ``GoogleGenAiSdkInstrumentor()`` runs ``__init__``
    #: again, which forgets what `uninstrument` must restore
    instrumentor: GoogleGenAiSdkInstrumentor = field(default_factory=GoogleGenAiSdkInstrumentor)
    handler: TelemetryHandler | None = None
    env: dict[str, str | None] = field(default_factory=dict)


_STATE = _State()


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Switch on the Google GenAI instrumentation and the app's util-genai agent spans.

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up as each span
            starts.
    """
    uninstrument()
    _STATE.env = set_environment(_ENV)
    provider = RoutingTracerProvider(tracer_provider)
    switch_on(_STATE.instrumentor, tracer_provider=provider)
    _STATE.handler = TelemetryHandler(tracer_provider=provider)


def uninstrument() -> None:
    """Switch the instrumentation off; the app records no agent spans either."""
    switch_off(_STATE.instrumentor)
    _STATE.handler = None
    restore_environment(_STATE.env)
    _STATE.env = {}


# --------------------------------------------------------------------------------------------------
# The scripted Gemini API
# --------------------------------------------------------------------------------------------------


def _response(turn: Turn, index: int, model: str) -> dict[str, Any]:
    part: dict[str, Any]
    if turn.tool is not None:
        part = {"functionCall": {"id": turn.call_id(index), "name": turn.tool, "args": dict(turn.args)}}
    else:
        part = {"text": turn.text}
    return {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": turn.input_tokens,
            "candidatesTokenCount": turn.output_tokens,
            "totalTokenCount": turn.total_tokens,
        },
        "modelVersion": model,
        "responseId": f"resp_{model}_{index}",
    }


def _respond(request: httpx.Request) -> httpx.Response:
    """``POST .../models/<model>:generateContent``: the turn is the number of function responses sent."""
    model = request.url.path.rpartition("/")[2].partition(":")[0]
    turns = SCRIPTS.get(model)
    if turns is None:
        return httpx.Response(404, json={"error": {"code": 404, "message": f"no script for {model!r}"}})
    body = json.loads(request.content)
    index = sum(
        1 for content in body["contents"] for part in content.get("parts", ()) if "functionResponse" in part
    )
    if index >= len(turns):
        return httpx.Response(500, json={"error": {"code": 500, "message": "the script has ended"}})
    return httpx.Response(200, json=_response(turns[index], index, model))


async def _respond_async(request: httpx.Request) -> httpx.Response:
    await request.aread()
    return _respond(request)


def make_client() -> genai.Client:
    """A Gemini API client (sync and ``.aio``) answered by the script (``httpx.MockTransport``)."""
    options = types.HttpOptions(
        base_url="https://scripted.invalid",
        httpx_client=httpx.Client(transport=httpx.MockTransport(_respond)),
        httpx_async_client=httpx.AsyncClient(transport=httpx.MockTransport(_respond_async)),
    )
    return genai.Client(api_key="test", http_options=options)


# --------------------------------------------------------------------------------------------------
# The agents: one generate_content call each, AFC running the tools
# --------------------------------------------------------------------------------------------------


@contextmanager
def _agent_span(name: str, model: str, prompt: str, enabled: bool) -> Iterator[Callable[[str], None]]:
    """The app's ``invoke_agent`` span around an agent's run (nothing without a handler)."""
    handler = _STATE.handler
    if handler is None or not enabled:
        yield lambda _: None
        return
    with agent_span(handler, name, model, prompt) as answered:
        yield answered


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return _weather(city)


def explode() -> str:
    """A tool that always fails."""
    raise RuntimeError(EXPLODE_MESSAGE)


@dataclass
class _Run:
    client: genai.Client
    agent_spans: bool

    def config(self, instructions: str, tools: list[Any] | None = None) -> types.GenerateContentConfig:
        return types.GenerateContentConfig(system_instruction=instructions, tools=tools)

    def helper(self, question: str) -> str:
        with _agent_span("helper", HELPER_MODEL, question, self.agent_spans) as answered:
            reply = self.client.models.generate_content(
                model=HELPER_MODEL, contents=question, config=self.config(HELPER_INSTRUCTIONS)
            )
            answered(reply.text or "")
            return reply.text or ""

    async def helper_async(self, question: str) -> str:
        with _agent_span("helper", HELPER_MODEL, question, self.agent_spans) as answered:
            reply = await self.client.aio.models.generate_content(
                model=HELPER_MODEL, contents=question, config=self.config(HELPER_INSTRUCTIONS)
            )
            answered(reply.text or "")
            return reply.text or ""

    def orchestrator(self) -> str:
        def ask_helper(question: str) -> str:
            """Ask the helper agent for advice."""
            return self.helper(question)

        config = self.config(ORCHESTRATOR_INSTRUCTIONS, [get_weather, explode, ask_helper])
        with _agent_span("orchestrator", ORCHESTRATOR_MODEL, PROMPT, self.agent_spans) as answered:
            reply = self.client.models.generate_content(
                model=ORCHESTRATOR_MODEL, contents=PROMPT, config=config
            )
            answered(reply.text or "")
            return reply.text or ""

    async def orchestrator_async(self) -> str:
        async def ask_helper(question: str) -> str:
            """Ask the helper agent for advice."""
            return await self.helper_async(question)

        config = self.config(ORCHESTRATOR_INSTRUCTIONS, [get_weather, explode, ask_helper])
        with _agent_span("orchestrator", ORCHESTRATOR_MODEL, PROMPT, self.agent_spans) as answered:
            reply = await self.client.aio.models.generate_content(
                model=ORCHESTRATOR_MODEL, contents=PROMPT, config=config
            )
            answered(reply.text or "")
            return reply.text or ""


def run_scenario(*, agent_spans: bool = True) -> str:
    """Run the scenario (sync client); the orchestrator's answer.

    Args:
        agent_spans: let the app record its ``invoke_agent`` spans; False leaves the instrumentation's.
    """
    return _Run(make_client(), agent_spans).orchestrator()


async def run_scenario_async(*, agent_spans: bool = True) -> str:
    """`run_scenario` on the client's ``.aio`` side, in the running event loop."""
    return await _Run(make_client(), agent_spans).orchestrator_async()


def record_spans(*, agent_spans: bool = True) -> list[ReadableSpan]:
    """Run the scenario instrumented under an in-memory exporter; return its finished spans.

    Leaves the instrumentation switched off afterwards.
    """
    return _recording.record_spans(instrument, uninstrument, lambda: run_scenario(agent_spans=agent_spans))
