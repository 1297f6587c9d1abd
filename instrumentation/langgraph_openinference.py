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
Both agents are ``create_react_agent`` (``langgraph.prebuilt``; deprecated in LangGraph 1.x in favour of
``langchain.agents.create_agent``, which still works and is what most LangGraph apps run) on a
scripted LangChain chat model, a ``GenericFakeChatModel`` subclass that answers with tool calls and
reports ``usage_metadata``. ``explode`` raises ``ToolException``; the agent's
``ToolNode(handle_tool_errors=True)`` turns the error into a tool message for the model and the run
goes on. ``ask_helper`` runs the second agent, ``helper``, inside the tool.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import StructuredTool, ToolException
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from . import ScenarioFacts

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

    instrumentor = LangChainInstrumentor()
    if instrumentor.is_instrumented_by_opentelemetry:
        instrumentor.uninstrument()
    instrumentor.instrument(tracer_provider=tracer_provider)


def uninstrument() -> None:
    """Switch the instrumentation off again (LangChain runs no longer make spans)."""
    from openinference.instrumentation.langchain import LangChainInstrumentor

    instrumentor = LangChainInstrumentor()
    if instrumentor.is_instrumented_by_opentelemetry:
        instrumentor.uninstrument()


# --------------------------------------------------------------------------------------------------
# The scripted scenario
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

    def message(self, index: int) -> AIMessage:
        usage = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.input_tokens + self.output_tokens,
        }
        calls = []
        if self.tool is not None:
            calls = [{"name": self.tool, "args": dict(self.args), "id": f"call_{index}_{self.tool}"}]
        return AIMessage(
            content=self.text,
            tool_calls=calls,
            usage_metadata=usage,
            response_metadata={"finish_reason": "tool_calls" if self.tool else "stop"},
        )


class ScriptedChatModel(GenericFakeChatModel):
    """LangChain's generic fake chat model, playing a script of turns, with tool calls and token usage.

    The turn is read off the conversation (the AI messages it holds so far), so every run replays the
    script. ``bind_tools`` returns the model itself: the script decides which tools are called.
    ``model_name`` is what LangChain reports as the model (``ls_model_name``).
    """

    turns: Sequence[_Turn]
    model_name: str
    messages: Iterator[AIMessage | str] = iter(())

    def bind_tools(self, tools: Any, *, tool_choice: str | None = None, **kwargs: Any) -> Runnable[Any, Any]:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        index = sum(isinstance(message, AIMessage) for message in messages)
        if index >= len(self.turns):
            raise RuntimeError(f"the script has only {len(self.turns)} model calls")
        return ChatResult(generations=[ChatGeneration(message=self.turns[index].message(index))])


_ORCHESTRATOR_TURNS = (
    _Turn(101, 11, tool="get_weather", args={"city": "Paris"}),
    _Turn(123, 13, tool="explode"),
    _Turn(147, 17, tool="ask_helper", args={"question": "What should I wear?"}),
    _Turn(171, 19, text=_FINAL_OUTPUT),
)
_HELPER_TURNS = (_Turn(37, 7, text=_HELPER_ANSWER),)


def _react_agent(model: ScriptedChatModel, tools: Sequence[StructuredTool], name: str) -> Any:
    from langgraph.prebuilt import ToolNode, create_react_agent

    with warnings.catch_warnings():
        # LangGraph 1.x points to langchain.agents.create_agent; the prebuilt agent still works.
        warnings.simplefilter("ignore", DeprecationWarning)
        return create_react_agent(model, tools=ToolNode(list(tools), handle_tool_errors=True), name=name)


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return f"Sunny, 21C in {city}"


def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise ToolException(_EXPLODE_MESSAGE)


def _ask_helper(question: str) -> str:
    result = helper.invoke({"messages": [("user", question)]})
    return str(result["messages"][-1].content)


async def _ask_helper_async(question: str) -> str:
    result = await helper.ainvoke({"messages": [("user", question)]})
    return str(result["messages"][-1].content)


helper = _react_agent(ScriptedChatModel(turns=_HELPER_TURNS, model_name="scripted-helper"), [], "helper")

orchestrator = _react_agent(
    ScriptedChatModel(turns=_ORCHESTRATOR_TURNS, model_name="scripted-orchestrator"),
    [
        StructuredTool.from_function(get_weather),
        StructuredTool.from_function(explode),
        StructuredTool.from_function(
            func=_ask_helper,
            coroutine=_ask_helper_async,
            name="ask_helper",
            description="Ask the helper agent.",
        ),
    ],
    "orchestrator",
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


def _inputs() -> dict[str, Any]:
    return {"messages": [("user", PROMPT)]}


def run_scenario() -> str:
    """Run the scenario to completion and return the orchestrator's output."""
    result = orchestrator.invoke(_inputs())
    return str(result["messages"][-1].content)


async def run_scenario_async() -> str:
    """Like `run_scenario`, in the running event loop."""
    result = await orchestrator.ainvoke(_inputs())
    return str(result["messages"][-1].content)


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
