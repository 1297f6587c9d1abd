"""Anthropic SDK + OpenInference stack: a hand-written tool loop on ``anthropic``, its model calls traced
by ``openinference-instrumentation-anthropic``, its agents and tools by OpenInference's own tracer.

Instrumentation
---------------
`instrument` switches on ``AnthropicInstrumentor`` (OpenInference) and makes the ``OITracer`` (from
``openinference-instrumentation``, the helpers OpenInference gives hand-written code) that the loop
records its agents and tools with; `uninstrument` switches both off.

The instrumentation (3.x) wraps ``Messages.create`` (and ``stream``, ``Completions.create``, sync and
async): one ``messages.create`` span per call (INTERNAL), ``openinference.span.kind = LLM``,
``llm.model_name`` / ``llm.response.model_name`` (the response's model), ``llm.request.model_name``,
``llm.provider = anthropic``, ``llm.system = anthropic``, ``llm.token_count.prompt`` / ``completion`` /
``total`` (plus cache-read / cache-write details when the API reports them), ``llm.finish_reason`` (the
stop reason as Anthropic says it: ``tool_use``, ``end_turn``), ``llm.invocation_parameters`` (the
request minus messages and tools), the request's tools as ``llm.tools.N.tool.json_schema``,
``llm.input_messages.N.*`` (the system prompt as message 0, tool results as ``tool`` messages with
``message.tool_call_id``) and ``llm.output_messages.0.message.*`` with each ``tool_use`` block as
``...message.tool_calls.M.tool_call.{id,function.name,function.arguments}``, and ``input.value`` /
``output.value`` (the request and response JSON). A failed request is status ERROR with an
``exception`` event.

It sees the client only: nothing says which agent made a call, or that a tool ran. Why OpenInference's
own tracer for those: an OpenInference user already has it (``openinference-instrumentation`` comes
with every OpenInference instrumentation, and Phoenix shows its spans), and the trace then speaks one
dialect. The loop makes

- an ``AGENT`` span named after the agent: ``agent.name``, ``input.value`` (the prompt) and
  ``output.value`` (the answer);
- a ``TOOL`` span named after the tool: ``tool.name``, ``tool_call.id`` (the ``tool_use`` id),
  ``input.value`` (the arguments JSON), ``output.value`` (the result).

A tool that raises: the ``OITracer`` span context manager records an ``exception`` event and status
ERROR with ``"<type>: <message>"``; the loop sends the message back to the model as a ``tool_result``
with ``is_error`` and the run goes on. The nested ``helper`` runs inside ``ask_helper``'s TOOL span.
With ``run_scenario(agent_spans=False)`` only the ``Messages`` spans are recorded.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from openinference.instrumentation import OITracer, TraceConfig
from openinference.instrumentation.anthropic import AnthropicInstrumentor
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _anthropic_scenario as _scenario
from . import _recording
from ._anthropic_scenario import SetResult
from ._instrumentors import switch_off, switch_on
from ._routing import RoutingTracerProvider
from ._scenario import EXPECTED, PROMPT

__all__ = [
    "EXPECTED",
    "PROMPT",
    "instrument",
    "loop_options",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]


@dataclass(frozen=True)
class _OpenInferenceRecorder:
    """The loop's agent and tool spans, made with OpenInference's tracer."""

    tracer: OITracer

    @contextmanager
    def agent(self, name: str, model: str, prompt: str) -> Iterator[SetResult]:
        with self.tracer.start_as_current_span(
            name, openinference_span_kind="agent", attributes={"agent.name": name}
        ) as span:
            span.set_input(prompt)
            yield span.set_output

    @contextmanager
    def tool(self, name: str, call_id: str, arguments: Mapping[str, Any]) -> Iterator[SetResult]:
        with self.tracer.start_as_current_span(
            name, openinference_span_kind="tool", attributes={"tool.name": name, "tool_call.id": call_id}
        ) as span:
            span.set_input(dict(arguments))  # JSON, mime type application/json
            yield span.set_output


_STATE = _scenario.LoopState()


def instrument(tracer_provider: trace.TracerProvider | None = None, *, sdk_spans: bool = True) -> None:
    """Switch on OpenInference's Anthropic instrumentation and the loop's OpenInference spans.

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up as each span
            starts.
        sdk_spans: the client's own spans (anthropic 2.x) go to the same provider; False switches them off.
    """
    uninstrument()
    provider = RoutingTracerProvider(tracer_provider)
    switch_on(AnthropicInstrumentor(), tracer_provider=provider)
    tracer = OITracer(provider.get_tracer(__name__), config=TraceConfig())
    _STATE.recorder = _OpenInferenceRecorder(tracer)
    _STATE.telemetry = _scenario.client_telemetry(tracer_provider, sdk_spans)


def uninstrument() -> None:
    """Switch the instrumentation off; the loop records nothing, the client has the SDK's default."""
    switch_off(AnthropicInstrumentor())
    _STATE.recorder = None
    _STATE.telemetry = None


def loop_options(agent_spans: bool = True) -> tuple[_scenario.Recorder, _scenario.Telemetry]:
    """What the loop runs with now: its recorder and the client's ``open_telemetry`` option (for apps
    that run the loop on this stack's instrumentation, e.g. ``instrumentation.mcp_openinference``)."""
    return _STATE.options(agent_spans)


def run_scenario(*, agent_spans: bool = True) -> str:
    """Run the scenario (sync client); the orchestrator's answer.

    Args:
        agent_spans: let the loop record its AGENT and TOOL spans; False leaves the model calls alone.
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
