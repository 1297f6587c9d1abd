"""What a receiver takes: where it listens and how much (the limits are documented in
docs/other-processes.md), and the span id it hands out as the parent of an app's spans."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

__all__ = ["LOOPBACK", "Limits", "anchor_bytes", "anchor_of"]

#: the one address a receiver listens on unless told otherwise
LOOPBACK = "127.0.0.1"


@dataclass(frozen=True, slots=True)
class Limits:
    """The sizes a receiver accepts.

    ``max_request_bytes``: a request body as sent (``Content-Length``; a gRPC message), else 413 (gRPC:
    ``RESOURCE_EXHAUSTED``). ``max_decoded_bytes``: the body after gzip, else 413. ``max_spans``: spans
    held at once; past it spans are refused with a partial success, never dropped unsaid.
    """

    max_request_bytes: int = 20 << 20
    max_decoded_bytes: int = 64 << 20
    max_spans: int = 5_000_000

    def __post_init__(self) -> None:
        for name in ("max_request_bytes", "max_decoded_bytes", "max_spans"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")


def anchor_of(trace_id: str) -> str:
    """The span id a receiver hands out with ``trace_id`` (in ``TRACEPARENT`` and ``traceparent``): the
    parent of the app's first spans. Made from the trace id, so any process can tell it."""
    return anchor_bytes(bytes.fromhex(trace_id)).hex()


def anchor_bytes(trace_id: bytes) -> bytes:
    """``anchor_of`` on the raw ids."""
    digest = hashlib.blake2b(trace_id, digest_size=8, person=b"traceassert").digest()
    return digest if digest != _ZERO8 else b"\x00" * 7 + b"\x01"


_ZERO8 = bytes(8)
