"""Hand-built spans for unit tests of edge cases (real traces come from tests/conformance)."""

from __future__ import annotations

import itertools
from typing import Any

import traceassert as ta
from traceassert._model.span import freeze_attributes

_ids = itertools.count(1)
TRACE_ID = "0af7651916cd43dd8448eb211c80319c"


class SpanBuilder:
    """Builds spans with sequential ids and start times; ``parent=`` takes another built span."""

    def __init__(self, trace_id: str = TRACE_ID) -> None:
        self.trace_id = trace_id
        self.spans: list[ta.Span] = []
        self.clock = 1_000_000_000

    def span(
        self,
        name: str,
        attributes: dict[str, Any] | None = None,
        *,
        parent: ta.Span | None = None,
        parent_id: str | None = None,
        status: str = "UNSET",
        description: str | None = None,
        events: tuple[ta.SpanEvent, ...] = (),
        duration_ns: int = 1_000_000,
        finished: bool = True,
        span_id: str | None = None,
        start_ns: int | None = None,
    ) -> ta.Span:
        self.clock += 1_000
        start = self.clock if start_ns is None else start_ns
        sid = span_id or format(next(_ids), "016x")
        s = ta.Span(
            trace_id=self.trace_id,
            span_id=sid,
            parent_id=parent.span_id if parent is not None else parent_id,
            name=name,
            start_ns=start,
            end_ns=start + duration_ns if finished else None,
            status=ta.Status(status, description),
            attributes=freeze_attributes(attributes or {}),
            events=events,
            scope_name="tests",
        )
        self.spans.append(s)
        return s

    def agent(self, name: str, parent: ta.Span | None = None, **attrs: Any) -> ta.Span:
        return self.span(
            f"invoke_agent {name}",
            {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name, **attrs},
            parent=parent,
            duration_ns=10_000_000,
        )

    def tool(self, name: str, parent: ta.Span, args: Any = None, result: Any = None, **kw: Any) -> ta.Span:
        attrs: dict[str, Any] = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
        if args is not None:
            attrs["gen_ai.tool.call.arguments"] = args
        if result is not None:
            attrs["gen_ai.tool.call.result"] = result
        return self.span(f"execute_tool {name}", attrs, parent=parent, **kw)

    def chat(
        self, parent: ta.Span | None, inp: int | None = 10, out: int | None = 5, **attrs: Any
    ) -> ta.Span:
        a: dict[str, Any] = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", **attrs}
        if inp is not None:
            a["gen_ai.usage.input_tokens"] = inp
        if out is not None:
            a["gen_ai.usage.output_tokens"] = out
        return self.span("chat m", a, parent=parent)

    def trace(self) -> ta.Trace:
        return ta.Trace(self.spans)
