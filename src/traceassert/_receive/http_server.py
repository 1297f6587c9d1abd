"""The OTLP/HTTP receiver (the standard library's threaded ``http.server``): ``POST /v1/traces`` and
``/v1/logs`` with protobuf or JSON bodies, gzip or not; and ``GET /traceassert/v1/...``, from which a
test in another process (a pytest-xdist worker) reads its trace (`remote`). Every request is noted in the
store, the ones answered with an error too (404, 411, 413, 415, and an HTTP/2 client: gRPC sent here)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .._loaders.dump import to_otlp_json
from .._loaders.dump_logs import to_otlp_logs
from .ingest import Arrival, ingest, status_body
from .store import RequestNote, Store
from .summary import status_doc

__all__ = ["READ_PREFIX", "HttpReceiver"]

READ_PREFIX = "/traceassert/v1/"
_SIGNALS = {"/v1/traces": "traces", "/v1/logs": "logs"}
_PROTO_TYPES = ("application/x-protobuf", "application/protobuf")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    store: Store


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # the answer's headers and body go in two writes: with Nagle's algorithm and the client's delayed
    # ACK, each request would then wait ~40 ms
    disable_nagle_algorithm = True
    timeout = 30  # a client that stops sending mid-request is dropped, never waited on for ever
    server: _Server
    raw_requestline: bytes

    def log_message(self, format: str, *args: Any) -> None:  # quiet: every request is in the store
        return

    def parse_request(self) -> bool:
        if self.raw_requestline.startswith(b"PRI * HTTP/2"):
            self.server.store.note(
                RequestNote(
                    "http",
                    "HTTP/2",
                    "*",
                    505,
                    reason="an HTTP/2 client (an OTLP/gRPC exporter) connected to the OTLP/HTTP port: set "
                    "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, or export to the receiver's gRPC endpoint",
                )
            )
        return super().parse_request()

    def _answer(self, status: int, body: bytes, content_type: str, close: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def _refuse(self, status: int, proto: bool, path: str, protocol: str, reason: str) -> None:
        store = self.server.store
        store.note(RequestNote("http", protocol, path, status, reason=reason, user_agent=self._agent()))
        kind = "application/x-protobuf" if proto else "application/json"
        self._answer(status, status_body(proto, status, reason), kind, close=True)

    def _read_chunked(self, limit: int) -> tuple[bytes, tuple[int, str] | None]:
        """A chunked body (what Node's exporters send), read within ``limit`` bytes."""
        parts: list[bytes] = []
        size = 0
        while True:
            line = self.rfile.readline(1024)
            try:
                chunk = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                return b"", (400, f"bad chunk size line {line[:40]!r} in a chunked body")
            if chunk == 0:
                while self.rfile.readline(1024).strip():  # trailers, up to the empty line
                    pass
                return b"".join(parts), None
            size += chunk
            if size > limit:
                return b"", (413, f"the chunked request body is larger than the limit of {limit} bytes")
            data = self.rfile.read(chunk)
            self.rfile.readline(8)  # the CRLF after the chunk
            if len(data) < chunk:
                return b"", (400, "the chunked body ends early")
            parts.append(data)

    def _drain(self, length: int) -> None:
        """Read a refused body and let it go (the sender then reads the answer, not a reset connection)."""
        while length > 0:
            chunk = self.rfile.read(min(length, 1 << 20))
            if not chunk:
                return
            length -= len(chunk)

    def _agent(self) -> str | None:
        return self.headers.get("User-Agent")

    def do_POST(self) -> None:
        path = urlsplit(self.path).path.rstrip("/") or "/"
        kind = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        proto = kind in _PROTO_TYPES
        protocol = "http/protobuf" if proto else "http/json" if kind == "application/json" else kind or "?"
        limits = self.server.store.limits
        chunked = "chunked" in (self.headers.get("Transfer-Encoding") or "").lower()
        length_text = self.headers.get("Content-Length")
        if chunked:
            body, problem = self._read_chunked(limits.max_request_bytes)
            if problem is not None:
                self._refuse(problem[0], proto, path, protocol, problem[1])
                return
        else:
            if length_text is None or not length_text.strip().isdigit():
                self._refuse(
                    411, proto, path, protocol, "a request needs a Content-Length or chunked encoding"
                )
                return
            length = int(length_text)
            if length > limits.max_request_bytes:
                self._drain(length)
                limit = limits.max_request_bytes
                reason = f"the request body ({length} bytes) is larger than the limit of {limit} bytes"
                self._refuse(413, proto, path, protocol, reason)
                return
            body = self.rfile.read(length)
            if len(body) < length:
                self._refuse(400, proto, path, protocol, f"the body ends after {len(body)} of {length} bytes")
                return
        signal = _SIGNALS.get(path)
        if signal is None:
            self._refuse(
                404, proto, path, protocol, f"no OTLP endpoint at {path} (traces: /v1/traces, logs: /v1/logs)"
            )
            return
        if not proto and kind != "application/json":
            reason = (
                f"Content-Type {kind or 'missing'}: OTLP/HTTP is application/x-protobuf or application/json"
            )
            self._refuse(415, proto, path, protocol, reason)
            return
        arrival = Arrival(
            signal,  # type: ignore[arg-type]
            proto,
            "http",
            path,
            self.headers.get("Content-Encoding"),
            self._agent(),
        )
        answer = ingest(self.server.store, body, arrival)
        self._answer(answer.status, answer.body, "application/x-protobuf" if proto else "application/json")

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if not parts.path.startswith(READ_PREFIX):
            self._refuse(404, False, parts.path, "GET", f"GET {parts.path}: OTLP is sent with POST")
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
        elif len(what) == 3 and what[0] == "traces" and what[2] == "state" and _is_trace_id(what[1]):
            doc = {"state": _state(store.state(what[1]))}
        else:
            self._answer(404, b'{"message": "unknown read path"}', "application/json")
            return
        self._answer(200, json.dumps(doc).encode(), "application/json")


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
