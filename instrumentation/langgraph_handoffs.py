"""The handoff scenario on LangGraph: a supervisor graph whose ``concierge`` agent hands off with
``transfer_to_<agent>`` tools, under any of the LangGraph stacks' instrumentations.

The app
-------
The supervisor pattern of ``langgraph-supervisor``, written out: a parent graph ``front_desk`` with one
node per agent (``create_react_agent`` graphs named ``concierge``, ``bookings`` and ``weather``); every
worker goes back to ``concierge`` when done. The concierge's tools are handoff tools: a tool named
``transfer_to_<agent>`` that returns a ``Command`` for the parent graph (``graph=Command.PARENT``), which
LangGraph raises as ``ParentCommand`` through the concierge's graph to route control. The sequential
variant's tool says ``goto="bookings"`` (with the conversation as the update); the parallel variant's
tools say ``goto=[Send(<agent>, ...)]``, which ``ToolNode`` combines into one command, so both workers
run, in parallel.

The models are `HandoffChatModel`, a LangChain ``GenericFakeChatModel`` playing the script of
``_handoff_scenario`` one response per call (it counts its calls; `run_scenario` starts every run from
the top), and reporting the model name and finish reason where OpenInference, OpenLLMetry and Monocle
read them.

What the instrumentations record
--------------------------------
- OpenInference: the handoff tool is a ``TOOL`` span whose ``output.value`` is the serialised
  ``Command`` (``{"graph": "__parent__", "goto": ...}``); the concierge's graph and node spans carry
  an ``exception`` event ``langgraph.errors.ParentCommand`` but status OK.
- OpenLLMetry: ``execute_tool transfer_to_<agent>`` with the ``Command`` as its result, plus ``goto
  <agent>`` spans; the concierge's ``invoke_agent`` / ``execute_task`` spans are **ERROR** with the
  ``ParentCommand`` as exception and description.
- Monocle: no span for the handoff tool (Monocle skips ``transfer_to_*`` tools); the concierge's model
  call is marked ``span.subtype=delegation`` and records only the *first* tool call of the response; the
  agent spans of the workers name the agent control came from (``entity.1.from_agent``).

In every case the workers' agent spans are siblings of the concierge's, not nested in it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from importlib import import_module
from typing import Annotated, Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool, InjectedToolCallId, StructuredTool, tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedState, create_react_agent
from langgraph.types import Command, Send
from opentelemetry.sdk.trace import ReadableSpan
from pydantic import Field

from . import _handoff_scenario as hs
from . import _recording
from ._handoff_scenario import PROMPT, Step

__all__ = ["EXPECTED", "PROMPT", "HandoffChatModel", "build_app", "record_spans", "run_scenario"]

#: (parallel) -> the ground truth of a run
EXPECTED = {parallel: hs.expected("langgraph", parallel) for parallel in (False, True)}
#: the stack modules whose instrumentation can record the app
STACKS = (
    "instrumentation.langgraph_openinference",
    "instrumentation.langgraph_traceloop",
    "instrumentation.langgraph_monocle",
)


class HandoffChatModel(GenericFakeChatModel):
    """Plays ``steps``, one per call (``calls`` counts them), with tool calls and token usage."""

    steps: tuple[Step, ...]
    model_name: str
    calls: list[int] = Field(default_factory=list)
    #: unused (the script replaces it); required by the base class
    messages: Iterator[AIMessage | str] = Field(default_factory=lambda: iter(()))

    def bind_tools(self, tools: Any, **kwargs: Any) -> HandoffChatModel:
        return self

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        index = len(self.calls)
        self.calls.append(index)
        step = self.steps[min(index, len(self.steps) - 1)]
        calls = [
            {"name": name, "args": dict(args), "id": step.call_id(self.model_name, index, position)}
            for position, (name, args) in enumerate(step.calls)
        ]
        reason = "tool_calls" if calls else "stop"
        message = AIMessage(
            content=step.text,
            tool_calls=calls,
            usage_metadata={
                "input_tokens": step.input_tokens,
                "output_tokens": step.output_tokens,
                "total_tokens": step.input_tokens + step.output_tokens,
            },
            response_metadata={"finish_reason": reason, "model_name": self.model_name},
        )
        return ChatResult(
            generations=[ChatGeneration(message=message, generation_info={"finish_reason": reason})]
        )


def _handoff_tool(agent: str, parallel: bool) -> BaseTool:
    name = f"transfer_to_{agent}"

    @tool(name, description=f"Hand the conversation to the {agent} agent.")
    def handoff(
        state: Annotated[dict[str, Any], InjectedState], tool_call_id: Annotated[str, InjectedToolCallId]
    ) -> Command[Any]:
        if parallel:
            task = {"messages": [state["messages"][0]]}
            return Command(graph=Command.PARENT, goto=[Send(agent, task)])
        done = ToolMessage(content=f"Transferred to {agent}", name=name, tool_call_id=tool_call_id)
        return Command(graph=Command.PARENT, goto=agent, update={"messages": [*state["messages"], done]})

    return handoff


def build_app(model: type[HandoffChatModel] = HandoffChatModel, *, parallel: bool = False) -> Any:
    """The compiled supervisor graph ``front_desk`` (its models of class ``model``)."""
    steps = hs.SCRIPTS[parallel]
    workers = ("bookings", "weather") if parallel else ("bookings",)
    tools = {"bookings": hs.book_table, "weather": hs.get_weather}
    with warnings.catch_warnings():
        # LangGraph 1.x points to langchain.agents.create_agent; the prebuilt agent still works.
        warnings.simplefilter("ignore", DeprecationWarning)
        concierge = create_react_agent(
            model(steps=steps["concierge"], model_name=hs.MODELS["concierge"]),
            tools=[_handoff_tool(w, parallel) for w in workers],
            name="concierge",
            version="v1",  # one ToolNode run for all of a response's calls: parallel handoffs combine
        )
        agents = {
            w: create_react_agent(
                model(steps=steps[w], model_name=hs.MODELS[w]),
                tools=[StructuredTool.from_function(tools[w])],
                name=w,
            )
            for w in workers
        }
    graph = StateGraph(MessagesState)
    graph.add_node(concierge, destinations=workers)
    for worker, agent in agents.items():
        graph.add_node(agent)
        graph.add_edge(worker, "concierge")
    graph.add_edge(START, "concierge")
    return graph.compile(name="front_desk")


def run_scenario(*, parallel: bool = False, model: type[HandoffChatModel] = HandoffChatModel) -> str:
    """Run the scenario from the top; the last message of the run."""
    app = build_app(model, parallel=parallel)
    result = app.invoke({"messages": [{"role": "user", "content": PROMPT}]})
    return str(result["messages"][-1].content)


def record_spans(stack: str = STACKS[0], *, parallel: bool = False) -> list[ReadableSpan]:
    """Run the scenario under the instrumentation of ``stack`` (a module of `STACKS`) on a private
    provider with an in-memory exporter; return its spans (instrumentation off afterwards)."""
    module = import_module(stack)
    return _recording.record_spans(
        module.instrument, module.uninstrument, lambda: run_scenario(parallel=parallel)
    )
