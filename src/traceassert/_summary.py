"""``Trace.summary()``: what happened as a plain, deterministic dict (no ids, no timestamps), redacted
like dumps unless asked not to be: the dict is meant for snapshot files that are committed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._common.redact import redact_value, redacting
from ._model.records import AgentInvocation, ModelCall, ToolExecution

if TYPE_CHECKING:
    from ._trace import Trace

__all__ = ["summarize"]


def _error(err: Any) -> dict[str, Any] | None:
    if err is None:
        return None
    return {"type": err.type, "message": err.message}


def _summ_tool(tool: ToolExecution) -> dict[str, Any]:
    return {
        "name": tool.name,
        "arguments": tool.arguments,
        "result": tool.result,
        "failed": tool.failed,
        "error": _error(tool.error),
    }


def _summ_model(call: ModelCall) -> dict[str, Any]:
    return {
        "operation": call.operation,
        "model": call.model,
        "provider": call.provider,
        "input_tokens": call.input_tokens,
        "output_tokens": call.output_tokens,
        "total_tokens": call.total_tokens,
        "finish_reasons": list(call.finish_reasons),
        "failed": call.failed,
        "requested_tools": [r.name for r in call.requested_tools],
    }


def _summ_agent(inv: AgentInvocation, redact: bool) -> dict[str, Any]:
    # iterative: agents may nest deeper than the recursion limit (and than redaction looks: each
    # agent's own facts are redacted on their own, never the tree as one value)
    top = _summ_one_agent(inv, redact)
    stack = [(inv, top)]
    while stack:
        parent, out = stack.pop()
        for nested in parent.nested:
            child = _summ_one_agent(nested, redact)
            out["nested"].append(child)
            stack.append((nested, child))
    return top


def _summ_one_agent(inv: AgentInvocation, redact: bool) -> dict[str, Any]:
    own = _redacted(_agent_facts(inv), redact)
    own["nested"] = []
    return own


def _redacted(facts: dict[str, Any], redact: bool) -> dict[str, Any]:
    """``facts`` with secret-looking values redacted by key (as dumps are), when ``redact``."""
    return dict(redact_value(facts)) if redact else facts


def _agent_facts(inv: AgentInvocation) -> dict[str, Any]:
    return {
        "name": inv.name,
        "implicit": inv.implicit,
        "status": inv.status,
        "error": _error(inv.error),
        "input": inv.input,
        "output": inv.output,
        "tool_executions": [_summ_tool(t) for t in inv.tool_executions],
        "model_calls": [_summ_model(m) for m in inv.model_calls],
        "retrievals": [{"query": r.query, "documents": list(r.documents)} for r in inv.retrievals],
        "nested": [],
        "via_tool": inv.via_tool.name if inv.via_tool is not None else None,
        "handoffs": [
            {"from": h.from_agent, "to": h.to_agent, "taken_up": h.to_invocation is not None}
            for h in inv.handoffs
        ],
    }


def summarize(trace: Trace, *, redact: bool | None = None) -> dict[str, Any]:
    """The summary dict of ``trace``; secret-looking values redacted (by key, as dumps are) unless
    ``redact=False`` (None: on, unless turned off for the process)."""
    return _summarize(trace, redacting() if redact is None else redact)


def _summarize(trace: Trace, redact: bool) -> dict[str, Any]:
    calls = trace.model_calls
    tools = trace.tool_executions

    def total(attr: str) -> int | None:
        # the model calls' usage, and the usage only an agent span records (once per such agent)
        records = (*calls, *trace.reconstruction.agent_tokens)
        vals = [getattr(c, attr) for c in records if getattr(c, attr) is not None]
        return sum(vals) if vals else None

    return {
        "agents": [_summ_agent(a, redact) for a in trace.agents],
        "totals": {
            "agent_invocations": len(trace.all_agents()),
            "tool_executions": len(tools),
            "failed_tool_executions": sum(1 for t in tools if t.failed),
            "model_calls": len(calls),
            "input_tokens": total("input_tokens"),
            "output_tokens": total("output_tokens"),
            "total_tokens": total("total_tokens"),
            "retrievals": len(trace.retrievals),
            "handoffs": len(trace.handoffs),
            "unexecuted_tool_requests": len(trace.unexecuted_tool_requests),
        },
        "tool_order": [t.name for t in tools],
        "unexecuted_tool_requests": [
            _redacted({"name": r.name, "arguments": r.arguments}, redact)
            for r in trace.unexecuted_tool_requests
        ],
        "unclassified_spans": len(trace.unclassified),
        "unfinished_spans": len(trace.unfinished),
    }
