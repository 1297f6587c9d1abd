"""HTTP/1.1 as an OTLP receiver needs it, read and written on one connection: the request line, the
headers, the body (``Content-Length`` or chunked, within a limit; ``Expect: 100-continue``), keep-alive,
and each answer written in one piece.

The standard library's ``BaseHTTPRequestHandler`` parses headers with the ``email`` package, which cost
about half of the receiver's time on each request; this reads them as plain lines. Bad requests get an
answer and the connection is closed; nothing here raises past ``serve``.
"""

from __future__ import annotations

import socketserver
from dataclasses import dataclass
from http import HTTPStatus

__all__ = ["MAX_HEADERS", "MAX_LINE", "Request", "WireHandler", "answer_bytes"]

#: the longest request line or header line read, and the most header lines
MAX_LINE = 65536
MAX_HEADERS = 100
_BLANK = (b"\r\n", b"\n")


@dataclass(slots=True)
class Request:
    method: str
    target: str
    version: str
    #: header names in lower case (a repeated header: the last one)
    headers: dict[str, str]
    #: whether the connection stays open after the answer
    keep_alive: bool

    def header(self, name: str) -> str | None:
        return self.headers.get(name)


def answer_bytes(status: int, body: bytes, content_type: str, close: bool) -> bytes:
    """A whole answer: status line, headers and body."""
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    head = (
        f"HTTP/1.1 {status} {phrase}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
        + ("Connection: close\r\n" if close else "")
        + "\r\n"
    )
    return head.encode("latin-1") + body


class WireHandler(socketserver.StreamRequestHandler):
    """One connection: requests read one after another and given to ``respond``; subclasses implement
    ``respond(request)`` (reading the body with ``read_body``) and ``refuse_early(status, reason)`` for a
    request that could not be read."""

    #: a client that stops sending mid-request is dropped, never waited on for ever
    timeout = 30
    #: TCP_NODELAY (set by StreamRequestHandler): an answer is never held back for the client's delayed ACK
    disable_nagle_algorithm = True

    # -- to be given by the subclass -------------------------------------------------------------------

    def respond(self, request: Request) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def refuse_early(self, status: int, reason: str, first_line: bytes) -> None:  # pragma: no cover
        raise NotImplementedError

    # -- the connection --------------------------------------------------------------------------------

    def handle(self) -> None:
        try:
            while self._one():
                pass
        except (OSError, ValueError):  # a reset connection, a timeout: nothing to answer
            return

    def send(self, data: bytes) -> None:
        self.wfile.write(data)

    def _one(self) -> bool:
        """Read and answer one request; whether to read another on this connection."""
        line = self.rfile.readline(MAX_LINE + 1)
        while line in _BLANK:  # blank lines before a request line are allowed
            line = self.rfile.readline(MAX_LINE + 1)
        if not line:
            return False
        if len(line) > MAX_LINE:
            self.refuse_early(414, f"the request line is longer than {MAX_LINE} bytes", line[:40])
            return False
        parts = line.decode("latin-1").split()
        if line.startswith(b"PRI * HTTP/2"):
            self.refuse_early(505, "http2", line)
            return False
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            self.refuse_early(400, f"not an HTTP/1.x request line: {line[:60]!r}", line[:40])
            return False
        method, target, version = parts
        headers: dict[str, str] = {}
        for _ in range(MAX_HEADERS + 1):
            raw = self.rfile.readline(MAX_LINE + 1)
            if len(raw) > MAX_LINE:
                self.refuse_early(431, f"a header line is longer than {MAX_LINE} bytes", line)
                return False
            if raw in _BLANK or not raw:
                break
            name, colon, value = raw.decode("latin-1").partition(":")
            if not colon:
                self.refuse_early(400, f"a header line without a colon: {raw[:60]!r}", line)
                return False
            headers[name.strip().lower()] = value.strip()
        else:
            self.refuse_early(431, f"more than {MAX_HEADERS} header lines", line)
            return False
        connection = headers.get("connection", "").lower()
        keep = connection != "close" if version == "HTTP/1.1" else connection == "keep-alive"
        if headers.get("expect", "").lower() == "100-continue":
            self.send(b"HTTP/1.1 100 Continue\r\n\r\n")
        request = Request(method, target, version, headers, keep)
        self.respond(request)
        return request.keep_alive

    def read_body(self, request: Request, limit: int) -> tuple[bytes, tuple[int, str] | None]:
        """The body, within ``limit`` bytes: (body, None), or (b"", (status, reason)) with the
        connection marked to close after the answer."""
        if "chunked" in request.headers.get("transfer-encoding", "").lower():
            body, problem = self._read_chunked(limit)
        else:
            text = request.headers.get("content-length")
            if text is None or not text.strip().isdigit():
                if request.method in ("GET", "HEAD", "DELETE", "OPTIONS"):
                    return b"", None
                body, problem = b"", (411, "a request needs a Content-Length or chunked encoding")
            else:
                length = int(text)
                if length > limit:
                    self._drain(length)
                    reason = f"the request body ({length} bytes) is larger than the limit of {limit} bytes"
                    body, problem = b"", (413, reason)
                else:
                    body = self.rfile.read(length)
                    problem = None
                    if len(body) < length:
                        body, problem = b"", (400, f"the body ends after {len(body)} of {length} bytes")
        if problem is not None:
            request.keep_alive = False
        return body, problem

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
