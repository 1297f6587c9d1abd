"""Every serialisation a trace reaches traceassert in, written by the real writer where one exists.

``WRITERS`` maps a label to a function ``(spans, folder) -> path`` that writes SDK ``ReadableSpan``s to
a file in ``folder``:

- ``otlp-dump``: `ta.dump_trace` (OTLP JSON, spec field names);
- ``otlp-protobuf``: protobuf's JSON of the real OTLP exporter's encoder (``encode_spans``);
- ``otlp-collector``: the Collector file exporter's JSON Lines, from the same encoder;
- ``sdk-array`` / ``sdk-lines`` / ``sdk-console``: ``ReadableSpan.to_json()`` as a JSON array, one per
  line, and the real ``ConsoleSpanExporter``'s output;
- ``jaeger``: Jaeger's query API JSON (OpenTelemetry's Jaeger mapping: the scope as ``otel.scope.*``
  tags, times in microseconds);
- ``monocle``: the file Monocle's own ``FileSpanExporter`` writes (its ``serialize_span`` of ``to_json``);
- ``okahu``: Okahu's API form (no kind, resource or scope).

``readable_spans(trace_spans)`` turns traceassert ``Span``s (a recorded trace) back into ``ReadableSpan``s,
so a recorded trace can be written by the same writers as a live one. ``check_round_trip`` writes spans
with one writer, loads the file back and checks that the summary is the live one and that the format kept
what ``CARRIES`` says (and no more: a writer that kept the scope by accident would hide a detection
that leans on it).
"""

from __future__ import annotations

import contextlib
import difflib
import json
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan, SpanProcessor
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import Link, SpanContext, SpanKind, Status, StatusCode, TraceFlags

import traceassert as ta
from tests.unit import _formats

__all__ = [
    "CARRIES",
    "WRITERS",
    "Carries",
    "capture_sdk_spans",
    "check_round_trip",
    "diff",
    "monocle_default_writes",
    "readable_spans",
    "write",
]

Writer = Callable[[Sequence[ReadableSpan], Path], Path]
_T = TypeVar("_T")


def _save(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _otlp_dump(spans: Sequence[ReadableSpan], folder: Path) -> Path:
    path = folder / "otlp-dump.json"
    ta.dump_trace(list(spans), path, redact=False)
    return path


def _otlp_protobuf(spans: Sequence[ReadableSpan], folder: Path) -> Path:
    return _save(
        folder, "otlp-protobuf.json", json.dumps(_formats.otlp_request_dict(spans), ensure_ascii=False)
    )


def _otlp_collector(spans: Sequence[ReadableSpan], folder: Path) -> Path:
    return _save(folder, "otlp-collector.jsonl", _formats.collector_lines(spans, per_line=3))


def _sdk_array(spans: Sequence[ReadableSpan], folder: Path) -> Path:
    return _save(folder, "sdk-array.json", _formats.sdk_array(spans))


def _sdk_lines(spans: Sequence[ReadableSpan], folder: Path) -> Path:
    return _save(folder, "sdk-lines.jsonl", _formats.sdk_lines(spans))


def _sdk_console(spans: Sequence[ReadableSpan], folder: Path) -> Path:
    return _save(folder, "sdk-console.txt", _formats.console_output(spans))


def _jaeger(spans: Sequence[ReadableSpan], folder: Path) -> Path:
    return _save(folder, "jaeger.json", json.dumps(_formats.jaeger_document(spans), ensure_ascii=False))


def _okahu(spans: Sequence[ReadableSpan], folder: Path) -> Path:
    return _save(folder, "okahu.json", json.dumps(_formats.okahu_document(spans), ensure_ascii=False))


def _monocle(spans: Sequence[ReadableSpan], folder: Path) -> Path:
    """Monocle's own ``FileSpanExporter`` (one file per trace), with the ``to_json`` that Monocle's setup
    installs (ids without ``0x``), told to write every span: by default it writes only the spans Monocle's
    own instrumentation made (those with ``monocle_apptrace.version``), see `monocle_default_writes`."""
    from monocle_apptrace.exporters.file_exporter import FileSpanExporter

    out = folder / "monocle"
    with _monocle_to_json():
        exporter = FileSpanExporter(out_path=str(out))
        exporter.export_monocle_only = False
        try:
            exporter.export(list(spans))
        finally:
            exporter.shutdown()
    return out


@contextlib.contextmanager
def _monocle_to_json() -> Iterator[None]:
    """``ReadableSpan.to_json`` as ``setup_monocle_telemetry`` patches it, process-wide, for the block."""
    from monocle_apptrace.instrumentation.common import utils as monocle_utils

    if getattr(monocle_utils, "_original_to_json", None) is not None:
        yield  # Monocle's setup already patched it
        return
    monocle_utils.setup_readablespan_patch()
    try:
        yield
    finally:
        ReadableSpan.to_json = monocle_utils._original_to_json  # type: ignore[method-assign]
        monocle_utils._original_to_json = None


def monocle_default_writes(spans: Sequence[ReadableSpan]) -> list[ReadableSpan]:
    """The spans Monocle's file exporter writes with its defaults (it skips spans of other producers)."""
    from monocle_apptrace.exporters.file_exporter import FileSpanExporter

    with tempfile.TemporaryDirectory() as folder:
        exporter = FileSpanExporter(out_path=folder)
        try:
            return [span for span in spans if not exporter.skip_export(span)]
        finally:
            exporter.shutdown()


WRITERS: dict[str, Writer] = {
    "otlp-dump": _otlp_dump,
    "otlp-protobuf": _otlp_protobuf,
    "otlp-collector": _otlp_collector,
    "sdk-array": _sdk_array,
    "sdk-lines": _sdk_lines,
    "sdk-console": _sdk_console,
    "jaeger": _jaeger,
    "monocle": _monocle,
    "okahu": _okahu,
}


def write(label: str, spans: Sequence[ReadableSpan], folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return WRITERS[label](spans, folder)


# ------------------------------------------------------------------------------------------------
# traceassert spans -> SDK ReadableSpans
# ------------------------------------------------------------------------------------------------

_KINDS = {kind.name: kind for kind in SpanKind}
_CODES = {code.name: code for code in StatusCode}


def _context(trace_id: str, span_id: str) -> SpanContext:
    return SpanContext(int(trace_id, 16), int(span_id, 16), is_remote=False, trace_flags=TraceFlags(1))


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return tuple(_plain(v) for v in value)
    return value


def readable_spans(spans: Iterable[ta.Span]) -> list[ReadableSpan]:
    """``spans`` as the SDK's ``ReadableSpan``s (what an exporter receives)."""
    out = []
    for span in spans:
        scope = InstrumentationScope(span.scope_name, span.scope_version) if span.scope_name else None
        out.append(
            ReadableSpan(
                name=span.name,
                context=_context(span.trace_id, span.span_id),
                parent=_context(span.trace_id, span.parent_id) if span.parent_id else None,
                resource=Resource(dict(span.resource)),
                attributes={k: _plain(v) for k, v in span.attributes.items()},
                events=[
                    Event(ev.name, {k: _plain(v) for k, v in ev.attributes.items()}, ev.timestamp_ns)
                    for ev in span.events
                ],
                links=[Link(_context(lk.trace_id, lk.span_id), dict(lk.attributes)) for lk in span.links],
                kind=_KINDS[span.kind],
                status=Status(_CODES[span.status.code], span.status.description),
                start_time=span.start_ns,
                end_time=span.end_ns,
                instrumentation_scope=scope,
            )
        )
    return out


# ------------------------------------------------------------------------------------------------
# A live run's spans, as exporters receive them
# ------------------------------------------------------------------------------------------------


class _Keep(SpanProcessor):
    """Keeps the SDK spans as they end (what an exporter receives), while armed."""

    def __init__(self) -> None:
        self.spans: list[ReadableSpan] | None = None

    def on_end(self, span: ReadableSpan) -> None:
        if self.spans is not None:
            self.spans.append(span)


_KEEP = _Keep()
_KEEPING_ON: set[int] = set()


def capture_sdk_spans(run: Callable[[], _T]) -> tuple[ta.Trace, list[ReadableSpan], _T]:
    """``run()`` under ``ta.capture()``: the capture's trace, the same spans as the SDK hands them to
    exporters (in the order they ended), and what ``run`` returned. The writers write spans only, so the
    capture listens on a logger provider nobody logs to (the logs signal: tests/conformance/
    test_openai_v2_logs.py)."""
    with ta.capture(logger_provider=LoggerProvider()) as cap:
        provider = cap.provider
        assert provider is not None
        if id(provider) not in _KEEPING_ON:  # a processor cannot be removed: one per provider, armed here
            provider.add_span_processor(_KEEP)
            _KEEPING_ON.add(id(provider))
        _KEEP.spans = kept = []
        try:
            result = run()
        finally:
            _KEEP.spans = None
    trace = cap.trace()
    captured = {span.span_id for span in trace.spans}
    spans = [s for s in kept if s.context is not None and f"{s.context.span_id:016x}" in captured]
    assert len(spans) == len(captured), "every captured span reaches the exporters"
    return trace, spans, result


# ------------------------------------------------------------------------------------------------
# The check: a run reads the same from every file
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Carries:
    """What a writer's format keeps of a span."""

    scope: bool = True
    scope_version: bool = True
    kind: bool = True
    resource: bool = True
    nanoseconds: bool = True


#: writer -> what its format keeps of a span
CARRIES: Mapping[str, Carries] = {
    "otlp-dump": Carries(),
    "otlp-protobuf": Carries(),
    "otlp-collector": Carries(),
    "sdk-array": Carries(scope=False, scope_version=False, nanoseconds=False),
    "sdk-lines": Carries(scope=False, scope_version=False, nanoseconds=False),
    "sdk-console": Carries(scope=False, scope_version=False, nanoseconds=False),
    "jaeger": Carries(nanoseconds=False),
    "monocle": Carries(scope=False, scope_version=False, nanoseconds=False),
    "okahu": Carries(scope=False, scope_version=False, kind=False, resource=False, nanoseconds=False),
}


def diff(expected: Any, got: Any, labels: tuple[str, str] = ("live", "from the file")) -> str:
    """A unified diff of two summaries (or any JSON data), at most 80 lines."""
    a = json.dumps(expected, indent=1, sort_keys=True, default=repr).splitlines()
    b = json.dumps(got, indent=1, sort_keys=True, default=repr).splitlines()
    return "\n".join(list(difflib.unified_diff(a, b, *labels, lineterm="", n=2))[:80])


def check_round_trip(
    writer: str,
    summary: dict[str, Any],
    spans: Sequence[ReadableSpan],
    folder: Path,
    *,
    what: str = "the run",
) -> ta.Trace:
    """Write ``spans`` with ``writer``, load the file back: every span is there, the format kept what
    `CARRIES` says, and the summary is ``summary`` exactly. Returns the loaded trace."""
    loaded = ta.load_trace(write(writer, spans, folder))
    assert len(loaded.spans) == len(spans), f"{writer} wrote or read a different number of spans"
    _check_carries(writer, loaded, spans)
    got = loaded.summary()
    assert got == summary, f"{what} through {writer}:\n{diff(summary, got)}"
    return loaded


def _check_carries(writer: str, loaded: ta.Trace, spans: Sequence[ReadableSpan]) -> None:
    """What the writer's format keeps, and what it is known to lose, is as `CARRIES` says."""
    carries = CARRIES[writer]
    by_id = {f"{s.context.span_id:016x}": s for s in spans if s.context is not None}
    for span in loaded.spans:
        sdk = by_id[span.span_id]
        scope = sdk.instrumentation_scope
        assert span.scope_name == (scope.name if carries.scope and scope else None), writer
        # an empty version is no version: OTLP and Jaeger do not write it
        version = scope.version or None if scope is not None else None
        assert span.scope_version == (version if carries.scope_version else None), writer
        if carries.kind:
            assert span.kind == sdk.kind.name, writer
        if carries.resource:
            assert dict(span.resource) == dict(sdk.resource.attributes), writer
        assert sdk.start_time is not None
        if carries.nanoseconds:
            assert span.start_ns == sdk.start_time, writer
        else:  # rounded or cut to the microsecond
            assert abs(span.start_ns - sdk.start_time) < 1000 and span.start_ns % 1000 == 0, writer
