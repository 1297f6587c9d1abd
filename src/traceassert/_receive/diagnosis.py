"""Why a test's trace did not come (or came only in part), in words: the endpoint the app should export
to, whether any request came at all and by which protocol, what was refused and why, the spans that came
for other trace ids (an app that did not take the test's context), and what the process did (it exited
before it flushed its last batch). Names and values from the trace are redacted as failure messages are."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._common.redact import shown
from .._model.span import Span
from .limits import anchor_of

__all__ = ["Place", "not_complete", "nothing_arrived"]


@dataclass(frozen=True, slots=True)
class Place:
    """Where the app should send its spans."""

    http: str
    grpc: str | None
    #: the protocol the test asked for with ``env()`` (None: not asked)
    protocol: str | None


def _where(place: Place) -> str:
    text = f"OTLP/HTTP {place.http} (POST /v1/traces, /v1/logs)"
    if place.grpc:
        text += f", OTLP/gRPC {place.grpc}"
    asked = f" (the test asked for {place.protocol})" if place.protocol else ""
    return (
        f"  the app should export to: {text}{asked}; receiver.env() sets OTEL_EXPORTER_OTLP_ENDPOINT, "
        "OTEL_EXPORTER_OTLP_PROTOCOL and TRACEPARENT"
    )


def _requests(status: dict[str, Any], place: Place) -> list[str]:
    kinds = status.get("kinds") or []
    if not kinds:
        return [
            "  requests: none came at all, from any app: nothing exported to this receiver (is the app's "
            "OTLP exporter set up, does it read OTEL_EXPORTER_OTLP_ENDPOINT, did it flush before it exited?)"
        ]
    total = sum(k[3] for k in kinds)
    lines = [f"  requests: {total} came:"]
    for protocol, path, code, count in sorted(kinds, key=lambda k: -k[3])[:6]:
        lines.append(f"    - {count} x {shown(protocol)} {shown(path)}: answered {code}")
    if place.protocol and not any(k[0] == place.protocol for k in kinds):
        used = ", ".join(sorted({str(shown(k[0])) for k in kinds}))
        lines.append(f"    the app used {used}, not {place.protocol}")
    reasons = [r for r in status.get("requests", []) if r.get("reason")]
    for note in reasons[-3:]:
        lines.append(f"    refused ({note['status']}): {shown(note['reason'])}")
    return lines


def _others(status: dict[str, Any], trace_id: str) -> list[str]:
    others = status.get("others") or {}
    traces = others.get("traces") or []
    if not traces:
        return [f"  spans for other trace ids: none (the test's trace id is {trace_id})"]
    lines = [
        f"  spans for other trace ids: {others.get('total', len(traces))} trace(s), none with the test's "
        f"trace id {trace_id} (other tests' traces, or an app that did not take the test's context: "
        "TRACEPARENT in a process's environment, the traceparent header of a request to a service)"
    ]
    for other, count, name, service in traces:
        where = f", service {shown(service)!r}" if service else ""
        lines.append(f"    - {other}: {count} span(s), first {shown(name)!r}{where}")
    lines.append("    read one of them with receiver.trace(trace_id=...)")
    return lines


def _process(exit_code: int | None, running: bool, any_span: bool) -> list[str]:
    if running:
        return ["  the process given is still running"]
    if exit_code is None:
        return []
    what = "before any span of the trace arrived" if not any_span else "before the trace's root arrived"
    return [
        f"  the process exited (code {exit_code}) {what}: a process must flush its spans before it exits "
        "(TracerProvider.shutdown() or force_flush(); a BatchSpanProcessor loses what it holds when the "
        "process is killed or calls os._exit)"
    ]


def nothing_arrived(
    trace_id: str,
    waited: float,
    place: Place,
    status: dict[str, Any],
    process: tuple[int | None, bool] | None = None,
) -> str:
    """No span of ``trace_id`` came."""
    lines = [f"no span of trace {trace_id} arrived at the OTLP receiver within {waited:.1f} s", _where(place)]
    lines += _requests(status, place)
    lines += _others(status, trace_id)
    if process is not None:
        lines += _process(process[0], process[1], False)
    return "\n".join(lines)


def not_complete(
    trace_id: str,
    waited: float,
    spans: Sequence[Span],
    place: Place,
    process: tuple[int | None, bool] | None = None,
) -> str:
    """Spans of ``trace_id`` came, but not its root (the span under the receiver's traceparent)."""
    anchor = anchor_of(trace_id)
    ids = {s.span_id for s in spans}
    dangling = [s for s in spans if s.parent_id and s.parent_id not in ids and s.parent_id != anchor]
    lines = [
        f"the trace {trace_id} is not complete after {waited:.1f} s: {len(spans)} span(s) arrived, but not "
        f"its root (a span under the test's traceparent, parent {anchor}, or with no parent)"
    ]
    if dangling:
        parents = sorted({s.parent_id for s in dangling if s.parent_id})
        names = ", ".join(repr(shown(s.name)) for s in dangling[:5])
        lines.append(
            f"  spans whose parent never arrived: {names} (parent(s) {', '.join(parents[:3])}): the process "
            "that made them ended before it exported its last batch, or still holds it"
        )
    lines.append(_where(place))
    if process is not None:
        lines += _process(process[0], process[1], True)
    else:
        lines.append(
            "  a process must flush its spans before it exits (TracerProvider.shutdown() or force_flush()); "
            "pass process= to receiver.wait() to be told when it exited"
        )
    return "\n".join(lines)
