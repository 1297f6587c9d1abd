"""Spans per second the OTLP receiver takes, over HTTP-protobuf and gRPC, against what one Python exporter
(the SDK's OTLPSpanExporter) sends; and that every span of the load is received exactly once.

    python benchmarks/bench_receiver.py                    10 senders, 100,000 spans in all
    python benchmarks/bench_receiver.py --spans 5000       a quick run

The senders are processes sending the SDK encoder's request bodies (made before the clock starts), so the
receiver's process does nothing but receive. The baseline, in the same run: one SDK exporter in a process
of its own (as an app's is) sending the same spans to the receiver (it encodes them, as an app's exporter
does). Target: the receiver >= 5x one exporter. The spans and bodies the benchmark made for itself are
moved out of the garbage collector's sight (``gc.freeze``) before anything is timed: the receiver's
process should not pay for scanning them. The load average is printed: on a shared machine the ratios
move with it.
"""

from __future__ import annotations

import argparse
import gc
import http.client
import multiprocessing
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

from traceassert._receive.server import LocalReceiver

TARGET = 5.0
_GRPC_PATH = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


class _Keep(SpanExporter):
    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def export(self, spans: object) -> SpanExportResult:
        self.spans.extend(spans)  # type: ignore[call-overload]
        return SpanExportResult.SUCCESS


def make_spans(n: int) -> list[ReadableSpan]:
    """Agent-like spans: a request, a tool and a model call, with a few attributes each."""
    keep = _Keep()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(keep))
    tracer = provider.get_tracer("bench")
    for i in range((n + 2) // 3):
        with tracer.start_as_current_span(
            "invoke_agent planner", attributes={"gen_ai.agent.name": "planner"}
        ):
            with tracer.start_as_current_span(
                "execute_tool search",
                attributes={"gen_ai.tool.name": "search", "gen_ai.tool.call.arguments": f'{{"q": {i}}}'},
            ):
                pass
            with tracer.start_as_current_span(
                "chat m", attributes={"gen_ai.usage.input_tokens": i, "x": 0.5}
            ):
                pass
    return keep.spans[:n]


#: each sender's request bodies, made before the senders are forked (nothing big crosses a pipe timed)
BODIES: list[list[bytes]] = []


def _post_all(args: tuple[str, int, int]) -> int:
    host, port, index = args
    bodies = BODIES[index]
    conn = http.client.HTTPConnection(host, port, timeout=120)
    for body in bodies:
        conn.request("POST", "/v1/traces", body=body, headers={"Content-Type": "application/x-protobuf"})
        response = conn.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"answered {response.status}")
    conn.close()
    return len(bodies)


def _grpc_all(args: tuple[str, int]) -> int:
    import grpc

    target, index = args
    bodies = BODIES[index]
    with grpc.insecure_channel(target) as channel:
        export = channel.unary_unary(_GRPC_PATH)
        for body in bodies:
            export(body, timeout=120)
    return len(bodies)


def _ready(_index: int) -> None:
    return None


#: the spans the baseline exporter sends (set before its process is forked)
BASELINE: list[ReadableSpan] = []


def _export_all(args: tuple[str, int]) -> float:
    """One SDK exporter sends the baseline spans; its spans per second."""
    endpoint, batch = args
    exporter = OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces")
    start = time.perf_counter()
    for i in range(0, len(BASELINE), batch):
        if exporter.export(BASELINE[i : i + batch]) is not SpanExportResult.SUCCESS:
            raise RuntimeError("the baseline export failed")
    rate = len(BASELINE) / (time.perf_counter() - start)
    exporter.shutdown()
    return rate


def _bodies(spans: list[ReadableSpan], batch: int) -> list[bytes]:
    return [
        bytes(encode_spans(spans[i : i + batch]).SerializeToString()) for i in range(0, len(spans), batch)
    ]


def _received(server: LocalReceiver, expected: int) -> None:
    counts = server.store.counts()
    seen: set[str] = set()
    for trace_id in server.store.trace_ids():
        for span in server.store.view(trace_id).spans:
            if span.span_id in seen:
                raise SystemExit(f"the check failed: span {span.span_id} received twice")
            seen.add(span.span_id)
    if counts["spans"] != expected or len(seen) != expected:
        raise SystemExit(
            f"the check failed: {counts['spans']} spans held, {len(seen)} distinct, {expected} sent"
        )


def _baseline(ctx: multiprocessing.context.BaseContext, batch: int) -> float:
    server = LocalReceiver()
    try:
        with ctx.Pool(1) as pool:
            return float(pool.apply(_export_all, ((server.http_endpoint, batch),)))
    finally:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--senders", type=int, default=10)
    parser.add_argument("--batch", type=int, default=512)
    args = parser.parse_args()

    spans = make_spans(args.spans)
    share = [spans[i :: args.senders] for i in range(args.senders)]
    BODIES[:] = [_bodies(part, args.batch) for part in share]
    BASELINE[:] = spans[: max(args.batch, min(len(spans), 20_000))]
    gc.collect()
    gc.freeze()  # what the benchmark made for itself is no work of the receiver's
    print(f"load average (1, 5, 15 min) at the start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")

    ctx = multiprocessing.get_context("fork")
    one = _baseline(ctx, args.batch)
    print(f"baseline: one Python exporter (OTLPSpanExporter, HTTP-protobuf) sends {one:,.0f} spans/s")

    rates: dict[str, float] = {}
    for name in ("http/protobuf", "grpc"):
        server = LocalReceiver()
        try:
            if name == "grpc":
                target = server.grpc_endpoint.removeprefix("http://")
                jobs: list[object] = [(target, i) for i in range(args.senders)]
                work = _grpc_all
            else:
                host, port = server.http_endpoint.removeprefix("http://").rsplit(":", 1)
                jobs = [(host, int(port), i) for i in range(args.senders)]
                work = _post_all  # type: ignore[assignment]
            with ctx.Pool(args.senders) as pool:
                pool.map(_ready, range(args.senders))  # the senders are up before the clock starts
                start = time.perf_counter()
                pool.map(work, jobs, chunksize=1)  # type: ignore[arg-type]
                elapsed = time.perf_counter() - start
            _received(server, len(spans))
        finally:
            server.close()
        rates[name] = len(spans) / elapsed
        print(
            f"receiver {name}: {rates[name]:,.0f} spans/s from {args.senders} senders ({len(spans):,} spans, "
            "each received exactly once)"
        )
    again = _baseline(ctx, args.batch)
    print(f"baseline again: {again:,.0f} spans/s (the faster of the two is the baseline)")
    one = max(one, again)
    print(f"load average (1, 5, 15 min) at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("==== summary:")
    for name, rate in rates.items():
        print(
            f"ratio receiver {name} / one exporter: {rate / one:.1f}x (spans/s, each received exactly once)"
        )
        verdict = "met" if rate >= TARGET * one else "NOT met"
        print(f"target receiver {name} >= {TARGET:g}x one exporter: {verdict}")


if __name__ == "__main__":
    main()
