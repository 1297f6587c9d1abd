"""LangGraph + OpenInference stack: a LangGraph ReAct agent traced by OpenInference (LangChain).

Instrumentation
---------------
`instrument` calls ``LangChainInstrumentor().instrument(tracer_provider=...)``: the instrumentor adds its
tracer to every LangChain callback manager, so each LangChain run (a graph, a node, a runnable, a chat
model call, a tool) becomes one span. Every span carries ``openinference.span.kind``:

- ``CHAIN`` for the graph (span name: the graph's name, ``name=`` of ``create_react_agent``, default
  "LangGraph") and for every node and runnable inside it; LangChain's ``metadata`` (a JSON string)
  carries ``ls_integration="langgraph"`` and, inside a node, ``langgraph_node`` / ``langgraph_step`` /
  ``langgraph_checkpoint_ns``;
- ``AGENT`` for any run whose name contains "agent": here the ReAct agent's model node, ``agent``
  (a node, not an agent invocation);
- ``LLM`` for the chat model: ``llm.model_name`` (LangChain's ``ls_model_name``), ``llm.provider``,
  ``llm.token_count.prompt/completion/total`` (from ``usage_metadata``), ``llm.finish_reason`` and the
  messages flattened as ``llm.input_messages.N.message.*`` / ``llm.output_messages.N.message.*``, tool
  calls as ``...message.tool_calls.M.tool_call.{id,function.name,function.arguments}``;
- ``TOOL`` for a tool: ``tool.name``, ``tool.description``, ``input.value`` (for a tool with one string
  argument the bare value, e.g. ``Paris``; JSON for several arguments; absent for none), ``output.value``
  (the serialised ``ToolMessage``, with its ``tool_call_id``).

A failed tool span has status ERROR and an ``exception`` event (``exception.type``
``langchain_core.tools.base.ToolException``); every other span has status OK. No ``graph.node.id`` or
``agent.name`` is recorded. The nested agent's graph span (``helper``) sits under the ``ask_helper``
tool span and carries the metadata of the orchestrator's ``tools`` node it runs in.

With ``tracer_provider=None`` the spans go to the global provider, as OpenTelemetry resolves it: the one
set when `instrument` runs, or (when none is set yet) the one set later.

The scenario
------------
``instrumentation/_langgraph_scenario.py``: two ``create_react_agent`` graphs on a scripted LangChain chat
model that reports the finish reason in its messages' response metadata.
"""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _langgraph_scenario as _lg
from . import _recording
from ._instrumentors import switch_off, switch_on
from ._langgraph_scenario import ScriptedChatModel
from ._scenario import EXPECTED, PROMPT

__all__ = [
    "EXPECTED",
    "PROMPT",
    "ScriptedChatModel",
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


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Turn on OpenInference's LangChain instrumentation (replacing an earlier `instrument`).

    Args:
        tracer_provider: where the spans go; None means the global tracer provider.
    """
    from openinference.instrumentation.langchain import LangChainInstrumentor

    switch_on(LangChainInstrumentor(), tracer_provider=tracer_provider)


def uninstrument() -> None:
    """Switch the instrumentation off again (LangChain runs no longer make spans)."""
    from openinference.instrumentation.langchain import LangChainInstrumentor

    switch_off(LangChainInstrumentor())


# --------------------------------------------------------------------------------------------------
# The scripted scenario
# --------------------------------------------------------------------------------------------------

# "Ask the helper agent." is the description the recorded trace (tests/data) holds
orchestrator, helper = _lg.build_agents(descriptions={"ask_helper": "Ask the helper agent."})


def run_scenario() -> str:
    """Run the scenario to completion and return the orchestrator's output."""
    return _lg.run(orchestrator)


async def run_scenario_async() -> str:
    """Like `run_scenario`, in the running event loop."""
    return await _lg.run_async(orchestrator)


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented, on a private provider with an in-memory exporter; return its spans.

    Leaves the instrumentation switched off afterwards.
    """
    return _recording.record_spans(instrument, uninstrument, run_scenario)
