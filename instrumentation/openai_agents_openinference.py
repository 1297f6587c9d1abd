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
The agents use the SDK's ``OpenAIResponsesModel`` on an ``AsyncOpenAI`` client whose HTTP transport is a
``MockTransport`` (of ``httpx2``, which openai 3.x is built on, else ``httpx``): scripted Responses API
replies (with ``usage``), no sockets, no key. The turn is read off the request (how many tool results
its input holds), so every run replays the script.
``explode`` raises; its ``failure_error_function`` reports the message back to the model and the run
goes on. ``ask_helper`` runs the ``helper`` agent with ``Runner.run`` inside the tool.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agents import Agent, OpenAIResponsesModel, RunConfig, RunContextWrapper, Runner, function_tool
from openai import AsyncOpenAI
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from . import ScenarioFacts

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
    instrumentor = _instrumentor()
    if instrumentor.is_instrumented_by_opentelemetry:
        instrumentor.uninstrument()
    instrumentor.instrument(tracer_provider=tracer_provider)


def uninstrument() -> None:
    """Switch the instrumentation off and give the SDK its own trace processors back."""
    instrumentor = _instrumentor()
    if instrumentor.is_instrumented_by_opentelemetry:
        instrumentor.uninstrument()


def _run_config() -> RunConfig:
    """Sensitive data (tool arguments and results) recorded; SDK tracing off while uninstrumented."""
    traced = bool(_instrumentor().is_instrumented_by_opentelemetry)
    return RunConfig(tracing_disabled=not traced, trace_include_sensitive_data=True)


# --------------------------------------------------------------------------------------------------
# The scripted model: Responses API replies from a MockTransport
# --------------------------------------------------------------------------------------------------

PROMPT = "What is the weather in Paris, and what should I wear?"
_HELPER_ANSWER = "Wear a light jacket."
_FINAL_OUTPUT = "It is sunny in Paris; wear a light jacket."
_EXPLODE_MESSAGE = "explode failed: the detonator is broken"


@dataclass(frozen=True)
class _Turn:
    """One scripted model response: a call to ``tool`` with ``args``, or the final ``text``; and its usage."""

    input_tokens: int
    output_tokens: int
    tool: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict)
    text: str = ""

    def response(self, model: str, index: int) -> dict[str, Any]:
        """The Responses API reply (JSON) for this turn."""
        item: dict[str, Any]
        if self.tool is not None:
            item = {
                "type": "function_call",
                "id": f"fc_{index}",
                "call_id": f"call_{index}_{self.tool}",
                "name": self.tool,
                "arguments": json.dumps(dict(self.args)),
                "status": "completed",
            }
        else:
            item = {
                "type": "message",
                "id": f"msg_{index}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": self.text, "annotations": []}],
            }
        return {
            "id": f"resp_{model}_{index}",
            "object": "response",
            "created_at": 1_700_000_000,
            "model": model,
            "status": "completed",
            "output": [item],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens,
                "total_tokens": self.input_tokens + self.output_tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }


_ORCHESTRATOR_MODEL = "scripted-orchestrator"
_HELPER_MODEL = "scripted-helper"
_SCRIPTS: Mapping[str, tuple[_Turn, ...]] = {
    _ORCHESTRATOR_MODEL: (
        _Turn(101, 11, tool="get_weather", args={"city": "Paris"}),
        _Turn(123, 13, tool="explode"),
        _Turn(147, 17, tool="ask_helper", args={"question": "What should I wear?"}),
        _Turn(171, 19, text=_FINAL_OUTPUT),
    ),
    _HELPER_MODEL: (_Turn(37, 7, text=_HELPER_ANSWER),),
}


def _respond(request: httpx.Request) -> httpx.Response:
    """Answer a ``POST /responses`` with the script's next turn for the requested model."""
    if request.method != "POST" or not request.url.path.endswith("/responses"):
        return httpx.Response(404, json={"error": {"message": f"not scripted: {request.url.path}"}})
    body = json.loads(request.content)
    turns = _SCRIPTS.get(body.get("model"))
    if turns is None:
        return httpx.Response(404, json={"error": {"message": f"unknown model {body.get('model')!r}"}})
    items = body.get("input")
    done = sum(isinstance(i, dict) and i.get("type") == "function_call_output" for i in items or ())
    if done >= len(turns):
        return httpx.Response(500, json={"error": {"message": f"the script has only {len(turns)} calls"}})
    return httpx.Response(200, json=turns[done].response(body["model"], done))


_client = AsyncOpenAI(
    api_key="test",
    base_url="http://scripted.invalid/v1",
    http_client=httpx.AsyncClient(transport=httpx.MockTransport(_respond)),
    max_retries=0,
)


# --------------------------------------------------------------------------------------------------
# The agents
# --------------------------------------------------------------------------------------------------


helper: Agent[Any] = Agent(
    name="helper",
    instructions="Give clothing advice.",
    model=OpenAIResponsesModel(_HELPER_MODEL, _client),
)


@function_tool
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return f"Sunny, 21C in {city}"


def _report_failure(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """What the model is told when a tool raises."""
    return f"Error: {error}"


@function_tool(failure_error_function=_report_failure)
def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise RuntimeError(_EXPLODE_MESSAGE)


@function_tool
async def ask_helper(question: str) -> str:
    """Ask the helper agent for advice."""
    result = await Runner.run(helper, question, run_config=_run_config())
    return str(result.final_output)


orchestrator: Agent[Any] = Agent(
    name="orchestrator",
    instructions="Answer weather questions; ask the helper for clothing advice.",
    model=OpenAIResponsesModel(_ORCHESTRATOR_MODEL, _client),
    tools=[get_weather, explode, ask_helper],
)

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
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrument(provider)
    try:
        run_scenario()
    finally:
        uninstrument()
        provider.shutdown()
    return list(exporter.get_finished_spans())
