"""Finishing records: the fields of a tool execution or model call recorded by several spans."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

from .._dialects import Operation
from .._model.lazy import first_of, peek
from .._model.records import AgentInvocation, ErrorInfo, ModelCall, ToolExecution

__all__ = ["agent_tokens", "call_tokens", "finish_model", "finish_tool", "first", "is_cancellation", "total"]

#: (any usage recorded, input, output, total tokens)
Tokens = tuple[bool, int | None, int | None, int | None]


def is_cancellation(error: ErrorInfo | None) -> bool:
    if error is None or not error.type:
        return False
    return error.type.rsplit(".", 1)[-1] in ("CancelledError", "Cancelled", "TaskCancelled")


def finish_tool(tool: ToolExecution, ops: list[Operation]) -> None:
    if len(ops) == 1:
        return  # the execution was built from this one operation
    for op in ops[1:]:
        if tool.raw_arguments is None:
            tool.raw_arguments = op.arguments
        tool.result = first_of((peek(tool, "result"), peek(op, "result")))
        if tool.call_id is None:
            tool.call_id = op.call_id
    failed = [op.failed for op in ops]
    if any(f is True for f in failed):
        tool.failed = True
        tool.error = first(op.error for op in ops)
    elif any(f is False for f in failed):
        tool.failed = False
    else:
        tool.failed = None  # still running when the trace was read


def finish_model(call: ModelCall, ops: list[Operation]) -> None:
    if len(ops) == 1:
        op = ops[0]
        call.input_tokens = op.input_tokens
        call.output_tokens = op.output_tokens
        total = op.total_tokens
        if total is None and (op.input_tokens is not None or op.output_tokens is not None):
            total = (op.input_tokens or 0) + (op.output_tokens or 0)
        call.total_tokens = total
        call.provider = op.provider
        call.finish_reasons = op.finish_reasons
        call.streamed = op.streamed
        call.output = peek(op, "output")  # content: read when first used
        call.failed = bool(op.failed)
        call.error = op.error if op.failed else None
        return
    # the innermost span with usage is the provider's own record; the rest fill gaps
    with_usage = [op for op in ops if op.input_tokens is not None or op.output_tokens is not None]
    source = with_usage[-1] if with_usage else ops[-1]
    call.input_tokens = source.input_tokens
    call.output_tokens = source.output_tokens
    call.total_tokens = source.total_tokens
    if call.total_tokens is None and (call.input_tokens is not None or call.output_tokens is not None):
        call.total_tokens = (call.input_tokens or 0) + (call.output_tokens or 0)
    call.operation = first(op.operation for op in reversed(ops)) or call.operation
    call.model = first(op.model for op in reversed(ops)) or call.model
    call.provider = first(op.provider for op in reversed(ops))
    call.finish_reasons = first(op.finish_reasons or None for op in reversed(ops)) or ()
    call.streamed = first(op.streamed for op in ops)
    call.output = first_of(peek(op, "output") for op in reversed(ops))
    call.failed = any(op.failed for op in ops)
    call.error = first(op.error for op in ops) if call.failed else None


def first(values: Any) -> Any:
    for v in values:
        if v is not None:
            return v
    return None


def total(values: Any) -> int | None:
    total = None
    for v in values:
        if v is not None:
            total = v if total is None else total + v
    return total


def call_tokens(inv: AgentInvocation, done: dict[int, Tokens]) -> Tokens:
    """The token usage of the model calls of ``inv`` and of its nested invocations (each call once).

    Nested invocations finished first leave theirs in ``done``, so agents nested a thousand deep cost
    one step each, not one walk of the subtree each."""
    calls = list(inv.model_calls)
    parts: list[Tokens] = []
    for child in inv.nested:
        known = done.get(id(child))
        if known is None:
            calls.extend(child.all_model_calls())
        else:
            parts.append(known)
    has = any(c.input_tokens is not None or c.output_tokens is not None for c in calls)
    result: Tokens = (
        has or any(p[0] for p in parts),
        total([*(c.input_tokens for c in calls), *(p[1] for p in parts)]),
        total([*(c.output_tokens for c in calls), *(p[2] for p in parts)]),
        total([*(c.total_tokens for c in calls), *(p[3] for p in parts)]),
    )
    done[id(inv)] = result
    return result


def agent_tokens(top: Sequence[AgentInvocation], span_tokens: set[int]) -> tuple[AgentInvocation, ...]:
    """The outermost invocations in ``span_tokens`` (whose tokens only their agent span records), in
    start order: an agent span's usage counts once, and a nested agent's is in its parent's.

    An agent whose span's time holds the start of a model call recorded outside any agent, with usage,
    is left out: that call may be the agent's own, its parent link lost (files that keep no parent ids),
    and its usage already counts."""
    if not span_tokens:
        return ()
    orphans = sorted(
        call.start_ns
        for inv in top
        if inv.implicit
        for call in inv.model_calls
        if call.input_tokens is not None or call.output_tokens is not None
    )
    out: list[AgentInvocation] = []
    stack = list(reversed(top))
    while stack:
        inv = stack.pop()
        if id(inv) in span_tokens:
            if not _holds_a_start(orphans, inv.span.start_ns, inv.span.end_ns):
                out.append(inv)
        else:
            stack.extend(reversed(inv.nested))
    return tuple(out)


def _holds_a_start(starts: list[int], start: int, end: int | None) -> bool:
    """Whether a start in the sorted ``starts`` falls in ``[start, end]`` (an unfinished span: to the end)."""
    i = bisect_left(starts, start)
    return i < len(starts) and (end is None or starts[i] <= end)
