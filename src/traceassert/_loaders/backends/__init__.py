"""Traces read from a running observability back end by trace id, through its public HTTP API:
``load_trace("jaeger+http://127.0.0.1:16686", trace_id=...)`` (also ``tempo+http://``,
``phoenix+http://``, and ``https``). ``client`` finds the back end in the URL and makes the request
(urllib, a timeout, the answer within ``max_bytes``, credentials from the environment and never shown);
``apis`` speaks each back end's API and reads its answer with the file loaders. See
docs/trace-files.md ("Reading from a back end")."""

from __future__ import annotations

import re
import time

from ..._errors import BackendError, TraceNotFoundError
from .. import LoadResult
from .apis import OPTIONS, read_trace
from .client import HEADERS_VAR, parse_location

__all__ = ["HEADERS_VAR", "KINDS", "is_backend_url", "load_backend"]

#: the back ends read, as the URL's scheme names them (``jaeger+http``)
KINDS = tuple(OPTIONS)
_URL = re.compile(r"^[a-z0-9-]+\+https?://", re.IGNORECASE)
_HEX = re.compile(r"^[0-9a-f]{16}$|^[0-9a-f]{32}$")
#: how often a trace not stored yet is asked for again (``wait=``)
POLL = 0.25


def is_backend_url(value: object) -> bool:
    """Whether ``value`` names a back end (``kind+http(s)://...``) rather than a file."""
    return isinstance(value, str) and _URL.match(value) is not None


def _trace_id(value: object, where: str, kind: str) -> str:
    text = value.strip().lower() if isinstance(value, str) else ""
    if not _HEX.match(text):
        raise BackendError(
            f"trace_id= takes the trace id as 32 hex digits (16 for a 64-bit Jaeger id), not {value!r}",
            backend=kind,
            url=where,
        )
    return text.rjust(32, "0")


def load_backend(
    url: str, *, trace_id: object, timeout: float, wait: float, max_bytes: int | None
) -> tuple[LoadResult, str]:
    """The spans of one trace from the back end ``url`` names, and the address to show. With ``wait``
    seconds, a trace the back end does not hold yet is asked for again until it does, and then until two
    answers in a row hold as many spans (it may still be storing the last of them)."""
    location = parse_location(url, OPTIONS)
    tid = _trace_id(trace_id, location.shown, location.kind)
    if not timeout > 0 or not wait >= 0:
        raise ValueError("timeout must be positive and wait not negative")
    deadline = time.monotonic() + wait
    previous: int | None = None
    while True:
        try:
            result = read_trace(location, tid, timeout=timeout, max_bytes=max_bytes)
        except TraceNotFoundError:
            left = deadline - time.monotonic()
            if left <= 0:
                raise
            time.sleep(min(POLL, left))
            continue
        count = len(result.spans)
        if wait <= 0 or count == previous or time.monotonic() >= deadline:
            return result, f"{location.shown} trace {tid}"
        previous = count
        time.sleep(min(POLL, max(deadline - time.monotonic(), 0)))
