"""A receiver in another process (``traceassert receive``, or the one a pytest-xdist worker shares), read
over its ``GET /traceassert/v1/...`` API: the same `Source` as a receiver in this process, so waiting and
the words of a failure are the same. The spans come back as OTLP JSON and are read by the loaders."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from .._errors import TraceCaptureError
from .._loaders.otlp_request import read_json_request
from .http_server import READ_PREFIX
from .store import State, TraceView

__all__ = ["RemoteReceiver"]

_POLL = 0.05
#: the read API is asked directly, never through the proxy the environment names (a CI machine's
#: HTTP_PROXY would otherwise get the requests to 127.0.0.1)
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class RemoteReceiver:
    """The read side of a receiver at ``endpoint`` (its OTLP/HTTP base URL)."""

    def __init__(self, endpoint: str, timeout: float = 10.0) -> None:
        parts = urlsplit(endpoint)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"connect= takes the receiver's http:// URL, not {endpoint!r}")
        self.http_endpoint = f"{parts.scheme}://{parts.netloc}"
        self._timeout = timeout
        self.status("")  # fails now, with the reason, when nothing answers there

    grpc_started = False

    @property
    def grpc_endpoint(self) -> str:
        raise TraceCaptureError(
            "the gRPC endpoint of a receiver in another process is not known here: use OTLP/HTTP, or "
            "start that receiver with --grpc-port and use its port"
        )

    def _get(self, path: str) -> dict[str, Any]:
        url = self.http_endpoint + READ_PREFIX + path
        try:
            with _DIRECT.open(url, timeout=self._timeout) as response:
                doc: dict[str, Any] = json.loads(response.read())
                return doc
        except (OSError, ValueError) as exc:
            reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
            raise TraceCaptureError(
                f"cannot read the OTLP receiver at {self.http_endpoint}: {reason}"
            ) from None

    @staticmethod
    def _state(doc: dict[str, Any]) -> State:
        quiet = doc.get("quiet_for")
        last = None if quiet is None else time.monotonic() - float(quiet)
        return State(int(doc["count"]), int(doc["logs"]), bool(doc["rooted"]), last, int(doc["requests"]))

    def state(self, trace_id: str) -> State:
        return self._state(self._get(f"traces/{trace_id}/state")["state"])

    def wait_change(self, trace_id: str, seen: State, timeout: float) -> State:
        time.sleep(min(timeout, _POLL))
        return self.state(trace_id)

    def view(self, trace_id: str) -> TraceView:
        doc = self._get(f"traces/{trace_id}")
        where = f"{self.http_endpoint} trace {trace_id}"
        spans = read_json_request(json.dumps(doc["spans"]).encode(), where).spans
        logs = read_json_request(json.dumps(doc["logs"]).encode(), where).logs
        notes = tuple(str(n) for n in doc.get("notes") or ())
        return TraceView(tuple(spans), tuple(logs), self._state(doc["state"]), notes)

    def status(self, trace_id: str) -> dict[str, Any]:
        return self._get(f"status?except={trace_id}")

    def trace_ids(self) -> list[str]:
        return [str(t) for t in self.status("").get("trace_ids", [])]

    def close(self) -> None:
        return
