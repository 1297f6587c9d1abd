"""Benchmark: loading a 100,000-span OTLP JSON file.

Run: ``python benchmarks/bench_load.py [--spans N] [--keep DIR]``

The script writes its own data: an OTLP JSON file (TracesData, camelCase, hex ids, string int64) whose
spans carry realistic agent attributes (~2.5 KB per span: tool arguments and results, input and output
messages, token counts). Then it measures, each in a fresh subprocess so that peak memory is that
step's alone:

- ``json.loads`` of the bytes (stdlib), with the garbage collector on and off;
- a typed ``msgspec`` decode into Structs for the OTLP shape, with the collector on and off;
- traceassert's ``load_spans`` and ``load_trace`` with its optional accelerators, and with the stdlib
  only (``TRACEASSERT_JSON=stdlib``).

Each step runs ``--repeat`` times (default 3); the fastest time is printed, with the largest peak. It
prints seconds, spans per second, the ratio to the typed msgspec decode, and the peak resident
memory of the step (max RSS minus the RSS before the step) relative to the file size. Targets: our load
<= 1.3x the typed msgspec decode; peak memory <= 3x the file size.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"

WORDS = [
    "the",
    "agent",
    "called",
    "a",
    "tool",
    "to",
    "look",
    "up",
    "the",
    "weather",
    "forecast",
    "for",
    "the",
    "requested",
    "city",
    "and",
    "then",
    "summarised",
    "results",
    "for",
    "the",
    "user",
    "including",
    "temperature",
    "wind",
    "humidity",
    "chance",
    "of",
    "rain",
    "flight",
    "booking",
    "hotel",
    "refund",
    "order",
    "status",
    "invoice",
    "customer",
    "account",
    "balance",
    "transfer",
    "approved",
    "denied",
    "pending",
    "retry",
    "timeout",
    "error",
]


def _text(rng: random.Random, n_chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < n_chars:
        word = rng.choice(WORDS)
        out.append(word)
        size += len(word) + 1
    return " ".join(out)


def _kv(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    if isinstance(value, float):
        return {"key": key, "value": {"doubleValue": value}}
    if isinstance(value, list):
        return {"key": key, "value": {"arrayValue": {"values": [{"stringValue": v} for v in value]}}}
    return {"key": key, "value": {"stringValue": value}}


def _span_json(rng: random.Random, trace_id: str, span_id: str, parent: str, i: int, t0: int) -> str:
    kind = i % 3
    attrs: list[dict[str, Any]] = [
        _kv("gen_ai.system", "openai"),
        _kv("gen_ai.conversation.id", f"conv-{i // 50}"),
        _kv("session.id", f"session-{i // 500}"),
    ]
    if kind == 0:
        args = json.dumps({"city": _text(rng, 20), "days": rng.randint(1, 9), "query": _text(rng, 500)})
        result = json.dumps({"forecast": _text(rng, 900), "ok": True})
        attrs += [
            _kv("gen_ai.operation.name", "execute_tool"),
            _kv("gen_ai.tool.name", rng.choice(["get_weather", "search_flights", "lookup_order"])),
            _kv("gen_ai.tool.call.id", f"call_{i:08d}"),
            _kv("gen_ai.tool.call.arguments", args),
            _kv("gen_ai.tool.call.result", result),
            _kv("gen_ai.agent.name", "travel_agent"),
        ]
    else:
        messages = json.dumps(
            [
                {"role": "system", "parts": [{"type": "text", "content": _text(rng, 500)}]},
                {"role": "user", "parts": [{"type": "text", "content": _text(rng, 600)}]},
            ]
        )
        output = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": _text(rng, 400)}]}])
        attrs += [
            _kv("gen_ai.operation.name", "chat"),
            _kv("gen_ai.request.model", "gpt-4o-mini"),
            _kv("gen_ai.response.model", "gpt-4o-mini-2024-07-18"),
            _kv("gen_ai.request.temperature", 0.2),
            _kv("gen_ai.usage.input_tokens", rng.randint(100, 4000)),
            _kv("gen_ai.usage.output_tokens", rng.randint(10, 900)),
            _kv("gen_ai.response.finish_reasons", ["stop"]),
            _kv("gen_ai.request.stream", False),
            _kv("gen_ai.input.messages", messages),
            _kv("gen_ai.output.messages", output),
        ]
    start = t0 + i * 1_000_000
    span: dict[str, Any] = {
        "traceId": trace_id,
        "spanId": span_id,
        "parentSpanId": parent,
        "name": "execute_tool get_weather" if kind == 0 else "chat gpt-4o-mini",
        "kind": 1 if kind == 0 else 3,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + rng.randint(1_000, 900_000)),
        "attributes": attrs,
        "status": {"code": 2, "message": "tool timed out"} if i % 97 == 0 else {},
    }
    if i % 10 == 0:
        span["events"] = [
            {
                "timeUnixNano": str(start + 10),
                "name": "gen_ai.choice",
                "attributes": [_kv("index", 0), _kv("finish_reason", "stop")],
            }
        ]
    return json.dumps(span, separators=(",", ":"))


def generate(path: Path, n_spans: int, batch: int = 500) -> None:
    """Write ``n_spans`` spans as one TracesData document, ``batch`` spans per resourceSpans."""
    rng = random.Random(1234)
    t0 = 1_700_000_000_000_000_000
    with path.open("w", encoding="utf-8") as out:
        out.write('{"resourceSpans":[')
        for b, first in enumerate(range(0, n_spans, batch)):
            if b:
                out.write(",")
            resource = {
                "attributes": [
                    _kv("service.name", f"agent-service-{b % 4}"),
                    _kv("telemetry.sdk.language", "python"),
                    _kv("telemetry.sdk.version", "1.27.0"),
                ]
            }
            out.write('{"resource":' + json.dumps(resource) + ',"scopeSpans":[')
            out.write(
                '{"scope":{"name":"opentelemetry.instrumentation.openai_v2","version":"2.0b0"},"spans":['
            )
            parts = []
            for i in range(first, min(first + batch, n_spans)):
                trace_id = f"{(i // 50) + 1:032x}"
                span_id = f"{i + 1:016x}"
                parent = "" if i % 50 == 0 else f"{(i // 50) * 50 + 1:016x}"
                parts.append(_span_json(rng, trace_id, span_id, parent, i, t0))
            out.write(",".join(parts))
            out.write("]}]}")
        out.write("]}")


# measured steps


try:
    import msgspec
except ImportError:  # pragma: no cover - the benchmark needs msgspec for its baseline
    msgspec = None

if msgspec is not None:

    class AnyValue(msgspec.Struct):
        stringValue: str | None = None
        boolValue: bool | None = None
        intValue: str | int | None = None
        doubleValue: float | None = None
        arrayValue: ArrayValue | None = None
        kvlistValue: KeyValueList | None = None
        bytesValue: str | None = None

    class ArrayValue(msgspec.Struct):
        values: list[AnyValue] = msgspec.field(default_factory=list)

    class KeyValue(msgspec.Struct):
        key: str
        value: AnyValue | None = None

    class KeyValueList(msgspec.Struct):
        values: list[KeyValue] = msgspec.field(default_factory=list)

    class Event(msgspec.Struct):
        timeUnixNano: str | int = "0"
        name: str = ""
        attributes: list[KeyValue] = msgspec.field(default_factory=list)

    class Link(msgspec.Struct):
        traceId: str = ""
        spanId: str = ""
        attributes: list[KeyValue] = msgspec.field(default_factory=list)

    class Status(msgspec.Struct):
        code: int | str = 0
        message: str = ""

    class OtlpSpan(msgspec.Struct):
        traceId: str
        spanId: str
        name: str = ""
        parentSpanId: str = ""
        kind: int | str = 0
        startTimeUnixNano: str | int = "0"
        endTimeUnixNano: str | int = "0"
        attributes: list[KeyValue] = msgspec.field(default_factory=list)
        events: list[Event] = msgspec.field(default_factory=list)
        links: list[Link] = msgspec.field(default_factory=list)
        status: Status | None = None

    class Scope(msgspec.Struct):
        name: str = ""
        version: str = ""

    class ScopeSpans(msgspec.Struct):
        scope: Scope | None = None
        spans: list[OtlpSpan] = msgspec.field(default_factory=list)

    class Resource(msgspec.Struct):
        attributes: list[KeyValue] = msgspec.field(default_factory=list)

    class ResourceSpans(msgspec.Struct):
        resource: Resource | None = None
        scopeSpans: list[ScopeSpans] = msgspec.field(default_factory=list)

    class TracesData(msgspec.Struct):
        resourceSpans: list[ResourceSpans] = msgspec.field(default_factory=list)


def _step(name: str, path: Path) -> tuple[float, int]:
    """Run one step in this process; return (seconds, spans)."""
    data_path = str(path)
    if name.startswith("json"):
        data = path.read_bytes()
        gc_off = name.endswith("gc-off")
        t = time.perf_counter()
        if gc_off:
            gc.disable()
        doc = json.loads(data)
        gc.enable()
        dt = time.perf_counter() - t
        n = sum(len(ss["spans"]) for rs in doc["resourceSpans"] for ss in rs["scopeSpans"])
        return dt, n
    if name.startswith("msgspec"):
        decoder = msgspec.json.Decoder(TracesData)
        data = path.read_bytes()
        gc_off = name.endswith("gc-off")
        t = time.perf_counter()
        if gc_off:
            gc.disable()
        doc = decoder.decode(data)
        gc.enable()
        dt = time.perf_counter() - t
        n = sum(len(ss.spans) for rs in doc.resourceSpans for ss in rs.scopeSpans)
        return dt, n
    sys.path.insert(0, str(SRC))
    from traceassert._loaders import load_spans

    if name.startswith("load_trace"):
        from traceassert._loaders import load_trace

        t = time.perf_counter()
        trace = load_trace(data_path)
        dt = time.perf_counter() - t
        return dt, len(trace.spans)
    t = time.perf_counter()
    result = load_spans(data_path)
    dt = time.perf_counter() - t
    return dt, len(result.spans)


def _child(name: str, path: Path) -> None:
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    dt, n = _step(name, path)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": dt, "spans": n, "peak_kib": peak - base}))


STEPS: list[tuple[str, dict[str, str]]] = [
    ("json.loads gc-on", {}),
    ("json.loads gc-off", {}),
    ("msgspec typed gc-on", {}),
    ("msgspec typed gc-off", {}),
    ("load_spans (accelerated)", {}),
    ("load_trace (accelerated)", {}),
    ("load_spans (stdlib only)", {"TRACEASSERT_JSON": "stdlib"}),
    ("load_trace (stdlib only)", {"TRACEASSERT_JSON": "stdlib"}),
]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, default=None, help="write the data file here and keep it")
    parser.add_argument("--only", default=None, help="run only the steps whose name contains this")
    parser.add_argument("--repeat", type=int, default=3, help="runs per step; the fastest is reported")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--file", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.file)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"otlp-{args.spans}.json"
        if not path.exists():
            t = time.perf_counter()
            generate(path, args.spans)
            print(f"generated {path.name}: {args.spans} spans in {time.perf_counter() - t:.1f} s")
        size = path.stat().st_size
        print(f"file size: {size / 1e6:.1f} MB ({size / args.spans / 1e3:.2f} KB per span)")
        results: dict[str, float] = {}
        for name, env in STEPS:
            if args.only and args.only not in name:
                continue
            rows = []
            for _ in range(args.repeat):
                cmd = [sys.executable, __file__, "--child", name, "--file", str(path)]
                proc = subprocess.run(
                    cmd, env={**os.environ, **env}, capture_output=True, text=True, check=False
                )
                if proc.returncode != 0:
                    print(f"{name:28s} failed: {proc.stderr.strip().splitlines()[-1:]}")
                    break
                rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
            if not rows:
                continue
            secs = min(r["seconds"] for r in rows)
            spans = rows[0]["spans"]
            results[name] = secs
            peak = max(r["peak_kib"] for r in rows) * 1024
            print(
                f"{name:28s} {secs:7.2f} s  {spans / secs:9,.0f} spans/s  "
                f"peak +{peak / 1e6:7.1f} MB = {peak / size:4.2f}x file"
            )
        for base in ("msgspec typed gc-on", "msgspec typed gc-off"):
            if base not in results:
                continue
            for name, secs in results.items():
                if name.startswith("load_"):
                    print(f"ratio {name} / {base}: {secs / results[base]:.2f}x")


if __name__ == "__main__":
    main()
