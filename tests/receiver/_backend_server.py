"""A small real HTTP server that answers as an observability back end's API does, from answers the test
gives it (the documented response formats), and keeps every request it got (path, query, headers)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    #: the answer waits until this is set (a back end that does not answer in time)
    hold: threading.Event | None = None


@dataclass
class Seen:
    path: str
    query: dict[str, list[str]]
    #: by lower-case name
    headers: dict[str, str]


class FakeBackend:
    """Answers by path: each path's replies in turn, the last one again after the others."""

    def __init__(self) -> None:
        self.routes: dict[str, list[Reply]] = {}
        self.seen: list[Seen] = []
        backend = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                return

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                headers = {k.lower(): v for k, v in self.headers.items()}
                backend.seen.append(Seen(parts.path, parse_qs(parts.query), headers))
                replies = backend.routes.get(parts.path) or [Reply(404, b'{"message": "no such path"}')]
                reply = replies.pop(0) if len(replies) > 1 else replies[0]
                if reply.hold is not None:
                    reply.hold.wait(30)
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(reply.body)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    self.wfile.write(reply.body)
                except OSError:  # the client read what it wanted and left (max_bytes)
                    self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]

    def url(self, kind: str, options: str = "") -> str:
        return f"{kind}+http://127.0.0.1:{self.port}{options}"

    def answer(self, path: str, *replies: Reply) -> None:
        self.routes[path] = list(replies)
        self.seen.clear()


@contextmanager
def fake_backend() -> Iterator[FakeBackend]:
    backend = FakeBackend()
    thread = threading.Thread(
        target=backend.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield backend
    finally:
        backend.server.shutdown()
        backend.server.server_close()
        thread.join(5)
