"""Benchmark: loading a 100,000-span OTLP JSON file, and a Collector JSON Lines file.

Run: ``python benchmarks/bench_load.py [--spans N] [--keep DIR]``

The script writes its own data:

- an OTLP JSON file (TracesData, camelCase, hex ids, string int64) whose spans carry realistic agent
  attributes (~2.5 KB per span: tool arguments and results, input and output messages, token counts);
- a Collector JSON Lines file (what the Collector's file exporter writes: one ExportTraceServiceRequest
  per line) of ``--jsonl-spans`` spans (default: ``--spans``), ``--per-line`` (1,000) spans per line and
  15 attributes per span: input and output messages as GenAI JSON text, tool arguments and results as
  JSON, token counts, and 8 small extra attributes.

Then it measures, each in a fresh subprocess so that peak memory is that step's alone:

- ``json.loads`` of the bytes (stdlib), with the garbage collector on and off;
- a typed ``msgspec`` decode into Structs for the OTLP shape, with the collector on and off (the JSON
  Lines file is decoded line by line, one request per line);
- traceassert's ``load_spans`` and ``ta.load_trace`` with its optional accelerators, and with the
  stdlib only (``TRACEASSERT_JSON=stdlib``).

Each step runs ``--repeat`` times (default 3); the fastest time is printed, with the largest peak. It
prints seconds, spans per second, the ratio to the typed msgspec decode, and the peak resident
memory of the step (max RSS minus the RSS before the step) relative to the file size. Targets:
``ta.load_trace`` (accelerated) <= 1.3x the typed msgspec decode with the collector on, for both files;
peak memory of the OTLP JSON load <= 3x the file size. The summary block at the end repeats them.
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _shared import Summary

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"


def _load_spans_function() -> Callable[[str], Any]:
    """traceassert's ``load_spans`` (a file's spans, no Trace), which returns ``.spans``.

    PRIVATE API, isolated here: ``load_spans`` is not exported by ``traceassert``; update this import
    when the loaders module moves. Called by the ``load_spans`` steps only, before their timer starts,
    so that the baseline steps never import traceassert.
    """
    from traceassert._loaders import load_spans

    return load_spans


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


# the Collector JSON Lines file: 15 attributes per span

TOOLS = ("get_weather", "search_flights", "lookup_order", "book_hotel", "refund_order")


def _extras(rng: random.Random, i: int) -> list[dict[str, Any]]:
    """8 small attributes every span of the JSON Lines file carries."""
    return [
        _kv("gen_ai.provider.name", "openai"),
        _kv("gen_ai.conversation.id", f"conv-{i // 25}"),
        _kv("session.id", f"session-{i // 500}"),
        _kv("user.id", f"user-{rng.randint(1, 5000)}"),
        _kv("deployment.environment", "production"),
        _kv("app.version", "2.14.1"),
        _kv("server.address", "api.openai.com"),
        _kv("server.port", 443),
    ]


def _messages(role: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"role": role, "parts": parts}


def _jsonl_span(
    rng: random.Random, trace_id: str, i: int, step: int, root: int, t0: int, args: dict[str, Any]
) -> dict[str, Any]:
    """Span ``i`` of the file: step 0 of each trace is the agent run, then model calls (odd steps) that
    ask for a tool with ``args``, and the tool's execution (the next, even step); 15 attributes each."""
    pair = (step - 1) // 2
    tool = TOOLS[(root + pair) % len(TOOLS)]
    call_id = f"call_{root:08d}_{pair:02d}"
    if step == 0:
        name, kind, own = (
            "invoke_agent travel_agent",
            1,
            [
                _kv("gen_ai.operation.name", "invoke_agent"),
                _kv("gen_ai.agent.name", "travel_agent"),
                _kv("gen_ai.agent.id", "agent-7f3a"),
                _kv("gen_ai.request.model", "gpt-4o-mini"),
                _kv(
                    "gen_ai.input.messages",
                    json.dumps([_messages("user", [{"type": "text", "content": _text(rng, 300)}])]),
                ),
                _kv(
                    "gen_ai.output.messages",
                    json.dumps([_messages("assistant", [{"type": "text", "content": _text(rng, 300)}])]),
                ),
                _kv("gen_ai.usage.input_tokens", rng.randint(1000, 40000)),
            ],
        )
    elif step % 2:
        messages = [
            _messages("system", [{"type": "text", "content": _text(rng, 200)}]),
            _messages("user", [{"type": "text", "content": _text(rng, 300)}]),
        ]
        output = [
            _messages(
                "assistant",
                [
                    {"type": "text", "content": _text(rng, 120)},
                    {"type": "tool_call", "id": call_id, "name": tool, "arguments": args},
                ],
            )
        ]
        name, kind, own = (
            "chat gpt-4o-mini",
            3,
            [
                _kv("gen_ai.operation.name", "chat"),
                _kv("gen_ai.request.model", "gpt-4o-mini"),
                _kv("gen_ai.usage.input_tokens", rng.randint(100, 4000)),
                _kv("gen_ai.usage.output_tokens", rng.randint(10, 900)),
                _kv("gen_ai.response.finish_reasons", ["tool_calls"]),
                _kv("gen_ai.input.messages", json.dumps(messages)),
                _kv("gen_ai.output.messages", json.dumps(output)),
            ],
        )
    else:
        name, kind, own = (
            f"execute_tool {tool}",
            1,
            [
                _kv("gen_ai.operation.name", "execute_tool"),
                _kv("gen_ai.tool.name", tool),
                _kv("gen_ai.tool.call.id", call_id),
                _kv("gen_ai.tool.call.arguments", json.dumps(args)),
                _kv("gen_ai.tool.call.result", json.dumps({"answer": _text(rng, 250), "ok": True})),
                _kv("gen_ai.tool.type", "function"),
                _kv("gen_ai.agent.name", "travel_agent"),
            ],
        )
    start = t0 + i * 1_000_000
    return {
        "traceId": trace_id,
        "spanId": f"{i + 1:016x}",
        "parentSpanId": "" if step == 0 else f"{root + 1:016x}",
        "name": name,
        "kind": kind,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + (25_000_000 if step == 0 else rng.randint(1_000, 900_000))),
        "attributes": own + _extras(rng, i),
        "status": {"code": 2, "message": "tool timed out"} if i % 97 == 0 and step else {},
    }


def generate_jsonl(path: Path, n_spans: int, per_line: int = 1000, per_trace: int = 25) -> None:
    """Write ``n_spans`` spans as JSON Lines, one ExportTraceServiceRequest of ``per_line`` spans a line."""
    rng = random.Random(4321)
    t0 = 1_700_000_000_000_000_000
    args: dict[str, Any] = {}
    with path.open("w", encoding="utf-8") as out:
        for line, first in enumerate(range(0, n_spans, per_line)):
            spans = []
            for i in range(first, min(first + per_line, n_spans)):
                root = i - i % per_trace
                step = i - root
                trace_id = f"{(i // per_trace) + 1:032x}"
                if step % 2:  # a model call: the arguments of the tool call it asks for (run next)
                    args = {"city": _text(rng, 15), "days": rng.randint(1, 9), "query": _text(rng, 120)}
                spans.append(_jsonl_span(rng, trace_id, i, step, root, t0, args))
            request = {
                "resourceSpans": [
                    {
                        "resource": {
                            "attributes": [
                                _kv("service.name", f"agent-service-{line % 4}"),
                                _kv("telemetry.sdk.language", "python"),
                                _kv("telemetry.sdk.version", "1.27.0"),
                            ]
                        },
                        "scopeSpans": [
                            {
                                "scope": {
                                    "name": "opentelemetry.instrumentation.openai_v2",
                                    "version": "2.0b0",
                                },
                                "spans": spans,
                            }
                        ],
                    }
                ]
            }
            out.write(json.dumps(request, separators=(",", ":")) + "\n")


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


def _lines(data: bytes) -> list[bytes]:
    return [line for line in data.split(b"\n") if line.strip()]


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(start: tuple[float, float]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) since ``start``."""
    return time.perf_counter() - start[0], time.process_time() - start[1]


def _step(name: str, path: Path) -> tuple[tuple[float, float], int]:
    """Run one step in this process; return ((seconds, CPU seconds), spans). A ``.jsonl`` file is JSON
    Lines: the baselines decode it line by line."""
    data_path = str(path)
    lines = path.suffix == ".jsonl"
    if name.startswith("json"):
        data = path.read_bytes()
        gc_off = name.endswith("gc-off")
        t = _clock()
        if gc_off:
            gc.disable()
        docs = [json.loads(line) for line in _lines(data)] if lines else [json.loads(data)]
        gc.enable()
        dt = _since(t)
        n = sum(len(ss["spans"]) for doc in docs for rs in doc["resourceSpans"] for ss in rs["scopeSpans"])
        return dt, n
    if name.startswith("msgspec"):
        decoder = msgspec.json.Decoder(TracesData)
        data = path.read_bytes()
        gc_off = name.endswith("gc-off")
        t = _clock()
        if gc_off:
            gc.disable()
        if lines:
            typed = [decoder.decode(line) for line in _lines(data)]
        else:
            typed = [decoder.decode(data)]
        gc.enable()
        dt = _since(t)
        n = sum(len(ss.spans) for doc in typed for rs in doc.resourceSpans for ss in rs.scopeSpans)
        return dt, n
    sys.path.insert(0, str(SRC))
    if name.startswith("load_trace"):
        import traceassert as ta

        # ``ta.load_trace`` imports its modules (and msgspec) on first use: done before the clock, as the
        # baselines import msgspec before theirs and the load_spans steps import the loaders before theirs
        load_trace = ta.load_trace
        t = _clock()
        trace = load_trace(data_path)
        dt = _since(t)
        return dt, len(trace.spans)
    load_spans = _load_spans_function()
    t = _clock()
    result = load_spans(data_path)
    dt = _since(t)
    return dt, len(result.spans)


def _child(name: str, path: Path) -> None:
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    (dt, cpu), n = _step(name, path)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": dt, "cpu": cpu, "spans": n, "peak_kib": peak - base}))


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
#: the JSON Lines file: the baseline, the target's load, and the stdlib fallback for reference
JSONL_STEPS: list[tuple[str, dict[str, str]]] = [
    ("json.loads gc-on", {}),
    ("msgspec typed gc-on", {}),
    ("msgspec typed gc-off", {}),
    ("load_trace (accelerated)", {}),
    ("load_trace (stdlib only)", {"TRACEASSERT_JSON": "stdlib"}),
]
BASELINE = "msgspec typed gc-on"
TARGET_LOAD = "load_trace (accelerated)"
MAX_RATIO = 1.3
MAX_PEAK = 3.0


def _run_steps(
    label: str, path: Path, n_spans: int, steps: list[tuple[str, dict[str, str]]], args: argparse.Namespace
) -> dict[str, tuple[float, float, float]]:
    """Each step ``args.repeat`` times in a fresh subprocess, each run cut after ``args.guard`` seconds;
    {name: (fastest seconds, largest peak, CPU seconds of the fastest)}."""
    size = path.stat().st_size
    print(
        f"\n== {label}: {path.name}, {n_spans} spans, {size / 1e6:.1f} MB "
        f"({size / n_spans / 1e3:.2f} KB per span)"
    )
    results: dict[str, tuple[float, float, float]] = {}
    for name, env in steps:
        if args.only and not any(part in f"{label} {name}" for part in args.only.split(",")):
            continue
        rows = []
        for _ in range(args.repeat):
            cmd = [sys.executable, __file__, "--child", name, "--file", str(path)]
            try:
                proc = subprocess.run(
                    cmd,
                    env={**os.environ, **env},
                    capture_output=True,
                    text=True,
                    check=False,
                    timeout=args.guard,
                )
            except subprocess.TimeoutExpired:
                print(f"{name:28s} cut by the time guard after {args.guard:g} s")
                break
            if proc.returncode != 0:
                print(f"{name:28s} failed: {proc.stderr.strip().splitlines()[-1:]}")
                break
            rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        if not rows:
            continue
        fastest = min(rows, key=lambda r: r["seconds"])
        secs, cpu = fastest["seconds"], fastest["cpu"]
        spans = rows[0]["spans"]
        peak = max(r["peak_kib"] for r in rows) * 1024
        results[name] = (secs, peak, cpu)
        print(
            f"{name:28s} {secs:7.2f} s (CPU {cpu:6.2f} s)  {spans / secs:9,.0f} spans/s  "
            f"peak +{peak / 1e6:7.1f} MB = {peak / size:4.2f}x file"
        )
    for base in ("msgspec typed gc-on", "msgspec typed gc-off"):
        if base not in results:
            continue
        for name, (secs, _, _) in results.items():
            if name.startswith("load_"):
                print(f"ratio {name} / {base}: {secs / results[base][0]:.2f}x")
    return results


def _summarise(
    summary: Summary, label: str, results: dict[str, tuple[float, float, float]], size: int, peak_target: bool
) -> None:
    """Targets first (the load ratio, peak memory), then the other ratios."""
    base = results.get(BASELINE)
    what = f"{label}: ta.load_trace <= {MAX_RATIO}x typed msgspec decode (GC on)"
    if base is None or TARGET_LOAD not in results:
        summary.target(what, "not measured", False, "a step failed, was cut by the time guard, or not run")
    else:
        secs = results[TARGET_LOAD][0]
        ratio = secs / base[0]
        summary.target(what, f"{secs:.2f} s vs {base[0]:.2f} s = {ratio:.2f}x", ratio <= MAX_RATIO)
        summary.ratio(
            f"{label}: CPU time of ta.load_trace / typed msgspec decode (GC on; less sensitive to a "
            "busy machine)",
            results[TARGET_LOAD][2] / base[2],
        )
    for name in ("load_spans (accelerated)", TARGET_LOAD):
        if name not in results:
            continue
        peak = results[name][1]
        measured = f"+{peak / 1e6:.1f} MB = {peak / size:.2f}x the file"
        if peak_target:
            summary.target(
                f"{label}: peak memory of {name} <= {MAX_PEAK:g}x the file size",
                measured,
                peak <= MAX_PEAK * size,
            )
        else:
            summary.info(f"{label}: peak memory of {name}", measured)
    for base_name in (BASELINE, "msgspec typed gc-off"):
        if base_name not in results:
            continue
        for name, (secs, _peak, _cpu) in results.items():
            if name.startswith("load_") and not (name == TARGET_LOAD and base_name == BASELINE):
                summary.ratio(f"{label}: {name} / {base_name}", secs / results[base_name][0])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--spans", type=int, default=100_000, help="spans of the OTLP JSON file (the scale)")
    parser.add_argument(
        "--jsonl-spans", type=int, default=None, help="spans of the JSON Lines file (--spans)"
    )
    parser.add_argument("--per-line", type=int, default=1000, help="spans per line of the JSON Lines file")
    parser.add_argument("--keep", type=Path, default=None, help="write the data files here and keep them")
    parser.add_argument(
        "--only",
        default=None,
        help="run only the steps whose '<file> <step>' contains this (or one of a,b,...)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per step; the fastest is reported")
    parser.add_argument("--guard", type=float, default=300.0, help="seconds before a step's run is cut")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--file", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.file)
        return
    n_jsonl = args.jsonl_spans if args.jsonl_spans is not None else args.spans
    summary = Summary(f"bench_load, {args.spans} spans (OTLP JSON), {n_jsonl} spans (JSON Lines)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"otlp-{args.spans}.json"
        if not path.exists():
            t = time.perf_counter()
            generate(path, args.spans)
            print(f"generated {path.name}: {args.spans} spans in {time.perf_counter() - t:.1f} s")
        jsonl = folder / f"otlp-collector-{n_jsonl}-{args.per_line}.jsonl"
        if not jsonl.exists():
            t = time.perf_counter()
            generate_jsonl(jsonl, n_jsonl, args.per_line)
            print(f"generated {jsonl.name}: {n_jsonl} spans in {time.perf_counter() - t:.1f} s")
        results = _run_steps("OTLP JSON", path, args.spans, STEPS, args)
        _summarise(summary, "OTLP JSON", results, path.stat().st_size, peak_target=True)
        label = f"Collector JSONL ({args.per_line} spans/line)"
        results = _run_steps(label, jsonl, n_jsonl, JSONL_STEPS, args)
        _summarise(summary, label, results, jsonl.stat().st_size, peak_target=False)
    summary.print()


if __name__ == "__main__":
    main()
