"""Google ADK stack: ADK's built-in OpenTelemetry spans, and the scripted scenario on a fake model.

Instrumentation
---------------
ADK always traces: every span comes from one module-level tracer (scope ``gcp.vertex.agent``) that ADK
takes from the *global* tracer provider, so there is no instrumentor to switch on. `instrument` routes
that tracer to a provider of your choice (or to the global provider, looked up as each span starts)
and picks the telemetry format; `uninstrument` restores ADK's own tracer and the environment.

ADK has two span formats, chosen by ``ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN`` (read at every span):

======  ===============================================================================================
schema  spans of one ``LlmAgent`` run (google-adk 2.x)
======  ===============================================================================================
2       default. ``invoke_workflow <root agent>`` (the runner) > ``invoke_agent <agent>`` >
        ``generate_content <model>`` (one per model call: ``gen_ai.usage.*``, finish reasons,
        ``gen_ai.input/output.messages`` when content capture is on) and ``execute_tool <tool>``
        (``gen_ai.tool.call.arguments`` / ``.result`` only when content capture is on).
1       legacy. ``invocation`` > ``invoke_agent <agent>`` > ``call_llm`` (``gen_ai.system =
        gcp.vertex.agent``, ``gcp.vertex.agent.llm_request`` / ``llm_response`` JSON, usage, event id)
        over ``generate_content <model>`` (the same call again, with the same usage); tool spans carry
        ``gcp.vertex.agent.tool_call_args`` / ``tool_response`` JSON and ``gcp.vertex.agent.event_id``.
======  ===============================================================================================

Message content is captured on spans only when asked: `instrument` passes ``capture_content`` on to
every run of the scenario as ``RunConfig(telemetry=TelemetryConfig(capture_message_content=SPAN_ONLY))``
(``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY`` does the same for a whole app).
Without it, schema 2 records no tool arguments at all; schema 1 records them unless
``ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=false``.

Tool failures
-------------
A tool that raises ends an ADK run, unless an ``on_tool_error_callback`` answers for it. The scenario's
orchestrator has one that returns ``{"error": "<type>: <message>"}`` as the tool's response, which is
how ADK reports a failure back to the model (``ReflectAndRetryToolPlugin`` works the same way). The run
goes on; ADK's ``FunctionTool`` sees the ``"error"`` key in the response and marks the ``execute_tool``
span ERROR with ``error.type = TOOL_ERROR`` (description ``TOOL_ERROR``, no ``exception`` event). The
error text is only in the recorded response (``gen_ai.tool.call.result`` / ``tool_response``), so with
content capture off only the status says that the tool failed.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from google.adk.agents import LlmAgent
from google.adk.agents.run_config import RunConfig
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.telemetry import tracing as adk_tracing
from google.adk.telemetry.context import ContentCapturingMode, TelemetryConfig
from google.adk.tools.agent_tool import AgentTool
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _recording, _scenario
from ._instrumentors import restore_environment, set_environment
from ._routing import RoutingTracer
from ._scenario import EXPECTED, PROMPT, Turn

__all__ = [
    "EXPECTED",
    "PROMPT",
    "SCHEMAS",
    "Schema",
    "helper",
    "instrument",
    "orchestrator",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]

Schema = Literal[1, 2]
#: ADK telemetry schema versions (``ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN``)
SCHEMAS: tuple[Schema, ...] = (1, 2)
_SCHEMA_ENV = "ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN"
_TRACER_NAME = "gcp.vertex.agent"


# --------------------------------------------------------------------------------------------------
# Instrumentation
# --------------------------------------------------------------------------------------------------


@dataclass
class _State:
    #: ADK's own module-level tracer, kept from the first `instrument`
    original: Any = None
    env: dict[str, str | None] = field(default_factory=dict)
    capture_content: bool = True


_STATE = _State()


def _retarget(old: Callable[[Any], bool], new: Any) -> None:
    """Point every loaded ADK module's ``tracer`` for which ``old(tracer)`` holds at ``new``.

    ADK modules copy the tracer at import (``from .tracing import tracer``), some of them only when a run
    first needs them, so every module is looked at, each time.
    """
    for name, module in list(sys.modules.items()):
        if name.startswith("google.adk") and old(getattr(module, "tracer", None)):
            setattr(module, "tracer", new)  # noqa: B010 - a module attribute, set by name


def instrument(
    tracer_provider: trace.TracerProvider | None = None,
    *,
    schema: Schema = 2,
    capture_content: bool = True,
) -> None:
    """Send ADK's spans to ``tracer_provider`` in telemetry format ``schema``.

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up each time a
            span starts (so a provider installed later, e.g. by the traceassert pytest plugin, is used).
        schema: 2 (ADK's default, GenAI-convention aligned) or 1 (legacy ``call_llm`` spans); sets
            ``ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN`` for the process until `uninstrument`.
        capture_content: record messages, tool arguments and results on the spans (for the scenario's runs).
    """
    uninstrument()
    if _STATE.original is None:
        _STATE.original = adk_tracing.tracer
    original = _STATE.original
    routing = RoutingTracer(tracer_provider, _TRACER_NAME, _adk_version())
    _retarget(lambda tracer: tracer is original or isinstance(tracer, RoutingTracer), routing)
    _STATE.env = set_environment({_SCHEMA_ENV: str(schema)})
    _STATE.capture_content = capture_content


def uninstrument() -> None:
    """Give ADK its own tracer back and restore the environment `instrument` changed."""
    if _STATE.original is not None:
        _retarget(lambda tracer: isinstance(tracer, RoutingTracer), _STATE.original)
    restore_environment(_STATE.env)
    _STATE.env = {}
    _STATE.capture_content = True


def _adk_version() -> str:
    from google.adk import version

    return str(version.__version__)


# --------------------------------------------------------------------------------------------------
# The scenario
# --------------------------------------------------------------------------------------------------


def _response(turn: Turn, index: int, model: str) -> LlmResponse:
    if turn.tool is None:
        part = types.Part.from_text(text=turn.text)
    else:
        call = types.FunctionCall(id=turn.call_id(index), name=turn.tool, args=dict(turn.args))
        part = types.Part(function_call=call)
    return LlmResponse(
        content=types.Content(role="model", parts=[part]),
        finish_reason=types.FinishReason.STOP,
        model_version=model,
        usage_metadata=types.GenerateContentResponseUsageMetadata(
            prompt_token_count=turn.input_tokens,
            candidates_token_count=turn.output_tokens,
            total_token_count=turn.total_tokens,
        ),
    )


class ScriptedLlm(BaseLlm):
    """A fake ADK model that plays a script, one turn per model call of a run (no network).

    The turn is read off the request (how many tool responses it already holds), so every run
    replays the script from the start.
    """

    turns: Sequence[Turn]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        index = sum(
            1
            for content in llm_request.contents
            for part in content.parts or ()
            if part.function_response is not None
        )
        yield _response(_scenario.turn_at(self.turns, index), index, self.model)


def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise RuntimeError(_scenario.EXPLODE_MESSAGE)


helper = LlmAgent(
    name="helper",
    model=ScriptedLlm(model=_scenario.HELPER_MODEL, turns=_scenario.HELPER_TURNS),
    instruction=_scenario.HELPER_INSTRUCTIONS,
    description="Gives clothing advice.",
)


async def ask_helper(question: str, tool_context: ToolContext) -> str:
    """Ask the helper agent for advice."""
    # AgentTool runs the helper as a nested agent of this invocation (ADK's agent-as-a-tool pattern).
    answer = await AgentTool(helper).run_async(args={"request": question}, tool_context=tool_context)
    return str(answer)


def _report_tool_error(
    tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, error: Exception
) -> dict[str, Any]:
    """Answer a failed tool call with the error, so the model sees it and the run goes on."""
    return {"error": f"{type(error).__name__}: {error}"}


orchestrator = LlmAgent(
    name="orchestrator",
    model=ScriptedLlm(model=_scenario.ORCHESTRATOR_MODEL, turns=_scenario.ORCHESTRATOR_TURNS),
    instruction=_scenario.ORCHESTRATOR_INSTRUCTIONS,
    description="Answers weather questions.",
    tools=[_scenario.get_weather, explode, ask_helper],
    on_tool_error_callback=_report_tool_error,
)


def _run_config() -> RunConfig:
    mode = ContentCapturingMode.SPAN_ONLY if _STATE.capture_content else ContentCapturingMode.NO_CONTENT
    return RunConfig(telemetry=TelemetryConfig(capture_message_content=mode))


async def run_scenario_async() -> str:
    """Run the scenario to completion in the running event loop; return the orchestrator's answer."""
    runner = InMemoryRunner(agent=orchestrator, app_name="weather_app")
    session = await runner.session_service.create_session(app_name="weather_app", user_id="tester")
    message = types.Content(role="user", parts=[types.Part.from_text(text=PROMPT)])
    final = ""
    async for event in runner.run_async(
        user_id="tester", session_id=session.id, new_message=message, run_config=_run_config()
    ):
        if event.author == orchestrator.name and event.is_final_response() and event.content:
            final = "".join(part.text or "" for part in event.content.parts or ())
    await runner.close()
    return final


def run_scenario() -> str:
    """Run the scenario to completion (in a new event loop) and return the orchestrator's answer."""
    return asyncio.run(run_scenario_async())


def record_spans(*, schema: Schema = 2, capture_content: bool = True) -> list[ReadableSpan]:
    """Run the scenario instrumented under an in-memory exporter; return its finished spans.

    Leaves ADK's tracer and the environment as they were.
    """
    return _recording.record_spans(
        lambda p: instrument(p, schema=schema, capture_content=capture_content), uninstrument, run_scenario
    )
