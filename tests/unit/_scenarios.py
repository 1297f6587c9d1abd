"""Traces for the invocation-check tests: real Pydantic AI runs, and hand-built GenAI spans for edge cases.

``recorded(name)`` runs one scripted Pydantic AI scenario once per process, with the real
instrumentation exporting to a private tracer provider, and returns its spans; ``trace_of(name)`` makes
a fresh ``ta.Trace`` of them (with its own ledger, so marks and acknowledgements never leak between
tests). ``Spans`` builds GenAI-convention spans by hand.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import traceassert as ta
from traceassert._model.span import freeze_attributes

SCENARIOS: dict[str, Callable[[], object]] = {}


def _scenarios() -> dict[str, Callable[[], object]]:
    if not SCENARIOS:
        from instrumentation import pydantic_ai
        from instrumentation import pydantic_ai_scenarios as more

        SCENARIOS.update(
            weather=pydantic_ai.run_scenario,
            failing=more.run_failing,
            retry=more.run_retry,
            parallel=more.run_parallel,
            repeated=more.run_repeated,
            nested=more.run_nested,
        )
    return SCENARIOS


@functools.cache
def recorded(name: str) -> tuple[ta.Span, ...]:
    """The spans of one run of scenario ``name`` (recorded once per process)."""
    from instrumentation import _recording, pydantic_ai

    spans = _recording.record_spans(pydantic_ai.instrument, pydantic_ai.uninstrument, _scenarios()[name])
    return tuple(ta.Span.from_readable(s) for s in spans)


def trace_of(name: str) -> ta.Trace:
    """A fresh Trace (fresh ledger) of scenario ``name``."""
    return ta.Trace(recorded(name))


# -- hand-built spans -----------------------------------------------------------------------------------

_ERROR = ta.Status("ERROR")


class Spans:
    """Builds GenAI-convention spans of one trace; times advance by 10 ns per span unless given."""

    def __init__(self) -> None:
        self.spans: list[ta.Span] = []
        self._ids = itertools.count(1)
        self._clock = itertools.count(1000, 10)
        self.trace_id = "ab" * 16

    def add(
        self,
        name: str,
        parent: ta.Span | None,
        attributes: Mapping[str, Any],
        *,
        status: ta.Status | None = None,
        events: Sequence[ta.SpanEvent] = (),
        start: int | None = None,
        end: int | None = 10**9,
    ) -> ta.Span:
        span = ta.Span(
            trace_id=self.trace_id,
            span_id=f"{next(self._ids):016x}",
            parent_id=parent.span_id if parent is not None else None,
            name=name,
            start_ns=next(self._clock) if start is None else start,
            end_ns=end,
            status=status or ta.Status(),
            attributes=freeze_attributes(attributes),
            events=tuple(events),
        )
        self.spans.append(span)
        return span

    def agent(
        self,
        name: str,
        parent: ta.Span | None = None,
        *,
        error: tuple[str, str] | None = None,
        stacktrace: str | None = None,
        end: int | None = 10**9,
    ) -> ta.Span:
        attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
        return self.add(f"invoke_agent {name}", parent, attrs, **_error_fields(error, stacktrace), end=end)

    def tool(
        self,
        name: str,
        parent: ta.Span,
        arguments: Any = None,
        result: Any = None,
        *,
        call_id: str | None = None,
        error: tuple[str, str] | None = None,
        start: int | None = None,
        end: int | None = 10**9,
    ) -> ta.Span:
        attrs: dict[str, Any] = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
        if arguments is not None:
            attrs["gen_ai.tool.call.arguments"] = (
                arguments if isinstance(arguments, str) else json.dumps(arguments)
            )
        if result is not None:
            attrs["gen_ai.tool.call.result"] = result if isinstance(result, str) else json.dumps(result)
        if call_id is not None:
            attrs["gen_ai.tool.call.id"] = call_id
        return self.add(
            f"execute_tool {name}", parent, attrs, **_error_fields(error, None), start=start, end=end
        )

    def model(
        self,
        parent: ta.Span | None,
        *,
        operation: str = "chat",
        model: str = "test-model",
        tokens: tuple[int, int] | None = (10, 2),
        finish: str | None = "stop",
        tool_calls: Sequence[tuple[str, Mapping[str, Any], str]] = (),
        text: str | None = None,
        failed: bool = False,
    ) -> ta.Span:
        attrs: dict[str, Any] = {"gen_ai.operation.name": operation, "gen_ai.request.model": model}
        if tokens is not None:
            attrs["gen_ai.usage.input_tokens"], attrs["gen_ai.usage.output_tokens"] = tokens
        if finish is not None:
            attrs["gen_ai.response.finish_reasons"] = (finish,)
        parts: list[dict[str, Any]] = [
            {"type": "tool_call", "id": call_id, "name": name, "arguments": args}
            for name, args, call_id in tool_calls
        ]
        if text is not None:
            parts.append({"type": "text", "content": text})
        if parts:
            attrs["gen_ai.output.messages"] = json.dumps([{"role": "assistant", "parts": parts}])
        status = _ERROR if failed else None
        return self.add(f"{operation} {model}", parent, attrs, status=status)

    def retrieval(self, parent: ta.Span | None, query: str, documents: Sequence[str]) -> ta.Span:
        attrs = {
            "gen_ai.operation.name": "retrieval",
            "gen_ai.retrieval.query.text": query,
            "gen_ai.retrieval.documents": json.dumps([{"content": d} for d in documents]),
        }
        return self.add(f"retrieval {query}", parent, attrs)

    def trace(self) -> ta.Trace:
        return ta.Trace(self.spans)


def _error_fields(error: tuple[str, str] | None, stacktrace: str | None) -> dict[str, Any]:
    if error is None:
        return {}
    etype, message = error
    attrs: dict[str, Any] = {"exception.type": etype, "exception.message": message}
    if stacktrace is not None:
        attrs["exception.stacktrace"] = stacktrace
    return {"status": _ERROR, "events": (ta.SpanEvent("exception", 0, attrs),)}


def cancelled(trace: ta.Trace, agent_name: str) -> ta.Trace:
    """``trace`` with the invocation of ``agent_name`` marked cancelled.

    No producer traceassert reads records cancellation yet (Pydantic AI ends a cancelled run's spans
    with status UNSET), so the record is changed after reconstruction.
    """
    for inv in trace.all_agents():
        if inv.name == agent_name:
            inv.status = "cancelled"
    return trace
