"""The scenario on the OpenAI Agents SDK, shared by its stacks (OpenInference, OpenLLMetry).

The agents use the SDK's ``OpenAIResponsesModel`` on an ``AsyncOpenAI`` client whose HTTP transport is a
``MockTransport``: a handler answers every ``POST /responses`` with the script's next turn for the
requested model as a Responses API reply (with ``usage``). No socket is opened and no key is needed. The
turn is read off the request (how many tool results its input holds), so every run replays the script.
``ask_helper`` runs the ``helper`` agent with ``Runner.run`` inside the tool.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agents import Agent, FunctionTool, OpenAIResponsesModel, RunConfig, Runner, function_tool
from openai import AsyncOpenAI

from . import _scenario
from ._scenario import Turn

__all__ = ["build_agents", "mock_client"]


def _output_item(turn: Turn, index: int) -> dict[str, Any]:
    if turn.tool is None:
        return {
            "type": "message",
            "id": f"msg_{index}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
        }
    return {
        "type": "function_call",
        "id": f"fc_{index}",
        "call_id": turn.call_id(index),
        "name": turn.tool,
        "arguments": turn.arguments_json(),
        "status": "completed",
    }


def _reply(turn: Turn, index: int, model: str, response_id: str, created_at: int) -> dict[str, Any]:
    """The Responses API reply (JSON) for ``turn``."""
    return {
        "id": response_id,
        "object": "response",
        "created_at": created_at,
        "model": model,
        "status": "completed",
        "output": [_output_item(turn, index)],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": turn.input_tokens,
            "output_tokens": turn.output_tokens,
            "total_tokens": turn.total_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def mock_client(httpx: Any, *, response_id: Callable[[str, int], str], created_at: int) -> AsyncOpenAI:
    """An ``AsyncOpenAI`` client whose requests the script answers.

    Args:
        httpx: the HTTP library module (``httpx`` or ``httpx2``) whose ``MockTransport`` carries them.
        response_id: the id of the reply to the ``index``-th call of ``model``: ``response_id(model, index)``.
        created_at: the replies' creation time.
    """

    def respond(request: Any) -> Any:
        if request.method != "POST" or not request.url.path.endswith("/responses"):
            return httpx.Response(404, json={"error": {"message": f"not scripted: {request.url.path}"}})
        body = json.loads(request.content)
        model = body.get("model")
        turns = _scenario.SCRIPTS.get(model) if isinstance(model, str) else None
        if turns is None:
            return httpx.Response(404, json={"error": {"message": f"no script for model {model!r}"}})
        items = body.get("input") if isinstance(body.get("input"), list) else []
        index = sum(isinstance(item, dict) and item.get("type") == "function_call_output" for item in items)
        if index >= len(turns):
            return httpx.Response(500, json={"error": {"message": f"the script has only {len(turns)} calls"}})
        reply = _reply(turns[index], index, model, response_id(model, index), created_at)
        return httpx.Response(200, json=reply)

    # openai 3.x is typed for its ``httpx2`` clients and accepts ``httpx`` ones too (as 1.x and 2.x do)
    http_client: Any = httpx.AsyncClient(transport=httpx.MockTransport(respond))
    return AsyncOpenAI(
        api_key="test", base_url="http://scripted.invalid/v1", http_client=http_client, max_retries=0
    )


def build_agents(
    client: AsyncOpenAI, explode: FunctionTool, run_config: Callable[[], RunConfig | None]
) -> tuple[Agent[Any], Agent[Any]]:
    """The agents ``(orchestrator, helper)`` on ``client``; ``explode`` is the stack's failing tool, and
    ``run_config()`` the configuration the nested run gets."""
    helper: Agent[Any] = Agent(
        name="helper",
        instructions=_scenario.HELPER_INSTRUCTIONS,
        model=OpenAIResponsesModel(_scenario.HELPER_MODEL, client),
    )

    @function_tool
    async def ask_helper(question: str) -> str:
        """Ask the helper agent for advice."""
        result = await Runner.run(helper, question, run_config=run_config())
        return str(result.final_output)

    orchestrator: Agent[Any] = Agent(
        name="orchestrator",
        instructions=_scenario.ORCHESTRATOR_INSTRUCTIONS,
        model=OpenAIResponsesModel(_scenario.ORCHESTRATOR_MODEL, client),
        tools=[function_tool(_scenario.get_weather), explode, ask_helper],
    )
    return orchestrator, helper
