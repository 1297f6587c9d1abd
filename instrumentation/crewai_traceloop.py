"""CrewAI + OpenLLMetry stack: the crew of ``_crewai_scenario.py`` traced by OpenLLMetry's
``opentelemetry-instrumentation-crewai``, with its ``opentelemetry-instrumentation-openai`` for the
model calls (as ``Traceloop.init()`` would switch on both).

Instrumentation
---------------
`instrument` switches on both instrumentors (scopes ``opentelemetry.instrumentation.crewai.instrumentation``
and ``opentelemetry.instrumentation.openai.v1``). The CrewAI instrumentor wraps ``Crew.kickoff``,
``Task.execute_sync``, ``Agent.execute_task`` and ``crewai.llm.LLM.call``:

- ``crewai.workflow``: the kickoff, ``gen_ai.operation.name = invoke_agent`` (though no agent runs in it
  itself), ``crewai.crew.*`` (id, agents, tasks, result, token usage as a Python repr); no
  ``traceloop.span.kind``;
- ``<task description>.task``: ``traceloop.span.kind = task``, ``crewai.task.*``, the task's output as
  ``traceloop.entity.output``;
- ``<role>.agent``, one per ``Agent.execute_task`` (the delegated run too, under the delegating
  agent's span): ``traceloop.span.kind = agent``, ``gen_ai.agent.name`` = the role, ``crewai.agent.*``,
  ``gen_ai.request.model``.

``LLM.call`` is CrewAI's LiteLLM-backed class: a native provider (here ``openai/...``) bypasses it, so
the model calls come from the OpenAI instrumentation, one ``openai.chat`` span per request with
``gen_ai.usage.*``, ``gen_ai.response.finish_reasons`` and the messages as ``gen_ai.input.messages`` /
``gen_ai.output.messages`` (the tool calls as ``tool_call`` parts).

Not recorded: **tool executions**. Neither instrumentation has a tool span (CrewAI runs its tools
itself), so the tools are known only as the calls the model asked for (`ta.ToolRequest`s, "requested,
not executed"), and the failure of ``explode`` is not recorded at all. traceassert reads
``crewai.workflow`` as the crew's workflow, not as an agent (``src/traceassert/_dialects/traceloop.py``).

With ``tracer_provider=None`` the spans go to the global provider, looked up as each span starts.
"""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _crewai_scenario as _crew
from . import _recording
from ._crewai_scenario import EXPECTED, PROMPT
from ._instrumentors import remove_wrappers, switch_off
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

#: the modules whose classes OpenLLMetry's instrumentors wrap (see `remove_wrappers`)
_WRAPPED = (
    "crewai.crew",
    "crewai.agent",
    "crewai.task",
    "crewai.llm",
    "openai.resources.chat.completions",
    "openai.resources.completions",
    "openai.resources.embeddings",
    "openai.resources.responses",
)


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Turn on OpenLLMetry's CrewAI and OpenAI instrumentation (replacing an earlier call).

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up each time a
            span starts (so a provider installed later, e.g. by the traceassert pytest plugin, is used).
    """
    from opentelemetry.instrumentation.crewai import CrewAIInstrumentor
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor

    uninstrument()
    provider = RoutingTracerProvider(tracer_provider)
    CrewAIInstrumentor().instrument(tracer_provider=provider)
    OpenAIInstrumentor().instrument(tracer_provider=provider)


def uninstrument() -> None:
    """Switch both instrumentors off (and remove the wrappers they leave behind)."""
    from opentelemetry.instrumentation.crewai import CrewAIInstrumentor
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor

    if switch_off(CrewAIInstrumentor()) | switch_off(OpenAIInstrumentor()):
        remove_wrappers(_WRAPPED, "opentelemetry.instrumentation.")


run_scenario = _crew.run_scenario
run_scenario_async = _crew.run_scenario_async


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented under an in-memory exporter; return its finished spans."""
    return _recording.record_spans(instrument, uninstrument, run_scenario)
