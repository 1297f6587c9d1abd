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

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .._model.span import Span, SpanEvent, SpanLink
from .fingerprint import fingerprint_text

if TYPE_CHECKING:
    from .._trace import Trace

__all__ = ["EPOCH_NS", "Renumbering", "renumber", "renumbered_trace", "trie_pattern"]

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
    spans, result, _ = renumbered_trace(trace, keep_times=keep_times)
    return spans, result


def renumbered_trace(trace: Trace, *, keep_times: bool = False) -> tuple[list[Span], Renumbering, Trace]:
    """`renumber`, and the `Trace` of the renumbered spans (its reconstruction already built, for the
    caller to reuse). Both steps are tried at once first: the trace is reconstructed once more when the
    ticks and the new names together keep the behaviour, and step by step only when they do not."""
    from .._trace import Trace as TraceClass

    target = fingerprint_text(trace, keep_messages=True)
    spans = _structure(trace)
    names = _random_ids(trace)
    renamed_target = (
        fingerprint_text(trace, keep_messages=True, conversation_names=names) if names else target
    )
    rename = _Renamer(names)
    times = "relative" if keep_times else "ticks"
    timed = _times(spans, ticks=not keep_times)
    if names:
        both_spans = [rename.span(span) for span in timed]
        both = TraceClass(both_spans)
        if fingerprint_text(both, keep_messages=True) == renamed_target:
            return both_spans, Renumbering(ids=names, times=times), both
    timed_trace = TraceClass(timed)
    if not keep_times and fingerprint_text(timed_trace, keep_messages=True) != target:
        timed = _times(spans, ticks=False)  # the order of times alone does not tell this trace's story
        times = "relative"
        timed_trace = TraceClass(timed)
        if names:
            renamed_spans = [rename.span(span) for span in timed]
            renamed = TraceClass(renamed_spans)
            if fingerprint_text(renamed, keep_messages=True) == renamed_target:
                return renamed_spans, Renumbering(ids=names, times=times), renamed
    return timed, Renumbering(times=times), timed_trace


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


def trie_pattern(words: list[str]) -> str:
    """A regular expression that matches any of ``words`` (non-empty), the longest one where several
    start at the same place, as an alternation of them longest first would; written as a trie (the
    shared prefixes once), so that a search does not try every word at every place of the text: a
    plain alternation of the n call ids of a trace made renumbering grow with n times the text."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}  # a word ends here

    def pattern(node: dict[str, Any]) -> str:
        alternatives = [re.escape(ch) + pattern(child) for ch, child in sorted(node.items()) if ch]
        if not alternatives:
            return ""
        body = alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
        return f"(?:{body})?" if "" in node else body  # greedy: the longer word first

    return pattern(trie)


class _Renamer:
    """Replaces the old ids by their new names: a whole value by one dict lookup, an id inside longer text
    (ids of at least `_MIN_INNER_ID` characters) by one pass of a compiled trie, the longest id where
    several start at the same place."""

    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = names
        inner = [old for old in names if len(old) >= _MIN_INNER_ID]
        self.inner = re.compile(trie_pattern(inner)) if inner else None

    def span(self, span: Span) -> Span:
        return replace(
            span,
            attributes=self.attrs(span.attributes),
            events=tuple(
                SpanEvent(ev.name, ev.timestamp_ns, self.attrs(ev.attributes)) for ev in span.events
            ),
        )

    def attrs(self, attrs: Mapping[str, Any]) -> dict[str, Any]:
        return {key: self.value(value) for key, value in attrs.items()}

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            exact = self.names.get(value)
            if exact is not None:
                return exact
            if self.inner is None:
                return value
            return self.inner.sub(self._new, value)
        if isinstance(value, tuple | list):
            return tuple(self.value(v) for v in value)
        return value

    def _new(self, match: re.Match[str]) -> str:
        return self.names[match.group()]
