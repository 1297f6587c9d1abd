"""OpenAI SDK stack: ``opentelemetry-instrumentation-openai-v2`` on a home-grown tool loop.

Instrumentation
---------------
`instrument` switches on ``OpenAIInstrumentor`` (the official OpenTelemetry instrumentation of the
``openai`` client) and builds an ``opentelemetry-util-genai`` ``TelemetryHandler`` that the scenario's
hand-written agent loop uses for its own ``invoke_agent`` / ``execute_tool`` spans; `uninstrument`
switches the instrumentor off.

The instrumentation (openai-v2 2.x, util-genai 1.x) always follows the latest GenAI conventions: one
``chat <model>`` CLIENT span per ``chat.completions.create`` call with ``gen_ai.operation.name = chat``,
``gen_ai.provider.name = openai``, ``gen_ai.request.model`` / ``gen_ai.response.model``,
``gen_ai.usage.input_tokens`` / ``output_tokens``, ``gen_ai.response.finish_reasons``. Message content
follows ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` (`instrument` sets it):

===============  ==================================================================================
``content``      where the messages, tool arguments and results go
===============  ==================================================================================
"span_only"      span attributes ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (tool calls as
                 ``tool_call`` parts with their arguments), ``gen_ai.tool.call.arguments`` / ``.result``
"event_only"     log records (``gen_ai.client.inference.operation.details``) through the *logs* API:
                 the spans carry no content at all
"span_and_event" both
"no_content"     nowhere (the default when the variable is unset)
===============  ==================================================================================

The agent and tool spans come from the scenario's own loop through util-genai (``invoke_agent <name>``
INTERNAL with ``gen_ai.agent.name``; ``execute_tool <name>`` with ``gen_ai.tool.name``,
``gen_ai.tool.call.id``). Without them (``run_scenario(agent_spans=False)``) the trace holds only the
``chat`` spans: tool executions are then known only from the tool calls the model asked for.

Tool failures
-------------
The loop catches a tool's exception, ends the tool span with ``invocation.fail(exc)`` (status ERROR with
the message, ``error.type`` = the exception's type name; util-genai records no ``exception`` event) and
sends ``"Error: <message>"`` back to the model as the tool result; the run goes on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx2 as httpx
from openai import OpenAI
from opentelemetry import trace
from opentelemetry._logs import LoggerProvider
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.util.genai.handler import TelemetryHandler
from opentelemetry.util.genai.types import InputMessage, OutputMessage, Text

from . import _recording
from ._chat_completions import scripted_reply
from ._instrumentors import restore_environment, set_environment
from ._routing import RoutingTracerProvider
from ._scenario import EXPECTED, EXPLODE_MESSAGE, HELPER_MODEL, ORCHESTRATOR_MODEL, PROMPT, SCRIPTS
from ._scenario import get_weather as _weather

__all__ = [
    "CONTENT_MODES",
    "EXPECTED",
    "PROMPT",
    "ContentMode",
    "instrument",
    "make_client",
    "record_spans",
    "run_scenario",
    "uninstrument",
]

ContentMode = Literal["span_only", "event_only", "span_and_event", "no_content"]
CONTENT_MODES: tuple[ContentMode, ...] = ("span_only", "event_only", "span_and_event", "no_content")
_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
#: util-genai emits log records when this says so, whatever the content mode: `instrument` sets it too,
#: so that a value left in the environment (by an app, a plugin or another test) cannot change the mode
_EVENT_ENV = "OTEL_INSTRUMENTATION_GENAI_EMIT_EVENT"


# --------------------------------------------------------------------------------------------------
# Instrumentation
# --------------------------------------------------------------------------------------------------


@dataclass
class _State:
    instrumentor: OpenAIInstrumentor | None = None
    handler: TelemetryHandler | None = None
    #: the environment variables `instrument` set, with the values they had before
    env: dict[str, str | None] = field(default_factory=dict)


_STATE = _State()


def instrument(
    tracer_provider: trace.TracerProvider | None = None,
    *,
    content: ContentMode = "span_only",
    logger_provider: LoggerProvider | None = None,
) -> None:
    """Switch on the OpenAI instrumentation and the agent loop's util-genai handler.

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up each time a
            span starts (so a provider installed later, e.g. by the traceassert pytest plugin, is used).
        content: the content-capturing mode: sets ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``
            for the process until `uninstrument` (util-genai 1.1 reads it as each span ends).
        logger_provider: where the log records go (``event_only`` / ``span_and_event``); None means the
            global logger provider.
    """
    uninstrument()
    events = "true" if content in ("event_only", "span_and_event") else "false"
    _STATE.env = set_environment({_CONTENT_ENV: content, _EVENT_ENV: events})
    provider = RoutingTracerProvider(tracer_provider)
    instrumentor = OpenAIInstrumentor()  # type: ignore[no-untyped-call]
    instrumentor.instrument(tracer_provider=provider, logger_provider=logger_provider)
    _STATE.instrumentor = instrumentor
    _STATE.handler = TelemetryHandler(tracer_provider=provider, logger_provider=logger_provider)


def uninstrument() -> None:
    """Switch the OpenAI instrumentation off; the agent loop emits no spans of its own either."""
    if _STATE.instrumentor is not None:
        _STATE.instrumentor.uninstrument()
    _STATE.instrumentor = None
    _STATE.handler = None
    restore_environment(_STATE.env)
    _STATE.env = {}


# --------------------------------------------------------------------------------------------------
# The scripted OpenAI endpoint
# --------------------------------------------------------------------------------------------------


def _respond(request: httpx.Request) -> httpx.Response:
    """The fake endpoint: the turn is read off the request (tool results so far), per model."""
    status, body = scripted_reply(SCRIPTS, json.loads(request.content))
    return httpx.Response(status, json=body)


def make_client() -> OpenAI:
    """An OpenAI client whose requests are answered by the script (``httpx.MockTransport``, no sockets)."""
    http_client = httpx.Client(transport=httpx.MockTransport(_respond))
    return OpenAI(
        api_key="test", base_url="https://scripted.invalid/v1", http_client=http_client, max_retries=0
    )


# --------------------------------------------------------------------------------------------------
# A home-grown agent: a plain tool loop over chat completions
# --------------------------------------------------------------------------------------------------

Tool = Callable[..., str]


def _function_spec(name: str, params: Sequence[str], description: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {p: {"type": "string"} for p in params},
                "required": list(params),
            },
        },
    }


@dataclass
class _LoopAgent:
    """A minimal agent: ask the model, run the tools it asks for, repeat until it answers in text."""

    name: str
    model: str
    tools: dict[str, Tool]
    specs: list[dict[str, Any]]

    def run(self, client: OpenAI, prompt: str) -> str:
        handler = _STATE.handler
        if handler is None:
            return self._loop(client, prompt)
        invocation = handler.invoke_local_agent(agent_name=self.name, request_model=self.model)
        invocation.input_messages = [InputMessage(role="user", parts=[Text(content=prompt)])]
        try:
            answer = self._loop(client, prompt)
        except Exception as exc:
            invocation.fail(exc)
            raise
        invocation.output_messages = [
            OutputMessage(role="assistant", parts=[Text(content=answer)], finish_reason="stop")
        ]
        invocation.stop()
        return answer

    def _loop(self, client: OpenAI, prompt: str) -> str:
        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        while True:
            kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
            if self.specs:
                kwargs["tools"] = self.specs
            completion = client.chat.completions.create(**kwargs)
            message = completion.choices[0].message
            if not message.tool_calls:
                return message.content or ""
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                fn = call.function
                result = self._execute(client, call.id, fn.name, json.loads(fn.arguments or "{}"))
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})

    def _execute(self, client: OpenAI, call_id: str, name: str, args: dict[str, Any]) -> str:
        handler = _STATE.handler
        invocation = handler.tool(name) if handler is not None else None
        if invocation is not None:
            invocation.tool_call_id = call_id
            invocation.arguments = args
        try:
            result = self.tools[name](client, **args)
        except Exception as exc:
            if invocation is not None:
                invocation.fail(exc)
            return f"Error: {exc}"
        if invocation is not None:
            invocation.tool_result = result
            invocation.stop()
        return result


def _get_weather(client: OpenAI, city: str) -> str:
    return _weather(city)


def _explode(client: OpenAI) -> str:
    raise RuntimeError(EXPLODE_MESSAGE)


helper = _LoopAgent(name="helper", model=HELPER_MODEL, tools={}, specs=[])


def _ask_helper(client: OpenAI, question: str) -> str:
    return helper.run(client, question)


orchestrator = _LoopAgent(
    name="orchestrator",
    model=ORCHESTRATOR_MODEL,
    tools={"get_weather": _get_weather, "explode": _explode, "ask_helper": _ask_helper},
    specs=[
        _function_spec("get_weather", ["city"], "Current weather in a city."),
        _function_spec("explode", [], "A tool that always fails."),
        _function_spec("ask_helper", ["question"], "Ask the helper agent for advice."),
    ],
)


def run_scenario(*, agent_spans: bool = True) -> str:
    """Run the scenario and return the orchestrator's answer.

    Args:
        agent_spans: let the loop emit its util-genai ``invoke_agent`` / ``execute_tool`` spans; False
            leaves only the instrumentation's ``chat`` spans.
    """
    handler = _STATE.handler
    if not agent_spans:
        _STATE.handler = None
    try:
        with make_client() as client:
            return orchestrator.run(client, PROMPT)
    finally:
        _STATE.handler = handler


def record_spans(
    *,
    content: ContentMode = "span_only",
    agent_spans: bool = True,
    logger_provider: LoggerProvider | None = None,
) -> list[ReadableSpan]:
    """Run the scenario instrumented under an in-memory exporter; return its finished spans (the log
    records go to ``logger_provider``, else to the global one).

    Leaves the instrumentation switched off afterwards.
    """
    return _recording.record_spans(
        lambda p: instrument(p, content=content, logger_provider=logger_provider),
        uninstrument,
        lambda: run_scenario(agent_spans=agent_spans),
    )
