"""The scenario on LlamaIndex agent workflows, shared by the LlamaIndex stacks.

Two ``FunctionAgent`` s (``llama_index.core.agent.workflow``), the form the LlamaIndex docs start agents
with: ``orchestrator`` has the tools ``get_weather``, ``explode`` and ``ask_helper``; ``ask_helper`` is
an async function tool that runs the ``helper`` agent (``await helper.run(question)``) and returns its
answer, so the helper's workflow runs inside the orchestrator's tool call. Both agents stream (the
``FunctionAgent`` default), on `ScriptedLLM`: a ``FunctionCallingLLM`` that plays a script of
``_scenario.py`` with no network, one turn per model call, the turn read off the conversation (how many
tool results it holds) so every run replays the script. Each response carries its token usage in the
OpenAI form (``raw["usage"]``: ``prompt_tokens`` / ``completion_tokens`` / ``total_tokens``), where
LlamaIndex's own OpenAI LLM puts it.

A tool that raises does not end a LlamaIndex agent run: ``BaseWorkflowAgent._call_tool`` catches the
exception and sends its text back to the model as a tool output with ``is_error=True``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseAsyncGen,
    ChatResponseGen,
    CompletionResponse,
    CompletionResponseAsyncGen,
    CompletionResponseGen,
    LLMMetadata,
    MessageRole,
    TextBlock,
    ToolCallBlock,
)
from llama_index.core.llms.callbacks import llm_chat_callback
from llama_index.core.llms.function_calling import FunctionCallingLLM
from llama_index.core.llms.llm import ToolSelection
from llama_index.core.tools import BaseTool, FunctionTool

from . import _scenario
from ._scenario import PROMPT, Turn

__all__ = ["ScriptedLLM", "make_agents", "run_scenario", "run_scenario_async"]


class ScriptedLLM(FunctionCallingLLM):
    """A function-calling LlamaIndex LLM that answers from a script of `_scenario` (no network)."""

    model: str
    turns: tuple[Turn, ...]

    @classmethod
    def class_name(cls) -> str:
        return "ScriptedLLM"

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name=self.model, is_chat_model=True, is_function_calling_model=True)

    def _response(self, messages: Sequence[ChatMessage]) -> ChatResponse:
        index = sum(1 for message in messages if message.role == MessageRole.TOOL)
        turn = _scenario.turn_at(self.turns, index)
        blocks: list[Any] = []
        if turn.tool is None:
            blocks.append(TextBlock(text=turn.text))
        else:
            blocks.append(
                ToolCallBlock(
                    tool_call_id=turn.call_id(index), tool_name=turn.tool, tool_kwargs=dict(turn.args)
                )
            )
        usage = {
            "prompt_tokens": turn.input_tokens,
            "completion_tokens": turn.output_tokens,
            "total_tokens": turn.total_tokens,
        }
        message = ChatMessage(role=MessageRole.ASSISTANT, blocks=blocks)
        raw = {
            "model": self.model,
            "usage": usage,
            "finish_reason": "stop" if turn.tool is None else "tool_calls",
        }
        return ChatResponse(message=message, delta=turn.text, raw=raw)

    # the chat API (FunctionAgent streams by default: astream_chat), decorated as LlamaIndex's own LLMs
    # are: the decorator sends the LLM start / end events the instrumentations record

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self._response(messages)

    @llm_chat_callback()
    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self._response(messages)

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        response = self._response(messages)

        def gen() -> ChatResponseGen:
            yield response

        return gen()

    @llm_chat_callback()
    async def astream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseAsyncGen:
        response = self._response(messages)

        async def gen() -> ChatResponseAsyncGen:
            yield response

        return gen()

    def _prepare_chat_with_tools(
        self,
        tools: Sequence[BaseTool],
        user_msg: str | ChatMessage | None = None,
        chat_history: list[ChatMessage] | None = None,
        verbose: bool = False,
        allow_parallel_tool_calls: bool = False,
        tool_required: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        messages = list(chat_history or [])
        if isinstance(user_msg, str):
            messages.append(ChatMessage(role=MessageRole.USER, content=user_msg))
        elif user_msg is not None:
            messages.append(user_msg)
        return {"messages": messages, "tools": [tool.metadata.to_openai_tool() for tool in tools]}

    def get_tool_calls_from_response(
        self, response: ChatResponse, error_on_no_tool_call: bool = True, **kwargs: Any
    ) -> list[ToolSelection]:
        calls = [block for block in response.message.blocks if isinstance(block, ToolCallBlock)]
        if not calls and error_on_no_tool_call:
            raise ValueError("the scripted response calls no tool")
        return [
            ToolSelection(tool_id=c.tool_call_id or "", tool_name=c.tool_name, tool_kwargs=c.tool_kwargs)
            for c in calls
        ]

    # the completion API is not part of the script

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        raise NotImplementedError("the scripted LLM only chats")

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        raise NotImplementedError("the scripted LLM only chats")

    async def acomplete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        raise NotImplementedError("the scripted LLM only chats")

    async def astream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseAsyncGen:
        raise NotImplementedError("the scripted LLM only chats")


def _explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise RuntimeError(_scenario.EXPLODE_MESSAGE)


def make_agents() -> tuple[FunctionAgent, FunctionAgent]:
    """The orchestrator and the helper it runs from its ``ask_helper`` tool."""
    helper = FunctionAgent(
        name="helper",
        description="Gives clothing advice.",
        system_prompt=_scenario.HELPER_INSTRUCTIONS,
        llm=ScriptedLLM(model=_scenario.HELPER_MODEL, turns=_scenario.HELPER_TURNS),
        tools=[],
    )

    async def ask_helper(question: str) -> str:
        """Ask the helper agent for advice."""
        return str(await helper.run(user_msg=question)).strip()

    orchestrator = FunctionAgent(
        name="orchestrator",
        description="Answers weather questions.",
        system_prompt=_scenario.ORCHESTRATOR_INSTRUCTIONS,
        llm=ScriptedLLM(model=_scenario.ORCHESTRATOR_MODEL, turns=_scenario.ORCHESTRATOR_TURNS),
        tools=[
            FunctionTool.from_defaults(fn=_scenario.get_weather, name="get_weather"),
            FunctionTool.from_defaults(fn=_explode, name="explode"),
            FunctionTool.from_defaults(async_fn=ask_helper, name="ask_helper"),
        ],
    )
    return orchestrator, helper


async def run_scenario_async() -> str:
    """Run the scenario in the running event loop; return the orchestrator's answer."""
    orchestrator, _ = make_agents()
    return str(await orchestrator.run(user_msg=PROMPT)).strip()


def run_scenario() -> str:
    """Run the scenario to completion and return the orchestrator's answer."""
    return asyncio.run(run_scenario_async())
