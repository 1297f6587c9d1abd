"""One request taken, whatever brought it (HTTP or gRPC): the size limits, gzip, decoding, the store, a
note of it, and the answer the OTLP specification asks for (200 with a partial success when some spans
are refused, 400 with the reason for a malformed body, 413 past the limits). Never raises: a fault of
the receiver itself is a 500 with its reason noted, and what was stored before it stays."""

from __future__ import annotations

import json
from dataclasses import dataclass

from .._errors import TraceLoadError
from .decode import Signal, decode_body, decompress, too_large
from .store import RequestNote, Store

__all__ = ["Answer", "Arrival", "ingest"]


@dataclass(frozen=True, slots=True)
class Arrival:
    """How a request came."""

    signal: Signal
    proto: bool
    transport: str
    path: str
    encoding: str | None = None
    user_agent: str | None = None

    @property
    def protocol(self) -> str:
        if self.transport == "grpc":
            return "grpc"
        return "http/protobuf" if self.proto else "http/json"


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    body: bytes
    reason: str | None = None


def ingest(store: Store, body: bytes, arrival: Arrival) -> Answer:
    """Take one request body and say how to answer it."""
    where = f"{arrival.protocol} {arrival.path}"
    limits = store.limits
    accepted = refused = 0
    reason: str | None = None
    try:
        if len(body) > limits.max_request_bytes:
            status = 413
            reason = f"the request body is larger than the limit of {limits.max_request_bytes} bytes"
        else:
            data = decompress(body, arrival.encoding, limits, where)
            decoded = decode_body(data, arrival.signal, arrival.proto, where)
            accepted, refused, reason = store.add(decoded)
            status = 200
    except TraceLoadError as exc:
        status = 413 if too_large(exc) else 400
        reason = str(exc)
    except Exception as exc:  # a fault of the receiver: noted and answered, never a crash of the server
        status = 500
        reason = f"the receiver failed on this request: {type(exc).__name__}: {exc}"
    store.note(
        RequestNote(
            arrival.transport,
            arrival.protocol,
            arrival.path,
            status,
            accepted,
            refused,
            reason,
            arrival.user_agent,
        )
    )
    if status == 200:
        return Answer(200, success_body(arrival, refused, reason), reason if refused else None)
    return Answer(status, status_body(arrival.proto, status, reason or ""), reason)


def success_body(arrival: Arrival, refused: int, reason: str | None) -> bytes:
    """An ExportTraceServiceResponse / ExportLogsServiceResponse, with its partial success when some
    spans or records were refused."""
    if not refused:
        return b"" if arrival.proto else b"{}"
    message = reason or ""
    if arrival.proto:
        inner = _field_varint(1, refused) + _field_bytes(2, message.encode("utf-8", "replace"))
        return _field_bytes(1, inner)
    count = "rejectedSpans" if arrival.signal == "traces" else "rejectedLogRecords"
    doc = {"partialSuccess": {count: str(refused), "errorMessage": message}}
    return json.dumps(doc).encode()


#: the gRPC code an HTTP status stands for in a google.rpc.Status body
_RPC_CODES = {400: 3, 413: 8, 404: 12, 415: 3, 500: 13}


def status_body(proto: bool, status: int, message: str) -> bytes:
    """A google.rpc.Status body (what OTLP/HTTP answers an error with), protobuf or JSON."""
    code = _RPC_CODES.get(status, 2)
    if proto:
        return _field_varint(1, code) + _field_bytes(2, message.encode("utf-8", "replace"))
    return json.dumps({"code": code, "message": message}).encode()


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field_varint(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def _field_bytes(number: int, data: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(data)) + data
