"""LlamaIndex agent workflow + OpenLLMetry stack: the ``FunctionAgent`` s of ``_llamaindex_scenario.py``
traced by OpenLLMetry's ``opentelemetry-instrumentation-llamaindex``.

Instrumentation
---------------
`instrument` calls ``LlamaIndexInstrumentor().instrument(tracer_provider=...)``: on llama-index-core it
adds a span handler and an event handler to LlamaIndex's root dispatcher (scope
``opentelemetry.instrumentation.llamaindex``). The instrumentor imports ``llama_index.llms``, a
namespace only an LLM integration package provides: without one (here ``llama-index-llms-ollama``,
the smallest that does not pin ``openai<3``) it fails with ``ModuleNotFoundError: No module named
'llama_index.llms'``. Its ``uninstrument`` leaves the handlers on the dispatcher: `uninstrument` here
removes them.

Every dispatcher span becomes a span named ``<Class>.task`` with ``traceloop.span.kind = task`` (the
root ``FunctionAgent.workflow``, kind ``workflow``), status UNSET whatever happened:

- the agent's runs: the root ``FunctionAgent.workflow``; the helper's run, inside the ``ask_helper``
  tool, is ``run.task``. No span names an agent: the steps (``BaseWorkflowAgent.task``) carry the
  workflow events as ``traceloop.entity.output`` JSON, with ``"current_agent_name": "<name>"``;
- model calls: ``ScriptedLLM.task`` with ``gen_ai.operation.name = chat``, ``gen_ai.response.model``,
  ``gen_ai.usage.input_tokens`` / ``output_tokens`` / ``total_tokens``, finish reasons and
  ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (the tool calls are *not* in the output
  messages: their parts are empty); the ``_prepare_chat_with_tools`` beside each is a plain task;
- tools: the ``call_tool`` step (``BaseWorkflowAgent.task``) carries ``tool.name`` and ``tool.arguments``
  and, as its output, the ``ToolCallResult`` (``tool_output.raw_output``, ``tool_output.is_error``);
  the tool's own ``FunctionTool.task`` span is under it (``{"kwargs": ...}`` in, the ``ToolOutput``
  out).

A failed tool shows only as ``is_error: true`` in the step's output: no span has status ERROR, and
``explode``'s ``FunctionTool.task`` span is never exported (the handler loses it with the exception;
it logs "Failed to detach context"). The ``ask_helper`` step and tool spans end before their output is
set ("Setting attribute on ended span"): that tool's result is not recorded. traceassert reads the runs
as agents named by their steps, and the ``call_tool`` steps as the tool executions
(``src/traceassert/_dialects/_traceloop_llamaindex.py``).

With ``tracer_provider=None`` the spans go to the global provider, looked up as each span starts.
"""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _llamaindex_scenario as _li
from . import _recording
from ._instrumentors import switch_off
from ._routing import RoutingTracerProvider
from ._scenario import EXPECTED, PROMPT

__all__ = [
    "EXPECTED",
    "PROMPT",
    "instrument",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]

_PACKAGE = "opentelemetry.instrumentation.llamaindex"


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Turn on OpenLLMetry's LlamaIndex instrumentation (replacing an earlier `instrument`).

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up each time a
            span starts (so a provider installed later, e.g. by the traceassert pytest plugin, is used).
    """
    from opentelemetry.instrumentation.llamaindex import LlamaIndexInstrumentor

    uninstrument()
    LlamaIndexInstrumentor().instrument(tracer_provider=RoutingTracerProvider(tracer_provider))


def uninstrument() -> None:
    """Switch the instrumentation off and take its handlers off LlamaIndex's root dispatcher."""
    from llama_index.core.instrumentation import get_dispatcher
    from opentelemetry.instrumentation.llamaindex import LlamaIndexInstrumentor

    switch_off(LlamaIndexInstrumentor())
    dispatcher = get_dispatcher()
    for handlers in (dispatcher.span_handlers, dispatcher.event_handlers):
        handlers[:] = [h for h in handlers if not type(h).__module__.startswith(_PACKAGE)]


run_scenario = _li.run_scenario
run_scenario_async = _li.run_scenario_async


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented under an in-memory exporter; return its finished spans."""
    return _recording.record_spans(instrument, uninstrument, run_scenario)
