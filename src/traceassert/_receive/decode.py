"""A request body to spans and log records: gzip within the limits, then the loaders' OTLP converters
(JSON, or protobuf through ``opentelemetry-proto``), so that a receiver gives the spans and the typed
errors the file loaders give. Protobuf spans are checked and indexed by trace id here (``proto_index``)
and built later, when a test reads its trace, so that taking a request stays fast."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Literal

from .._errors import TraceLoadError
from .._loaders import otlp_proto
from .._loaders.otlp_request import read_json_request
from .._loaders.read import TooLarge, read_stream
from .._model.logs import LogRecord
from .._model.span import Span
from .limits import Limits, anchor_of
from .proto_index import ProtoBatch, index_request

__all__ = ["Batch", "Decoded", "Signal", "decode_body", "decompress"]

Signal = Literal["traces", "logs"]
_ZERO_TRACE, _ZERO_SPAN = "0" * 32, "0" * 16


@dataclass(slots=True)
class Batch:
    """The spans of one trace in one OTLP/JSON request, built already."""

    spans: list[Span] = field(default_factory=list)
    count: int = 0
    #: a span here has no parent, hangs under the receiver's traceparent, or has a parent in another
    #: process (its flags say so)
    rooted: bool = False

    def label(self) -> tuple[str, str | None]:
        """The first span's name and service (for the words about a trace nobody asked for)."""
        span = self.spans[0]
        service = span.resource.get("service.name")
        return span.name, service if isinstance(service, str) else None


@dataclass(slots=True)
class Decoded:
    """What one request carried."""

    batches: dict[str, Batch] = field(default_factory=dict)
    #: the spans of a protobuf request, by raw trace id (built when read: ``proto_index``)
    proto: dict[bytes, ProtoBatch] = field(default_factory=dict)
    logs: list[LogRecord] = field(default_factory=list)
    refused: int = 0
    error: TraceLoadError | None = None

    @property
    def accepted(self) -> int:
        spans = sum(b.count for b in self.batches.values())
        return spans + sum(len(b.positions) for b in self.proto.values()) + len(self.logs)


def decompress(body: bytes, encoding: str | None, limits: Limits, where: str) -> bytes:
    """The body without its ``Content-Encoding`` (gzip, or none), within ``max_decoded_bytes``; a
    ``TooLarge`` past it, a ``TraceLoadError`` for a bad or cut-off gzip stream."""
    name = (encoding or "identity").strip().lower()
    if name in ("identity", ""):
        return body
    if name != "gzip":
        raise TraceLoadError(f"unsupported Content-Encoding {encoding!r} (gzip or none)", path=where)
    if body[:2] != b"\x1f\x8b":
        raise TraceLoadError("Content-Encoding is gzip but the body is not gzip data", path=where)
    notes: list[str] = []
    data = read_stream(io.BytesIO(body), where, limits.max_decoded_bytes, notes)
    if notes:
        raise TraceLoadError(notes[0].split(": ", 1)[-1], path=where)
    return data


def decode_body(data: bytes, signal: Signal, proto: bool, where: str) -> Decoded:
    """The spans (by trace id) or log records of one decompressed request body."""
    if proto:
        return _proto_traces(data, where) if signal == "traces" else _proto_logs(data, where)
    request = read_json_request(data, where)
    out = Decoded(logs=request.logs, refused=request.refused, error=request.first_error)
    if signal == "logs" and request.spans:
        raise TraceLoadError(
            "spans sent to the logs endpoint (/v1/logs): send them to /v1/traces", path=where
        )
    if signal == "traces" and request.logs:
        raise TraceLoadError("log records sent to the traces endpoint: send them to /v1/logs", path=where)
    for span in request.spans:
        if span.trace_id == _ZERO_TRACE or span.span_id == _ZERO_SPAN:
            out.refused += 1
            if out.error is None:
                what = "trace" if span.trace_id == _ZERO_TRACE else "span"
                out.error = TraceLoadError(f"invalid record: {what} id is all zeros", path=where)
            continue
        batch = out.batches.get(span.trace_id)
        if batch is None:
            batch = out.batches[span.trace_id] = Batch()
        batch.spans.append(span)
        batch.count += 1
        if not batch.rooted and (
            span.parent_id is None
            or span.parent_id == anchor_of(span.trace_id)
            or (span.trace_id, span.span_id) in request.remote_parents
        ):
            batch.rooted = True
    return out


def _proto_traces(data: bytes, where: str) -> Decoded:
    batches, refused, error = index_request(otlp_proto.parse_traces(data, where), where)
    return Decoded(proto=batches, refused=refused, error=error)


def _proto_logs(data: bytes, where: str) -> Decoded:
    request = otlp_proto.parse_logs(data, where)
    logs, refused, error = otlp_proto.log_records(request, where)
    return Decoded(logs=logs, refused=refused, error=error)


def too_large(exc: TraceLoadError) -> bool:
    """Whether a decoding error is a size past the limits (413), not a malformed body (400)."""
    return isinstance(exc, TooLarge)
