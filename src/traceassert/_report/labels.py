"""What the waterfall calls a span: the name the invocation tree gives its record (the tool, agent or
model name, not the span name the instrumentation chose: smolagents names every tool span
``SimpleTool``), and the tokens of a model call on its first span."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._trace import Trace

__all__ = ["span_labels"]


def span_labels(trace: Trace) -> tuple[dict[int, str], dict[int, int]]:
    """``id(span) -> label`` for every span of a record (spans of no record have none: the waterfall's
    "semantic spans only" hides them), and ``id(span) -> tokens`` for the first span of each model call
    that recorded its usage."""
    labels: dict[int, str] = {}
    tokens: dict[int, int] = {}
    for tool in trace.tool_executions:
        if tool.span is not None:
            labels[id(tool.span)] = tool.name
    agents = sorted(trace.all_agents(), key=lambda a: a.implicit)  # the stand-in's span last
    for inv in agents:
        for span in inv.spans or (inv.span,):
            labels.setdefault(id(span), inv.name)
    for call in trace.model_calls:
        spans = call.spans or ((call.span,) if call.span is not None else ())
        for span in spans:
            labels.setdefault(id(span), str(call.model or call.operation or "model call"))
        used = call.total_tokens
        if used is None and (call.input_tokens is not None or call.output_tokens is not None):
            used = (call.input_tokens or 0) + (call.output_tokens or 0)
        if spans and used is not None:
            tokens[id(spans[0])] = used
    for handoff in trace.handoffs:
        if handoff.span is not None:
            labels.setdefault(
                id(handoff.span), f"handoff {handoff.from_agent or '?'} → {handoff.to_agent or '?'}"
            )
    for item in trace.retrievals:
        if item.span is not None:
            labels.setdefault(id(item.span), "retrieval")
    return labels, tokens
