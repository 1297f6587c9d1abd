"""Immutable span records: the one shape every source (live capture, any file format) is turned into."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan

__all__ = [
    "EMPTY_MAPPING",
    "STATUS_CODES",
    "Span",
    "SpanEvent",
    "SpanLink",
    "Status",
    "freeze_attributes",
]

StatusCode = Literal["UNSET", "OK", "ERROR"]
STATUS_CODES: tuple[str, ...] = ("UNSET", "OK", "ERROR")
SPAN_KINDS: tuple[str, ...] = ("INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER")

EMPTY_MAPPING: Mapping[str, Any] = MappingProxyType({})


def _freeze_value(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_freeze_value(v) for v in value)
    if isinstance(value, dict):
        return MappingProxyType({str(k): _freeze_value(v) for k, v in value.items()})
    return value


def freeze_attributes(attributes: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """A read-only copy of an attribute mapping; lists become tuples."""
    if not attributes:
        return EMPTY_MAPPING
    frozen: dict[str, Any] = {}
    for key, value in attributes.items():
        if isinstance(value, list | tuple | dict):
            value = _freeze_value(value)
        frozen[key] = value
    return MappingProxyType(frozen)


@dataclass(frozen=True, slots=True)
class Status:
    """A span's status: ``code`` is "UNSET", "OK" or "ERROR"."""

    code: str = "UNSET"
    description: str | None = None

    @property
    def is_error(self) -> bool:
        return self.code == "ERROR"


UNSET_STATUS = Status()


@dataclass(frozen=True, slots=True)
class SpanEvent:
    """A timestamped event recorded on a span (for example ``exception``)."""

    name: str
    timestamp_ns: int | None = None
    attributes: Mapping[str, Any] = field(default_factory=lambda: EMPTY_MAPPING)


@dataclass(frozen=True, slots=True)
class SpanLink:
    """A link from a span to another span context."""

    trace_id: str
    span_id: str
    attributes: Mapping[str, Any] = field(default_factory=lambda: EMPTY_MAPPING)


@dataclass(frozen=True, slots=True, eq=False)
class Span:
    """One finished (or still open: ``end_ns is None``) span.

    Ids are lower-case hex: ``trace_id`` 32 characters, ``span_id`` 16. Records compare by identity;
    two spans are the same span when their ``trace_id`` and ``span_id`` are equal.
    """

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    kind: str = "INTERNAL"
    start_ns: int = 0
    end_ns: int | None = None
    status: Status = UNSET_STATUS
    attributes: Mapping[str, Any] = field(default_factory=lambda: EMPTY_MAPPING)
    events: tuple[SpanEvent, ...] = ()
    resource: Mapping[str, Any] = field(default_factory=lambda: EMPTY_MAPPING)
    scope_name: str | None = None
    scope_version: str | None = None
    links: tuple[SpanLink, ...] = ()

    @property
    def duration_s(self) -> float | None:
        """Seconds from start to end; None while the span is open."""
        if self.end_ns is None:
            return None
        return max(0, self.end_ns - self.start_ns) / 1e9

    @property
    def finished(self) -> bool:
        return self.end_ns is not None

    @property
    def key(self) -> tuple[str, str]:
        """``(trace_id, span_id)``: unique for a span across traces."""
        return (self.trace_id, self.span_id)

    def event(self, name: str) -> SpanEvent | None:
        """The first event called ``name``, or None."""
        for ev in self.events:
            if ev.name == name:
                return ev
        return None

    def __repr__(self) -> str:
        state = "" if self.end_ns is not None else ", open"
        return f"Span({self.name!r}, span_id={self.span_id!r}, parent_id={self.parent_id!r}{state})"

    @classmethod
    def from_readable(cls, span: ReadableSpan, *, unfinished_ok: bool = True) -> Span:
        """Convert an OpenTelemetry SDK ``ReadableSpan`` (or a live SDK span)."""
        ctx = span.context
        if ctx is None:  # pragma: no cover - the SDK always sets it
            raise ValueError("span has no context")
        parent = span.parent
        status = span.status
        scope = span.instrumentation_scope
        resource = span.resource
        events = tuple(
            SpanEvent(ev.name, ev.timestamp, freeze_attributes(ev.attributes)) for ev in span.events
        )
        links = tuple(
            SpanLink(
                format(link.context.trace_id, "032x"),
                format(link.context.span_id, "016x"),
                freeze_attributes(link.attributes),
            )
            for link in span.links
        )
        return cls(
            trace_id=format(ctx.trace_id, "032x"),
            span_id=format(ctx.span_id, "016x"),
            parent_id=format(parent.span_id, "016x") if parent is not None and parent.span_id else None,
            name=span.name,
            kind=span.kind.name if span.kind is not None else "INTERNAL",
            start_ns=span.start_time or 0,
            end_ns=span.end_time,
            status=Status(status.status_code.name, status.description or None)
            if status is not None
            else UNSET_STATUS,
            attributes=freeze_attributes(span.attributes),
            events=events,
            resource=freeze_attributes(resource.attributes) if resource is not None else EMPTY_MAPPING,
            scope_name=scope.name if scope is not None else None,
            scope_version=(scope.version or None) if scope is not None else None,
            links=links,
        )


def spans_from(source: Iterable[Any]) -> list[Span]:
    """Accept traceassert ``Span``s and SDK ``ReadableSpan``s alike."""
    out: list[Span] = []
    for item in source:
        if isinstance(item, Span):
            out.append(item)
        elif hasattr(item, "context") and hasattr(item, "instrumentation_scope"):
            out.append(Span.from_readable(item))
        else:
            raise TypeError(f"expected a traceassert.Span or an OpenTelemetry ReadableSpan, got {item!r}")
    return out
