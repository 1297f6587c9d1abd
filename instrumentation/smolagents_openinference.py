"""smolagents + OpenInference stack: a ``ToolCallingAgent`` with a managed agent, traced by
``openinference-instrumentation-smolagents``.

Instrumentation
---------------
`instrument` calls ``SmolagentsInstrumentor().instrument(tracer_provider=...)``, which wraps
``MultiStepAgent.run``, each agent class's ``_step_stream``, ``Tool.__call__`` and ``generate`` /
``generate_stream`` of the model classes smolagents exports. The spans (scope
``openinference.instrumentation.smolagents``):

- ``<agent name>.run``: ``openinference.span.kind=AGENT`` with **no** ``agent.name`` (the name is only
  in the span name), ``input.value`` (the bound ``run`` arguments as JSON: ``task``, ``stream``,
  ``reset``, ...), ``smolagents.task``, ``smolagents.max_steps``, ``smolagents.tools_names``,
  ``smolagents.managed_agents.N.{name,description}``, ``output.value`` (the answer) and the run's
  *accumulated* usage as ``llm.token_count.prompt/completion/total`` (the same keys as a model call);
- ``Step N``: a ``CHAIN`` span per step of the agent loop; a failed tool call shows as an
  ``agent.step_recovery`` event on it (status stays OK);
- ``<ModelClass>.generate``: an ``LLM`` span per model call: ``llm.model_name`` (the ``model_id``),
  ``llm.provider`` (``openai`` for ``OpenAIModel``), ``llm.token_count.*``, ``llm.input_messages.*``,
  ``llm.output_messages.*`` with the tool calls, ``llm.tools.N.tool.json_schema``. Only the model classes
  exported by ``smolagents`` are wrapped: a model class of your own that overrides ``generate`` records
  no model span;
- ``<ToolClass>``: a ``TOOL`` span per ``Tool.__call__`` (span name = the tool's class, e.g.
  ``SimpleTool`` for ``@tool`` functions, ``FinalAnswerTool``): ``tool.name``, ``tool.description``,
  ``tool.parameters``, ``input.value`` = the bound ``__call__`` arguments as JSON,
  ``{"args": [], "sanitize_inputs_outputs": true, "kwargs": {"city": "Paris"}}`` (the tool's arguments
  are under ``kwargs``), ``output.value``. A tool that raises ends its span with status ERROR and an
  ``exception`` event; smolagents reports the error to the model and the run goes on.

A managed agent is not a ``Tool``: the manager's model calls a tool named after it, smolagents calls
the agent, and its ``helper.run`` span sits in the manager's ``Step`` span. No TOOL span records that
call; the model's request (``helper(task=...)``) is the only trace of it. What the instrumentation
does not record: a tool call id on tool spans, the agent's final answer as anything but ``output.value``.

The scenario
------------
``instrumentation/_smolagents_scenario.py``: smolagents' own ``OpenAIModel`` on an OpenAI client whose
``httpx.MockTransport`` plays the script (no network); every answer is a ``final_answer`` call, and the
managed agent ``helper`` is called as the tool ``helper``. `EXPECTED` is built from that script.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2 as httpx
from openai import OpenAI
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from smolagents import OpenAIModel, ToolCallingAgent, tool  # type: ignore[import-untyped]
from smolagents.monitoring import LogLevel  # type: ignore[import-untyped]

from . import _recording, _scenario
from . import _smolagents_scenario as _sm
from ._instrumentors import switch_off, switch_on
from ._routing import RoutingTracerProvider
from ._scenario import PROMPT

__all__ = [
    "EXPECTED",
    "PROMPT",
    "instrument",
    "make_agents",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]

#: ground truth from the script, in the shape smolagents runs it (see `_smolagents_scenario`)
EXPECTED = _sm.expected()


# --------------------------------------------------------------------------------------------------
# Instrumentation
# --------------------------------------------------------------------------------------------------


def _instrumentor() -> Any:
    from openinference.instrumentation.smolagents import SmolagentsInstrumentor

    return SmolagentsInstrumentor()


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Turn on OpenInference's smolagents instrumentation (replacing an earlier `instrument`).

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up each time a
            span starts (so a provider installed later, e.g. by the traceassert pytest plugin, is used).
    """
    switch_on(_instrumentor(), tracer_provider=RoutingTracerProvider(tracer_provider))


def uninstrument() -> None:
    """Switch the instrumentation off (smolagents' methods unwrapped)."""
    switch_off(_instrumentor())


# --------------------------------------------------------------------------------------------------
# The scripted endpoint and the agents
# --------------------------------------------------------------------------------------------------


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def _respond(request: httpx.Request) -> httpx.Response:
    """The fake chat completions endpoint: the turn is read off the request, per model. smolagents
    sends each earlier step's outcome back as user text, ``Observation:`` or (a failed tool)
    ``Error:``, merging consecutive user messages; so the turn is how many of them there are."""
    body = json.loads(request.content)
    users = (_text(m) for m in body["messages"] if m.get("role") == "user")
    index = sum(text.count("Observation:\n") + text.count("Error:\n") for text in users)
    return httpx.Response(200, json=_sm.completion(body["model"], index))


def _model(model_id: str) -> OpenAIModel:
    client = OpenAI(
        api_key="test",
        base_url="https://scripted.invalid/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(_respond)),
        max_retries=0,
    )
    return OpenAIModel(model_id=model_id, client=client)


@tool  # type: ignore[untyped-decorator]
def get_weather(city: str) -> str:
    """Current weather in a city.

    Args:
        city: the city
    """
    return _scenario.get_weather(city)


@tool  # type: ignore[untyped-decorator]
def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise RuntimeError(_scenario.EXPLODE_MESSAGE)


def make_agents() -> tuple[ToolCallingAgent, ToolCallingAgent]:
    """The orchestrator and its managed agent ``helper`` (fresh ones: agents keep their memory)."""
    helper = ToolCallingAgent(
        tools=[],
        model=_model(_scenario.HELPER_MODEL),
        name="helper",
        description="Gives clothing advice.",
        instructions=_scenario.HELPER_INSTRUCTIONS,
        verbosity_level=LogLevel.OFF,
        max_steps=3,
    )
    orchestrator = ToolCallingAgent(
        tools=[get_weather, explode],
        model=_model(_scenario.ORCHESTRATOR_MODEL),
        managed_agents=[helper],
        name="orchestrator",
        instructions=_scenario.ORCHESTRATOR_INSTRUCTIONS,
        verbosity_level=LogLevel.OFF,
        max_steps=6,
    )
    return orchestrator, helper


def run_scenario() -> str:
    """Run the scenario to completion and return the orchestrator's answer."""
    orchestrator, _ = make_agents()
    return str(orchestrator.run(PROMPT))


async def run_scenario_async() -> str:
    """Like `run_scenario`, from a coroutine (smolagents runs synchronously: the run blocks the loop)."""
    return run_scenario()


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented, on a private provider with an in-memory exporter; return its spans.

    Leaves the instrumentation switched off afterwards.
    """
    return _recording.record_spans(instrument, uninstrument, run_scenario)
