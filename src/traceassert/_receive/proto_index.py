"""A protobuf request indexed by trace id, in one pass over its spans, and the spans of one trace built
from that index later, when a test reads its trace.

Taking a request is what must be fast (a receiver slower than the exporters would hold the app up), so
the pass reads only the ids, the kind and the status code of each span (the loaders' checks, the same
words when a span is refused), and keeps where each good span is: one integer (its ``resourceSpans``,
``scopeSpans`` and ``spans`` index), never an object a span. The parsed request is kept whole; the
cyclic garbage collector then has a few objects a request to look at, not several a span.
"""

from __future__ import annotations

from typing import Any

from .._errors import TraceLoadError
from .._loaders import otlp_proto
from .._model.span import Span
from .limits import anchor_bytes

__all__ = ["ProtoBatch", "build", "index_request", "label_of"]

_ZERO16, _ZERO8 = bytes(16), bytes(8)
#: ``Span.flags``: the parent's ``is_remote`` is known and true
_REMOTE = 0x300
#: a position: the resourceSpans index, the scopeSpans index and the span index, 24 bits each
_BITS = 24
_MASK = (1 << _BITS) - 1
#: the anchors (the span id a receiver hands out with a trace id) of recent trace ids
_ANCHORS: dict[bytes, bytes] = {}
_ANCHORS_KEPT = 4096


class ProtoBatch:
    """The good spans of one trace in one request: the request and where they are in it."""

    __slots__ = ("positions", "request", "rooted")

    def __init__(self, request: Any) -> None:
        self.request = request
        self.positions: list[int] = []
        #: a span here has no parent, hangs under the receiver's traceparent, or has a remote parent
        self.rooted = False


def _anchor(trace_id: bytes) -> bytes:
    found = _ANCHORS.get(trace_id)
    if found is None:
        if len(_ANCHORS) >= _ANCHORS_KEPT:
            _ANCHORS.clear()
        found = _ANCHORS[trace_id] = anchor_bytes(trace_id)
    return found


def index_request(request: Any, where: str) -> tuple[dict[bytes, ProtoBatch], int, TraceLoadError | None]:
    """The good spans of a parsed ``ExportTraceServiceRequest`` by trace id (raw bytes); how many were
    refused, and the error of the first of them (worded by ``otlp_proto.check_span``)."""
    batches: dict[bytes, ProtoBatch] = {}
    refused = 0
    first: TraceLoadError | None = None
    for i, rs in enumerate(request.resource_spans):
        for j, ss in enumerate(rs.scope_spans):
            base = (i << (2 * _BITS)) | (j << _BITS)
            for k, sp in enumerate(ss.spans):
                trace_id = sp.trace_id
                span_id = sp.span_id
                parent = sp.parent_span_id
                if (
                    len(trace_id) != 16
                    or len(span_id) != 8
                    or trace_id == _ZERO16
                    or span_id == _ZERO8
                    or (parent and len(parent) != 8)
                    or not 0 <= sp.kind <= 5
                    or not 0 <= sp.status.code <= 2
                ):
                    refused += 1
                    if first is None:
                        problem = otlp_proto.check_span(sp) or "invalid span"
                        position = f"resourceSpans[{i}].scopeSpans[{j}].spans[{k}]"
                        first = TraceLoadError(f"invalid record: {problem}", path=where, position=position)
                    continue
                batch = batches.get(trace_id)
                if batch is None:
                    batch = batches[trace_id] = ProtoBatch(request)
                batch.positions.append(base | k)
                if not batch.rooted and (
                    not parent
                    or parent == _ZERO8
                    or sp.flags & _REMOTE == _REMOTE
                    or parent == _anchor(trace_id)
                ):
                    batch.rooted = True
    return batches, refused, first


def _items(batch: ProtoBatch) -> list[tuple[otlp_proto.Origin, Any]]:
    """(origin, protobuf span) of each position, one Origin a ScopeSpans."""
    scopes: dict[int, tuple[otlp_proto.Origin, Any]] = {}
    out = []
    request = batch.request
    for position in batch.positions:
        key = position >> _BITS
        found = scopes.get(key)
        if found is None:
            rs = request.resource_spans[key >> _BITS]
            ss = rs.scope_spans[key & _MASK]
            scope = ss.scope
            origin = otlp_proto.Origin(rs.resource, scope.name or None, scope.version or None, [])
            found = scopes[key] = (origin, ss.spans)
        out.append((found[0], found[1][position & _MASK]))
    return out


def build(batches: list[ProtoBatch], keys: dict[str, str]) -> tuple[list[Span], list[str]]:
    """The spans of the batches, in order, and why any span was refused: a value nested deeper than the
    loaders read (checked here, not when the request came, to keep taking requests fast); ``keys``
    shares attribute keys between calls."""
    spans: list[Span] = []
    notes: list[str] = []
    for batch in batches:
        items = _items(batch)
        try:
            spans.extend(otlp_proto.build_spans(items, keys))
        except (ValueError, RecursionError):
            for one in items:  # the same, span by span, to keep the good ones and name the bad
                try:
                    spans.extend(otlp_proto.build_spans([one], keys))
                except (ValueError, RecursionError) as exc:
                    notes.append(
                        f"refused span {one[1].span_id.hex()} ({one[1].name!r}) of a protobuf request: {exc}"
                    )
    return spans, notes


def label_of(batch: ProtoBatch) -> tuple[str, str | None]:
    """The first span's name and service."""
    origin, sp = _items(_first(batch))[0]
    found = [kv.value.string_value for kv in origin.resource.attributes if kv.key == "service.name"]
    return sp.name, found[0] if found else None


def _first(batch: ProtoBatch) -> ProtoBatch:
    one = ProtoBatch(batch.request)
    one.positions = batch.positions[:1]
    return one
