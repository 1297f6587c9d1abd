"""Microsoft Agent Framework stack (``agent-framework-core``): its built-in OpenTelemetry GenAI spans.

Instrumentation
---------------
The framework traces itself (``agent_framework.observability``, scope ``agent_framework``): every span
starts on ``observability.get_tracer()``, which asks the *global* provider each time. `instrument`
switches instrumentation on with sensitive data (``enable_instrumentation(enable_sensitive_data=True)``:
without it no messages, tool arguments or results are recorded) and, given a provider, sends the spans
there; `uninstrument` restores the settings and the tracer lookup. ``configure_otel_providers`` (the
framework's exporter setup) is not used: the test chooses the provider.

Spans of one run (``Agent`` with a chat client built like the framework's own clients:
``FunctionInvocationLayer`` > ``ChatMiddlewareLayer`` > ``ChatTelemetryLayer`` > ``BaseChatClient``):

- ``invoke_agent <name>`` (``AgentTelemetryLayer``): ``gen_ai.operation.name = invoke_agent``,
  ``gen_ai.agent.name`` / ``.id``, ``gen_ai.provider.name`` (the client's ``OTEL_PROVIDER_NAME``),
  ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (JSON, GenAI parts form),
  ``gen_ai.system_instructions``, and the run's *accumulated* ``gen_ai.usage.input_tokens`` /
  ``output_tokens``: the same keys as a model call, so summing ``gen_ai.usage.*`` over a trace counts
  every token twice;
- ``chat <model>`` (``ChatTelemetryLayer``, one per model call): ``gen_ai.request.model``,
  ``gen_ai.response.model``, ``gen_ai.usage.*``, ``gen_ai.response.finish_reasons``, the messages;
- ``execute_tool <tool>`` (the function invocation loop): ``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
  ``gen_ai.tool.call.arguments`` / ``.result``; it is a *sibling* of the ``chat`` span that asked for it,
  under ``invoke_agent``.

Scenario
--------
The shared script (`_scenario`), on `ScriptedChatClient` (a ``BaseChatClient`` that returns the script's
``ChatResponse`` s, usage included: no network); ``ask_helper`` is the helper agent as a tool
(``helper.as_tool(name="ask_helper", arg_name="question")``), so ``invoke_agent helper`` nests under
``execute_tool ask_helper``. ``as_tool`` always runs the agent streaming (``run(..., stream=True)``): the
helper's model call is a streamed one (the script's response as one update, then its usage), which the
spans do not tell apart (no ``gen_ai.request.stream``). Framework version: ``agent-framework-core``
1.23.0.

Tool failures
-------------
A tool that raises does not end the run: the function loop sends the error back to the model as the
call's result (``Error: Function failed.`` unless ``include_detailed_errors``) and goes on. The
``execute_tool`` span gets status ERROR, ``error.type`` (the exception's class) and an ``exception``
event.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_framework import (
    Agent,
    BaseChatClient,
    ChatMiddlewareLayer,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    tool,
)
from agent_framework import observability as af_observability
from agent_framework.observability import ChatTelemetryLayer
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _recording, _scenario
from ._scenario import EXPECTED, PROMPT, Turn

__all__ = [
    "EXPECTED",
    "PROMPT",
    "ScriptedChatClient",
    "instrument",
    "make_agents",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]

_SCOPE = "agent_framework"


# --------------------------------------------------------------------------------------------------
# Instrumentation
# --------------------------------------------------------------------------------------------------


@dataclass
class _Saved:
    settings: dict[str, Any] = field(default_factory=dict)
    get_tracer: Callable[..., trace.Tracer] | None = None


_SAVED = _Saved()
_SETTINGS = ("enable_instrumentation", "enable_sensitive_data")


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Switch the framework's telemetry on, with message content, tool arguments and results.

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up each time a
            span starts (the framework's own behaviour).
    """
    uninstrument()
    settings = af_observability.OBSERVABILITY_SETTINGS
    _SAVED.settings = {name: getattr(settings, name) for name in _SETTINGS}
    af_observability.enable_instrumentation(enable_sensitive_data=True)
    if tracer_provider is not None:
        _SAVED.get_tracer = af_observability.get_tracer
        provider = tracer_provider

        def get_tracer(*args: Any, **kwargs: Any) -> trace.Tracer:
            return provider.get_tracer(_SCOPE, af_observability.version_info)

        af_observability.get_tracer = get_tracer  # type: ignore[assignment]


def uninstrument() -> None:
    """Restore the settings and tracer lookup the framework had before `instrument`."""
    if _SAVED.get_tracer is not None:
        af_observability.get_tracer = _SAVED.get_tracer  # type: ignore[assignment]
        _SAVED.get_tracer = None
    if _SAVED.settings:
        settings = af_observability.OBSERVABILITY_SETTINGS
        for name, value in _SAVED.settings.items():
            setattr(settings, name, value)
        _SAVED.settings = {}


# --------------------------------------------------------------------------------------------------
# The scenario
# --------------------------------------------------------------------------------------------------


def _response(turn: Turn, index: int, model: str) -> ChatResponse[Any]:
    """The ``ChatResponse`` a provider would return for ``turn``."""
    if turn.tool is None:
        contents = [Content.from_text(turn.text)]
        finish = "stop"
    else:
        contents = [
            Content.from_function_call(turn.call_id(index), turn.tool, arguments=turn.arguments_json())
        ]
        finish = "tool_calls"
    return ChatResponse(
        messages=[Message(role="assistant", contents=contents)],
        response_id=f"resp_{model}_{index}",
        model=model,
        finish_reason=finish,  # type: ignore[arg-type]
        usage_details={
            "input_token_count": turn.input_tokens,
            "output_token_count": turn.output_tokens,
            "total_token_count": turn.total_tokens,
        },
    )


class _ScriptedBase(BaseChatClient[Any]):
    """Plays a script: the ``n``-th model call of a conversation answers with the ``n``-th turn, ``n``
    read off the conversation (the tool results it holds), so every run replays from the start."""

    OTEL_PROVIDER_NAME = "scripted"

    def __init__(self, model: str, turns: Sequence[Turn], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.turns = tuple(turns)

    def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **kwargs: Any
    ) -> Any:
        index = sum(1 for m in messages for c in m.contents if c.type == "function_result")
        turn = _scenario.turn_at(self.turns, index)
        if not stream:
            return self._respond(turn, index)
        return self._build_response_stream(self._updates(turn, index))

    async def _respond(self, turn: Turn, index: int) -> ChatResponse[Any]:
        return _response(turn, index, self.model)

    async def _updates(self, turn: Turn, index: int) -> AsyncIterator[ChatResponseUpdate]:
        """The response as one streamed update, its usage as a second (as providers send it last)."""
        response = _response(turn, index, self.model)
        yield ChatResponseUpdate(
            contents=response.messages[0].contents,
            role="assistant",
            response_id=response.response_id,
            model=self.model,
            finish_reason=response.finish_reason,
        )
        usage = response.usage_details or {}
        yield ChatResponseUpdate(contents=[Content.from_usage(usage)], role="assistant", model=self.model)


class ScriptedChatClient(  # type: ignore[misc]
    FunctionInvocationLayer[Any],
    ChatMiddlewareLayer[Any],
    ChatTelemetryLayer[Any],
    _ScriptedBase,
):
    """The scripted client with the framework's layers, in the order its own clients stack them
    (``OpenAIChatClient``): function invocation, middleware, telemetry."""

    def __init__(self, model: str, turns: Sequence[Turn]) -> None:
        super().__init__(model=model, turns=turns)


@tool
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return _scenario.get_weather(city)


@tool
def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise RuntimeError(_scenario.EXPLODE_MESSAGE)


def make_agents() -> tuple[Agent[Any], Agent[Any]]:
    """A fresh orchestrator and helper; the helper is the orchestrator's ``ask_helper`` tool."""
    helper = Agent(
        client=ScriptedChatClient(_scenario.HELPER_MODEL, _scenario.HELPER_TURNS),
        name="helper",
        instructions=_scenario.HELPER_INSTRUCTIONS,
    )
    ask_helper = helper.as_tool(
        name="ask_helper", description="Ask the helper agent for advice.", arg_name="question"
    )
    orchestrator = Agent(
        client=ScriptedChatClient(_scenario.ORCHESTRATOR_MODEL, _scenario.ORCHESTRATOR_TURNS),
        name="orchestrator",
        instructions=_scenario.ORCHESTRATOR_INSTRUCTIONS,
        tools=[get_weather, explode, ask_helper],
    )
    return orchestrator, helper


async def run_scenario_async() -> str:
    """Run the scenario to completion in the running event loop; return the orchestrator's answer."""
    orchestrator, _ = make_agents()
    result = await orchestrator.run(PROMPT)
    return result.text


def run_scenario() -> str:
    """Run the scenario to completion and return the orchestrator's answer."""
    return asyncio.run(run_scenario_async())


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented under an in-memory exporter; return its finished spans.

    Leaves the framework's telemetry settings as they were.
    """
    return _recording.record_spans(instrument, uninstrument, run_scenario)
