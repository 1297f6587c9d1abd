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
The orchestrator and the helper are ``create_react_agent`` graphs on a scripted chat model
(`ScriptedChatModel`, a ``GenericFakeChatModel`` that answers with tool calls and reports
``usage_metadata``). ``explode`` raises ``ToolException``; ``ToolNode(handle_tool_errors=True)`` turns
the error into a tool message for the model and the run goes on. ``ask_helper`` runs the helper graph.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import StructuredTool, ToolException, tool
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, create_react_agent
from opentelemetry import trace
from opentelemetry.instrumentation.langchain import LangchainInstrumentor
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import Field

from ._routing import RoutingTracerProvider
from ._traceloop_common import (
    EXPECTED,
    EXPLODE_MESSAGE,
    HELPER_TURNS,
    ORCHESTRATOR_TURNS,
    PROMPT,
    Turn,
    remove_wrappers,
)

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
    instrumentor = LangchainInstrumentor()
    if instrumentor.is_instrumented_by_opentelemetry:
        instrumentor.uninstrument()
        remove_wrappers(_WRAPPED_MODULES, "opentelemetry.instrumentation.langchain")


# --------------------------------------------------------------------------------------------------
# The scripted scenario
# --------------------------------------------------------------------------------------------------


def _message(turn: Turn, index: int, model_name: str) -> AIMessage:
    usage = {
        "input_tokens": turn.input_tokens,
        "output_tokens": turn.output_tokens,
        "total_tokens": turn.input_tokens + turn.output_tokens,
    }
    calls = (
        [] if turn.tool is None else [{"name": turn.tool, "args": dict(turn.args), "id": turn.call_id(index)}]
    )
    return AIMessage(
        content=turn.text,
        tool_calls=calls,
        usage_metadata=usage,
        response_metadata={"model_name": model_name},
    )


class ScriptedChatModel(GenericFakeChatModel):
    """LangChain's ``GenericFakeChatModel`` playing a script of tool calls and answers, with usage.

    The turn is read off the conversation (how many AI messages it holds), so every run replays the
    script. ``bind_tools`` returns the model itself: the script decides which tools are called.
    """

    turns: tuple[Turn, ...]
    model_name: str
    #: unused (the script replaces it); required by the base class
    messages: Iterator[AIMessage | str] = Field(default_factory=lambda: iter(()))

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self

    @property
    def _identifying_params(self) -> dict[str, Any]:
        # the model name in the invocation parameters is how callback handlers learn it
        return {"model_name": self.model_name}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        index = sum(isinstance(message, AIMessage) for message in messages)
        if index >= len(self.turns):
            raise RuntimeError(f"the script has only {len(self.turns)} model calls")
        turn = self.turns[index]
        reason = "stop" if turn.tool is None else "tool_calls"
        generation = ChatGeneration(
            message=_message(turn, index, self.model_name), generation_info={"finish_reason": reason}
        )
        return ChatResult(generations=[generation])


def _react_agent(name: str, turns: Sequence[Turn], tools: Any) -> CompiledStateGraph[Any, Any, Any, Any]:
    model = ScriptedChatModel(turns=tuple(turns), model_name=f"scripted-{name}")
    with warnings.catch_warnings():
        # LangGraph 1.x points to langchain.agents.create_agent; the prebuilt agent is still the common one
        warnings.simplefilter("ignore", DeprecationWarning)
        return create_react_agent(model, tools=tools, name=name)


helper = _react_agent("helper", HELPER_TURNS, [])


def _answer(result: dict[str, Any]) -> str:
    return str(result["messages"][-1].content)


@tool
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return f"Sunny, 21C in {city}"


@tool
def explode() -> str:
    """A tool that always fails; the agent's ToolNode reports the failure back to the model."""
    raise ToolException(EXPLODE_MESSAGE)


def _ask_helper(question: str) -> str:
    """Ask the helper agent for advice."""
    return _answer(helper.invoke({"messages": [("user", question)]}))


async def _ask_helper_async(question: str) -> str:
    return _answer(await helper.ainvoke({"messages": [("user", question)]}))


ask_helper = StructuredTool.from_function(func=_ask_helper, coroutine=_ask_helper_async, name="ask_helper")

orchestrator = _react_agent(
    "orchestrator",
    ORCHESTRATOR_TURNS,
    ToolNode([get_weather, explode, ask_helper], handle_tool_errors=True),
)


def run_scenario() -> str:
    """Run the scenario to completion and return the orchestrator's output."""
    return _answer(orchestrator.invoke({"messages": [("user", PROMPT)]}))


async def run_scenario_async() -> str:
    """Like `run_scenario`, in the running event loop."""
    return _answer(await orchestrator.ainvoke({"messages": [("user", PROMPT)]}))


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented under an in-memory exporter; return its spans (instrumentation off)."""
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


def main(argv: Sequence[str]) -> None:
    """``python -m instrumentation.langgraph_traceloop [PATH]``: record the scenario as OTLP JSON."""
    import traceassert as ta

    path = argv[0] if argv else "tests/data/traceloop_langgraph.json"
    ta.dump_trace(record_spans(), path, redact=True)
    print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
