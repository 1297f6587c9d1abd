"""Anthropic SDK + OpenLLMetry stack: a hand-written tool loop on ``anthropic``, its model calls traced by
OpenLLMetry's ``opentelemetry-instrumentation-anthropic``, its agents and tools by util-genai.

Instrumentation
---------------
`instrument` switches on OpenLLMetry's ``AnthropicInstrumentor`` and builds the
``opentelemetry-util-genai`` ``TelemetryHandler`` that the loop records its agents and tools with (as
``instrumentation.openai_v2`` does); `uninstrument` switches both off.

The instrumentation (0.62) wraps ``Messages.create`` / ``stream`` (sync and async; also the beta
messages and the legacy ``Completions.create``): one ``anthropic.chat`` CLIENT span per call (scope
``opentelemetry.instrumentation.anthropic``) with ``gen_ai.operation.name = chat``,
``gen_ai.provider.name = anthropic``, ``gen_ai.request.model`` / ``gen_ai.response.model``,
``gen_ai.response.id``, ``gen_ai.usage.input_tokens`` / ``output_tokens`` / ``total_tokens`` (plus the
cache-read and cache-creation counts), ``gen_ai.response.finish_reasons`` (mapped to GenAI values:
``tool_use`` becomes ``tool_call``, ``end_turn`` ``stop``), ``gen_ai.system_instructions``, and, while
``TRACELOOP_TRACE_CONTENT`` is not "false", ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (the
GenAI parts form: ``tool_use`` blocks as ``tool_call`` parts with their arguments, tool results as
``tool_call_response`` parts) and ``gen_ai.tool.definitions``. A failed request is status ERROR with
``error.type``.

It sees the client only. Why util-genai for the agent and tool spans: OpenLLMetry's own decorators live in
``traceloop-sdk``, which installs and configures every OpenLLMetry instrumentation at once; util-genai is
the small, convention-following helper (``invoke_agent <name>`` INTERNAL with ``gen_ai.agent.name``;
``execute_tool <name>`` with ``gen_ai.tool.name``, ``gen_ai.tool.call.id`` and, with
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only`` (`instrument` sets it),
``gen_ai.tool.call.arguments`` / ``.result``). traceassert reads the model calls with its OpenLLMetry
dialect and the agents and tools with its GenAI one.

A tool that raises: the loop ends its span with ``invocation.fail(exc)`` (status ERROR with the message,
``error.type`` = the exception's type; util-genai records no ``exception`` event) and sends the message
back to the model as a ``tool_result`` with ``is_error``; the run goes on. With
``run_scenario(agent_spans=False)`` only the ``chat`` spans are recorded.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry.instrumentation import anthropic as _traceloop_anthropic
from opentelemetry.instrumentation.anthropic import AnthropicInstrumentor
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.util.genai.handler import TelemetryHandler

from . import _anthropic_scenario as _scenario
from . import _recording
from ._anthropic_scenario import SetResult
from ._genai_spans import agent_span
from ._instrumentors import remove_wrappers, restore_environment, set_environment, switch_off, switch_on
from ._routing import RoutingTracerProvider
from ._scenario import EXPECTED, PROMPT

__all__ = [
    "EXPECTED",
    "PROMPT",
    "instrument",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]

_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


@dataclass(frozen=True)
class _GenAIRecorder:
    """The loop's agent and tool spans, made with util-genai."""

    handler: TelemetryHandler

    def agent(self, name: str, model: str, prompt: str) -> AbstractContextManager[SetResult]:
        return agent_span(self.handler, name, model, prompt)

    @contextmanager
    def tool(self, name: str, call_id: str, arguments: Mapping[str, Any]) -> Iterator[SetResult]:
        invocation = self.handler.tool(name)
        invocation.tool_call_id = call_id
        invocation.arguments = dict(arguments)
        results: list[str] = []
        try:
            yield results.append
        except Exception as exc:
            invocation.fail(exc)
            raise
        invocation.tool_result = results[-1] if results else None
        invocation.stop()


@dataclass
class _State(_scenario.LoopState):
    #: the environment variables `instrument` set, with the values they had before
    env: dict[str, str | None] = field(default_factory=dict)


_STATE = _State()

#: the modules whose classes OpenLLMetry's instrumentor wraps (see `remove_wrappers`)
_WRAPPED_MODULES = tuple(
    sorted(
        {
            str(method["package"])
            for method in (*_traceloop_anthropic.WRAPPED_METHODS, *_traceloop_anthropic.WRAPPED_AMETHODS)
        }
    )
)


def instrument(tracer_provider: trace.TracerProvider | None = None, *, sdk_spans: bool = True) -> None:
    """Switch on OpenLLMetry's Anthropic instrumentation and the loop's util-genai spans.

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up as each span
            starts.
        sdk_spans: the client's own spans (anthropic 2.x) go to the same provider; False switches them off.
    """
    uninstrument()
    _STATE.env = set_environment({_CONTENT_ENV: "span_only"})
    provider = RoutingTracerProvider(tracer_provider)
    switch_on(AnthropicInstrumentor(), tracer_provider=provider)
    _STATE.recorder = _GenAIRecorder(TelemetryHandler(tracer_provider=provider))
    _STATE.telemetry = _scenario.client_telemetry(tracer_provider, sdk_spans)


def uninstrument() -> None:
    """Switch the instrumentation off; the loop records nothing either."""
    if switch_off(AnthropicInstrumentor()):
        remove_wrappers(_WRAPPED_MODULES, "opentelemetry.instrumentation.anthropic")
    _STATE.recorder = None
    _STATE.telemetry = None
    restore_environment(_STATE.env)
    _STATE.env = {}


def run_scenario(*, agent_spans: bool = True) -> str:
    """Run the scenario (sync client); the orchestrator's answer.

    Args:
        agent_spans: let the loop record its ``invoke_agent`` / ``execute_tool`` spans; False leaves the
            model calls alone.
    """
    return _STATE.run(agent_spans)


async def run_scenario_async(*, agent_spans: bool = True) -> str:
    """`run_scenario` on the async client, in the running event loop."""
    return await _STATE.run_async(agent_spans)


def record_spans(*, agent_spans: bool = True, sdk_spans: bool = True) -> list[ReadableSpan]:
    """Run the scenario instrumented under an in-memory exporter; return its finished spans.

    Leaves the instrumentation switched off afterwards.
    """
    return _recording.record_spans(
        lambda p: instrument(p, sdk_spans=sdk_spans),
        uninstrument,
        lambda: run_scenario(agent_spans=agent_spans),
    )
