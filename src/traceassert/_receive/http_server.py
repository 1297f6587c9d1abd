"""The OTLP/HTTP receiver (a thread a connection, ``http_wire`` reading the requests): ``POST /v1/traces``
and ``/v1/logs`` with protobuf or JSON bodies, gzip or not; and ``GET /traceassert/v1/...``, from which a
test in another process (a pytest-xdist worker) reads its trace (`remote`). Every request is noted in the
store, the ones answered with an error too (404, 405, 411, 413, 415, and an HTTP/2 client: gRPC sent
here)."""

from __future__ import annotations

import json
import socketserver
import threading
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .._loaders.dump import to_otlp_json
from .._loaders.dump_logs import to_otlp_logs
from .http_wire import Request, WireHandler, answer_bytes
from .ingest import Arrival, ingest, status_body
from .store import RequestNote, Store
from .summary import status_doc

__all__ = ["READ_PREFIX", "HttpReceiver"]

READ_PREFIX = "/traceassert/v1/"
_SIGNALS = {"/v1/traces": "traces", "/v1/logs": "logs"}
_PROTO_TYPES = ("application/x-protobuf", "application/protobuf")


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 64
    store: Store


class _Handler(WireHandler):
    server: _Server

    def refuse_early(self, status: int, reason: str, first_line: bytes) -> None:
        """A request that could not be read: noted, answered, and the connection closed."""
        if status == 505:  # the HTTP/2 preface: a gRPC exporter
            reason = (
                "an HTTP/2 client (an OTLP/gRPC exporter) connected to the OTLP/HTTP port: set "
                "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, or export to the receiver's gRPC endpoint"
            )
            self.server.store.note(RequestNote("http", "HTTP/2", "*", 505, reason=reason))
            return  # an HTTP/2 client reads no HTTP/1.1 answer
        self.server.store.note(RequestNote("http", "?", "?", status, reason=reason))
        self.send(answer_bytes(status, json.dumps({"message": reason}).encode(), "application/json", True))

    def respond(self, request: Request) -> None:
        if request.method == "POST":
            self._post(request)
        elif request.method == "GET":
            self._get(request)
        else:
            path = urlsplit(request.target).path
            self._refuse(
                request, 405, False, path, request.method, f"{request.method} {path}: OTLP is sent with POST"
            )

    def _answer(self, request: Request, status: int, body: bytes, content_type: str) -> None:
        self.send(answer_bytes(status, body, content_type, not request.keep_alive))

    def _refuse(
        self, request: Request, status: int, proto: bool, path: str, protocol: str, reason: str
    ) -> None:
        store = self.server.store
        agent = request.header("user-agent")
        store.note(RequestNote("http", protocol, path, status, reason=reason, user_agent=agent))
        kind = "application/x-protobuf" if proto else "application/json"
        request.keep_alive = False
        self._answer(request, status, status_body(proto, status, reason), kind)

    def _post(self, request: Request) -> None:
        path = urlsplit(request.target).path.rstrip("/") or "/"
        kind = (request.header("content-type") or "").split(";", 1)[0].strip().lower()
        proto = kind in _PROTO_TYPES
        protocol = "http/protobuf" if proto else "http/json" if kind == "application/json" else kind or "?"
        body, problem = self.read_body(request, self.server.store.limits.max_request_bytes)
        if problem is not None:
            self._refuse(request, problem[0], proto, path, protocol, problem[1])
            return
        signal = _SIGNALS.get(path)
        if signal is None:
            reason = f"no OTLP endpoint at {path} (traces: /v1/traces, logs: /v1/logs)"
            self._refuse(request, 404, proto, path, protocol, reason)
            return
        if not proto and kind != "application/json":
            reason = (
                f"Content-Type {kind or 'missing'}: OTLP/HTTP is application/x-protobuf or application/json"
            )
            self._refuse(request, 415, proto, path, protocol, reason)
            return
        arrival = Arrival(
            signal,  # type: ignore[arg-type]
            proto,
            "http",
            path,
            request.header("content-encoding"),
            request.header("user-agent"),
        )
        answer = ingest(self.server.store, body, arrival)
        self._answer(
            request, answer.status, answer.body, "application/x-protobuf" if proto else "application/json"
        )

    def _get(self, request: Request) -> None:
        parts = urlsplit(request.target)
        self.read_body(request, 0)
        if not parts.path.startswith(READ_PREFIX):
            self._refuse(request, 404, False, parts.path, "GET", f"GET {parts.path}: OTLP is sent with POST")
            return
        what = parts.path[len(READ_PREFIX) :].split("/")
        query = parse_qs(parts.query)
        store = self.server.store
        if what == ["status"]:
            doc: dict[str, Any] = status_doc(store, query.get("except", [""])[0])
        elif len(what) == 2 and what[0] == "traces" and _is_trace_id(what[1]):
            view = store.view(what[1])
            doc = {"state": _state(view.state), "spans": to_otlp_json(view.spans)}
            doc["logs"] = to_otlp_logs(view.logs)
            doc["notes"] = list(view.notes)
        elif len(what) == 3 and what[0] == "traces" and what[2] == "state" and _is_trace_id(what[1]):
            doc = {"state": _state(store.state(what[1]))}
        else:
            self._answer(request, 404, b'{"message": "unknown read path"}', "application/json")
            return
        self._answer(request, 200, json.dumps(doc).encode(), "application/json")


def _is_trace_id(text: str) -> bool:
    return len(text) == 32 and all(c in "0123456789abcdef" for c in text)


def _state(state: Any) -> dict[str, Any]:
    import time

    quiet = None if state.last_at is None else time.monotonic() - state.last_at
    return {
        "count": state.count,
        "logs": state.logs,
        "rooted": state.rooted,
        "quiet_for": quiet,
        "requests": state.requests,
    }


class HttpReceiver:
    """The HTTP server on its own thread."""

    def __init__(self, store: Store, host: str, port: int) -> None:
        self._server = _Server((host, port), _Handler)
        self._server.store = store
        self.host, self.port = self._server.server_address[:2]
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.1},
            name="traceassert-otlp-http",
            daemon=True,
        )
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
