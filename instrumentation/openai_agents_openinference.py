"""OpenAI Agents SDK + OpenInference stack: ``openai-agents`` traced by OpenInference's instrumentation.

Instrumentation
---------------
The Agents SDK has its own tracing (traces and spans handed to "trace processors"; by default one that
exports them to the OpenAI platform). `instrument` calls
``OpenAIAgentsInstrumentor().instrument(tracer_provider=...)``, which registers OpenInference's processor
*in place of* the SDK's (``exclusive_processor``, the default): nothing is exported to OpenAI while it
is on, and the processor turns every SDK span into an OpenTelemetry span:

- the SDK trace (one per top-level ``Runner.run``) becomes a root span named after the workflow
  (``RunConfig.workflow_name``, default "Agent workflow") with ``openinference.span.kind=AGENT`` and no
  other attribute; below it a ``CHAIN`` span of the same name (the SDK's task span);
- an agent run is an ``AGENT`` span named after the agent, with ``agent.name`` and ``graph.node.id``;
  each turn of its loop a ``CHAIN`` span ``turn``;
- a model call (Responses API) is an ``LLM`` span ``response``: ``llm.model_name``, ``llm.system=openai``,
  ``llm.token_count.prompt/completion/total``, ``llm.finish_reason`` (``stop`` for every completed
  response, tool calls included), ``llm.input_messages.*`` / ``llm.output_messages.*`` with the tool
  calls as ``...message.tool_calls.M.tool_call.{id,function.name,function.arguments}``;
- a function tool is a ``TOOL`` span named after the tool: ``tool.name``, ``tool.description``,
  ``tool.parameters`` (JSON schema), ``input.value`` (the arguments JSON), ``output.value`` (the result).
  No tool call id is recorded on it.

A tool that raises is reported to the model by its ``failure_error_function``; the SDK marks the
function span with an error, which becomes status ERROR with description
``"Error running tool (non-fatal): {'tool_name': ..., 'error': ...}"``; there is no ``exception`` event
(with the SDK's default failure function the ``error`` entry is empty: the detail is only recorded when a
custom function reports it). A nested ``Runner.run`` inside a tool joins the running trace: its agent
span sits, under a ``CHAIN`` task span, below the tool's span.

`uninstrument` puts the SDK's own processors back. The scenario runs with SDK tracing disabled while
the instrumentation is off, so it never exports anything to OpenAI.

The scenario
------------
``instrumentation/_openai_agents_scenario.py``: the SDK's ``OpenAIResponsesModel`` on a client whose
transport (``httpx2``'s, which openai 3.x is built on, else ``httpx``'s) plays the script as Responses API
replies. ``explode`` raises; its ``failure_error_function`` reports the message back to the model and
the run goes on.
"""

from __future__ import annotations

from typing import Any

from agents import RunConfig, RunContextWrapper, Runner, function_tool
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _openai_agents_scenario as _oa
from . import _recording
from ._instrumentors import switch_off, switch_on
from ._scenario import EXPECTED, EXPLODE_MESSAGE, PROMPT

try:  # openai >= 3 is built on httpx2
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older openai releases use httpx
    import httpx  # type: ignore[no-redef]

__all__ = [
    "EXPECTED",
    "PROMPT",
    "helper",
    "instrument",
    "orchestrator",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]


# --------------------------------------------------------------------------------------------------
# Instrumentation
# --------------------------------------------------------------------------------------------------


def _instrumentor() -> Any:
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    return OpenAIAgentsInstrumentor()


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Turn on OpenInference's OpenAI Agents instrumentation (replacing an earlier `instrument`).

    Args:
        tracer_provider: where the spans go; None means the global tracer provider.
    """
    switch_on(_instrumentor(), tracer_provider=tracer_provider)


def uninstrument() -> None:
    """Switch the instrumentation off and give the SDK its own trace processors back."""
    switch_off(_instrumentor())


def _run_config() -> RunConfig:
    """Sensitive data (tool arguments and results) recorded; SDK tracing off while uninstrumented."""
    traced = bool(_instrumentor().is_instrumented_by_opentelemetry)
    return RunConfig(tracing_disabled=not traced, trace_include_sensitive_data=True)


# --------------------------------------------------------------------------------------------------
# The agents
# --------------------------------------------------------------------------------------------------


def _report_failure(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """What the model is told when a tool raises."""
    return f"Error: {error}"


@function_tool(failure_error_function=_report_failure)
def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise RuntimeError(EXPLODE_MESSAGE)


# response ids and creation time as in the recorded trace (tests/data)
_client = _oa.mock_client(
    httpx, response_id=lambda model, index: f"resp_{model}_{index}", created_at=1_700_000_000
)
orchestrator, helper = _oa.build_agents(_client, explode, _run_config)


def run_scenario() -> str:
    """Run the scenario to completion and return the orchestrator's output (not inside an event loop)."""
    return str(Runner.run_sync(orchestrator, PROMPT, run_config=_run_config()).final_output)


async def run_scenario_async() -> str:
    """Like `run_scenario`, in the running event loop."""
    result = await Runner.run(orchestrator, PROMPT, run_config=_run_config())
    return str(result.final_output)


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented, on a private provider with an in-memory exporter; return its spans.

    Leaves the instrumentation switched off afterwards.
    """
    return _recording.record_spans(instrument, uninstrument, run_scenario)
