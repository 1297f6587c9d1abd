"""The invocation tree of the report: the records of a trace as nested nodes, each linked to its spans.

A node is a dict: ``k`` (kind: ``agent``, ``tool``, ``model``, ``request``, ``handoff``, ``retrieval``,
``turn``, ``note``), ``t`` (its one-line label), ``s`` (``ok``, ``failed``, ``unknown`` or None),
``sp`` (the waterfall rows of its spans), ``d`` (details: ``[[label, cut, full?], ...]``), ``c``
(children, in start order) and, for tools and agents, ``n`` (the name). Values are redacted and cut
by `values.Values`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._model.records import AgentInvocation, Handoff, ModelCall, Retrieval, ToolExecution, ToolRequest
from .._reconstruct.turns import turn_headers
from .._render import model_parts
from .human import count_text, seconds_text
from .totals import call_tokens
from .values import Values

if TYPE_CHECKING:
    from .._model.span import Span
    from .._trace import Trace

__all__ = ["tree_nodes"]

_STATE = {True: "failed", False: "ok", None: "unknown"}


class _Builder:
    def __init__(self, values: Values, rows: dict[int, int]) -> None:
        self.values = values
        self.rows = rows

    def spans(self, *spans: Span | None) -> list[int]:
        out = []
        for span in spans:
            row = self.rows.get(id(span)) if span is not None else None
            if row is not None and row not in out:
                out.append(row)
        return out

    def args(self, arguments: dict[str, Any]) -> str:
        inner = ", ".join(f"{k}={self.values.cut(v, redacted=True)}" for k, v in arguments.items())
        limit = self.values.limit * 2
        return inner if len(inner) <= limit else inner[: limit - 1] + "…"

    def detail(self, label: str, value: Any) -> list[Any]:
        return [label, *self.values.shown(value, redacted=True)]

    def tool(self, tool: ToolExecution, nested: list[dict[str, Any]]) -> dict[str, Any]:
        v = self.values
        arguments = v.redacted(tool.arguments)
        text = f"{tool.name}({self.args(arguments)})"
        details = [self.detail(f"argument {k}", a) for k, a in arguments.items()]
        if tool.failed and tool.error is not None:
            text += f" → {v.line(str(tool.error))}"
            details.append(["error", *v.text(str(tool.error))])
        elif tool.result is not None:
            result = v.redacted(tool.result)
            text += f" → {v.cut(result, redacted=True)}"
            details.append(self.detail("result", result))
        if tool.call_id:
            details.append(["call id", tool.call_id])
        if tool.span is not None:
            details.append(["duration", seconds_text(tool.span.duration_s)])
        return _node("tool", text, _STATE[tool.failed], self.spans(tool.span), details, nested, tool.name)

    def request(self, req: ToolRequest) -> dict[str, Any]:
        arguments = self.values.redacted(req.arguments)
        state = "not executed" if req.executions_recorded else "no execution recorded"
        text = f"{req.name}({self.args(arguments)}) requested, {state}"
        details = [self.detail(f"argument {k}", a) for k, a in arguments.items()]
        return _node("request", text, None, [], details, [])

    def model(self, call: ModelCall) -> dict[str, Any]:
        parts = model_parts(call)
        details = [
            ["model", str(call.model)],
            ["provider", str(call.provider)],
            ["tokens", f"in={call.input_tokens} out={call.output_tokens} total={call.total_tokens}"],
            ["duration", seconds_text(call.span.duration_s if call.span is not None else None)],
        ]
        if call.error is not None:
            details.append(["error", *self.values.text(str(call.error))])
        if call.requested_tools:
            details.append(["requested tools", ", ".join(r.name for r in call.requested_tools)])
        asked = [self.request(r) for r in call.requested_tools if not r.executed]
        spans = self.spans(*(call.spans or (call.span,)))
        return _node("model", " ".join(parts), _STATE[call.failed], spans, details, asked)

    def handoff(self, handoff: Handoff) -> dict[str, Any]:
        text = f"handoff {handoff.from_agent or '?'} → {handoff.to_agent or '?'}"
        if handoff.to_invocation is None and handoff.to_agent:
            text += f" (no invocation of {handoff.to_agent} recorded)"
        details = [
            self.detail(f"argument {k}", a) for k, a in self.values.redacted(handoff.arguments).items()
        ]
        return _node("handoff", text, None, self.spans(handoff.span), details, [])

    def retrieval(self, item: Retrieval) -> dict[str, Any]:
        query = self.values.redacted(item.query)
        text = f"retrieval {self.values.cut(query, redacted=True)} → {len(item.documents)} document(s)"
        details = [self.detail("query", query)]
        details += [self.detail(f"document {i}", d) for i, d in enumerate(item.documents, 1)]
        return _node("retrieval", text, None, self.spans(item.span), details, [])

    def agent_head(self, inv: AgentInvocation) -> dict[str, Any]:
        text = f"{'work outside any agent ' if inv.implicit else ''}{inv.name} [{inv.status}]"
        own_calls = [t for t in map(call_tokens, inv.model_calls) if t is not None]
        own = sum(own_calls) if own_calls else None
        details = [["status", inv.status]]
        if inv.total_tokens is not None:
            # the run's tokens count its nested agents' too; the per-agent table's own calls do not
            text += f" tokens={count_text(inv.total_tokens)}"
            if own is not None and own != inv.total_tokens:
                nested = inv.total_tokens - own
                text += f" ({count_text(own)} own calls" + (
                    f", {count_text(nested)} nested agents)" if nested > 0 and inv.nested else ")"
                )
            details.append(["tokens", f"{count_text(inv.total_tokens)} (nested agents included)"])
        if own is not None:
            details.append(["tokens of its own model calls", count_text(own)])
        if inv.duration_s is not None:
            text += f" {seconds_text(inv.duration_s)}"
            details.append(["duration", seconds_text(inv.duration_s)])
        if inv.error is not None:
            details.append(["error", *self.values.text(str(inv.error))])
        if inv.input is not None:
            details.append(self.detail("input", self.values.redacted(inv.input)))
        output = inv.output if inv.output is not None else inv.streamed_output
        if output is not None:
            details.append(self.detail("output", self.values.redacted(output)))
        if inv.conversation_id:
            details.append(["conversation", inv.conversation_id])
        state = {"failed": "failed", "succeeded": "ok"}.get(inv.status, "unknown")
        return _node("agent", text, state, self.spans(*(inv.spans or (inv.span,))), details, [], inv.name)

    def agent(self, top: AgentInvocation) -> dict[str, Any]:
        # iterative: agents may nest deeper than the recursion limit
        root = self.agent_head(top)
        stack = [(top, root)]
        while stack:
            inv, node = stack.pop()
            items: list[tuple[int, int, Any]] = []
            items += [(t.start_ns, i, t) for i, t in enumerate(inv.tool_executions)]
            items += [(m.start_ns, 0, m) for m in inv.model_calls]
            items += [(r.start_ns, 0, r) for r in inv.retrievals]
            items += [(h.start_ns, 0, h) for h in inv.handoffs]
            items += [(n.start_ns, 0, n) for n in inv.nested if n.via_tool is None]
            items.sort(key=lambda p: (p[0], p[1]))
            for _, _, item in items:
                if isinstance(item, ToolExecution):
                    spawned = [n for n in inv.nested if n.via_tool is item]
                    heads = [self.agent_head(n) for n in spawned]
                    node["c"].append(self.tool(item, heads))
                    stack.extend(zip(spawned, heads, strict=True))
                elif isinstance(item, ModelCall):
                    node["c"].append(self.model(item))
                elif isinstance(item, Handoff):
                    node["c"].append(self.handoff(item))
                elif isinstance(item, Retrieval):
                    node["c"].append(self.retrieval(item))
                else:
                    head = self.agent_head(item)
                    node["c"].append(head)
                    stack.append((item, head))
        return root


def _node(
    kind: str,
    text: str,
    state: str | None,
    spans: list[int],
    details: list[list[Any]],
    children: list[Any],
    name: str | None = None,
) -> dict[str, Any]:
    node = {"k": kind, "t": text, "s": state, "sp": spans, "d": details, "c": children}
    if name is not None:
        node["n"] = name
    return node


def tree_nodes(trace: Trace, values: Values, rows: dict[int, int]) -> list[dict[str, Any]]:
    """The top-level nodes: turn headers and agents, then notes (unrecognised spans, repairs)."""
    build = _Builder(values, rows)
    headers = turn_headers(trace.turns, trace.conversations)
    nodes: list[dict[str, Any]] = []
    for inv in trace.agents:
        header = headers.get(id(inv))
        if header is not None:
            nodes.append(_node("turn", header, None, [], [], []))
        nodes.append(build.agent(inv))
    notes: list[str] = []
    if not trace.agents:
        notes.append("no agent invocations, tool executions or model calls recognised")
    if trace.unfinished:
        notes.append(f"still open when read: {len(trace.unfinished)} span(s)")
    if trace.unclassified:
        names = ", ".join(sorted({repr(s.name) for s in trace.unclassified})[:10])
        notes.append(f"not recognised by any dialect: {len(trace.unclassified)} span(s): {names}")
    notes += [f"warning: {w}" for w in trace.warnings[:10]]
    nodes += [_node("note", str(values.redacted(n)), None, [], [], []) for n in notes]
    return nodes
