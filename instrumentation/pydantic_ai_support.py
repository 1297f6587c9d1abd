"""A scripted Pydantic AI support desk with one branch point and a nested agent that deletes a file.

Used by the coverage tests (a nested agent's ``delete_file`` execution that no check examines) and by
``traceassert suggest``'s tests (many runs of one scenario, two branches). Every agent runs on Pydantic
AI's ``FunctionModel``; the script reads the request from the prompt, so each run replays it:

- ``support`` calls ``lookup_order(order_id=N)``;
- then, the branch point: ``refund(order_id=N, amount=20.0)`` when the prompt asks for a refund,
  else ``escalate(order_id=N, team="billing")``;
- then ``ask_archivist(note="order N closed")``, which runs the nested agent ``archivist``:
  ``list_files(folder="/tmp/orders")``, then ``delete_file(path="/tmp/orders/N.txt")``, then its answer;
- then its answer.

``support`` is also offered ``delete_account``, which the script never calls. Instrumentation on and off:
``instrumentation.pydantic_ai.instrument()`` / ``uninstrument()``.
"""

from __future__ import annotations

import re
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from pydantic_ai.agent import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import RunContext
from pydantic_ai.usage import RequestUsage

from . import _recording, pydantic_ai

__all__ = ["archivist", "prompts", "record_spans", "run_support", "support"]


def _prompt(messages: list[ModelMessage]) -> str:
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    return part.content
    return ""


def _reply(index: int, calls: list[tuple[str, dict[str, Any]]], text: str = "") -> ModelResponse:
    usage = RequestUsage(input_tokens=30 + 10 * index, output_tokens=5 + index)
    if not calls:
        return ModelResponse(parts=[TextPart(text)], usage=usage, finish_reason="stop")
    parts = [ToolCallPart(name, args, tool_call_id=f"call_{index}_{name}") for name, args in calls]
    return ModelResponse(parts=parts, usage=usage, finish_reason="tool_call")


def _order(prompt: str) -> str:
    found = re.search(r"\d+", prompt)
    return found.group(0) if found else "0"


async def _support_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    index = sum(isinstance(m, ModelResponse) for m in messages)
    prompt = _prompt(messages)
    order = _order(prompt)
    if index == 0:
        return _reply(index, [("lookup_order", {"order_id": order})])
    if index == 1:
        if "refund" in prompt.lower():
            return _reply(index, [("refund", {"order_id": order, "amount": 20.0})])
        return _reply(index, [("escalate", {"order_id": order, "team": "billing"})])
    if index == 2:
        return _reply(index, [("ask_archivist", {"note": f"order {order} closed"})])
    return _reply(index, [], f"Order {order} is handled.")


async def _archivist_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    index = sum(isinstance(m, ModelResponse) for m in messages)
    order = _order(_prompt(messages))
    if index == 0:
        return _reply(index, [("list_files", {"folder": "/tmp/orders"})])
    if index == 1:
        return _reply(index, [("delete_file", {"path": f"/tmp/orders/{order}.txt"})])
    return _reply(index, [], "Archived.")


archivist: Agent[None, str] = Agent(
    FunctionModel(_archivist_model, model_name="scripted-archivist"), name="archivist"
)
support: Agent[None, str] = Agent(
    FunctionModel(_support_model, model_name="scripted-support"), name="support"
)


@archivist.tool_plain
def list_files(folder: str) -> list[str]:
    """List the files of a folder."""
    return [f"{folder}/17.txt", f"{folder}/23.txt"]


@archivist.tool_plain
def delete_file(path: str) -> str:
    """Delete a file (nothing is deleted: the scenario only says so)."""
    return f"deleted {path}"


@support.tool_plain
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    return f"order {order_id}: 1 item, 20.00 EUR, delivered"


@support.tool_plain
def refund(order_id: str, amount: float) -> str:
    """Refund an order."""
    return f"refunded {amount:.2f} EUR on order {order_id}"


@support.tool_plain
def escalate(order_id: str, team: str) -> str:
    """Hand an order to a team."""
    return f"order {order_id} escalated to {team}"


@support.tool_plain
def delete_account(user: str) -> str:
    """Delete a customer's account (offered, never called by the script)."""
    return f"deleted account {user}"


@support.tool
async def ask_archivist(ctx: RunContext[None], note: str) -> str:
    """Ask the archivist to file the order away."""
    result = await archivist.run(note, usage=ctx.usage)
    return result.output


def prompts(n: int) -> list[str]:
    """``n`` prompts: three refunds for every two complaints, each about its own order."""
    return [
        f"Please refund order {100 + i}" if i % 5 in (0, 2, 4) else f"Complaint about order {100 + i}"
        for i in range(n)
    ]


def run_support(prompt: str = "Please refund order 17") -> str:
    """Run the support desk on ``prompt``; returns its answer."""
    return support.run_sync(prompt).output


def record_spans(prompt: str = "Please refund order 17") -> list[ReadableSpan]:
    """One run on ``prompt``, instrumented on a private provider; its spans."""
    return _recording.record_spans(
        pydantic_ai.instrument, pydantic_ai.uninstrument, lambda: run_support(prompt)
    )
