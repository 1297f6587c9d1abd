"""OTLP receiver: spans and log records from agents in another process or language.

Takes OTLP requests (``limits``) over HTTP (``http_server``, on ``http_wire``: protobuf or JSON, gzip) and
gRPC (``grpc_server``, the ``grpcio`` extra), through one path (``ingest``): ``decode`` (the loaders' OTLP
converters, JSON and protobuf; ``proto_index`` indexes a protobuf request by trace id) into the ``store``
(by trace id; protobuf spans built when read). A
``Receiver`` (``handle``) is one trace id on a receiver: ``env()`` / ``headers()`` hand its context to the
app, ``wait`` waits for the whole trace, ``diagnosis`` words what did not come (``summary``: what came);
``remote`` reads a receiver in another process; ``command`` is ``traceassert receive``.
"""

from __future__ import annotations

from .handle import PROTOCOLS, Receiver, ReceiveTimeout, receiver
from .limits import LOOPBACK, Limits, anchor_of

__all__ = ["LOOPBACK", "PROTOCOLS", "Limits", "ReceiveTimeout", "Receiver", "anchor_of", "receiver"]
