"""Trace files: load spans from every format people hold, and write OTLP JSON.

Formats (``FORMATS``; ``format=`` also takes the ``ALIASES``):

- ``otlp``: OTLP JSON (ExportTraceServiceRequest / TracesData), one document or JSON Lines (the
  Collector's file exporter), also Tempo's ``{"batches": ...}`` and ``instrumentationLibrarySpans``;
- ``jaeger``: Jaeger's JSON (``{"data": [{"traceID", "spans", "processes"}]}``);
- ``sdk``: ``ReadableSpan.to_json()`` objects: an array (Monocle's files), JSON Lines, or the
  ``ConsoleSpanExporter``'s objects one after another;
- ``okahu``: Monocle spans as Okahu's API returns them (``span_name``, ``entity`` lists);
- ``phoenix``: Arize Phoenix's span JSON (its REST API, or ``get_spans_dataframe()`` saved as JSON).
- ``any-agent``: mozilla-ai any-agent's ``AgentTrace`` dumps (integer ids, a ``parent`` context).
- ``otel-js``: the OpenTelemetry JS SDK's ``ReadableSpan`` objects written with ``JSON.stringify``.

Any of them may be gzip-compressed (found by its magic bytes). Log records in the same files, or in
files of their own, are read too (OTLP ``resourceLogs``, the SDK's ``to_json()`` log dumps: ``logs``) and
join their spans as span events (``_model.logs``). See docs/trace-files.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from .._common.gcpause import gc_paused
from .._common.redact import REDACTED, is_secret_key, redact_spans
from .._errors import TraceLoadError
from .._model.logs import LogRecord, join_logs
from .._model.span import Span
from .common import Context
from .detect import ALIASES, FORMATS, canonical_format, convert_text
from .dump import dump_trace, to_otlp_json
from .logs import log_records
from .read import DEFAULT_MAX_BYTES, Loss, expand_paths, read_bytes
from .split import Buffer

__all__ = [
    "ALIASES",
    "DEFAULT_MAX_BYTES",
    "FORMATS",
    "REDACTED",
    "LoadResult",
    "Loss",
    "detect_format",
    "dump_trace",
    "is_secret_key",
    "load_spans",
    "parse_spans",
    "redact_spans",
    "to_otlp_json",
]

PathArg = str | os.PathLike[str]


@dataclass
class LoadResult:
    """The spans of one or more files, in file order, and what had to be repaired to read them."""

    spans: list[Span] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: the format of each file read, by path
    formats: dict[str, str | None] = field(default_factory=dict)
    #: the log records read (each is also joined to its span in ``spans`` as a span event)
    logs: list[LogRecord] = field(default_factory=list)

    @property
    def partial(self) -> list[str]:
        """The warnings that say data was lost or replaced (``Loss``): a record cut off, a gzip stream
        that ends early, a corrupted line, invalid bytes. Empty when every file was read whole."""
        return [w for w in self.warnings if isinstance(w, Loss)]


def load_spans(
    path_or_paths: PathArg | Iterable[PathArg],
    *,
    format: str | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
) -> LoadResult:
    """The spans of a file, several files, or a directory (``.json``, ``.jsonl``, ``.ndjson``, and those
    gzip-compressed), in file order, with the warnings of what had to be repaired."""
    forced = canonical_format(format)
    result = LoadResult()
    for path in expand_paths(path_or_paths):
        where = str(path)
        notes: list[str] = []
        _parse_into(result, Buffer(read_bytes(path, max_bytes, notes)), where, forced, notes)
    return _join(result)


def parse_spans(
    data: bytes | bytearray | memoryview | str,
    *,
    format: str | None = None,
    name: str = "<data>",
    lines: bool = False,
) -> LoadResult:
    """Like ``load_spans`` for content already in memory (not decompressed: pass the JSON itself).
    ``lines``: the content is JSON Lines (a line range of a JSON Lines file), each line read alone."""
    forced = canonical_format(format)
    result = LoadResult()
    if isinstance(data, bytearray | memoryview):
        data = bytes(data)
    if not isinstance(data, bytes | str):
        raise TraceLoadError(f"expected bytes or str, got {type(data).__name__}", path=name)
    _parse_into(result, Buffer(data), name, forced, [], lines=lines)
    return _join(result)


def _join(result: LoadResult) -> LoadResult:
    """Each log record joined to its span; a file set with log records but no span is an error."""
    if result.logs:
        if not result.spans:
            where = ", ".join(result.formats) or "<data>"
            raise TraceLoadError(
                f"no spans in {where}: it holds {len(result.logs)} log record(s) and no span; load the "
                "trace file with it (the records join their spans)",
                path=where,
            )
        result.spans, notes = join_logs(result.spans, result.logs)
        result.warnings.extend(notes)
    return result


def detect_format(source: PathArg | bytes) -> str:
    """The format of a file (a path) or of content (bytes), as ``load_spans`` would read it.

    Raises ``TraceLoadError`` when it is none of ``FORMATS`` or the content is not readable.
    """
    if isinstance(source, bytes):
        result = parse_spans(source)
    else:
        result = load_spans(source)
    found = [fmt for fmt in result.formats.values() if fmt is not None]
    if not found:
        raise TraceLoadError("no spans: the format cannot be told", formats_tried=FORMATS)
    return found[0]


def _parse_into(
    result: LoadResult, buffer: Buffer, where: str, forced: str | None, notes: list[str], lines: bool = False
) -> None:
    ctx = Context(where, (forced,) if forced else FORMATS, lines=lines)
    ctx.warnings.extend(notes)
    with gc_paused():  # the collector would rescan the growing heap again and again: 3x slower
        fmt = convert_text(buffer, ctx, forced)
    result.formats[where] = fmt
    found_logs = log_records(ctx) if ctx.logs else []
    if ctx.cuts:
        cut = "; ".join(ctx.cuts[:3]) + (f" and {len(ctx.cuts) - 3} more" if len(ctx.cuts) > 3 else "")
        dropped = f"; dropped {ctx.dropped} incomplete span record(s)" if ctx.dropped else ""
        ctx.warnings.append(
            Loss(
                f"{where}: the data is cut off at {cut} (a file still being written, or a crash): "
                f"the rest of the record there is lost; read {len(ctx.spans)} complete span(s){dropped}"
            )
        )
    elif ctx.dropped:
        ctx.warnings.append(Loss(f"{where}: dropped {ctx.dropped} span record(s) marked as incomplete"))
    if ctx.broken:
        at = ", ".join(ctx.broken[:3]) + (f" and {len(ctx.broken) - 3} more" if len(ctx.broken) > 3 else "")
        ctx.warnings.append(
            Loss(
                f"{where}: skipped {len(ctx.broken)} record(s) cut off or corrupted ({at}): "
                "their spans are lost"
            )
        )
    if ctx.order_issues:
        ctx.warnings.append(f"{where}: {ctx.order_issues} span(s) end before they start")
    if ctx.named_ids:
        names = ", ".join(repr(n) for n in list(ctx.named_ids)[:3])
        more = f" and {len(ctx.named_ids) - 3} more" if len(ctx.named_ids) > 3 else ""
        ctx.warnings.append(
            f"{where}: {len(ctx.named_ids)} id(s) are names, not hex ({names}{more}): each stands for one id"
        )
    if not ctx.spans and not found_logs:
        raise ctx.foreign_error if ctx.foreign_error is not None else _no_spans(ctx, where)
    if ctx.foreign:
        ctx.warnings.append(
            f"{where}: skipped {ctx.foreign} line(s) that are not JSON (a program's own output between "
            "the spans ConsoleSpanExporter printed)"
        )
    if ctx.other_signals:
        signals = " and ".join(sorted(ctx.other_signals))
        ctx.warnings.append(f"{where}: ignored the OTLP {signals} in the file: only traces are read")
    result.spans.extend(ctx.spans)
    result.logs.extend(found_logs)
    result.warnings.extend(ctx.warnings)


def _no_spans(ctx: Context, where: str) -> TraceLoadError:
    """A file without spans is an error, never an empty trace that every negative check would pass on."""
    if ctx.other_signals:
        why = f"it holds OTLP {' and '.join(sorted(ctx.other_signals))}, not traces"
    elif ctx.cuts:
        why = f"the data is cut off at {ctx.cuts[0]}, before the first complete span"
    elif ctx.dropped:
        why = f"its {ctx.dropped} span record(s) are all marked incomplete"
    else:
        why = "the file is empty or holds no span records"
    error = TraceLoadError(f"no spans in {where}: {why}")
    error.path = where
    return error
