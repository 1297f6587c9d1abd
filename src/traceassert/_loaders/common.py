"""Shared pieces of the file loaders: the per-file context and span construction (ids and timestamps:
``ids``, re-exported here)."""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from .._errors import TraceLoadError
from .._model.span import EMPTY_MAPPING, Span, SpanEvent, SpanLink, Status
from .ids import MadeIds, hex_id, iso_to_ns, named_id, parent_id

__all__ = [
    "CONVERSION_ERRORS",
    "MAX_VALUE_DEPTH",
    "OTHER_SIGNALS",
    "TRUNCATED",
    "Context",
    "freeze_json",
    "freeze_shared",
    "hex_id",
    "iso_to_ns",
    "make_span",
    "named_id",
    "parent_id",
    "parent_is_remote",
    "status_of",
    "whole_span_record",
]

#: Key the truncation repair adds to every JSON object it had to close (see ``_repair``). Converters
#: drop the span records that carry it.
TRUNCATED = "\x00truncated"

#: OTLP documents of the other signals, which a trace file may also carry (the Collector's file exporter
#: writes every pipeline's requests): key -> what it is
OTHER_SIGNALS = {
    "resourceLogs": "logs (resourceLogs)",
    "resource_logs": "logs (resourceLogs)",
    "resourceMetrics": "metrics (resourceMetrics)",
    "resource_metrics": "metrics (resourceMetrics)",
    "resourceProfiles": "profiles (resourceProfiles)",
    "resource_profiles": "profiles (resourceProfiles)",
}

_LOGS = OTHER_SIGNALS["resourceLogs"]

#: Attribute values nested deeper than this (arrays in arrays, kvlists in kvlists) are refused.
MAX_VALUE_DEPTH = 64

#: What a converter may raise on a record of the wrong shape; turned into a TraceLoadError with its place.
CONVERSION_ERRORS = (
    KeyError,
    TypeError,
    ValueError,
    AttributeError,
    IndexError,
    OverflowError,
    RecursionError,
)

_STATUS_CACHE = {code: Status(code, None) for code in ("UNSET", "OK", "ERROR")}


class Context:
    """One file being read: where it is, the spans made so far, and what had to be repaired."""

    __slots__ = (
        "broken",
        "cuts",
        "dropped",
        "foreign",
        "foreign_error",
        "keys",
        "lines",
        "logs",
        "made_ids",
        "named_ids",
        "order_issues",
        "other_signals",
        "path",
        "remote_parents",
        "resources",
        "spans",
        "trace_ids",
        "tried",
        "warnings",
    )

    def __init__(self, path: str, tried: tuple[str, ...] = (), *, lines: bool = False) -> None:
        self.path = path
        #: the text is JSON Lines (a line range of a JSON Lines file): each line is read alone, even
        #: when the first one is not whole
        self.lines = lines
        self.spans: list[Span] = []
        self.warnings: list[str] = []
        #: span records left out because the file ended inside them
        self.dropped = 0
        #: positions where the text was found cut off (usually one: the end of the file)
        self.cuts: list[str] = []
        #: spans whose end is before their start
        self.order_issues = 0
        #: (trace id, span id) of the spans whose OTLP flags say their parent is in another process
        self.remote_parents: set[tuple[str, str]] = set()
        #: attribute keys seen, so that repeated keys share one string
        self.keys: dict[str, str] = {}
        #: trace ids as written -> as hex
        self.trace_ids: dict[Any, str] = {}
        self.tried = tried
        #: lines between the records that are not JSON (a program's own output around the
        #: ConsoleSpanExporter's), skipped; and the error the first of them gave
        self.foreign = 0
        self.foreign_error: TraceLoadError | None = None
        #: of the lines skipped, those that start like a record (``{`` or ``[``) and are not whole JSON:
        #: records cut off or corrupted, whose spans are lost
        self.broken: list[str] = []
        #: OTLP signals other than traces and logs found in the file (``resourceMetrics``, ...), ignored
        self.other_signals: set[str] = set()
        #: the log records found, as found: ``(where, "otlp", resourceLogs array)`` or ``(where, "sdk",
        #: a ReadableLogRecord.to_json() object)``; read by ``logs.log_records``
        self.logs: list[tuple[str, str, Any]] = []
        #: ids written as names, not hex (``"live-trace-1"``: hand-written fixtures) -> the hex id made
        self.named_ids: dict[str, str] = {}
        #: the ids of span-dict files (SDK, Monocle, ...) as written -> as ``named_id`` makes them, each
        #: made once (many spans share a trace id; a span's id comes back as its children's parent id)
        self.made_ids = MadeIds(self.named_ids)
        #: resource attributes of span-dict files, each distinct one frozen once (``freeze_shared``)
        self.resources: dict[Any, tuple[Mapping[str, Any], Any]] = {}

    def note_other_signals(self, value: Mapping[str, Any]) -> bool:
        """Note the logs, metrics or profiles an OTLP document carries (the logs are kept for
        ``logs.log_records``); True if it carries any."""
        found = [key for key in OTHER_SIGNALS if key in value]
        for key in found:
            if OTHER_SIGNALS[key] == _LOGS:
                self.logs.append((f"{key}", "otlp", value[key]))
            else:
                self.other_signals.add(OTHER_SIGNALS[key])
        return bool(found)

    def error(self, message: str, position: str | None = None) -> TraceLoadError:
        return TraceLoadError(message, path=self.path, position=position, formats_tried=self.tried)

    def bad_record(self, where: str, exc: BaseException) -> TraceLoadError:
        """The error for a record that has the wrong shape."""
        if isinstance(exc, KeyError):
            text = f"missing field {exc.args[0]!r}" if exc.args else "missing field"
        elif isinstance(exc, RecursionError):
            text = "value nested too deeply"
        else:  # a converter's message may quote the value it could not read: redacted as any value shown
            from .._common.redact import shown  # the error path only: not at import

            text = str(shown(str(exc))) or type(exc).__name__
        return self.error(f"invalid record: {text}", where)

    def add(self, span: Span) -> None:
        end = span.end_ns
        if end is not None and end < span.start_ns:
            self.order_issues += 1
        self.spans.append(span)


#: OTLP ``Span.flags``: whether the parent is remote is known (bit 8), and it is (bit 9)
_PARENT_IS_REMOTE = 0x300


def parent_is_remote(flags: Any) -> bool:
    """Whether an OTLP span's ``flags`` (a number, or its text) say its parent is in another process."""
    if flags.__class__ is str:
        flags = int(flags) if flags.isdigit() else 0
    return flags.__class__ is int and flags & _PARENT_IS_REMOTE == _PARENT_IS_REMOTE


def whole_span_record(value: Any, ctx: Context) -> bool:
    """Whether ``value`` is a span object to convert: False for one the end of the file cut through
    (counted in ``ctx.dropped``); a value that is not an object is an error."""
    if value.__class__ is not dict:
        raise TypeError(f"expected a span object, got {type(value).__name__}")
    if TRUNCATED in value:
        ctx.dropped += 1
        return False
    return True


def freeze_json(value: Any, depth: int = 0) -> Any:
    """A plain JSON value made immutable: lists become tuples, objects read-only mappings."""
    cls = value.__class__
    if cls is list:
        if depth >= MAX_VALUE_DEPTH:
            raise ValueError(f"attribute value nested deeper than {MAX_VALUE_DEPTH} levels")
        return tuple([freeze_json(v, depth + 1) for v in value])
    if cls is dict:
        if depth >= MAX_VALUE_DEPTH:
            raise ValueError(f"attribute value nested deeper than {MAX_VALUE_DEPTH} levels")
        return types.MappingProxyType({str(k): freeze_json(v, depth + 1) for k, v in value.items()})
    return value


def freeze_attributes_json(value: Any, keys: dict[str, str]) -> Mapping[str, Any]:
    """A JSON object of attributes (SDK, Monocle, Okahu files) as a read-only mapping."""
    if not value:
        return EMPTY_MAPPING
    if value.__class__ is not dict:
        raise TypeError(f"attributes must be an object, got {type(value).__name__}")
    out: dict[str, Any] = {}
    intern = keys.setdefault
    for key, item in value.items():
        cls = item.__class__
        if cls is list or cls is dict:
            item = freeze_json(item, 1)
        out[intern(key, key)] = item
    return types.MappingProxyType(out)


#: value types equal only to their own kind and value, but for int and bool (1 == True): a mapping of
#: them is shared by every object of equal items and value types (1.0 == 1 and 0.0 == -0.0 would not be)
_EXACT_TYPES = frozenset((str, int, bool, type(None)))


def freeze_shared(
    value: Any, keys: dict[str, str], made: dict[Any, tuple[Mapping[str, Any], Any]]
) -> Mapping[str, Any]:
    """``freeze_attributes_json(value, keys)``, one read-only mapping for every equal object of strings,
    ints, bools and nulls (a resource: every span of a process carries the same). ``made`` keeps each
    by its items in order, with the types of its values unless they are all strings (a string equals
    only a string)."""
    if value.__class__ is dict and value:
        try:
            key = tuple(value.items())
            hit = made.get(key)
        except TypeError:  # a list or an object among the values
            return freeze_attributes_json(value, keys)
        if hit is not None:
            frozen, kinds = hit
            if kinds is None or kinds == tuple(map(type, value.values())):
                return frozen
            return freeze_attributes_json(value, keys)  # True where the one kept has 1
        frozen = freeze_attributes_json(value, keys)
        kinds = tuple(map(type, value.values()))
        if _EXACT_TYPES.issuperset(kinds):
            if len(made) >= 10_000:
                made.clear()
            made[key] = (frozen, None if all(kind is str for kind in kinds) else kinds)
        return frozen
    return freeze_attributes_json(value, keys)


def status_of(code: str, description: Any) -> Status:
    """A Status, shared when it has no description."""
    if description is None or description == "":
        return _STATUS_CACHE[code]
    if description.__class__ is not str:
        raise TypeError(f"status description must be a string, got {type(description).__name__}")
    return Status(code, description)


def event(name: Any, timestamp_ns: int | None, attributes: Mapping[str, Any]) -> SpanEvent:
    if name.__class__ is not str:
        raise TypeError(f"event name must be a string, got {type(name).__name__}")
    if _FAST_EVENT:  # SpanEvent(name, timestamp_ns, attributes), filled in as a blank (see _Blank)
        ev: Any = _BlankEvent()
        ev.name = name
        ev.timestamp_ns = timestamp_ns
        ev.attributes = attributes
        ev.__class__ = SpanEvent
        return ev  # type: ignore[no-any-return]
    return SpanEvent(name, timestamp_ns, attributes)


def link(trace_id: str, span_id: str, attributes: Mapping[str, Any]) -> SpanLink:
    return SpanLink(trace_id, span_id, attributes)


_FIELDS = (
    "trace_id",
    "span_id",
    "parent_id",
    "name",
    "kind",
    "start_ns",
    "end_ns",
    "status",
    "attributes",
    "events",
    "resource",
    "scope_name",
    "scope_version",
    "links",
)


# A frozen dataclass's __init__ goes through object.__setattr__ once per field, which matters at
# 100,000 spans. ``_Blank`` has Span's slots in the same order and no frozen ``__setattr__``: a span is
# filled in as a ``_Blank`` (plain slot writes) and then given its class, about 3x cheaper. Used only
# while Span is slotted with exactly these fields and CPython accepts the class change (checked here);
# otherwise the constructor is called.
class _Blank:
    __slots__ = _FIELDS


_EVENT_FIELDS = ("name", "timestamp_ns", "attributes")


class _BlankEvent:
    __slots__ = _EVENT_FIELDS


def _can_retype(cls: type, blank: type, names: tuple[str, ...]) -> bool:
    if tuple(f.name for f in fields(cls)) != names or getattr(cls, "__slots__", None) != names:
        return False
    try:
        blank().__class__ = cls
    except TypeError:  # pragma: no cover - another layout
        return False
    return True


_FAST = _can_retype(Span, _Blank, _FIELDS)
_FAST_EVENT = _can_retype(SpanEvent, _BlankEvent, _EVENT_FIELDS)


def make_span(
    trace_id: str,
    span_id: str,
    parent: str | None,
    name: str,
    kind: str,
    start_ns: int,
    end_ns: int | None,
    status: Status,
    attributes: Mapping[str, Any],
    events: tuple[SpanEvent, ...],
    resource: Mapping[str, Any],
    scope_name: str | None,
    scope_version: str | None,
    links: tuple[SpanLink, ...],
) -> Span:
    """Build a Span from already validated values."""
    if name.__class__ is not str:
        raise TypeError(f"span name must be a string, got {type(name).__name__}")
    if _FAST:
        span: Any = _Blank()
        span.trace_id = trace_id
        span.span_id = span_id
        span.parent_id = parent
        span.name = name
        span.kind = kind
        span.start_ns = start_ns
        span.end_ns = end_ns
        span.status = status
        span.attributes = attributes
        span.events = events
        span.resource = resource
        span.scope_name = scope_name
        span.scope_version = scope_version
        span.links = links
        span.__class__ = Span
        return span  # type: ignore[no-any-return]
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=parent,
        name=name,
        kind=kind,
        start_ns=start_ns,
        end_ns=end_ns,
        status=status,
        attributes=attributes,
        events=events,
        resource=resource,
        scope_name=scope_name,
        scope_version=scope_version,
        links=links,
    )


def position_of(text: str, pos: int) -> str:
    """``line L, column C`` of a character offset."""
    pos = max(0, min(pos, len(text)))
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {column}"
