"""LangGraph + OpenLLMetry (Traceloop) stack: a ``create_react_agent`` graph, and the scripted scenario.

Instrumentation
---------------
`instrument` switches on ``LangchainInstrumentor`` (``opentelemetry-instrumentation-langchain``) with
the given tracer provider, as ``Traceloop.init()`` would but without the Traceloop SDK (which wants an
exporter endpoint). It adds a LangChain callback handler to every callback manager and wraps LangGraph's
``Pregel.stream`` / ``astream``. `uninstrument` removes both.

What it records (0.62.x)
------------------------
For each graph run, ``invoke_agent <graph>`` (from the ``Pregel`` wrapper: ``gen_ai.operation.name=
invoke_agent``, ``gen_ai.agent.name``, no ``traceloop.*`` keys); for the outermost chain below it,
``<graph>.workflow`` (``traceloop.span.kind=workflow``, also ``invoke_agent`` / ``gen_ai.agent.name``,
``traceloop.entity.input`` / ``.output`` as JSON wrappers ``{"inputs": ...}`` / ``{"outputs": ...}``);
every node and runnable inside is ``execute_task <name>`` (``traceloop.span.kind=task``); chat model
calls are ``<ModelClass>.chat`` (CLIENT, ``gen_ai.input.messages`` / ``gen_ai.output.messages``,
``gen_ai.usage.*`` incl. ``total_tokens``); tools are ``execute_tool <tool>`` (``traceloop.span.kind=
tool``) whose ``traceloop.entity.input`` (and ``gen_ai.tool.call.arguments``) is a wrapper
``{"input_str", "tags", "metadata", "inputs", "kwargs"}``: the arguments are ``inputs``, the call id is
``kwargs.tool_call_id``; the output wraps the serialised ``ToolMessage``. A failing tool's span is
ERROR with ``error.type``, an ``exception`` event and ``gen_ai.task.status=failure``.

The nested graph is split: inside ``execute_tool ask_helper`` there are two siblings,
``invoke_agent helper`` (the ``Pregel`` wrapper's span, which stays empty) and ``execute_task helper``
(the graph's chain, parented by LangChain's run ids, holding all of the helper's steps). traceassert
puts the latter inside the former by name and time.

The scenario
------------
``instrumentation/_langgraph_scenario.py``: two ``create_react_agent`` graphs on `ScriptedChatModel`, a
scripted LangChain chat model that reports its name where OpenLLMetry's callback handler reads it (the
invocation parameters and the response metadata) and the finish reason in the generation info.
"""

from __future__ import annotations

from typing import Any

from langchain_core.outputs import ChatGeneration
from opentelemetry import trace
from opentelemetry.instrumentation.langchain import LangchainInstrumentor
from opentelemetry.sdk.trace import ReadableSpan

from . import _langgraph_scenario as _lg
from . import _recording
from ._instrumentors import remove_wrappers, switch_off
from ._routing import RoutingTracerProvider
from ._scenario import EXPECTED, PROMPT, Turn

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
    """Turn on OpenLLMetry's LangChain / LangGraph instrumentation (replacing an earlier call).

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up each time a
            span starts (so a provider installed later, e.g. by the traceassert pytest plugin, is used).
    """
    uninstrument()
    provider = RoutingTracerProvider() if tracer_provider is None else tracer_provider
    LangchainInstrumentor().instrument(tracer_provider=provider)


#: the modules holding what ``LangchainInstrumentor`` wraps (see `remove_wrappers`)
_WRAPPED_MODULES = (
    "langchain_core.callbacks",
    "langchain_core.callbacks.base",
    "langgraph.pregel",
    "langgraph.pregel.main",
    "langgraph.types",
    "langgraph.prebuilt",
    "langgraph.prebuilt.chat_agent_executor",
    "langchain.agents",
    "langchain.agents.factory",
    "langchain.agents.middleware",
    "langchain.agents.middleware.types",
    "openai.resources.chat.completions",
    "openai.resources.completions",
    "openai.resources.embeddings",
)


def uninstrument() -> None:
    """Switch the instrumentation off (LangChain callback managers no longer get its handler)."""
    if switch_off(LangchainInstrumentor()):
        remove_wrappers(_WRAPPED_MODULES, "opentelemetry.instrumentation.langchain")


# --------------------------------------------------------------------------------------------------
# The scripted scenario
# --------------------------------------------------------------------------------------------------


class ScriptedChatModel(_lg.ScriptedChatModel):
    """The scenario's scripted chat model, reporting its name and finish reason as OpenLLMetry reads them."""

    @property
    def _identifying_params(self) -> dict[str, Any]:
        # the model name in the invocation parameters is how callback handlers learn it
        return {"model_name": self.model_name}

    def generation(self, turn: Turn, index: int) -> ChatGeneration:
        message = _lg.ai_message(turn, index, model_name=self.model_name)
        return ChatGeneration(message=message, generation_info={"finish_reason": _lg.finish_reason(turn)})


# the explode description is the one the recorded trace (tests/data) holds
orchestrator, helper = _lg.build_agents(
    ScriptedChatModel,
    descriptions={
        "explode": "A tool that always fails; the agent's ToolNode reports the failure back to the model."
    },
)


def run_scenario() -> str:
    """Run the scenario to completion and return the orchestrator's output."""
    return _lg.run(orchestrator)


async def run_scenario_async() -> str:
    """Like `run_scenario`, in the running event loop."""
    return await _lg.run_async(orchestrator)


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented under an in-memory exporter; return its spans (instrumentation off)."""
    return _recording.record_spans(instrument, uninstrument, run_scenario)
