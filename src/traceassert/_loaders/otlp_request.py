"""One OTLP/JSON request body (what an exporter sends to ``/v1/traces`` or ``/v1/logs``), read strictly by
the OTLP JSON converter: what a file loader would read only in part (cut off, invalid UTF-8, lines that
are not JSON) is a ``TraceLoadError`` here, since a sender can be told; an empty request (``{}``) is no
error. A document that is good JSON but holds a bad span is read span by span, so that only the bad
spans are refused (the receiver answers with a partial success)."""

from __future__ import annotations

import json
from typing import Any

from .._errors import TraceLoadError
from .._model.logs import LogRecord
from .._model.span import Span
from . import otlp
from .common import CONVERSION_ERRORS, Context
from .detect import convert_text
from .logs import log_records
from .read import Loss
from .split import Buffer

__all__ = ["JsonRequest", "read_json_request"]


class JsonRequest:
    """The spans and log records of one request, and the spans refused (with the first one's error)."""

    __slots__ = ("first_error", "logs", "refused", "remote_parents", "spans")

    def __init__(
        self,
        spans: list[Span],
        logs: list[LogRecord],
        refused: int = 0,
        first_error: TraceLoadError | None = None,
        remote_parents: set[tuple[str, str]] | None = None,
    ) -> None:
        self.spans = spans
        #: (trace id, span id) of the spans whose flags say their parent is in another process
        self.remote_parents = remote_parents if remote_parents is not None else set()
        self.logs = logs
        self.refused = refused
        self.first_error = first_error


def read_json_request(data: bytes, where: str) -> JsonRequest:
    """The content of an OTLP/JSON request body (already decompressed)."""
    if not data.strip() or data.strip() == b"{}":
        return JsonRequest([], [])
    ctx = Context(where, (otlp.NAME,))
    try:
        convert_text(Buffer(data), ctx, otlp.NAME)
        logs = log_records(ctx) if ctx.logs else []
    except TraceLoadError:
        one_by_one = _span_by_span(data, where)
        if one_by_one is None:
            raise
        return one_by_one
    if ctx.foreign_error is not None and not ctx.spans and not logs:
        raise ctx.foreign_error  # what a file of it would give: not JSON at all
    loss = _loss(ctx)
    if loss is not None:
        raise TraceLoadError(loss, path=where)
    return JsonRequest(ctx.spans, logs, remote_parents=ctx.remote_parents)


def _loss(ctx: Context) -> str | None:
    """Why the body could be read only in part, or None."""
    lost = [w for w in ctx.warnings if isinstance(w, Loss)]
    if lost:
        return lost[0].split(": ", 1)[-1]
    if ctx.cuts:
        return f"the data is cut off at {ctx.cuts[0]}"
    if ctx.broken:
        return f"a record is cut off or corrupted at {ctx.broken[0]}"
    if ctx.dropped:
        return f"{ctx.dropped} span record(s) are marked incomplete"
    if ctx.foreign:
        return f"{ctx.foreign} line(s) are not JSON"
    return None


def _span_by_span(data: bytes, where: str) -> JsonRequest | None:
    """The spans of a well-formed request read one at a time (None: not a well-formed request, or one
    whose log records are wrong: the whole body is refused)."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if doc.__class__ is not dict or doc.get("resourceLogs", doc.get("resource_logs")):
        return None
    items = doc.get("resourceSpans", doc.get("resource_spans"))
    if items.__class__ is not list:
        return None
    spans: list[Span] = []
    refused = 0
    first: TraceLoadError | None = None
    keys: dict[str, str] = {}
    remote: set[tuple[str, str]] = set()
    for i, rs in enumerate(items):
        for j, ss, k, sp in _spans(rs):
            here = f"resourceSpans[{i}].scopeSpans[{j}].spans[{k}]"
            ctx = Context(where, (otlp.NAME,))
            ctx.keys = keys
            one = {"resource": rs.get("resource") if rs.__class__ is dict else None}
            one["scopeSpans"] = [{"scope": ss.get("scope") if ss.__class__ is dict else None, "spans": [sp]}]
            try:
                otlp.convert(None, where, {"resourceSpans": [one]}, ctx)
            except (TraceLoadError, *CONVERSION_ERRORS) as exc:
                refused += 1
                if first is None:
                    text = str(exc).split("]: ", 1)[-1] if isinstance(exc, TraceLoadError) else str(exc)
                    first = TraceLoadError(text.split(" (formats tried", 1)[0], path=where, position=here)
                continue
            spans.extend(ctx.spans)
            remote |= ctx.remote_parents
    return JsonRequest(spans, [], refused, first, remote)


def _spans(rs: Any) -> list[tuple[int, Any, int, Any]]:
    """(scope index, ScopeSpans, span index, span) of a ResourceSpans of any shape (none when it has none)."""
    if rs.__class__ is not dict:
        return [(0, {}, 0, rs)]
    scopes = rs.get("scopeSpans", rs.get("scope_spans"))
    if scopes is None:
        return []
    if scopes.__class__ is not list:
        return [(0, {}, 0, None)]
    out: list[tuple[int, Any, int, Any]] = []
    for j, ss in enumerate(scopes):
        spans = ss.get("spans") if ss.__class__ is dict else ss
        if spans is None:
            continue
        if spans.__class__ is not list:
            out.append((j, ss, 0, spans))
            continue
        out.extend((j, ss, k, sp) for k, sp in enumerate(spans))
    return out
