"""What a receiver holds: the spans and log records of each trace id, built into ``Span`` objects when a
test reads them, and a note of every request (for the words of a failure: did anything come, by which
protocol, was it refused and why). Safe to use from the server threads and the test at once."""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field

from .._model.logs import LogRecord
from .._model.span import Span
from .decode import Batch, Decoded
from .limits import Limits
from .proto_index import ProtoBatch, build, label_of

__all__ = ["RequestNote", "State", "Store", "TraceView"]

#: the requests remembered one by one (all are counted)
_NOTES_KEPT = 200


@dataclass(frozen=True, slots=True)
class RequestNote:
    """One request: how it came, what it carried, how it was answered."""

    transport: str  # "http" or "grpc"
    protocol: str  # "http/protobuf", "http/json", "grpc", or what the request was (a GET, HTTP/2 ...)
    path: str
    status: int  # the HTTP status the answer had (gRPC: 200 for OK, 400 / 413 for its errors)
    accepted: int = 0
    refused: int = 0
    reason: str | None = None
    user_agent: str | None = None
    at: float = field(default_factory=time.monotonic)


@dataclass(frozen=True, slots=True)
class State:
    """A trace's state at one moment: spans arrived, whether its root did, and since when nothing came."""

    count: int
    logs: int
    rooted: bool
    last_at: float | None
    #: requests taken so far (all trace ids): the waiter's clock for "did anything come"
    requests: int


@dataclass(frozen=True, slots=True)
class TraceView:
    spans: tuple[Span, ...]
    logs: tuple[LogRecord, ...]
    state: State
    #: why spans that came were refused when they were built (a value nested too deep)
    notes: tuple[str, ...] = ()


class _Entry:
    __slots__ = ("count", "first_at", "label", "last_at", "logs", "notes", "pending", "rooted", "spans")

    def __init__(self, now: float) -> None:
        #: protobuf spans not built yet
        self.pending: list[ProtoBatch] = []
        self.spans: list[Span] = []
        self.logs: list[LogRecord] = []
        #: why spans that came were refused when they were built
        self.notes: list[str] = []
        self.count = 0
        self.rooted = False
        self.first_at = self.last_at = now
        #: the first batch, for the first span's name and service (made when asked: `others`), or them
        self.label: Batch | ProtoBatch | tuple[str | None, str | None] | None = None

    def label_text(self) -> tuple[str | None, str | None]:
        label = self.label
        if label is None:
            return None, None
        if isinstance(label, tuple):
            return label
        self.label = label_of(label) if isinstance(label, ProtoBatch) else label.label()
        return self.label  # kept as text: a batch would keep its whole request alive


class Store:
    """Spans by trace id, log records, and the notes of the requests."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.changed = threading.Condition()
        self._traces: dict[str, _Entry] = {}
        self._loose_logs = 0
        self._spans = 0
        self._notes: deque[RequestNote] = deque(maxlen=_NOTES_KEPT)
        self._counts: Counter[tuple[str, str, int]] = Counter()
        self._requests = 0
        self._keys: dict[str, str] = {}
        #: spans are built by one reader at a time (each once)
        self._build = threading.Lock()

    # -- taking --------------------------------------------------------------------------------------

    def add(self, decoded: Decoded) -> tuple[int, int, str | None]:
        """Keep what a request carried: (accepted, refused, why some were refused). Spans past
        ``max_spans`` are refused whole trace by trace (a partial success), never dropped unsaid."""
        refused = decoded.refused
        reason = str(decoded.error) if decoded.error is not None else None
        accepted = 0
        now = time.monotonic()
        batches: list[tuple[str, Batch | ProtoBatch, int]] = [
            (t, b, b.count) for t, b in decoded.batches.items()
        ]
        batches += [(t.hex(), p, len(p.positions)) for t, p in decoded.proto.items()]
        traces = self._traces
        with self.changed:
            limit = self.limits.max_spans - self._spans
            for trace_id, batch, count in batches:
                if count > limit:
                    refused += count
                    reason = reason or (
                        f"the receiver holds its limit of {self.limits.max_spans} spans (max_spans)"
                    )
                    continue
                limit -= count
                entry = traces.get(trace_id)
                if entry is None:
                    entry = traces[trace_id] = _Entry(now)
                if entry.label is None and count:
                    entry.label = batch
                if isinstance(batch, ProtoBatch):
                    entry.pending.append(batch)
                else:
                    entry.spans.extend(batch.spans)
                entry.count += count
                entry.rooted = entry.rooted or batch.rooted
                entry.last_at = now
                accepted += count
            self._spans = self.limits.max_spans - limit
            for record in decoded.logs:
                if record.trace_id is None:
                    self._loose_logs += 1
                    continue
                entry = traces.get(record.trace_id)
                if entry is None:
                    entry = traces[record.trace_id] = _Entry(now)
                entry.logs.append(record)
                entry.last_at = now
            accepted += len(decoded.logs)
            self.changed.notify_all()
        return accepted, refused, reason

    def note(self, note: RequestNote) -> None:
        with self.changed:
            self._notes.append(note)
            self._counts[(note.protocol, note.path, note.status)] += 1
            self._requests += 1
            self.changed.notify_all()

    # -- reading -------------------------------------------------------------------------------------

    def state(self, trace_id: str) -> State:
        with self.changed:
            return self._state_locked(trace_id)

    def _state_locked(self, trace_id: str) -> State:
        entry = self._traces.get(trace_id)
        if entry is None:
            return State(0, 0, False, None, self._requests)
        return State(entry.count, len(entry.logs), entry.rooted, entry.last_at, self._requests)

    def wait_change(self, trace_id: str, seen: State, timeout: float) -> State:
        """The trace's state once something changed since ``seen`` (a request came), or after ``timeout``."""
        with self.changed:
            current = self._state_locked(trace_id)
            if current == seen and timeout > 0:
                self.changed.wait(timeout)
                current = self._state_locked(trace_id)
            return current

    def view(self, trace_id: str) -> TraceView:
        """The spans (in arrival order) and log records of a trace, built now where still pending."""
        with self.changed:
            entry = self._traces.get(trace_id)
            if entry is None:
                return TraceView((), (), self._state_locked(trace_id))
        with self._build:
            with self.changed:
                pending, entry.pending = entry.pending, []
            built, notes = build(pending, self._keys)
            with self.changed:
                entry.spans.extend(built)  # each span is built once (under the build lock)
                entry.label_text()
                entry.notes.extend(notes)
                state = self._state_locked(trace_id)
                return TraceView(tuple(entry.spans), tuple(entry.logs), state, tuple(entry.notes))

    def others(
        self, trace_id: str, limit: int = 5
    ) -> tuple[int, list[tuple[str, int, str | None, str | None]]]:
        """The traces other than ``trace_id`` that spans arrived for: how many, and the last ``limit`` of
        them as (trace id, spans, first span's name, its service)."""
        with self.changed:
            found = [(t, e) for t, e in self._traces.items() if t != trace_id and e.count]
            found.sort(key=lambda item: item[1].last_at)
            shown = [(t, e.count, *e.label_text()) for t, e in found[-limit:]]
            return len(found), shown

    def trace_ids(self) -> list[str]:
        """Every trace id something arrived for, first arrival first."""
        with self.changed:
            return sorted(self._traces, key=lambda t: self._traces[t].first_at)

    def counts(self) -> dict[str, int]:
        """Totals: spans held, traces, requests, log records with no trace id."""
        with self.changed:
            return {
                "spans": self._spans,
                "traces": len(self._traces),
                "requests": self._requests,
                "loose_logs": self._loose_logs,
            }

    def notes(self) -> tuple[list[RequestNote], dict[tuple[str, str, int], int]]:
        """The last requests, one by one, and the count of every (protocol, path, status)."""
        with self.changed:
            return list(self._notes), dict(self._counts)
