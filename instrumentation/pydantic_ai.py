"""Pydantic AI stack: Pydantic AI's built-in OpenTelemetry instrumentation, and the scripted scenario.

Instrumentation
---------------
`instrument` switches on the instrumentation Pydantic AI ships (``Agent.instrument_all`` with
``InstrumentationSettings``, ``include_content=True``) for every agent; `uninstrument` switches it off
again. No extra package is involved: the spans come from ``pydantic_ai.capabilities.Instrumentation``.

Pydantic AI's ``InstrumentationSettings(version=...)`` selects a *data format* version (unrelated to the
package version). pydantic-ai-slim 2.x accepts 2, 3, 4, 5 and 6; the default is 5. Version 1 (the
original format, which recorded messages as span events rather than attributes) is gone: 2.x rejects it
with ``ValueError``. Versions 3 to 6 emit the same span names and attribute keys; for this scenario only
version 6's message roles differ from the default.

=======  =========================  ==================================================================
version  span names                 what changes
=======  =========================  ==================================================================
2        ``agent run``,             legacy span names (the agent and tool names are only in the
         ``running tool``,          ``gen_ai.agent.name`` / ``gen_ai.tool.name`` attributes); tool
         ``chat <model>``           arguments/result in ``tool_arguments`` / ``tool_response``.
                                    Deprecated (warns).
3        ``invoke_agent <agent>``,  GenAI semantic-convention names: ``gen_ai.agent.name``,
         ``execute_tool <tool>``,   ``gen_ai.tool.call.arguments`` / ``gen_ai.tool.call.result``;
         ``chat <model>``           thinking parts in messages. Deprecated (warns).
4        as 3                       multimodal message parts as ``uri`` / ``blob``. Deprecated (warns).
5        as 3                       default. Deferred tool calls (``CallDeferred`` /
                                    ``ApprovalRequired``) no longer mark the tool span ERROR.
6        as 3                       tool results in ``role='tool'`` messages (was ``user``); retry
                                    feedback that answers no tool call in ``role='system'``.
=======  =========================  ==================================================================

In every version: model requests are ``chat <model>`` CLIENT spans carrying ``gen_ai.usage.input_tokens``
/ ``gen_ai.usage.output_tokens``; the agent span carries the run's own usage as
``gen_ai.aggregated_usage.*`` (a custom namespace, so summing ``gen_ai.usage.*`` over the trace counts
each call once); every span is tagged with ``gen_ai.operation.name`` (``invoke_agent``,
``execute_tool``, ``chat``) and the agent spans with both ``gen_ai.agent.name`` and ``agent_name``; a
nested agent run is an ordinary agent span under the tool span that started it.

Tool failures
-------------
``explode`` raises ``ModelRetry``: the run goes on, the model sees the message as a retry prompt, and
the tool span gets status ERROR (no description), an ``exception`` event (``exception.type`` is
``pydantic_ai.exceptions.ToolRetryError``, ``exception.message`` the message), the message as the tool
result, and ``pydantic_ai.tool.retry.cause='model_retry'`` / ``.attempt`` / ``.max_retries``.
``ToolFailed`` (a newer API: a terminal failure that asks for no retry) records the same ERROR status
and event (``exception.type`` ``pydantic_ai.exceptions.ToolFailedError``), without the retry attributes;
``ModelRetry`` is used because every pydantic-ai release has it. Any other exception also marks the
tool span ERROR but ends the run (and marks the agent span ERROR).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from pydantic_ai.agent import Agent
from pydantic_ai.exceptions import ModelRetry, PydanticAIDeprecationWarning
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.tools import RunContext
from pydantic_ai.usage import RequestUsage

from . import _recording, _scenario
from ._routing import RoutingTracerProvider
from ._scenario import EXPECTED, PROMPT, Turn

__all__ = [
    "DEFAULT_VERSION",
    "EXPECTED",
    "PROMPT",
    "VERSIONS",
    "Version",
    "helper",
    "instrument",
    "orchestrator",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "script_function",
    "uninstrument",
]

Version = Literal[2, 3, 4, 5, 6]
#: every instrumentation data format version the installed pydantic-ai accepts
VERSIONS: tuple[Version, ...] = (2, 3, 4, 5, 6)
#: the version pydantic-ai uses when none is given
DEFAULT_VERSION: Version = InstrumentationSettings.version


# --------------------------------------------------------------------------------------------------
# Instrumentation
# --------------------------------------------------------------------------------------------------


def instrument(
    tracer_provider: trace.TracerProvider | None = None, *, version: Version | None = None
) -> None:
    """Turn on Pydantic AI's OpenTelemetry instrumentation for every agent, message content included.

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up each time a
            span starts (so a provider installed later, e.g. by the traceassert pytest plugin, is used).
        version: the instrumentation data format version (see the module docstring); None means
            pydantic-ai's default. The deprecated versions 2-4 are used without a warning.
    """
    provider = RoutingTracerProvider() if tracer_provider is None else tracer_provider
    if version is None:
        settings = InstrumentationSettings(tracer_provider=provider, include_content=True)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PydanticAIDeprecationWarning)
            settings = InstrumentationSettings(
                tracer_provider=provider, include_content=True, version=version
            )
    Agent.instrument_all(settings)


def uninstrument() -> None:
    """Restore Pydantic AI's default: agents that were not instrumented individually emit no spans."""
    Agent.instrument_all(False)


# --------------------------------------------------------------------------------------------------
# The scripted scenario
# --------------------------------------------------------------------------------------------------

_T = TypeVar("_T")


def script_function(
    replies: Sequence[_T], respond: Callable[[_T, int], ModelResponse]
) -> Callable[[list[ModelMessage], AgentInfo], Any]:
    """A `FunctionModel` function that plays ``replies`` in order, one per model call of a run.

    ``respond(reply, index)`` makes the model response; it is called afresh for every call, as the
    framework may annotate the parts it is given.
    """

    async def function(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        # The reply is read off the history (responses so far), so every run replays the script.
        index = sum(isinstance(message, ModelResponse) for message in messages)
        return respond(_scenario.turn_at(replies, index), index)

    return function


def _response(turn: Turn, index: int) -> ModelResponse:
    usage = RequestUsage(input_tokens=turn.input_tokens, output_tokens=turn.output_tokens)
    if turn.tool is None:
        return ModelResponse(parts=[TextPart(turn.text)], usage=usage, finish_reason="stop")
    call = ToolCallPart(turn.tool, dict(turn.args), tool_call_id=turn.call_id(index))
    return ModelResponse(parts=[call], usage=usage, finish_reason="tool_call")


helper: Agent[None, str] = Agent(
    FunctionModel(script_function(_scenario.HELPER_TURNS, _response), model_name=_scenario.HELPER_MODEL),
    name="helper",
    instructions=_scenario.HELPER_INSTRUCTIONS,
)

orchestrator: Agent[None, str] = Agent(
    FunctionModel(
        script_function(_scenario.ORCHESTRATOR_TURNS, _response), model_name=_scenario.ORCHESTRATOR_MODEL
    ),
    name="orchestrator",
    instructions=_scenario.ORCHESTRATOR_INSTRUCTIONS,
)

orchestrator.tool_plain(_scenario.get_weather)


@orchestrator.tool_plain
def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise ModelRetry(_scenario.EXPLODE_MESSAGE)


@orchestrator.tool
async def ask_helper(ctx: RunContext[None], question: str) -> str:
    """Ask the helper agent for advice."""
    # Passing the usage on is Pydantic AI's delegation pattern: the helper's tokens count towards the run.
    result = await helper.run(question, usage=ctx.usage)
    return result.output


def run_scenario() -> str:
    """Run the scenario to completion and return the orchestrator's output."""
    return orchestrator.run_sync(PROMPT).output


async def run_scenario_async() -> str:
    """Like `run_scenario`, in the running event loop."""
    result = await orchestrator.run(PROMPT)
    return result.output


def record_spans(*, version: Version | None = None) -> list[ReadableSpan]:
    """Run the scenario instrumented (with ``version``) under an in-memory exporter; return its spans.

    Leaves the instrumentation switched off afterwards.
    """
    return _recording.record_spans(lambda p: instrument(p, version=version), uninstrument, run_scenario)
