"""The scenario on LangGraph, shared by the LangGraph stacks (OpenInference, OpenLLMetry, Monocle).

Both agents are ``create_react_agent`` graphs (``langgraph.prebuilt``; deprecated in LangGraph 1.x in
favour of ``langchain.agents.create_agent``, which still works and is what most LangGraph apps run) on
`ScriptedChatModel`, a LangChain ``GenericFakeChatModel`` that answers with the script's tool calls and
reports ``usage_metadata``. ``explode`` raises ``ToolException``; the agent's
``ToolNode(handle_tool_errors=True)`` turns the error into a tool message for the model and the run goes
on. ``ask_helper`` runs the ``helper`` graph inside the tool.

Instrumentations read the model name and the finish reason from different places of LangChain's
result: a stack subclasses `ScriptedChatModel` and overrides `ScriptedChatModel.generation` to put them
where its instrumentation looks.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import StructuredTool, ToolException
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, create_react_agent
from pydantic import Field

from . import _scenario
from ._scenario import PROMPT, Turn

__all__ = [
    "Graph",
    "MessageForm",
    "ScriptedChatModel",
    "ai_message",
    "answer",
    "build_agents",
    "finish_reason",
    "prompt_input",
    "run",
    "run_async",
]

Graph = CompiledStateGraph[Any, Any, Any, Any]


def finish_reason(turn: Turn) -> str:
    """The OpenAI-style finish reason of ``turn``'s reply."""
    return "stop" if turn.tool is None else "tool_calls"


def ai_message(turn: Turn, index: int, **response_metadata: Any) -> AIMessage:
    """The reply to the ``index``-th call: ``turn``'s tool call or text, with its usage."""
    usage = {
        "input_tokens": turn.input_tokens,
        "output_tokens": turn.output_tokens,
        "total_tokens": turn.total_tokens,
    }
    calls = []
    if turn.tool is not None:
        calls = [{"name": turn.tool, "args": dict(turn.args), "id": turn.call_id(index)}]
    return AIMessage(
        content=turn.text, tool_calls=calls, usage_metadata=usage, response_metadata=response_metadata
    )


class ScriptedChatModel(GenericFakeChatModel):
    """LangChain's generic fake chat model, playing a script of turns, with tool calls and token usage.

    The turn is read off the conversation (the AI messages it holds so far), so every run replays the
    script. ``bind_tools`` returns the model itself: the script decides which tools are called.
    ``model_name`` is what LangChain reports as the model (``ls_model_name``).
    """

    turns: tuple[Turn, ...]
    model_name: str
    #: unused (the script replaces it); required by the base class
    messages: Iterator[AIMessage | str] = Field(default_factory=lambda: iter(()))

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self

    def generation(self, turn: Turn, index: int) -> ChatGeneration:
        """The reply to the ``index``-th call: the finish reason in the message's response metadata."""
        return ChatGeneration(message=ai_message(turn, index, finish_reason=finish_reason(turn)))

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        index = sum(isinstance(message, AIMessage) for message in messages)
        return ChatResult(generations=[self.generation(_scenario.turn_at(self.turns, index), index)])


#: how a graph input writes a user message: ``("user", text)`` or ``{"role": "user", "content": text}``
MessageForm = Literal["tuple", "dict"]


def prompt_input(text: str, form: MessageForm = "tuple") -> dict[str, Any]:
    """A graph input holding one user message, written in ``form``."""
    message = ("user", text) if form == "tuple" else {"role": "user", "content": text}
    return {"messages": [message]}


def answer(result: Mapping[str, Any]) -> str:
    """The last message of a graph's result: the agent's answer."""
    return str(result["messages"][-1].content)


def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise ToolException(_scenario.EXPLODE_MESSAGE)


def _react_agent(model: ScriptedChatModel, tools: Sequence[StructuredTool], name: str) -> Graph:
    with warnings.catch_warnings():
        # LangGraph 1.x points to langchain.agents.create_agent; the prebuilt agent still works.
        warnings.simplefilter("ignore", DeprecationWarning)
        return create_react_agent(model, tools=ToolNode(list(tools), handle_tool_errors=True), name=name)


def build_agents(
    model: type[ScriptedChatModel] = ScriptedChatModel,
    *,
    descriptions: Mapping[str, str] | None = None,
    form: MessageForm = "tuple",
) -> tuple[Graph, Graph]:
    """The compiled graphs ``(orchestrator, helper)``, their models of class ``model``.

    ``descriptions`` replaces the description of a tool (by name); the default is the function's
    docstring, "Ask the helper agent for advice." for ``ask_helper``. ``ask_helper`` writes its question
    to the helper in message ``form``.
    """
    described = {"ask_helper": "Ask the helper agent for advice.", **(descriptions or {})}
    helper = _react_agent(
        model(turns=_scenario.HELPER_TURNS, model_name=_scenario.HELPER_MODEL), [], "helper"
    )

    def ask_helper(question: str) -> str:
        return answer(helper.invoke(prompt_input(question, form)))

    async def ask_helper_async(question: str) -> str:
        return answer(await helper.ainvoke(prompt_input(question, form)))

    tools = [
        StructuredTool.from_function(_scenario.get_weather, description=described.get("get_weather")),
        StructuredTool.from_function(explode, description=described.get("explode")),
        StructuredTool.from_function(
            func=ask_helper,
            coroutine=ask_helper_async,
            name="ask_helper",
            description=described["ask_helper"],
        ),
    ]
    orchestrator = _react_agent(
        model(turns=_scenario.ORCHESTRATOR_TURNS, model_name=_scenario.ORCHESTRATOR_MODEL),
        tools,
        "orchestrator",
    )
    return orchestrator, helper


def run(orchestrator: Graph, form: MessageForm = "tuple") -> str:
    """Run the scenario on ``orchestrator`` (the prompt written in message ``form``); its answer."""
    return answer(orchestrator.invoke(prompt_input(PROMPT, form)))


async def run_async(orchestrator: Graph, form: MessageForm = "tuple") -> str:
    """Like `run`, in the running event loop."""
    return answer(await orchestrator.ainvoke(prompt_input(PROMPT, form)))
