"""BeeAI framework + OpenInference, read through the generic path: a ``RequirementAgent`` traced by
``openinference-instrumentation-beeai``.

Instrumentation
---------------
`instrument` calls ``BeeAIInstrumentor().instrument(tracer_provider=...)``, which listens to BeeAI's
event emitter and turns runs into spans (scope ``openinference.instrumentation.beeai``):

- ``<agent name>``: ``openinference.span.kind=AGENT`` with ``agent.name``, ``input.value`` (the prompt),
  ``output.value``; inside it an AGENT span ``final_answer`` **without** ``agent.name`` for the
  agent's final-answer event;
- ``<ChatModel class>``: an ``LLM`` span per model call: ``llm.model_name``, ``llm.provider``,
  ``llm.token_count.*``, ``llm.input_messages.*``, ``llm.output_messages.N.message.tool_calls.M`` with
  ids, ``llm.tools.N.tool.json_schema``;
- ``<tool name>``: a ``TOOL`` span per call: ``tool.name``, ``tool.json_schema``, ``input.value`` =
  ``{"input": {<the arguments>}, "options": null}``, ``output.value``. A tool that raises ends its span
  with status ERROR (BeeAI's ``ToolError``) and has a child TOOL span ``error`` (no ``tool.name``) for the
  error event. ``final_answer`` is a tool too (the agent's answer is its call).

What it does not record: a tool call id on tool spans (the model's requests have them).
``BeeAIInstrumentor()`` is a singleton whose ``__init__`` resets the hook that removes its listener:
construct it once (as `_instrumentor` does), or ``uninstrument`` leaves the spans coming.

The scenario
------------
A scripted ``ChatModel`` subclass (no network) plays `_generic_scenario.TURNS`; the answer is a
``final_answer`` call.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import AsyncGenerator
from typing import Any

from beeai_framework.agents.requirement import RequirementAgent  # type: ignore[import-untyped]
from beeai_framework.backend.chat import ChatModel  # type: ignore[import-untyped]
from beeai_framework.backend.message import (  # type: ignore[import-untyped]
    AssistantMessage,
    MessageToolCallContent,
)
from beeai_framework.backend.types import ChatModelOutput, ChatModelUsage  # type: ignore[import-untyped]
from beeai_framework.memory import UnconstrainedMemory  # type: ignore[import-untyped]
from beeai_framework.tools import tool  # type: ignore[import-untyped]
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _generic_scenario as _gs
from . import _recording
from ._instrumentors import switch_off, switch_on
from ._routing import RoutingTracerProvider

__all__ = [
    "AGENT",
    "EXPECTED",
    "RECORDING",
    "instrument",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]

RECORDING = "beeai_generic"
AGENT = "orchestrator"

#: ground truth from the script (`_generic_scenario`)
EXPECTED = _gs.expected(agent=AGENT, extra_tools=("final_answer",))


@functools.cache
def _instrumentor() -> Any:
    """The one instrumentor: ``BeeAIInstrumentor()`` is a singleton whose ``__init__`` forgets how to
    remove its event listener, so constructing it again would leave the listener on after
    ``uninstrument``."""
    from openinference.instrumentation.beeai import BeeAIInstrumentor

    return BeeAIInstrumentor()


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Turn on OpenInference's BeeAI instrumentation (None: the global provider, looked up per span)."""
    switch_on(_instrumentor(), tracer_provider=RoutingTracerProvider(tracer_provider))


def uninstrument() -> None:
    """Switch the instrumentation off."""
    switch_off(_instrumentor())


class ScriptedChatModel(ChatModel):  # type: ignore[misc]
    """A chat model that plays the script, one turn per call; the answer is a ``final_answer`` call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    @property
    def model_id(self) -> str:
        return _gs.MODEL

    @property
    def provider_id(self) -> str:
        return "openai"

    async def _create(self, input: Any, run: Any) -> ChatModelOutput:
        index = self.calls
        self.calls += 1
        turn = _gs.TURNS[index]
        name, args = (turn.tool, dict(turn.args)) if turn.tool else ("final_answer", {"response": turn.text})
        call = MessageToolCallContent(id=f"call_{index}_{name}", tool_name=name, args=json.dumps(args))
        usage = ChatModelUsage(
            prompt_tokens=turn.input_tokens,
            completion_tokens=turn.output_tokens,
            total_tokens=turn.total_tokens,
        )
        return ChatModelOutput(output=[AssistantMessage(call)], usage=usage, finish_reason="tool_calls")

    async def _create_stream(self, input: Any, run: Any) -> AsyncGenerator[ChatModelOutput]:
        yield await self._create(input, run)


@tool  # type: ignore[untyped-decorator]
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return _gs.get_weather(city)


@tool  # type: ignore[untyped-decorator]
def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise RuntimeError(_gs.EXPLODE_MESSAGE)


async def run_scenario_async() -> str:
    """Run the agent once and return its answer."""
    agent = RequirementAgent(
        llm=ScriptedChatModel(), memory=UnconstrainedMemory(), tools=[get_weather, explode], name=AGENT
    )
    result = await agent.run(_gs.PROMPT)
    return str(result.last_message.text)


def run_scenario() -> str:
    """`run_scenario_async` in a new event loop."""
    return asyncio.run(run_scenario_async())


def record_spans() -> list[ReadableSpan]:
    """The scenario's spans on a private provider (the instrumentation switched off afterwards)."""
    return _recording.record_spans(instrument, uninstrument, run_scenario)


if __name__ == "__main__":
    print(_gs.save(RECORDING, record_spans))
