"""The scripted model's answers as OpenAI Chat Completions responses (JSON), for the stacks whose
framework talks to an OpenAI-compatible endpoint (answered by an ``httpx.MockTransport``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ._scenario import Turn

__all__ = ["chat_completion", "scripted_reply"]


def chat_completion(
    model: str,
    index: int,
    turn: Turn,
    *,
    tool: str | None = None,
    arguments: Mapping[str, Any] | None = None,
    call_id: str | None = None,
) -> dict[str, Any]:
    """The chat completion in which ``model`` plays ``turn``, its ``index``-th call, with the turn's usage.

    The answer is a call to ``tool(**arguments)`` (by default the turn's own tool and arguments) with the
    id ``call_id`` (by default `Turn.call_id`), or, when there is no tool, the turn's text.
    """
    name = tool if tool is not None else turn.tool
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if name is None:
        message["content"] = turn.text or None
    else:
        function = {
            "name": name,
            "arguments": json.dumps(dict(turn.args if arguments is None else arguments)),
        }
        message["tool_calls"] = [
            {
                "id": call_id if call_id is not None else turn.call_id(index),
                "type": "function",
                "function": function,
            }
        ]
    return {
        "id": f"chatcmpl-{model}-{index}",
        "object": "chat.completion",
        "created": 1_700_000_000 + index,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "stop" if name is None else "tool_calls",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": turn.input_tokens,
            "completion_tokens": turn.output_tokens,
            "total_tokens": turn.total_tokens,
        },
    }


def scripted_reply(
    scripts: Mapping[str, Sequence[Turn]], request: Mapping[str, Any]
) -> tuple[int, dict[str, Any]]:
    """The status and JSON body a scripted endpoint answers the chat completions ``request`` (its JSON)
    with: the turn of the requested model (in ``scripts``, model name -> turns) is the number of tool
    results the request holds. An unknown model is a 404, a turn past the script's end a 500."""
    model = request["model"]
    turns = scripts.get(model)
    if turns is None:
        return 404, {"error": {"message": f"no script for model {model!r}"}}
    index = sum(1 for message in request["messages"] if message.get("role") == "tool")
    if index >= len(turns):
        return 500, {"error": {"message": f"the script has only {len(turns)} calls"}}
    return 200, chat_completion(model, index, turns[index])
