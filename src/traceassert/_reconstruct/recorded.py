"""Which tool requests have an unknown outcome: those nothing carried out, made where the producer is not
known to record tool executions.

A request no execution, handoff or nested agent answers is "not executed" only where the trace would
show the execution: when the producer of its model call or of its agent declares that it records
every tool execution (``_dialects.records_tool_executions``), or when this trace holds a tool span of
that producer (same dialect, same instrumentation scope). Elsewhere the trace cannot tell whether it
ran, and ``ToolRequest.executions_recorded`` is False.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .._dialects import Operation, records_tool_executions
from .._model.records import ToolExecution, ToolRequest
from .._model.span import Span

__all__ = ["mark_recorded"]

Producer = tuple[str, str | None]


def mark_recorded(
    requests: Sequence[ToolRequest], tools: Sequence[ToolExecution], ops: Mapping[int, Operation]
) -> None:
    """Set ``executions_recorded`` on each request that nothing carried out (see the module docstring)."""
    pending = [r for r in requests if not r.executed]
    if not pending:
        return
    shown: set[Producer] = set()
    for tool in tools:
        op = ops.get(id(tool.span)) if tool.span is not None else None
        if op is not None and op.kind == "tool" and tool.span is not None:
            shown.add((op.dialect, tool.span.scope_name))

    def records(span: Span) -> bool:
        op = ops.get(id(span))
        if op is None:
            return False
        return records_tool_executions(op.dialect, span.scope_name) or (op.dialect, span.scope_name) in shown

    for req in pending:
        call = req.model_call
        spans: list[Span] = []
        if call is not None:
            spans.extend(call.spans or ([call.span] if call.span is not None else []))
            agent = call.agent
            if agent is not None and not agent.implicit:
                spans.extend(agent.spans or (agent.span,))
        req.executions_recorded = any(records(s) for s in spans)
