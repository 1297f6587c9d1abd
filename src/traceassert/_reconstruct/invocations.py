"""Finishing an agent invocation: its records in order, the tool calls its model calls asked for
matched to what carried them out, its handoffs, and its input, output, outcome and tokens."""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING

from .._model.lazy import first_of, later, peek
from .._model.records import AgentInvocation
from .agent_requests import match_agent_requests, order_tools
from .finish import call_tokens, finish_model, finish_tool, first, is_cancellation
from .handoffs import AgentIndex, dedupe_handoffs, handoffs_from_requests, is_control_flow
from .requests import match_requests
from .streaming import streamed_text

if TYPE_CHECKING:
    from .builder import AgentBuild, Builder

__all__ = ["finish_agent"]

_SPAN_START = attrgetter("span.start_ns")


_start = attrgetter("start_ns")


def finish_agent(builder: Builder, build: AgentBuild, index: AgentIndex) -> None:
    """Finish the invocation of ``build`` (its nested ones are finished before it): its tool executions
    and model calls in order, the requests of its model calls matched, its handoffs, input, output,
    status and tokens (input and output are read when first used)."""
    inv = build.inv
    model_ops = build.model_ops
    for call in build.models:
        ops_of_call = model_ops[id(call)]
        if len(ops_of_call) > 1:  # one op: finished by ``visit_model``
            finish_model(call, ops_of_call)
    build.tools.sort(key=_SPAN_START)  # every tool and call of the walk has its span
    build.models.sort(key=_SPAN_START)
    tool_ops = builder.tool_ops
    for tool in build.tools:
        finish_tool(tool, tool_ops[id(tool)])
    dedupe_handoffs(build)
    requests = match_requests(build, builder.handoff_tools)
    if requests:
        builder.requests.extend(requests)
        handoffs_from_requests(build, requests, index)
        match_agent_requests(requests, build.nested)
    build.handoffs.sort(key=_start)
    inv.handoffs = tuple(build.handoffs)
    order_tools(build.tools)
    build.retrievals.sort(key=_start)
    build.nested.sort(key=_start)
    inv.tool_executions = tuple(build.tools)
    inv.model_calls = tuple(build.models)
    inv.retrievals = tuple(build.retrievals)
    inv.nested = tuple(build.nested)
    ops = build.ops
    inv.input = first_of(peek(op, "input") for op in ops)  # content: read when first used
    inv.output = first_of(peek(op, "output") for op in ops)
    inv.conversation_id = first(op.conversation_id for op in ops)
    # LangGraph's ParentCommand (a handoff to another graph's node) routes control: not a failure
    failing = [op for op in ops if op.failed and not is_control_flow(op.error)]
    error = first(op.error for op in failing)
    if any(op.cancelled for op in ops):
        inv.status = "cancelled"
    elif failing:
        # a run stopped by cancellation (asyncio.CancelledError recorded as its error) was cancelled
        inv.status = "cancelled" if is_cancellation(error) else "failed"
        inv.error = error
    elif inv.implicit:
        inv.status = "failed" if any(t.failed for t in build.models) else "unknown"
        if not any(s.end_ns is None for s in inv.spans) and inv.status == "unknown":
            inv.status = "succeeded"
    elif any(s.end_ns is None for s in inv.spans):
        inv.status = "unknown"
    else:
        inv.status = "succeeded"
    reasons = [r for call in build.models for r in call.finish_reasons]
    inv.finish_reason = reasons[-1] if reasons else None
    if build.models:
        streamed = streamed_text(build.models[-1].spans)
        if streamed is not None:  # kept where no final message was recorded (read when first used)
            inv.streamed_output = later(_unless_output, inv, streamed)
    recorded, inp, out, tokens = call_tokens(inv, builder.tokens_done)
    if recorded:
        inv.input_tokens, inv.output_tokens, inv.total_tokens = inp, out, tokens
    else:
        inv.input_tokens = first(op.input_tokens for op in ops)
        inv.output_tokens = first(op.output_tokens for op in ops)
        inv.total_tokens = first(op.total_tokens for op in ops)
        if inv.total_tokens is not None:
            builder.span_tokens.add(id(inv))


def _unless_output(inv: AgentInvocation, streamed: str) -> str | None:
    return streamed if inv.output is None else None
