"""The text tree of a trace (for failure messages and ``traceassert show``); the summary dict is in
``_summary``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ._common.redact import redact_value, redacting
from ._common.text import cut_text, safe_line, short
from ._common.treeline import Text, TreeLine
from ._model.records import AgentInvocation, Handoff, ModelCall, Retrieval, ToolExecution, ToolRequest
from ._reconstruct.turns import turn_headers

if TYPE_CHECKING:
    from ._trace import Trace

__all__ = [
    "TreeLine",
    "describe_request",
    "describe_tool",
    "model_parts",
    "render_lines",
    "render_trace",
]

_RESET = "\x1b[0m"
_COLORS = {"agent": "\x1b[1;36m", "ok": "\x1b[32m", "fail": "\x1b[31m", "dim": "\x1b[2m", "model": "\x1b[35m"}


# --------------------------------------------------------------------------------------------------
# One record in one line
# --------------------------------------------------------------------------------------------------


def _args(args: dict[str, Any], limit: int) -> str:
    inner = ", ".join(f"{k}={short(v, limit)}" for k, v in args.items())
    if len(inner) > limit * 2:
        inner = inner[: limit * 2 - 1] + "…"
    return inner


def _shown(value: Any, redact: bool | None) -> Any:
    """``value`` as messages show it: secrets redacted unless redaction is off (``redact`` or globally)."""
    return redact_value(value) if (redacting() if redact is None else redact) else value


def describe_tool(tool: ToolExecution, limit: int = 120, *, redact: bool | None = None) -> str:
    """``name(arg=value, ...) -> result [ok|FAILED: error|status unknown]`` (secrets redacted), with
    ``(from conversation)`` after it when only a later model call's input shows the execution."""
    text = _describe_tool(tool, limit, redact)
    return f"{text} (from conversation)" if tool.source == "conversation" else text


def _describe_tool(tool: ToolExecution, limit: int, redact: bool | None) -> str:
    head = f"{tool.name}({_args(_shown(tool.arguments, redact), limit)})"

    if tool.failed is True:
        if tool.error is None:
            return f"{head} FAILED"
        return f"{head} FAILED: {cut_text(str(_shown(str(tool.error), redact)), limit * 2)}"
    result = f" -> {short(_shown(tool.result, redact), limit)}" if tool.result is not None else ""
    if tool.failed is None:
        # a result from the conversation says the tool ran, not whether it failed: show what it gave
        return f"{head}{result if tool.source == 'conversation' else ''} (status unknown)"
    return f"{head}{result} ok"


def describe_request(req: ToolRequest, limit: int = 120, *, redact: bool | None = None) -> str:
    """``name(arg=value, ...) (requested, not executed)`` for a call the model asked for that never ran;
    ``(requested, no execution recorded)`` where the producer is not known to record executions
    (executed requests: ``name(...) (requested)``)."""
    head = f"{req.name}({_args(_shown(req.arguments, redact), limit)})"
    if req.executed:
        return f"{head} (requested)"
    return (
        f"{head} (requested, not executed)"
        if req.executions_recorded
        else f"{head} (requested, no execution recorded)"
    )


def _describe_handoff(handoff: Handoff) -> str:
    text = f"handoff {handoff.from_agent or '?'} -> {handoff.to_agent or '?'}"
    if handoff.to_invocation is None and handoff.to_agent:
        text += f" (no invocation of {handoff.to_agent} recorded)"
    return text


def model_parts(call: ModelCall) -> list[str]:
    """What a model call's line says first: operation, model, tokens and finish reasons."""
    parts = [call.operation or "model call"]

    if call.model:
        parts.append(call.model)
    if call.input_tokens is not None or call.output_tokens is not None:
        parts.append(f"tokens in={call.input_tokens} out={call.output_tokens}")
    else:
        parts.append("tokens not recorded")
    if call.finish_reasons:
        parts.append("finish=" + ",".join(call.finish_reasons))

    return parts


def _describe_model(call: ModelCall, limit: int = 120, redact: bool | None = None) -> str:
    parts = model_parts(call)
    if call.failed:
        error = (
            f": {cut_text(str(_shown(str(call.error), redact)), limit * 2)}" if call.error is not None else ""
        )
        parts.append("FAILED" + error)
    return " ".join(parts)


def _describe_agent(
    inv: AgentInvocation, durations: bool = False, redact: bool | None = None, limit: int = 120
) -> str:
    label = "work outside any agent" if inv.implicit else "agent"
    text = f"{label} {inv.name} [{inv.status}]"

    if inv.error is not None:
        text += f" {cut_text(str(_shown(str(inv.error), redact)), limit * 2)}"
    if inv.total_tokens is not None:
        text += f" tokens={inv.total_tokens}"
    if durations and inv.duration_s is not None:
        text += f" {inv.duration_s:.3f}s"

    return text


# --------------------------------------------------------------------------------------------------
# The tree
# --------------------------------------------------------------------------------------------------


class _Painter:
    """How the lines come out: coloured or plain, with durations or not, redacted or not, made now or
    when shown."""

    def __init__(self, color: bool, durations: bool = False, redact: bool | None = None, lazy: bool = False):
        self.color = color
        self.durations = durations
        self.redact = redacting() if redact is None else redact
        #: lines as `TreeLine`s, the text of tools, requests and retrievals made only when shown
        self.lazy = lazy and not color

    def __call__(self, text: str, style: str) -> str:
        return f"{_COLORS[style]}{safe_line(text)}{_RESET}" if self.color else text

    def line(self, prefix: str, kind: str, name: str, text: str | Text, record: Any = None) -> Any:
        """A line of the tree, one safe line: text now (its colours kept), or a `TreeLine` (lazy)."""
        if self.lazy:
            return TreeLine(prefix, kind, name, text, record)
        made = text if type(text) is str else text(record)  # type: ignore[operator]
        return prefix + safe_line(made, keep=(*_COLORS.values(), _RESET) if self.color else ())


def render_trace(
    trace: Trace,
    *,
    color: bool = False,
    max_value_chars: int = 120,
    durations: bool = False,
    redact: bool | None = None,
) -> str:
    """The text tree; secrets in values are redacted unless ``redact=False`` (None: the process default)."""
    paint = _Painter(color, durations, redact)
    return "\n".join(_lines(trace, paint, max_value_chars))


def render_lines(trace: Trace, *, max_value_chars: int = 120, redact: bool | None = None) -> list[TreeLine]:
    """The lines of `render_trace` (without colour or durations) as `TreeLine`s: the text of a tool
    execution, a request or a retrieval is made only when asked for (``str(line)``)."""
    paint = _Painter(False, False, redact, lazy=True)
    return _lines(trace, paint, max_value_chars)


def _lines(trace: Trace, paint: _Painter, max_value_chars: int) -> list[Any]:
    """The counts, then each top-level agent's tree (under its turn's header), then what went unread."""
    lines: list[Any] = [paint.line("", "", "", _counts(trace))]

    headers = turn_headers(trace.turns, trace.conversations)
    for inv in trace.agents:
        header = headers.get(id(inv))
        if header is not None:
            lines.append(paint.line("", "turn", "", paint(header, "agent")))
        _render_agent(inv, "", "", lines, paint, max_value_chars)

    lines.extend(paint.line("", "", "", text) for text in _notes(trace, paint.redact))
    return lines


def _counts(trace: Trace) -> str:
    """The first line: how many spans, agents, tools (and failures), model calls, tokens, handoffs. The
    work outside any agent is no agent invocation: it is not counted as one."""
    agents = sum(1 for inv in trace.all_agents() if not inv.implicit)
    tools = trace.tool_executions
    failed = sum(1 for t in tools if t.failed)
    calls = trace.model_calls
    tokens = [c.total_tokens for c in calls if c.total_tokens is not None]
    # with the usage only an agent span records (no model call of that agent records any)
    tokens.extend(a.total_tokens for a in trace.reconstruction.agent_tokens if a.total_tokens is not None)

    head = (
        f"trace: {len(trace.spans)} spans, {agents} agent invocation(s), "
        f"{len(tools)} tool execution(s) ({failed} failed), {len(calls)} model call(s)"
    )
    if tokens:
        head += f", {sum(tokens)} tokens"
    if trace.handoffs:
        head += f", {len(trace.handoffs)} handoff(s)"
    unknown = sum(1 for r in trace.unexecuted_tool_requests if r.outcome_unknown)
    if len(trace.unexecuted_tool_requests) > unknown:
        head += f", {len(trace.unexecuted_tool_requests) - unknown} tool request(s) not executed"
    if unknown:
        head += f", {unknown} tool request(s) with no execution recorded"
    return head


def _notes(trace: Trace, redact: bool) -> list[str]:
    """The last lines: no agent at all, spans still open, spans no dialect read, the trace's warnings."""
    notes: list[str] = []
    if not trace.agents:
        notes.append("(no agent invocations, tool executions or model calls recognised)")

    unfinished = trace.unfinished
    if unfinished:
        names = ", ".join(repr(_shown(s.name, redact)) for s in unfinished[:10])
        notes.append(f"still open when read: {len(unfinished)} span(s): {names}")

    unknown = trace.unclassified
    if unknown:
        names = ", ".join(sorted({repr(_shown(s.name, redact)) for s in unknown})[:10])
        notes.append(f"not recognised by any dialect: {len(unknown)} span(s): {names}")

    notes.extend(f"warning: {_shown(note, redact)}" for note in trace.warnings[:10])
    return notes


def _render_agent(
    inv: AgentInvocation,
    head: str,
    prefix: str,
    lines: list[Any],
    paint: _Painter,
    limit: int,
) -> None:
    # iterative: agents may nest deeper than the recursion limit
    stack: list[Iterator[Any]] = [iter([(inv, head, prefix)])]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
        elif isinstance(entry, str | TreeLine):
            lines.append(entry)
        else:
            agent, agent_head, agent_prefix = entry
            stack.append(iter(_agent_lines(agent, agent_head, agent_prefix, paint, limit)))


def _agent_lines(inv: AgentInvocation, head: str, prefix: str, paint: _Painter, limit: int) -> list[Any]:
    """The lines of one agent, with an ``(agent, head, prefix)`` entry for each agent nested in it."""
    text = paint(_describe_agent(inv, paint.durations, paint.redact, limit), "agent")
    lines: list[Any] = [paint.line(head, "" if inv.implicit else "agent", inv.name, text)]

    # what the agent did, in start order (at a tie, tools keep the order of ``inv.tool_executions``)
    items: list[tuple[int, Any]] = []
    items.extend((t.start_ns, t) for t in inv.tool_executions)
    items.extend((m.start_ns, m) for m in inv.model_calls)
    items.extend((r.start_ns, r) for r in inv.retrievals)
    items.extend((h.start_ns, h) for h in inv.handoffs)
    items.extend((n.start_ns, n) for n in inv.nested if n.via_tool is None)
    order = {id(t): i for i, t in enumerate(inv.tool_executions)}
    items.sort(key=lambda p: (p[0], order.get(id(p[1]), 0)))

    _render_items(items, inv, prefix, lines, paint, limit)
    return lines


def _render_items(
    items: list[tuple[int, Any]],
    inv: AgentInvocation,
    prefix: str,
    lines: list[Any],
    paint: _Painter,
    limit: int,
) -> None:
    """The lines of what ``inv`` did (``items``) under ``prefix``; a nested agent is added as an
    ``(agent, head, prefix)`` entry, expanded by `_render_agent`'s loop."""

    def tool_text(tool: ToolExecution) -> str:
        style = "fail" if tool.failed else ("ok" if tool.failed is False else "dim")
        return f"tool {paint(describe_tool(tool, limit, redact=paint.redact), style)}"

    def request_text(req: ToolRequest) -> str:
        return f"tool {paint(describe_request(req, limit, redact=paint.redact), 'dim')}"

    def retrieval_text(item: Retrieval) -> str:
        query = short(_shown(item.query, paint.redact), limit)
        return f"retrieval {query} -> {len(item.documents)} document(s)"

    def model_text(call: ModelCall) -> str:
        return f"model {paint(_describe_model(call, limit, paint.redact), 'model')}"

    spawners = inv.nested
    branch, end = prefix + "├─ ", prefix + "└─ "
    n = len(items)

    for i, (_, item) in enumerate(items, 1):
        last = i == n
        connector = end if last else branch
        if type(item) is ToolExecution and not spawners:  # the common case, first
            lines.append(paint.line(connector, "tool", item.name, tool_text, item))
            continue

        deeper = prefix + ("   " if last else "│  ")
        if isinstance(item, AgentInvocation):
            lines.append((item, connector, deeper))
        elif isinstance(item, ToolExecution):
            lines.append(paint.line(connector, "tool", item.name, tool_text, item))
            spawned = [n for n in spawners if n.via_tool is item] if spawners else ()
            for j, nested in enumerate(spawned):
                nlast = j == len(spawned) - 1
                lines.append(
                    (nested, deeper + ("└─ " if nlast else "├─ "), deeper + ("   " if nlast else "│  "))
                )
        elif isinstance(item, ModelCall):
            lines.append(paint.line(connector, "model", _model_name(item), model_text, item))
            asked = [r for r in item.requested_tools if not r.executed]
            for j, req in enumerate(asked):
                under = deeper + ("└─ " if j == len(asked) - 1 else "├─ ")
                lines.append(paint.line(under, "tool", req.name, request_text, req))
        elif isinstance(item, Handoff):
            lines.append(paint.line(connector, "handoff", "", paint(_describe_handoff(item), "agent")))
        elif isinstance(item, Retrieval):
            lines.append(paint.line(connector, "retrieval", "", retrieval_text, item))


def _model_name(call: ModelCall) -> str:
    """A model call's name on its line: ``<operation> <model>`` (``model call`` for no operation)."""
    operation = call.operation or "model call"
    return f"{operation} {call.model}" if call.model else operation
