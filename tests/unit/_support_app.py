"""A support-triage app on Pydantic AI, written from the docs alone, for the nesting tests.

``support_triage`` looks the order up (``lookup_order``) and delegates to the ``refunds`` agent through
its tool ``delegate_to_refunds``; ``refunds`` calls ``issue_refund`` and answers. The models are
``FunctionModel``s playing a fixed script (no network). ``run()`` runs it once under
``Agent.instrument_all()`` inside ``ta.capture()`` and returns the Trace; ``spans()`` records once per
process.

The ground truth, from the script: support_triage called lookup_order(order_id="A-17") and
delegate_to_refunds(order_id="A-17", amount=25.0) itself and made 3 model calls (407 tokens); refunds,
nested inside delegate_to_refunds, called issue_refund(order_id="A-17", amount=25.0) once and made 2
model calls (114 tokens).
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

import traceassert as ta

PROMPT = "My order A-17 arrived broken, please refund it."
ANSWER = "I have refunded 25.0 for order A-17."


def _scripted(model_name: str, *turns: tuple[Any, int, int]) -> FunctionModel:
    """A model playing ``turns`` in order: each (tool call (name, arguments) or final text, tokens in,
    tokens out)."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        reply, tokens_in, tokens_out = turns[sum(isinstance(m, ModelResponse) for m in messages)]
        final = isinstance(reply, str)
        return ModelResponse(
            parts=[TextPart(reply) if final else ToolCallPart(*reply)],
            usage=RequestUsage(input_tokens=tokens_in, output_tokens=tokens_out),
            finish_reason="stop" if final else "tool_call",
        )

    return FunctionModel(respond, model_name=model_name)


refunds: Agent[None, str] = Agent(
    _scripted(
        "scripted-refunds",
        (("issue_refund", {"order_id": "A-17", "amount": 25.0}), 40, 8),
        ("Refunded 25.0 for A-17.", 60, 6),
    ),
    name="refunds",
)
support_triage: Agent[None, str] = Agent(
    _scripted(
        "scripted-triage",
        (("lookup_order", {"order_id": "A-17"}), 100, 10),
        (("delegate_to_refunds", {"order_id": "A-17", "amount": 25.0}), 120, 12),
        (ANSWER, 150, 15),
    ),
    name="support_triage",
)


@refunds.tool_plain
def issue_refund(order_id: str, amount: float) -> str:
    """Refund an order."""
    return f"refund of {amount} issued for {order_id}"


@support_triage.tool_plain
def lookup_order(order_id: str) -> dict[str, Any]:
    """Look an order up."""
    return {"order_id": order_id, "status": "delivered", "total": 25.0}


@support_triage.tool
async def delegate_to_refunds(ctx: RunContext[None], order_id: str, amount: float) -> str:
    """Hand the refund to the refunds agent."""
    result = await refunds.run(f"Refund {amount} for order {order_id}", usage=ctx.usage)
    return result.output


def run() -> ta.Trace:
    """Run the app once, instrumented, under ``ta.capture()``; its trace."""
    Agent.instrument_all()
    try:
        with ta.capture() as cap:
            support_triage.run_sync(PROMPT)
    finally:
        Agent.instrument_all(False)
    return cap.trace()


@functools.cache
def spans() -> tuple[ta.Span, ...]:
    """The spans of one run (recorded once per process)."""
    return tuple(run().spans)


def trace() -> ta.Trace:
    """A fresh Trace (its own ledger) of the recorded run."""
    return ta.Trace(spans())
