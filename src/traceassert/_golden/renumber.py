"""Renumbering what differs from one recording of a run to the next: ids and times.

Trace ids become ``000...1``, ``000...2`` and span ids ``000...1``, ``000...2``, ... in start order (a
parent id no span of the trace has gets a number after theirs). Times become ticks: every distinct start,
end and event time, in order, is 1 ms after the one before, so what started before, ended after or
overlapped still does, and durations no longer differ from run to run (``keep_times`` keeps the real
times instead, shifted so the first span starts at `EPOCH_NS`). Tool-call ids and conversation ids, which
producers draw at random, become ``call_1``, ... and ``conversation_1``, ... wherever they appear as a
value or inside a text value. Each step is kept only if the trace behaves the same after it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .._model.span import Span, SpanEvent, SpanLink
from .fingerprint import fingerprint_text

if TYPE_CHECKING:
    from .._trace import Trace

__all__ = ["EPOCH_NS", "Renumbering", "renumber"]

#: where renumbered times start (2023-11-14T22:13:20Z), so they still read as times
EPOCH_NS = 1_700_000_000_000_000_000
TICK_NS = 1_000_000
#: shorter ids are not replaced inside longer text (too likely to match something else)
_MIN_INNER_ID = 6


@dataclass
class Renumbering:
    """What was renamed: the old id -> the new one."""

    ids: dict[str, str] = field(default_factory=dict)
    times: str = "none"


def renumber(trace: Trace, *, keep_times: bool = False) -> tuple[list[Span], Renumbering]:
    """The spans of ``trace`` with ids, times and random ids renumbered (see the module docstring)."""
    from .._trace import Trace as TraceClass

    target = fingerprint_text(trace, keep_messages=True)
    spans = _structure(trace)
    timed = _times(spans, ticks=not keep_times)
    result = Renumbering(times="relative" if keep_times else "ticks")
    if not keep_times and fingerprint_text(TraceClass(timed), keep_messages=True) != target:
        timed = _times(spans, ticks=False)  # the order of times alone does not tell this trace's story
        result.times = "relative"
    names = _random_ids(trace)
    if names:
        renamed = [_rename(span, names) for span in timed]
        renamed_target = fingerprint_text(trace, keep_messages=True, conversation_names=names)
        if fingerprint_text(TraceClass(renamed), keep_messages=True) == renamed_target:
            result.ids = names
            return renamed, result
    return timed, result


def _structure(trace: Trace) -> list[Span]:
    trace_ids: dict[str, str] = {}
    span_ids: dict[tuple[str, str], str] = {}
    for span in trace.spans:
        trace_ids.setdefault(span.trace_id, f"{len(trace_ids) + 1:032x}")
        span_ids[span.key] = f"{len(span_ids) + 1:016x}"
    missing: dict[tuple[str, str], str] = {}
    out: list[Span] = []
    for span in trace.spans:
        parent = None
        if span.parent_id is not None:
            key = (span.trace_id, span.parent_id)
            parent = span_ids.get(key)
            if parent is None:
                parent = missing.setdefault(key, f"{len(span_ids) + len(missing) + 1:016x}")
        links = tuple(
            SpanLink(
                trace_ids.get(lk.trace_id, lk.trace_id),
                span_ids.get((lk.trace_id, lk.span_id), lk.span_id),
                lk.attributes,
            )
            for lk in span.links
        )
        out.append(
            replace(
                span,
                trace_id=trace_ids[span.trace_id],
                span_id=span_ids[span.key],
                parent_id=parent,
                links=links,
            )
        )
    return out


def _times(spans: list[Span], *, ticks: bool) -> list[Span]:
    stamps: set[int] = set()
    for span in spans:
        stamps.add(span.start_ns)
        if span.end_ns is not None:
            stamps.add(span.end_ns)
        stamps.update(ev.timestamp_ns for ev in span.events if ev.timestamp_ns is not None)
    first = min(stamps)
    if ticks:
        rank = {t: EPOCH_NS + i * TICK_NS for i, t in enumerate(sorted(stamps))}
    else:
        rank = {t: EPOCH_NS + (t - first) for t in stamps}
    return [
        replace(
            span,
            start_ns=rank[span.start_ns],
            end_ns=None if span.end_ns is None else rank[span.end_ns],
            events=tuple(
                ev if ev.timestamp_ns is None else replace(ev, timestamp_ns=rank[ev.timestamp_ns])
                for ev in span.events
            ),
        )
        for span in spans
    ]


def _random_ids(trace: Trace) -> dict[str, str]:
    """Tool-call ids and conversation ids, in the order they first appear, -> their new names."""
    names: dict[str, str] = {}
    calls: list[str | None] = []
    for tool in trace.tool_executions:
        calls.append(tool.call_id)
    for request in trace.tool_requests:
        calls.append(request.call_id)
    for handoff in trace.handoffs:
        calls.append(handoff.call_id)
    n = 0
    for call_id in calls:
        if call_id and call_id not in names:
            n += 1
            names[call_id] = f"call_{n}"
    n = 0
    for inv in trace.all_agents():
        cid = inv.conversation_id
        if cid and cid not in names:
            n += 1
            names[cid] = f"conversation_{n}"
    return names


def _rename(span: Span, names: Mapping[str, str]) -> Span:
    inner = [(old, new) for old, new in names.items() if len(old) >= _MIN_INNER_ID]
    return replace(
        span,
        attributes=_rename_attrs(span.attributes, names, inner),
        events=tuple(
            SpanEvent(ev.name, ev.timestamp_ns, _rename_attrs(ev.attributes, names, inner))
            for ev in span.events
        ),
    )


def _rename_attrs(
    attrs: Mapping[str, Any], names: Mapping[str, str], inner: Iterable[tuple[str, str]]
) -> dict[str, Any]:
    return {key: _rename_value(value, names, inner) for key, value in attrs.items()}


def _rename_value(value: Any, names: Mapping[str, str], inner: Iterable[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        exact = names.get(value)
        if exact is not None:
            return exact
        for old, new in inner:
            if old in value:
                value = value.replace(old, new)
        return value
    if isinstance(value, tuple | list):
        return tuple(_rename_value(v, names, inner) for v in value)
    return value
