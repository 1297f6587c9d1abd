"""The OTLP/gRPC receiver (``grpcio``, an optional extra): the trace and logs services' ``Export``, each
body taken as bytes and decoded by the same path as OTLP/HTTP protobuf. A refused request is answered
with the gRPC code the specification asks for (``INVALID_ARGUMENT``, ``RESOURCE_EXHAUSTED``) and noted."""

from __future__ import annotations

import importlib
from concurrent import futures
from typing import Any

from .._errors import TraceCaptureError
from .ingest import Arrival, ingest
from .store import Store

__all__ = ["GrpcReceiver"]

_SERVICES = {
    "opentelemetry.proto.collector.trace.v1.TraceService": "traces",
    "opentelemetry.proto.collector.logs.v1.LogsService": "logs",
}


class GrpcReceiver:
    """A gRPC server on its own threads."""

    def __init__(self, store: Store, host: str, port: int) -> None:
        try:
            grpc: Any = importlib.import_module("grpc")  # untyped: Any, here only
        except ImportError:
            raise TraceCaptureError(
                "grpcio is not installed: the OTLP/gRPC receiver needs it (pip install 'traceassert[grpc]'); "
                "or export with OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"
            ) from None
        self._grpc = grpc
        self.store = store
        limit = store.limits.max_decoded_bytes
        options = [("grpc.max_receive_message_length", limit), ("grpc.so_reuseport", 0)]
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=8), options=options)
        handlers = [
            grpc.method_handlers_generic_handler(
                service,
                {"Export": grpc.unary_unary_rpc_method_handler(self._handler(signal, service))},
            )
            for service, signal in _SERVICES.items()
        ]
        self._server.add_generic_rpc_handlers(handlers)
        address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        self.port = self._server.add_insecure_port(address)
        if not self.port:
            raise TraceCaptureError(f"the OTLP/gRPC receiver cannot listen on {address}")
        self._server.start()

    def _handler(self, signal: str, service: str) -> Any:
        grpc = self._grpc
        path = f"/{service}/Export"

        def export(body: bytes, context: Any) -> bytes:
            meta = dict(context.invocation_metadata() or ())
            arrival = Arrival(signal, True, "grpc", path, None, meta.get("user-agent"))  # type: ignore[arg-type]
            answer = ingest(self.store, body, arrival)
            if answer.status == 200:
                return answer.body
            code = (
                grpc.StatusCode.RESOURCE_EXHAUSTED
                if answer.status == 413
                else grpc.StatusCode.INVALID_ARGUMENT
            )
            if answer.status >= 500:
                code = grpc.StatusCode.INTERNAL
            context.abort(code, answer.reason or "refused")
            return b""  # pragma: no cover - abort raises

        return export

    def close(self) -> None:
        self._server.stop(grace=0.5).wait(2)
