"""The view-model of one trace: plain JSON-able data the page's script draws (tree, waterfall, totals)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .._common.gcpause import gc_paused
from .spans import FIELDS, span_rows
from .totals import agent_totals, tool_totals
from .tree import tree_nodes
from .values import Values

if TYPE_CHECKING:
    from .._trace import Trace

__all__ = ["trace_view"]


def trace_view(trace: Trace, *, redact: bool | Iterable[str] = True, limit: int = 120) -> dict[str, Any]:
    """The invocation tree, the waterfall's span rows, per-agent and per-tool totals and counts of
    ``trace``.

    Secrets are redacted as dumps redact them unless ``redact=False`` (an iterable of regular
    expressions redacts the keys they match as well); values are cut to ``limit`` characters, with the
    full value kept for "show full".
    """
    with gc_paused():  # many small objects once the records are built: see ``gcpause``
        return _view(trace, Values(redact, limit))


def _view(trace: Trace, values: Values) -> dict[str, Any]:
    rows, index, axis_ms = span_rows(trace, values)
    tools = trace.tool_executions
    used, counted = trace.token_total()
    return {
        "fields": list(FIELDS),
        "spans": rows,
        "axis_ms": axis_ms,
        "tree": tree_nodes(trace, values, index),
        "agents": agent_totals(trace),
        "tools": tool_totals(trace),
        "strings": values.strings,
        "counts": {
            "spans": len(rows),
            # the work outside any agent is no agent invocation (as in the text tree's first line)
            "agent_invocations": sum(1 for a in trace.all_agents() if not a.implicit),
            "tool_executions": len(tools),
            "failed_tool_executions": sum(1 for t in tools if t.failed),
            "model_calls": len(trace.model_calls),
            "tokens": used if counted else None,
        },
    }
