"""``traceassert receive DIR``: the receiver as a command, for recording golden traces from a running
service. Each trace is written to ``DIR/<trace id>.jsonl``, Collector-style JSON Lines (TracesData lines,
then a LogsData line for its log records), through the safe writer and redacted unless ``--no-redact``;
a file is written again, whole, when more of its trace came. A live count on the terminal; Ctrl-C (or
SIGTERM) stops taking requests, writes everything, and exits 0. Other processes read the traces through
the receiver's read API (``--traceassert-receiver URL`` of the pytest plugin)."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import time
from pathlib import Path
from typing import Any

from .._common.files import check_output_dir, write_atomic
from .._common.redact import redact_spans
from .._common.text import safe_line
from .._loaders.dump import json_bytes, to_otlp_json
from .._loaders.dump_logs import to_otlp_logs
from .limits import LOOPBACK, Limits
from .server import LocalReceiver

__all__ = ["add_receive_command"]

_EPILOG = """examples:
  traceassert receive golden/                       OTLP/HTTP on 127.0.0.1:4318, gRPC on 4317
  traceassert receive golden/ --port 0 --no-grpc    a free port, printed on start
  traceassert receive golden/ --host 0.0.0.0        reachable from containers (see the docs first)
exit status: 0 stopped by Ctrl-C with everything written, 2 a folder that cannot be written
"""
#: spans a line of a written file holds at most (the Collector writes one line per request)
_LINE_SPANS = 500


def add_receive_command(sub: Any) -> None:
    receive = sub.add_parser(
        "receive",
        help="receive OTLP traces and write one file per trace",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run an OTLP receiver (HTTP: protobuf and JSON; gRPC with the grpc extra) and write each "
        "trace to DIR/<trace id>.jsonl as Collector-style JSON Lines, secrets redacted.",
    )
    receive.add_argument("folder", metavar="DIR")
    receive.add_argument("--host", default=LOOPBACK, help=f"the address to listen on (default {LOOPBACK})")
    receive.add_argument("--port", type=int, default=4318, help="OTLP/HTTP port (default 4318; 0: free)")
    receive.add_argument("--grpc-port", type=int, default=4317, help="OTLP/gRPC port (default 4317)")
    receive.add_argument("--no-grpc", action="store_true", help="OTLP/HTTP only")
    receive.add_argument("--no-redact", action="store_true", help="write every value as it is, secrets too")
    receive.add_argument(
        "--redact", action="append", default=None, metavar="PATTERN", help="also redact keys matching PATTERN"
    )
    receive.add_argument("--max-request-bytes", type=int, default=Limits().max_request_bytes)
    receive.set_defaults(func=run_receive)


class _Writer:
    """Writes the traces that changed since the last call."""

    def __init__(self, server: LocalReceiver, folder: Path, redact: bool | list[str]) -> None:
        self.server = server
        self.folder = folder
        self.redact = redact
        self.written: dict[str, tuple[int, int]] = {}

    def flush(self) -> int:
        store = self.server.store
        done = 0
        for trace_id in store.trace_ids():
            state = store.state(trace_id)
            if self.written.get(trace_id) == (state.count, state.logs):
                continue
            view = store.view(trace_id)
            spans = list(view.spans)
            if self.redact is not False:
                spans = redact_spans(spans, () if self.redact is True else self.redact)
            cuts = range(0, len(spans), _LINE_SPANS)
            lines = [json_bytes(to_otlp_json(spans[i : i + _LINE_SPANS])) for i in cuts]
            if view.logs:
                logs = to_otlp_logs(view.logs)
                if self.redact is not False:
                    from .._common.redact import redact_value

                    logs = redact_value(logs, () if self.redact is True else self.redact)
                lines.append(json_bytes(logs))
            write_atomic(self.folder / f"{trace_id}.jsonl", b"".join(lines), what="a trace")
            self.written[trace_id] = (view.state.count, view.state.logs)
            done += 1
        return done


def _count_line(server: LocalReceiver) -> str:
    counts = server.store.counts()
    _notes, kinds = server.store.notes()
    refused = sum(n for (_p, _path, status), n in kinds.items() if status != 200)
    return (
        f"received {counts['spans']} spans in {counts['traces']} trace(s) ({counts['requests']} requests"
        f", {refused} refused)"
    )


def run_receive(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    check_output_dir(folder, what="traces")
    redact: bool | list[str] = False if args.no_redact else (list(args.redact) if args.redact else True)
    limits = Limits(max_request_bytes=args.max_request_bytes)
    server = LocalReceiver(args.host, args.port, None if args.no_grpc else args.grpc_port, limits)
    writer = _Writer(server, folder, redact)
    tty = bool(getattr(sys.stderr, "isatty", lambda: False)())
    grpc = "" if args.no_grpc else f", OTLP/gRPC {_grpc(server)}"
    start = f"traceassert receive: OTLP/HTTP {server.http_endpoint}{grpc}; writing to {folder}"
    print(safe_line(start), file=sys.stderr)
    print("press Ctrl-C to stop (everything received is written)", file=sys.stderr, flush=True)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    shown = ""
    try:
        while True:
            time.sleep(0.5)
            writer.flush()
            line = _count_line(server)
            if line != shown:
                print(("\r" + line) if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True)
                shown = line
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.close()  # no request is taken from here on; the ones taken are all in the store
    written = writer.flush()
    total = len(writer.written)
    print(("\n" if tty else "") + _count_line(server), file=sys.stderr)
    print(safe_line(f"wrote {total} trace file(s) to {folder} ({written} at the end)"), file=sys.stderr)
    return 0


def _grpc(server: LocalReceiver) -> str:
    with contextlib.suppress(Exception):
        return server.grpc_endpoint
    return "not started (pip install 'traceassert[grpc]')"


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt
