"""CrewAI + OpenInference stack: a crew of two agents and a delegated task, traced by
``openinference-instrumentation-crewai`` in its event-listener mode.

Instrumentation
---------------
`instrument` calls ``CrewAIInstrumentor().instrument(tracer_provider=..., use_event_listener=True)``: the
instrumentor subscribes to CrewAI's event bus (``crewai_event_bus``) and turns its events into spans
(scope ``openinference.instrumentation.crewai._event_listener``). Spans of one ``Crew.kickoff``:

- ``crew.kickoff`` (CHAIN): ``crew_key``, ``crew_id``, ``crew_agents`` / ``crew_tasks`` (JSON), the
  crew's output, and the crew's *summed* ``llm.token_count.total``;
- ``<role>.<task description, cut>.execute`` (AGENT), one per agent working on a task: ``graph.node.id``
  = the agent's role (a delegated run also ``graph.node.parent_id`` = the delegating agent's), ``agent_key``,
  ``agent.goal``, ``agent.backstory``, ``agent.tools``, ``task_id``, ``input.value`` = the task prompt,
  ``output.value`` = the agent's answer. No ``agent.name``;
- ``<model>.llm_call`` (LLM), one per model call: ``llm.model_name``,
  ``llm.token_count.prompt/completion/total``, ``input.value`` = the messages (JSON), ``output.value`` =
  the tool calls (JSON) or the text, and for a text answer ``llm.output_messages.0.message.*``. No
  finish reason, and the tool calls are not flattened into ``llm.output_messages``;
- ``<tool>.run`` (TOOL): ``tool.name`` (the name the model used: ``delegate_work_to_coworker`` for
  CrewAI's delegation tool), ``input.value`` = the arguments (JSON), ``output.value`` = the result,
  ``tool.agent_role``. A tool that raised has status ERROR with the exception's message and no
  ``exception`` event (so no exception type); CrewAI sends the error to the model and the run goes on.

The delegated agent's AGENT span sits under the ``delegate_work_to_coworker`` tool span. traceassert
names each agent by its ``graph.node.id`` (``src/traceassert/_dialects/_crewai.py``).

Without ``use_event_listener`` the instrumentor wraps CrewAI's methods instead: ``<role>._execute_core``
AGENT spans, tool spans, and no model calls (they are left to an LLM instrumentation such as
``openinference-instrumentation-openai``); the delegated agent's run has no span of its own there, so
this stack uses the event listener.

With ``tracer_provider=None`` the spans go to the global provider, looked up as each span starts.

The scenario
------------
``instrumentation/_crewai_scenario.py``: the crew on CrewAI's native OpenAI provider over an
``httpx.MockTransport``; the delegation replaces ``ask_helper`` (`EXPECTED` says so).
"""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _crewai_scenario as _crew
from . import _recording
from ._crewai_scenario import EXPECTED, PROMPT
from ._instrumentors import switch_off, switch_on
from ._routing import RoutingTracerProvider

__all__ = [
    "EXPECTED",
    "PROMPT",
    "instrument",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Turn on OpenInference's CrewAI instrumentation, event-listener mode (replacing an earlier one).

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up each time a
            span starts (so a provider installed later, e.g. by the traceassert pytest plugin, is used).
    """
    from openinference.instrumentation.crewai import CrewAIInstrumentor

    switch_on(
        CrewAIInstrumentor(), tracer_provider=RoutingTracerProvider(tracer_provider), use_event_listener=True
    )


def uninstrument() -> None:
    """Switch the instrumentation off (its handlers leave CrewAI's event bus)."""
    from openinference.instrumentation.crewai import CrewAIInstrumentor

    switch_off(CrewAIInstrumentor())


run_scenario = _crew.run_scenario
run_scenario_async = _crew.run_scenario_async


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented under an in-memory exporter; return its finished spans."""
    return _recording.record_spans(instrument, uninstrument, run_scenario)
