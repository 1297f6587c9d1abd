"""Strands Agents stack: Strands' built-in OpenTelemetry spans, and the scripted scenario on a fake model.

Instrumentation
---------------
Strands always traces, through one process-wide ``strands.telemetry.tracer.Tracer`` (scope
``strands.telemetry.tracer``) that takes its OTel tracer from the global provider when it is first
made. `instrument` points that tracer at a provider of your choice (or at the global provider, looked
up as each span starts) and chooses the convention flavour; `uninstrument` restores it.

Spans of one ``Agent`` run (strands-agents 1.x):

- ``invoke_agent <name>``: ``gen_ai.agent.name``, ``gen_ai.request.model``, ``gen_ai.agent.tools``, and
  on success the run's *accumulated* usage as ``gen_ai.usage.input_tokens`` / ``output_tokens`` /
  ``total_tokens`` (plus the deprecated ``prompt_tokens`` / ``completion_tokens``): the same keys as a
  model call, so summing ``gen_ai.usage.*`` over a Strands trace counts every token twice;
- ``execute_event_loop_cycle`` (one per model turn, ``event_loop.cycle_id``) holding
- ``chat`` (one per model call: ``gen_ai.request.model``, ``gen_ai.usage.*``; the stop reason only in
  the message event / output messages) and ``execute_tool <tool>`` (``gen_ai.tool.name``,
  ``gen_ai.tool.call.id``, ``gen_ai.tool.status``; status ERROR with the tool's error text when the
  tool failed).

Where the content goes depends on ``OTEL_SEMCONV_STABILITY_OPT_IN`` (read when the tracer is made;
`instrument` sets the same flags on the tracer directly):

==========  =====================================================================================
flavour     content
==========  =====================================================================================
"events"    default: span *events* ``gen_ai.user.message``, ``gen_ai.assistant.message``,
            ``gen_ai.tool.message`` (``content`` = JSON content blocks, tool ``input``) and
            ``gen_ai.choice`` (``message``, ``finish_reason``); ``gen_ai.system = strands-agents``.
"latest"    ``gen_ai_latest_experimental``: one ``gen_ai.client.inference.operation.details`` event
            per span with ``gen_ai.input.messages`` / ``gen_ai.output.messages`` in GenAI parts form;
            tool spans get ``gen_ai.tool.call.arguments`` / ``.result`` attributes;
            ``gen_ai.provider.name = strands-agents``.
"attributes"  ``gen_ai_latest_experimental,gen_ai_span_attributes_only``: as "latest", with the
            messages as span attributes instead of an event.
==========  =====================================================================================

Tool failures
-------------
A tool that raises does not end a Strands run: the executor turns the exception into a tool result with
``status="error"`` and text ``"Error: <message>"`` that goes back to the model. The tool span gets
status ERROR (description = the exception text), an ``exception`` event and ``gen_ai.tool.status =
error``; the run's spans stay OK.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from strands import Agent, tool
from strands.models.model import Model
from strands.telemetry import tracer as strands_tracer
from strands.types.content import Messages
from strands.types.streaming import StreamEvent

from . import _recording, _scenario
from ._routing import RoutingTracer
from ._scenario import EXPECTED, PROMPT, Turn
from ._scenario import get_weather as _weather

__all__ = [
    "EXPECTED",
    "FLAVOURS",
    "PROMPT",
    "Flavour",
    "ScriptedModel",
    "instrument",
    "make_agents",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]

Flavour = Literal["events", "latest", "attributes"]
#: the content layouts Strands can emit (see the module docstring)
FLAVOURS: tuple[Flavour, ...] = ("events", "latest", "attributes")
_SCOPE = "strands.telemetry.tracer"


# --------------------------------------------------------------------------------------------------
# Instrumentation
# --------------------------------------------------------------------------------------------------


@dataclass
class _Saved:
    values: dict[str, Any] = field(default_factory=dict)


_SAVED = _Saved()
_FLAGS = ("tracer", "use_latest_genai_conventions", "_span_attributes_only")


def instrument(tracer_provider: trace.TracerProvider | None = None, *, flavour: Flavour = "events") -> None:
    """Send Strands' spans to ``tracer_provider``, with message content laid out as ``flavour``.

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up each time a
            span starts (so a provider installed later, e.g. by the traceassert pytest plugin, is used).
        flavour: "events" (Strands' default), "latest" or "attributes" (see the module docstring).
    """
    uninstrument()
    shared = strands_tracer.get_tracer()
    _SAVED.values = {name: getattr(shared, name) for name in _FLAGS}
    shared.tracer = RoutingTracer(tracer_provider, _SCOPE)
    shared.use_latest_genai_conventions = flavour != "events"
    shared._span_attributes_only = flavour == "attributes"


def uninstrument() -> None:
    """Restore the tracer and convention flags Strands had before `instrument`."""
    if not _SAVED.values:
        return
    shared = strands_tracer.get_tracer()
    for name, value in _SAVED.values.items():
        setattr(shared, name, value)
    _SAVED.values = {}


# --------------------------------------------------------------------------------------------------
# The scenario
# --------------------------------------------------------------------------------------------------


def _events(turn: Turn, index: int) -> list[StreamEvent]:
    """The stream a Bedrock-style provider sends for ``turn``."""
    events: list[StreamEvent] = [{"messageStart": {"role": "assistant"}}]
    if turn.tool is None:
        events += [
            {"contentBlockStart": {"start": {}}},
            {"contentBlockDelta": {"delta": {"text": turn.text}}},
            {"contentBlockStop": {}},
            {"messageStop": {"stopReason": "end_turn"}},
        ]
    else:
        tool_use = {"name": turn.tool, "toolUseId": turn.call_id(index)}
        events += [
            {"contentBlockStart": {"start": {"toolUse": tool_use}}},  # type: ignore[typeddict-item]
            {"contentBlockDelta": {"delta": {"toolUse": {"input": turn.arguments_json()}}}},
            {"contentBlockStop": {}},
            {"messageStop": {"stopReason": "tool_use"}},
        ]
    usage = {
        "inputTokens": turn.input_tokens,
        "outputTokens": turn.output_tokens,
        "totalTokens": turn.total_tokens,
    }
    events.append({"metadata": {"usage": usage, "metrics": {"latencyMs": 1}}})  # type: ignore[typeddict-item]
    return events


class ScriptedModel(Model):
    """A fake Strands model that streams a script, one turn per model call of a run (no network).

    The turn is read off the conversation (how many tool results it already holds), so every run
    replays the script from the start.
    """

    def __init__(self, model_id: str, turns: Sequence[Turn]) -> None:
        self.config: dict[str, Any] = {"model_id": model_id}
        self.turns = tuple(turns)

    def update_config(self, **model_config: Any) -> None:
        self.config.update(model_config)

    def get_config(self) -> Any:
        return self.config

    def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[dict[str, Any], None]:
        raise NotImplementedError("the scripted model has no structured output")

    async def stream(self, messages: Messages, *args: Any, **kwargs: Any) -> AsyncIterable[StreamEvent]:
        index = sum(1 for message in messages for block in message["content"] if "toolResult" in block)
        for event in _events(_scenario.turn_at(self.turns, index), index):
            yield event


@tool
def get_weather(city: str) -> str:
    """Current weather in a city.

    Args:
        city: the city
    """
    return _weather(city)


@tool
def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise RuntimeError(_scenario.EXPLODE_MESSAGE)


def make_agents() -> tuple[Agent, Agent]:
    """A fresh orchestrator and helper (Strands agents keep their conversation, so each run gets new ones)."""
    helper = Agent(
        name="helper",
        model=ScriptedModel(_scenario.HELPER_MODEL, _scenario.HELPER_TURNS),
        system_prompt=_scenario.HELPER_INSTRUCTIONS,
        callback_handler=None,
    )

    @tool
    async def ask_helper(question: str) -> str:
        """Ask the helper agent for advice.

        Args:
            question: what to ask
        """
        result = await helper.invoke_async(question)
        return str(result).strip()

    orchestrator = Agent(
        name="orchestrator",
        model=ScriptedModel(_scenario.ORCHESTRATOR_MODEL, _scenario.ORCHESTRATOR_TURNS),
        system_prompt=_scenario.ORCHESTRATOR_INSTRUCTIONS,
        tools=[get_weather, explode, ask_helper],
        callback_handler=None,
    )
    return orchestrator, helper


async def run_scenario_async() -> str:
    """Run the scenario to completion in the running event loop; return the orchestrator's answer."""
    orchestrator, _ = make_agents()
    result = await orchestrator.invoke_async(PROMPT)
    return str(result).strip()


def run_scenario() -> str:
    """Run the scenario to completion and return the orchestrator's answer."""
    return asyncio.run(run_scenario_async())


def record_spans(*, flavour: Flavour = "events") -> list[ReadableSpan]:
    """Run the scenario instrumented under an in-memory exporter; return its finished spans.

    Leaves Strands' tracer as it was.
    """
    return _recording.record_spans(lambda p: instrument(p, flavour=flavour), uninstrument, run_scenario)
