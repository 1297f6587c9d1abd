"""The report's tables of one trace: per agent (runs, failures, model calls, tokens with and without
nested agents, time) and per tool (calls, failures, median and longest duration)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._model.records import ModelCall
    from .._trace import Trace

__all__ = ["agent_totals", "call_tokens", "tool_totals"]


def call_tokens(call: ModelCall) -> int | None:
    """The tokens of one model call: its total, else input plus output, else None (not recorded)."""
    used = call.total_tokens
    if used is None and (call.input_tokens is not None or call.output_tokens is not None):
        used = (call.input_tokens or 0) + (call.output_tokens or 0)
    return used


def agent_totals(trace: Trace) -> list[dict[str, Any]]:
    """Per agent name: runs, failed runs, its own failed tool executions, model calls and the tokens of
    its own calls (``tokens``), the tokens of its runs as the tree shows them, nested agents included
    (``tokens_nested``), and the time in its runs (``seconds``; nested agents run inside it)."""
    out: dict[str, dict[str, Any]] = {}
    for inv in trace.all_agents():
        row = out.setdefault(
            inv.name,
            {
                "agent": inv.name,
                "runs": 0,
                "failed": 0,
                "failed_tools": 0,
                "model_calls": 0,
                "tokens": None,
                "tokens_nested": None,
                "seconds": 0.0,
            },
        )
        row["runs"] += 1
        row["failed"] += inv.failed
        row["failed_tools"] += sum(1 for t in inv.tool_executions if t.failed)
        row["model_calls"] += len(inv.model_calls)
        for call in inv.model_calls:
            used = call_tokens(call)
            if used is not None:
                row["tokens"] = (row["tokens"] or 0) + used
        if inv.total_tokens is not None:
            row["tokens_nested"] = (row["tokens_nested"] or 0) + inv.total_tokens
        row["seconds"] += inv.duration_s or 0.0
    for row in out.values():
        row["seconds"] = round(row["seconds"], 3)
    return list(out.values())


def tool_totals(trace: Trace) -> list[dict[str, Any]]:
    """Per tool name, in the order of first call: calls, failed calls, calls whose outcome was not
    recorded, and the median (``p50_ms``, the lower middle of an even count) and longest (``max_ms``)
    duration of the finished calls in milliseconds (None when none finished)."""
    out: dict[str, dict[str, Any]] = {}
    times: dict[str, list[float]] = {}
    for tool in trace.tool_executions:
        row = out.setdefault(tool.name, {"tool": tool.name, "calls": 0, "failed": 0, "unknown": 0})
        row["calls"] += 1
        row["failed"] += tool.failed is True
        row["unknown"] += tool.failed is None
        span = tool.span
        if span is not None and span.end_ns is not None:
            times.setdefault(tool.name, []).append(max(0, span.end_ns - span.start_ns) / 1e6)
    for name, row in out.items():
        seen = sorted(times.get(name, ()))
        row["p50_ms"] = round(seen[(len(seen) - 1) // 2], 3) if seen else None
        row["max_ms"] = round(seen[-1], 3) if seen else None
    return list(out.values())
