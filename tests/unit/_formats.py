"""One agent trace recorded with the real OpenTelemetry SDK, written in every file format the loaders read.

``record()`` runs a small scripted agent (an agent span, a model call, a tool call, a failing tool with
an exception event, a link) through a real ``TracerProvider`` and returns its ``ReadableSpan``s.
``write_all(spans, folder)`` writes them as:

- ``otlp-protobuf.json``: protobuf's generic JSON writer over the real OTLP encoder (base64 ids, enum
  names), when ``opentelemetry-exporter-otlp-proto-common`` is installed;
- ``otlp-collector.jsonl``: Collector file-exporter style lines (one request per line, hex ids, integer
  enums, string int64), from the same encoder;
- ``sdk-array.json`` (Monocle's file exporter layout), ``sdk-lines.jsonl``, ``console.txt`` (the real
  ``ConsoleSpanExporter``);
- ``okahu.json`` (the Okahu API form) and ``jaeger.json`` (the OpenTelemetry-to-Jaeger mapping);
- ``phoenix-rest.json``: Arize Phoenix's REST span JSON (fields as Phoenix's ``/v1/projects/{p}/spans``).
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from opentelemetry import trace as trace_api
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Link, SpanKind, Status, StatusCode

try:
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    HAVE_PROTO = True
except ImportError:  # pragma: no cover - the test extra installs them
    HAVE_PROTO = False


def record() -> list[ReadableSpan]:
    """A scripted agent run through the real SDK; spans in end order, as exporters receive them."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "travel-agent", "deployment": "ci"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    agent_tracer = provider.get_tracer("opentelemetry.instrumentation.agents", "1.2.0")
    model_tracer = provider.get_tracer("opentelemetry.instrumentation.openai_v2", "2.1b0")
    with agent_tracer.start_as_current_span(
        "invoke_agent travel",
        kind=SpanKind.SERVER,
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "travel",
            "entity.1.name": "travel",
            "entity.1.type": "agent.openai_agents",
            "entity.count": 1,
            "span.type": "agentic.invocation",
        },
    ) as root:
        with model_tracer.start_as_current_span(
            "chat gpt-4o-mini",
            kind=SpanKind.CLIENT,
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.request.temperature": 0.25,
                "gen_ai.usage.input_tokens": 812,
                "gen_ai.usage.output_tokens": 41,
                "gen_ai.request.stream": False,
                "gen_ai.response.finish_reasons": ("tool_calls",),
                "gen_ai.input.messages": json.dumps(
                    [{"role": "user", "content": "Weather in Paris? ünïcødé ✓"}], ensure_ascii=False
                ),
            },
        ) as chat:
            chat.add_event("gen_ai.choice", {"index": 0, "finish_reason": "tool_calls"})
        with agent_tracer.start_as_current_span(
            "execute_tool get_weather",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.arguments": json.dumps({"city": "Paris", "days": 3}),
                "gen_ai.tool.call.result": "sunny, 21 C",
            },
            links=[Link(chat.get_span_context(), {"link.reason": "requested_by"})],
        ):
            pass
        with agent_tracer.start_as_current_span(
            "execute_tool book_hotel",
            kind=SpanKind.PRODUCER,
            attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "book_hotel"},
        ) as failing:
            failing.add_event(
                "exception", {"exception.type": "TimeoutError", "exception.message": "hotel API timed out"}
            )
            failing.set_status(Status(StatusCode.ERROR, "hotel API timed out"))
        root.set_status(Status(StatusCode.OK))
    provider.shutdown()
    return list(exporter.get_finished_spans())


# ------------------------------------------------------------------------------------------ OTLP


def otlp_request_dict(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """The real OTLP encoder's request, through protobuf's generic JSON writer (base64 ids, enum names)."""
    return MessageToDict(encode_spans(spans))


def _to_collector_style(value: Any, key: str = "") -> Any:
    """protobuf JSON -> what the Collector's pdata marshaler writes: hex ids, integer enums."""
    import base64

    kinds = {
        "SPAN_KIND_UNSPECIFIED": 0,
        "SPAN_KIND_INTERNAL": 1,
        "SPAN_KIND_SERVER": 2,
        "SPAN_KIND_CLIENT": 3,
        "SPAN_KIND_PRODUCER": 4,
        "SPAN_KIND_CONSUMER": 5,
    }
    codes = {"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}
    if isinstance(value, dict):
        return {k: _to_collector_style(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_collector_style(v, key) for v in value]
    if key in ("traceId", "spanId", "parentSpanId") and isinstance(value, str):
        return base64.b64decode(value).hex()
    if key == "kind" and isinstance(value, str):
        return kinds[value]
    if key == "code" and isinstance(value, str):
        return codes[value]
    return value


def collector_lines(spans: Sequence[ReadableSpan], per_line: int = 2) -> str:
    """Collector file-exporter style JSON Lines: one ExportTraceServiceRequest per batch of spans."""
    lines = []
    for i in range(0, len(spans), per_line):
        request = _to_collector_style(otlp_request_dict(spans[i : i + per_line]))
        lines.append(json.dumps(request, separators=(",", ":"), ensure_ascii=False))
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------ SDK


def sdk_array(spans: Sequence[ReadableSpan]) -> str:
    """Monocle's file exporter layout: ``[`` then ``to_json()`` + newline per span, comma-separated, ``]``."""
    return "[" + ",".join(s.to_json() + os.linesep for s in spans) + "]"


def sdk_lines(spans: Sequence[ReadableSpan]) -> str:
    return "".join(s.to_json(indent=None) + "\n" for s in spans)


def console_output(spans: Sequence[ReadableSpan]) -> str:
    """What the real ``ConsoleSpanExporter`` prints for the spans."""
    out = io.StringIO()
    ConsoleSpanExporter(out=out).export(spans)
    return out.getvalue()


# ------------------------------------------------------------------------------------------ Okahu


def okahu_document(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """The Okahu API form: ``span_name``, top-level ids, ``entity`` lists, lower-case status codes."""
    out = []
    for span in spans:
        data = json.loads(span.to_json())
        attrs = dict(data["attributes"])
        entities: dict[int, dict[str, Any]] = {}
        for key in list(attrs):
            parts = key.split(".")
            if len(parts) == 3 and parts[0] == "entity" and parts[1].isdigit():
                entities.setdefault(int(parts[1]), {})[parts[2]] = attrs.pop(key)
        if entities:
            attrs = {"entity": [entities[i] for i in sorted(entities)], **attrs}
        code = data["status"]["status_code"].lower()
        item: dict[str, Any] = {
            "span_name": data["name"],
            "start_time": data["start_time"],
            "end_time": data["end_time"],
            "status": {"code": code, "message": data["status"].get("description")},
            "span_id": data["context"]["span_id"][2:],
            "trace_id": data["context"]["trace_id"][2:],
            "attributes": attrs,
            "events": data["events"],
        }
        if data["parent_id"]:
            item["parent_id"] = data["parent_id"][2:]
        out.append(item)
    first = out[0]
    return {"trace_id": first["trace_id"], "status": {"code": "ok", "message": None}, "spans": out}


# ------------------------------------------------------------------------------------------ Phoenix


def iso_utc(ns: int) -> str:
    """A timestamp as Phoenix's REST API writes it: ISO 8601, microseconds, ``Z``."""
    moment = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(microseconds=ns // 1000)
    return moment.isoformat().replace("+00:00", "Z")


def phoenix_span(span: Any) -> dict[str, Any]:
    """One span as Phoenix's REST API (``GET /v1/projects/{project}/spans``) returns it: the OpenInference
    kind moved out of the attributes into ``span_kind`` (``UNKNOWN`` when there is none), status code and
    message at the top level, ids in ``context``. ``span`` is a ``traceassert`` Span."""
    attrs = dict(span.attributes)
    return {
        "id": "U3BhbjoxMjM=",
        "name": span.name,
        "context": {"trace_id": span.trace_id, "span_id": span.span_id},
        "span_kind": attrs.pop("openinference.span.kind", "UNKNOWN"),
        "parent_id": span.parent_id,
        "start_time": iso_utc(span.start_ns),
        "end_time": iso_utc(span.end_ns),
        "status_code": span.status.code,
        "status_message": span.status.description or "",
        "attributes": {k: list(v) if isinstance(v, tuple) else v for k, v in attrs.items()},
        "events": [
            {"name": e.name, "timestamp": iso_utc(e.timestamp_ns), "attributes": dict(e.attributes)}
            for e in span.events
        ],
    }


def phoenix_document(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """Phoenix's REST answer for the spans: newest first, in a ``data`` envelope with a cursor."""
    from traceassert import Span

    data = [phoenix_span(Span.from_readable(s)) for s in reversed(spans)]
    return {"data": data, "next_cursor": None}


# ------------------------------------------------------------------------------------------ Jaeger


def _jaeger_tag(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "type": "bool", "value": value}
    if isinstance(value, int):
        return {"key": key, "type": "int64", "value": value}
    if isinstance(value, float):
        return {"key": key, "type": "float64", "value": value}
    if isinstance(value, list | tuple):
        return {"key": key, "type": "string", "value": json.dumps(list(value))}
    if isinstance(value, str):  # the string itself, also of a str enum (whose str() is its name)
        return {"key": key, "type": "string", "value": str.__str__(value)}
    return {"key": key, "type": "string", "value": str(value)}


def _jaeger_process(resource: Any) -> dict[str, Any]:
    attrs = dict(resource.attributes)
    return {
        "serviceName": attrs.pop("service.name", "unknown_service"),
        "tags": [_jaeger_tag(k, v) for k, v in attrs.items()],
    }


def jaeger_document(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """Jaeger's query API JSON for the spans, as OpenTelemetry's Jaeger translation maps them: one
    entry per trace, one process per resource."""
    traces: dict[str, dict[str, Any]] = {}
    for span in spans:
        ctx = span.context
        assert ctx is not None
        trace_id = f"{ctx.trace_id:032x}"
        entry = traces.setdefault(
            trace_id, {"traceID": trace_id, "spans": [], "processes": {}, "warnings": None}
        )
        processes = entry["processes"]
        process = _jaeger_process(span.resource)
        pid = next((p for p, known in processes.items() if known == process), f"p{len(processes) + 1}")
        processes[pid] = process
        refs = []
        if span.parent is not None:
            refs.append({"refType": "CHILD_OF", "traceID": trace_id, "spanID": f"{span.parent.span_id:016x}"})
        for link in span.links:
            refs.append(
                {
                    "refType": "FOLLOWS_FROM",
                    "traceID": f"{link.context.trace_id:032x}",
                    "spanID": f"{link.context.span_id:016x}",
                }
            )
        tags = [_jaeger_tag(k, v) for k, v in (span.attributes or {}).items()]
        if span.kind != trace_api.SpanKind.INTERNAL:
            tags.append(_jaeger_tag("span.kind", span.kind.name.lower()))
        if span.status.status_code != StatusCode.UNSET:
            tags.append(_jaeger_tag("otel.status_code", span.status.status_code.name))
            if span.status.status_code == StatusCode.ERROR:
                tags.append(_jaeger_tag("error", True))
        if span.status.description:
            tags.append(_jaeger_tag("otel.status_description", span.status.description))
        scope = span.instrumentation_scope
        if scope is not None:
            tags.append(_jaeger_tag("otel.scope.name", scope.name))
            if scope.version:
                tags.append(_jaeger_tag("otel.scope.version", scope.version))
        logs = [
            {
                "timestamp": ev.timestamp // 1000,
                "fields": [_jaeger_tag("event", ev.name)]
                + [_jaeger_tag(k, v) for k, v in (ev.attributes or {}).items()],
            }
            for ev in span.events
        ]
        assert span.start_time is not None and span.end_time is not None
        start_us = span.start_time // 1000
        entry["spans"].append(
            {
                "traceID": trace_id,
                "spanID": f"{ctx.span_id:016x}",
                "operationName": span.name,
                "references": refs,
                "startTime": start_us,
                "duration": span.end_time // 1000 - start_us,
                "tags": tags,
                "logs": logs,
                "processID": pid,
                "warnings": None,
            }
        )
    return {"data": list(traces.values()), "total": 0, "limit": 0, "offset": 0, "errors": None}


def write_all(spans: Sequence[ReadableSpan], folder: Path) -> dict[str, Path]:
    """Every format into ``folder``; returns ``{format label: path}``."""
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {
        "sdk-array.json": sdk_array(spans),
        "sdk-lines.jsonl": sdk_lines(spans),
        "console.txt": console_output(spans),
        "okahu.json": json.dumps(okahu_document(spans), indent=2, ensure_ascii=False),
        "jaeger.json": json.dumps(jaeger_document(spans), indent=2, ensure_ascii=False),
        "phoenix-rest.json": json.dumps(phoenix_document(spans), indent=2, ensure_ascii=False),
    }
    if HAVE_PROTO:
        files["otlp-protobuf.json"] = json.dumps(otlp_request_dict(spans), indent=2, ensure_ascii=False)
        files["otlp-collector.jsonl"] = collector_lines(spans)
    out = {}
    for name, text in files.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        out[name] = path
    return out


if __name__ == "__main__":  # regenerate the committed samples: python -m tests.unit._formats
    import sys

    from traceassert._loaders import dump_trace

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/data/formats")
    recorded = record()
    written = write_all(recorded, target)
    dump_trace(recorded, target / "otlp-dump.json")
    for path in sorted(target.iterdir()):
        print(f"{path}: {path.stat().st_size} bytes")
