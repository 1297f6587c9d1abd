"""Haystack + OpenInference, read through the generic path: a Haystack ``Agent`` traced by
``openinference-instrumentation-haystack``.

Instrumentation
---------------
`instrument` calls ``HaystackInstrumentor().instrument(tracer_provider=...)``, which wraps the ``run``
of every registered Haystack component. The spans (scope ``openinference.instrumentation.haystack``):

- ``Agent.run``: ``openinference.span.kind=CHAIN``, ``input.value`` / ``output.value`` as reprs of the
  ``ChatMessage`` objects. **No agent is marked**: no AGENT span, no ``agent.name``;
- ``ChatPromptBuilder.run``: a ``CHAIN`` span;
- ``<Generator class>.run``: an ``LLM`` span per model call (a component whose class name contains
  "Generator"): ``llm.model_name`` and ``llm.token_count.*`` from the reply's ``meta``,
  ``llm.input_messages.*`` (roles as ``ChatRole.USER`` ...; a tool result message has its role and no
  content, no call id), ``llm.output_messages.N.message.tool_calls.M`` (name and arguments, no id).

What it does not record: the tool executions (the ``Agent`` runs its ``ToolInvoker`` itself: no span),
so neither a tool's result nor its failure; the tool results in the model's input (role only).

The scenario
------------
A scripted chat generator (a Haystack component, no network) plays `_generic_scenario.TURNS`.
"""

from __future__ import annotations

from typing import Any

from haystack import component  # type: ignore[import-untyped]
from haystack.components.agents import Agent  # type: ignore[import-untyped]
from haystack.dataclasses import ChatMessage, ToolCall  # type: ignore[import-untyped]
from haystack.tools import tool  # type: ignore[import-untyped]
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _generic_scenario as _gs
from . import _recording
from ._instrumentors import switch_off, switch_on
from ._routing import RoutingTracerProvider

__all__ = ["EXPECTED", "RECORDING", "instrument", "record_spans", "run_scenario", "uninstrument"]

RECORDING = "haystack_generic"

#: ground truth from the script (`_generic_scenario`)
EXPECTED = _gs.expected()


def _instrumentor() -> Any:
    from openinference.instrumentation.haystack import HaystackInstrumentor

    return HaystackInstrumentor()


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Turn on OpenInference's Haystack instrumentation (None: the global provider, looked up per span)."""
    switch_on(_instrumentor(), tracer_provider=RoutingTracerProvider(tracer_provider))


def uninstrument() -> None:
    """Switch the instrumentation off."""
    switch_off(_instrumentor())


@component
class ScriptedChatGenerator:
    """A chat generator that plays the script, one turn per call (a fresh one per run)."""

    def __init__(self) -> None:
        self.calls = 0

    @component.output_types(replies=list[ChatMessage])
    def run(self, messages: list[ChatMessage], tools: Any = None, **kwargs: Any) -> dict[str, Any]:
        index = self.calls
        self.calls += 1
        turn = _gs.TURNS[index]
        meta = {
            "model": _gs.MODEL,
            "finish_reason": "tool_calls" if turn.tool else "stop",
            "usage": {
                "prompt_tokens": turn.input_tokens,
                "completion_tokens": turn.output_tokens,
                "total_tokens": turn.total_tokens,
            },
        }
        if turn.tool:
            call = ToolCall(tool_name=turn.tool, arguments=dict(turn.args), id=turn.call_id(index))
            return {"replies": [ChatMessage.from_assistant(tool_calls=[call], meta=meta)]}
        return {"replies": [ChatMessage.from_assistant(turn.text, meta=meta)]}


@tool  # type: ignore[untyped-decorator]
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return _gs.get_weather(city)


@tool  # type: ignore[untyped-decorator]
def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise RuntimeError(_gs.EXPLODE_MESSAGE)


def run_scenario() -> str:
    """Run the agent once and return its answer."""
    agent = Agent(
        chat_generator=ScriptedChatGenerator(), tools=[get_weather, explode], system_prompt="Answer."
    )
    result = agent.run(messages=[ChatMessage.from_user(_gs.PROMPT)])
    return str(result["messages"][-1].text)


def record_spans() -> list[ReadableSpan]:
    """The scenario's spans on a private provider (the instrumentation switched off afterwards)."""
    return _recording.record_spans(instrument, uninstrument, run_scenario)


if __name__ == "__main__":
    print(_gs.save(RECORDING, record_spans))
