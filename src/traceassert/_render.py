"""The text tree of a trace (for failure messages and ``traceassert show``) and its summary dict."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ._model.records import AgentInvocation, ModelCall, Retrieval, ToolExecution

if TYPE_CHECKING:
    from ._trace import Trace

__all__ = ["describe_tool", "render_trace", "short", "summarize"]

_RESET = "\x1b[0m"
_COLORS = {"agent": "\x1b[1;36m", "ok": "\x1b[32m", "fail": "\x1b[31m", "dim": "\x1b[2m", "model": "\x1b[35m"}


def short(value: Any, limit: int = 120) -> str:
    """A one-line representation of ``value``, cut to ``limit`` characters."""
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, sort_keys=False, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    text = text.replace("\n", "\\n")
    if len(text) > limit:
        text = text[: max(1, limit - 1)] + "…"
    return text


def _args(args: dict[str, Any], limit: int) -> str:
    inner = ", ".join(f"{k}={short(v, limit)}" for k, v in args.items())
    if len(inner) > limit * 2:
        inner = inner[: limit * 2 - 1] + "…"
    return inner


def describe_tool(tool: ToolExecution, limit: int = 120) -> str:
    """``name(arg=value, ...) -> result [ok|FAILED: error|status unknown]``."""
    head = f"{tool.name}({_args(tool.arguments, limit)})"
    if tool.failed is True:
        return f"{head} FAILED" + (f": {tool.error}" if tool.error is not None else "")
    if tool.failed is None:
        note = (
            "requested by the model, no execution recorded"
            if tool.span is None or (tool.agent is not None and tool.span in _model_spans(tool.agent))
            else "status unknown"
        )
        return f"{head} ({note})"
    result = f" -> {short(tool.result, limit)}" if tool.result is not None else ""
    return f"{head}{result} ok"


def _model_spans(agent: AgentInvocation) -> set[Any]:
    return {s for call in agent.model_calls for s in call.spans}


def _describe_model(call: ModelCall) -> str:
    parts = [call.operation or "model call"]
    if call.model:
        parts.append(call.model)
    if call.input_tokens is not None or call.output_tokens is not None:
        parts.append(f"tokens in={call.input_tokens} out={call.output_tokens}")
    else:
        parts.append("tokens not recorded")
    if call.finish_reasons:
        parts.append("finish=" + ",".join(call.finish_reasons))
    if call.failed:
        parts.append("FAILED" + (f": {call.error}" if call.error is not None else ""))
    return " ".join(parts)


def _describe_agent(inv: AgentInvocation, durations: bool = False) -> str:
    label = "work outside any agent" if inv.implicit else "agent"
    text = f"{label} {inv.name} [{inv.status}]"
    if inv.error is not None:
        text += f" {inv.error}"
    if inv.total_tokens is not None:
        text += f" tokens={inv.total_tokens}"
    if durations and inv.duration_s is not None:
        text += f" {inv.duration_s:.3f}s"
    return text


class _Painter:
    def __init__(self, color: bool, durations: bool = False) -> None:
        self.color = color
        self.durations = durations

    def __call__(self, text: str, style: str) -> str:
        if not self.color:
            return text
        return f"{_COLORS[style]}{text}{_RESET}"


def render_trace(
    trace: Trace, *, color: bool = False, max_value_chars: int = 120, durations: bool = False
) -> str:
    paint = _Painter(color, durations)
    lines: list[str] = []
    tools = trace.tool_executions
    failed = sum(1 for t in tools if t.failed)
    calls = trace.model_calls
    tokens = [c.total_tokens for c in calls if c.total_tokens is not None]
    head = (
        f"trace: {len(trace.spans)} spans, {len(trace.all_agents())} agent invocation(s), "
        f"{len(tools)} tool execution(s) ({failed} failed), {len(calls)} model call(s)"
    )
    if tokens:
        head += f", {sum(tokens)} tokens"
    lines.append(head)
    for inv in trace.agents:
        _render_agent(inv, "", "", lines, paint, max_value_chars)
    if not trace.agents:
        lines.append("(no agent invocations, tool executions or model calls recognised)")
    unfinished = trace.unfinished
    if unfinished:
        names = ", ".join(repr(s.name) for s in unfinished[:10])
        lines.append(f"still open when read: {len(unfinished)} span(s): {names}")
    unknown = trace.unclassified
    if unknown:
        names = ", ".join(sorted({repr(s.name) for s in unknown})[:10])
        lines.append(f"not recognised by any dialect: {len(unknown)} span(s): {names}")
    for note in trace.warnings[:10]:
        lines.append(f"warning: {note}")
    return "\n".join(lines)


def _render_items(
    items: list[tuple[int, Any]],
    inv: AgentInvocation,
    prefix: str,
    lines: list[str],
    paint: _Painter,
    limit: int,
) -> None:
    for i, (_, item) in enumerate(items):
        last = i == len(items) - 1
        connector = "└─ " if last else "├─ "
        deeper = prefix + ("   " if last else "│  ")
        if isinstance(item, AgentInvocation):
            _render_agent(item, prefix + connector, deeper, lines, paint, limit)
        elif isinstance(item, ToolExecution):
            style = "fail" if item.failed else ("ok" if item.failed is False else "dim")
            lines.append(f"{prefix}{connector}tool {paint(describe_tool(item, limit), style)}")
            spawned = [n for n in inv.nested if n.via_tool is item]
            for j, nested in enumerate(spawned):
                nlast = j == len(spawned) - 1
                _render_agent(
                    nested,
                    deeper + ("└─ " if nlast else "├─ "),
                    deeper + ("   " if nlast else "│  "),
                    lines,
                    paint,
                    limit,
                )
        elif isinstance(item, ModelCall):
            lines.append(f"{prefix}{connector}model {paint(_describe_model(item), 'model')}")
        elif isinstance(item, Retrieval):
            docs = len(item.documents)
            lines.append(f"{prefix}{connector}retrieval {short(item.query, limit)} -> {docs} document(s)")


def _render_agent(
    inv: AgentInvocation,
    head: str,
    prefix: str,
    lines: list[str],
    paint: _Painter,
    limit: int,
) -> None:
    lines.append(f"{head}{paint(_describe_agent(inv, paint.durations), 'agent')}")
    items: list[tuple[int, Any]] = []
    items.extend((t.start_ns, t) for t in inv.tool_executions)
    items.extend((m.start_ns, m) for m in inv.model_calls)
    items.extend((r.start_ns, r) for r in inv.retrievals)
    items.extend((n.start_ns, n) for n in inv.nested if n.via_tool is None)
    order = {id(t): i for i, t in enumerate(inv.tool_executions)}
    items.sort(key=lambda p: (p[0], order.get(id(p[1]), 0)))
    _render_items(items, inv, prefix, lines, paint, limit)


# -- summary ------------------------------------------------------------------------------------------


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
    }


def _summ_agent(inv: AgentInvocation) -> dict[str, Any]:
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
        "nested": [_summ_agent(n) for n in inv.nested],
        "via_tool": inv.via_tool.name if inv.via_tool is not None else None,
    }


def summarize(trace: Trace) -> dict[str, Any]:
    calls = trace.model_calls
    tools = trace.tool_executions

    def total(attr: str) -> int | None:
        vals = [getattr(c, attr) for c in calls if getattr(c, attr) is not None]
        return sum(vals) if vals else None

    return {
        "agents": [_summ_agent(a) for a in trace.agents],
        "totals": {
            "agent_invocations": len(trace.all_agents()),
            "tool_executions": len(tools),
            "failed_tool_executions": sum(1 for t in tools if t.failed),
            "model_calls": len(calls),
            "input_tokens": total("input_tokens"),
            "output_tokens": total("output_tokens"),
            "total_tokens": total("total_tokens"),
            "retrievals": len(trace.retrievals),
        },
        "tool_order": [t.name for t in tools],
        "unclassified_spans": len(trace.unclassified),
        "unfinished_spans": len(trace.unfinished),
    }
