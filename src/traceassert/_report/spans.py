"""The span list of the waterfall: one row per span, in tree order, on a shared time axis.

Each row is a list (compact: a 10k-span page stays small) read by the page's script:
``[span_id, parent row or -1, depth, name, kind, start_ms, duration_ms or None (open), failed,
status, attributes, events, label, tokens]``, where ``kind`` is ``agent``, ``tool``, ``model`` or
``other`` (what the reconstruction made of the span), ``attributes`` is ``[[key, cut, full?], ...]``,
``events`` is ``[[name, offset_ms or None, attributes], ...]``, ``label`` the tree's name for the
span's record (None for a span of no record) and ``tokens`` a model call's tokens (on its first
span). Every value is redacted as dumps are and cut as messages cut it (`values.Values`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .labels import span_labels
from .values import Values

if TYPE_CHECKING:
    from .._model.span import Span
    from .._trace import Trace

__all__ = ["span_kinds", "span_rows"]

#: the order of the fields of a row (the page's script reads them by position)
FIELDS = (
    "id",
    "parent",
    "depth",
    "name",
    "kind",
    "start_ms",
    "duration_ms",
    "failed",
    "status",
    "attributes",
    "events",
    "label",
    "tokens",
)


def span_kinds(trace: Trace) -> tuple[dict[int, str], dict[int, bool]]:
    """``id(span) -> kind`` for the spans the reconstruction used, and ``id(span) -> failed`` for the
    spans of records: the record's verdict, not the span's status (a failed tool whose span has no error
    status shows as failed; a handoff, or LangGraph's ``ParentCommand``, that the producer marked ERROR
    routes control and does not)."""
    kinds: dict[int, str] = {}
    verdict: dict[int, bool] = {}

    def judge(span: Span, failed: bool | None) -> None:
        verdict[id(span)] = verdict.get(id(span), False) or bool(failed)

    for inv in trace.all_agents():
        for span in inv.spans or (inv.span,):
            kinds.setdefault(id(span), "agent")
            judge(span, inv.failed)
    for call in trace.model_calls:
        for span in call.spans or ((call.span,) if call.span is not None else ()):
            kinds.setdefault(id(span), "model")
            judge(span, call.failed)
    for tool in trace.tool_executions:
        if tool.span is not None:
            kinds[id(tool.span)] = "tool"
            judge(tool.span, tool.failed)
    for handoff in trace.handoffs:
        if handoff.span is not None:
            judge(handoff.span, False)
    return kinds, verdict


def tree_order(trace: Trace) -> list[tuple[Span, int, int]]:
    """``(span, depth, parent position)`` depth first from the roots, children in start order."""
    out: list[tuple[Span, int, int]] = []
    stack: list[tuple[Span, int, int]] = [(r, 0, -1) for r in reversed(trace.roots)]
    while stack:  # iterative: spans may nest deeper than the recursion limit
        span, depth, parent = stack.pop()
        here = len(out)
        out.append((span, depth, parent))
        stack.extend((c, depth + 1, here) for c in reversed(trace.children(span)))
    return out


def span_rows(trace: Trace, values: Values) -> tuple[list[list[Any]], dict[int, int], float]:
    """The waterfall's rows, ``id(span) -> row`` and the axis length in milliseconds."""
    ordered = tree_order(trace)
    kinds, verdicts = span_kinds(trace)
    labels, tokens = span_labels(trace)
    starts = [s.start_ns for s, _, _ in ordered]
    t0 = min(starts) if starts else 0
    ends = [s.end_ns if s.end_ns is not None else s.start_ns for s, _, _ in ordered]
    axis_ms = (max(ends) - t0) / 1e6 if ends else 0.0
    shown = values.spans(s for s, _, _ in ordered)
    rows: list[list[Any]] = []
    index: dict[int, int] = {}
    for (span, depth, parent), red in zip(ordered, shown, strict=True):
        index[id(span)] = len(rows)
        duration = None if span.end_ns is None else max(0, span.end_ns - span.start_ns) / 1e6
        status = span.status.code
        if red.status.description:
            status += ": " + values.line(red.status.description, redacted=True)
        rows.append(
            [
                span.span_id,
                parent,
                depth,
                red.name,
                kinds.get(id(span), "other"),
                round((span.start_ns - t0) / 1e6, 3),
                None if duration is None else round(duration, 3),
                verdicts.get(id(span), span.status.is_error),
                status,
                [[k, *values.shown(v, redacted=True)] for k, v in red.attributes.items()],
                [
                    [
                        ev.name,
                        None if ev.timestamp_ns is None else round((ev.timestamp_ns - t0) / 1e6, 3),
                        [[k, *values.shown(v, redacted=True)] for k, v in ev.attributes.items()],
                    ]
                    for ev in red.events
                ],
                labels.get(id(span)),
                tokens.get(id(span)),
            ]
        )
    return rows, index, round(axis_ms, 3)
