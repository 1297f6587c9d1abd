"""LlamaIndex agent workflow + OpenInference stack: two ``FunctionAgent`` s traced by
``openinference-instrumentation-llama-index``.

Instrumentation
---------------
`instrument` calls ``LlamaIndexInstrumentor().instrument(tracer_provider=...)``: the instrumentor adds a
span handler and an event handler to LlamaIndex's root dispatcher, so every dispatcher span (every
method LlamaIndex marks, named ``<Class>.<method>``) becomes one OpenTelemetry span (scope
``openinference.instrumentation.llama_index``) with ``openinference.span.kind`` set by the object the
method runs on:

- ``CHAIN``: the agent's workflow run ``FunctionAgent.run`` and each workflow step under it
  (``BaseWorkflowAgent.init_run``, ``.setup_agent``, ``.run_agent_step``, ``.parse_agent_output``,
  ``.call_tool``, ``.aggregate_tool_results``). No span carries the agent's name as an attribute: it is
  only in the reprs of the steps' events (``current_agent_name='orchestrator'`` in ``input.value``);
  the run's ``input.value`` is the workflow's state and its ``output.value`` a ``StopEvent`` repr cut
  at 200 characters;
- ``LLM``: every method of the LLM. ``ScriptedLLM.astream_chat`` is the model call:
  ``llm.model_name``, ``llm.token_count.prompt/completion/total`` (from ``raw["usage"]``),
  ``llm.finish_reason``, messages as ``llm.input_messages.N.message.*`` /
  ``llm.output_messages.N.message.*`` with the tool calls; ``ScriptedLLM._prepare_chat_with_tools``
  (one per call, beside it) is an LLM span too, with no tokens and no output messages;
- ``TOOL``: ``FunctionTool.acall`` with ``tool.name``, ``tool.description``, ``tool.parameters``,
  ``input.value`` = ``{"kwargs": {...}}`` and ``output.value`` = the ``ToolOutput`` as JSON
  (``raw_output`` is the result). A failed tool's span has status ERROR (``RuntimeError: <message>``)
  and an ``exception`` event, and no output; the ``call_tool`` step around it stays OK.

The helper's ``FunctionAgent.run`` sits under the ``ask_helper`` tool span. traceassert reads the run
spans as agent invocations named after their steps' ``current_agent_name``, drops the LLM spans that
call no model, and takes the tool arguments from ``kwargs`` and the result from ``raw_output``
(``src/traceassert/_dialects/_llamaindex.py``). Not recorded: the agents' input and output (their first
and last model calls have them).

With ``tracer_provider=None`` the spans go to the global provider, looked up as each span starts.

The scenario
------------
``instrumentation/_llamaindex_scenario.py``: a ``FunctionAgent`` whose ``ask_helper`` tool runs a
second ``FunctionAgent``, both on a scripted ``FunctionCallingLLM`` (no network).
"""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _llamaindex_scenario as _li
from . import _recording
from ._instrumentors import switch_off, switch_on
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


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Turn on OpenInference's LlamaIndex instrumentation (replacing an earlier `instrument`).

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up each time a
            span starts (so a provider installed later, e.g. by the traceassert pytest plugin, is used).
    """
    from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

    switch_on(LlamaIndexInstrumentor(), tracer_provider=RoutingTracerProvider(tracer_provider))


def uninstrument() -> None:
    """Switch the instrumentation off (its handlers leave LlamaIndex's dispatcher)."""
    from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

    switch_off(LlamaIndexInstrumentor())


run_scenario = _li.run_scenario
run_scenario_async = _li.run_scenario_async


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented under an in-memory exporter; return its finished spans."""
    return _recording.record_spans(instrument, uninstrument, run_scenario)
