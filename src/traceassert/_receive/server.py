"""A receiver in this process: the store, the OTLP/HTTP server, and the OTLP/gRPC server (started when
first asked for: it needs the ``grpcio`` extra)."""

from __future__ import annotations

import threading
from typing import Any

from .http_server import HttpReceiver
from .limits import LOOPBACK, Limits
from .store import State, Store, TraceView
from .summary import status_doc

__all__ = ["LocalReceiver"]


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


class LocalReceiver:
    """The servers of one receiver; also the `Source` its handles read."""

    def __init__(
        self, host: str = LOOPBACK, port: int = 0, grpc_port: int | None = None, limits: Limits | None = None
    ) -> None:
        self.host = host
        self.store = Store(limits or Limits())
        self._http = HttpReceiver(self.store, host, port)
        self._grpc: Any = None
        self._grpc_port = grpc_port
        self._lock = threading.Lock()
        self.closed = False

    @property
    def http_endpoint(self) -> str:
        return _url(self.host, self._http.port)

    @property
    def grpc_endpoint(self) -> str:
        """The gRPC endpoint, the server started on first use (``TraceCaptureError`` without grpcio)."""
        with self._lock:
            if self._grpc is None:
                from .grpc_server import GrpcReceiver

                self._grpc = GrpcReceiver(self.store, self.host, self._grpc_port or 0)
            return _url(self.host, self._grpc.port)

    @property
    def grpc_started(self) -> bool:
        return self._grpc is not None

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._http.close()
        if self._grpc is not None:
            self._grpc.close()

    # -- Source ----------------------------------------------------------------------------------------

    def state(self, trace_id: str) -> State:
        return self.store.state(trace_id)

    def wait_change(self, trace_id: str, seen: State, timeout: float) -> State:
        return self.store.wait_change(trace_id, seen, timeout)

    def view(self, trace_id: str) -> TraceView:
        return self.store.view(trace_id)

    def status(self, trace_id: str) -> dict[str, Any]:
        return status_doc(self.store, trace_id)

    def trace_ids(self) -> list[str]:
        return self.store.trace_ids()
