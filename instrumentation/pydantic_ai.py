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
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.util.types import Attributes
from pydantic_ai.agent import Agent
from pydantic_ai.exceptions import ModelRetry, PydanticAIDeprecationWarning
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.tools import RunContext
from pydantic_ai.usage import RequestUsage

from . import ScenarioFacts

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


class _GlobalTracer(trace.Tracer):
    """A tracer that looks up the global tracer provider each time it starts a span."""

    def __init__(
        self, name: str, version: str | None, schema_url: str | None, attributes: Attributes
    ) -> None:
        self._args = (name, version, schema_url, attributes)
        self._cached: tuple[trace.TracerProvider, trace.Tracer] | None = None

    def _tracer(self) -> trace.Tracer:
        provider = trace.get_tracer_provider()
        if self._cached is None or self._cached[0] is not provider:
            self._cached = (provider, provider.get_tracer(*self._args))
        return self._cached[1]

    def start_span(self, *args: Any, **kwargs: Any) -> trace.Span:
        return self._tracer().start_span(*args, **kwargs)

    def start_as_current_span(  # type: ignore[override]
        self, *args: Any, **kwargs: Any
    ) -> AbstractContextManager[trace.Span]:
        return self._tracer().start_as_current_span(*args, **kwargs)


class _GlobalTracerProvider(trace.TracerProvider):
    """Hands out `_GlobalTracer`s, so spans go to whatever provider is global when they start."""

    def get_tracer(
        self,
        instrumenting_module_name: str,
        instrumenting_library_version: str | None = None,
        schema_url: str | None = None,
        attributes: Attributes = None,
    ) -> trace.Tracer:
        return _GlobalTracer(instrumenting_module_name, instrumenting_library_version, schema_url, attributes)


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
    provider = _GlobalTracerProvider() if tracer_provider is None else tracer_provider
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

PROMPT = "What is the weather in Paris, and what should I wear?"


@dataclass(frozen=True)
class _Turn:
    """One scripted model response: a call to ``tool`` with ``args``, or the final ``text``; and its usage."""

    input_tokens: int
    output_tokens: int
    tool: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict)
    text: str = ""

    def response(self, index: int) -> ModelResponse:
        # Parts are built afresh for every call: the framework may annotate the parts it is given.
        usage = RequestUsage(input_tokens=self.input_tokens, output_tokens=self.output_tokens)
        if self.tool is None:
            return ModelResponse(parts=[TextPart(self.text)], usage=usage, finish_reason="stop")
        call = ToolCallPart(self.tool, dict(self.args), tool_call_id=f"call_{index}_{self.tool}")
        return ModelResponse(parts=[call], usage=usage, finish_reason="tool_call")


_HELPER_ANSWER = "Wear a light jacket."
_FINAL_OUTPUT = "It is sunny in Paris; wear a light jacket."

_ORCHESTRATOR_TURNS = (
    _Turn(101, 11, tool="get_weather", args={"city": "Paris"}),
    _Turn(123, 13, tool="explode"),
    _Turn(147, 17, tool="ask_helper", args={"question": "What should I wear?"}),
    _Turn(171, 19, text=_FINAL_OUTPUT),
)
_HELPER_TURNS = (_Turn(37, 7, text=_HELPER_ANSWER),)


def _script(turns: Sequence[_Turn]) -> Callable[[list[ModelMessage], AgentInfo], Any]:
    """A `FunctionModel` function that plays ``turns`` in order, one per model call of a run."""

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        # The turn is read off the history (responses so far), so every run replays the script.
        index = sum(isinstance(message, ModelResponse) for message in messages)
        if index >= len(turns):
            raise RuntimeError(f"the script has only {len(turns)} model calls")
        return turns[index].response(index)

    return respond


helper: Agent[None, str] = Agent(
    FunctionModel(_script(_HELPER_TURNS), model_name="scripted-helper"),
    name="helper",
    instructions="Give clothing advice.",
)

orchestrator: Agent[None, str] = Agent(
    FunctionModel(_script(_ORCHESTRATOR_TURNS), model_name="scripted-orchestrator"),
    name="orchestrator",
    instructions="Answer weather questions; ask the helper for clothing advice.",
)


@orchestrator.tool_plain
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return f"Sunny, 21C in {city}"


@orchestrator.tool_plain
def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise ModelRetry("explode failed: the detonator is broken")


@orchestrator.tool
async def ask_helper(ctx: RunContext[None], question: str) -> str:
    """Ask the helper agent for advice."""
    # Passing the usage on is Pydantic AI's delegation pattern: the helper's tokens count towards the run.
    result = await helper.run(question, usage=ctx.usage)
    return result.output


#: ground truth, written from the script above (the conformance tests check the spans against it)
EXPECTED = ScenarioFacts(
    agents=("orchestrator",),
    nested={"orchestrator": ("helper",)},
    tools_in_order=("get_weather", "explode", "ask_helper"),
    tool_arguments=({"city": "Paris"}, {}, {"question": "What should I wear?"}),
    failed_tools=("explode",),
    model_calls=5,
    own_model_calls={"orchestrator": 4, "helper": 1},
    input_tokens=101 + 123 + 147 + 171 + 37,
    output_tokens=11 + 13 + 17 + 19 + 7,
    total_tokens=(101 + 123 + 147 + 171 + 37) + (11 + 13 + 17 + 19 + 7),
    final_output=_FINAL_OUTPUT,
)


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
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrument(provider, version=version)
    try:
        run_scenario()
    finally:
        uninstrument()
        provider.shutdown()
    return list(exporter.get_finished_spans())
