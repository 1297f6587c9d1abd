"""SpanTree: spans in start order, indexed by id, with the parent/children index and attribute indexes.

The plain structure every later stage reads (dialects, reconstruction, checks). It knows nothing of
agents or tools: ``traceassert.Trace`` is the facade that adds the reconstructed records.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from operator import attrgetter
from typing import Any

from .._common.gcpause import gc_paused
from .eventindex import EventPositions, with_event
from .repair import Key, break_cycles, children_of, cycle_through, without_duplicates
from .span import Span, spans_from
from .values import KeyPositions, indexable_tuple, scan_equal, value_table

__all__ = ["SpanTree"]


class SpanTree:
    """Spans (in start order) indexed by id, with parents, children and reconstructed records.

    It may hold several trace ids. Bad structure is repaired, never fatal, and every repair is
    listed in ``warnings``: a span whose parent is not in the trace becomes a root (``orphans``), a
    cycle in parent ids is broken at its earliest span, and of two spans with the same id the first
    is kept.
    """

    __slots__ = (
        "_attr_index",
        "_attr_maps",
        "_by_id",
        "_by_key",
        "_children",
        "_event_index",
        "_event_queries",
        "_parent",
        "_pos",
        "_scanned",
        "_signatures",
        "_value_index",
        "orphans",
        "roots",
        "source",
        "spans",
        "warnings",
    )

    def __init__(
        self, spans: Iterable[Any] = (), *, warnings: Iterable[str] = (), source: str | None = None
    ) -> None:
        with gc_paused():
            self._build(spans, warnings, source)

    def _build(self, spans: Iterable[Any], warnings: Iterable[str], source: str | None) -> None:
        notes = list(warnings)
        kept = spans_from(spans)
        # (trace id, span id) -> span, made in one pass in C; only when ids repeat (fewer keys than
        # spans) does `without_duplicates` find them, name them and keep the first of each
        by_key: dict[Key, Span] = dict(zip(map(_trace_and_span_id, kept), kept, strict=True))
        if len(by_key) != len(kept):
            kept, by_key = without_duplicates(kept, notes)
        kept.sort(key=_start_ns)
        self.spans: tuple[Span, ...] = tuple(kept)
        # every span's attributes, in order, taken while the spans are at hand: a first lookup of a
        # value reads the spans that carry its key from here, without visiting each span again
        self._attr_maps: list[Mapping[str, Any]] = list(map(_attributes, kept))
        self.source = source
        self._by_key = by_key
        # internal maps are keyed by id(span): the tree keeps its spans alive, so ids are stable
        pos = self._pos = dict(zip(map(id, kept), range(len(kept)), strict=True))
        #: span id -> the first span (in start order) with it, whatever its trace: made by the first `get`
        self._by_id: dict[str, Span] | None = None

        parent: dict[int, Span] = {}
        children: dict[int, list[Span]] = {}
        roots: list[Span] = []
        orphans: list[Span] = []
        selfish: list[Span] = []
        forward: list[Span] = []  # spans whose parent comes after them in start order
        for i, span in enumerate(kept):
            parent_id = span.parent_id
            if parent_id is None:
                roots.append(span)
                continue
            p = by_key.get((span.trace_id, parent_id))
            if p is None or p is span:
                orphans.append(span)
                roots.append(span)
                if p is span:
                    selfish.append(span)
                continue
            key = id(p)
            parent[id(span)] = p
            lst = children.get(key)
            if lst is None:
                children[key] = [span]
            else:
                lst.append(span)
            if pos[key] > i:
                forward.append(span)
        self._parent = parent
        # parents can form a cycle only through a span whose parent comes after it (along parents that
        # come first, positions only fall): when none of those leads back to itself, `_break_cycles`
        # (the general walk over every span) would find nothing
        if forward and cycle_through(parent, forward):
            break_cycles(kept, parent, pos, notes)
            children, roots = children_of(kept, parent)
        if selfish:
            names = ", ".join(repr(s.name) for s in selfish[:5])
            more = f" and {len(selfish) - 5} more" if len(selfish) > 5 else ""
            notes.append(
                f"span {names} is its own parent (its parent id is its own span id): made a root"
                if len(selfish) == 1
                else f"{len(selfish)} spans are each its own parent (parent id = span id), made roots: "
                f"{names}{more}"
            )
        missing = [s for s in orphans if s.parent_id != s.span_id] if selfish else orphans
        if missing:
            names = ", ".join(repr(s.name) for s in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            notes.append(
                f"{len(missing)} span(s) name a parent that is not in the trace and were made roots: "
                f"{names}{more}"
            )
        self.orphans: tuple[Span, ...] = tuple(orphans)
        self._children = children
        self.roots: tuple[Span, ...] = tuple(roots)
        self.warnings: tuple[str, ...] = tuple(notes)
        self._attr_index: KeyPositions | None = None
        self._signatures: dict[tuple[str, ...], list[int]] | None = None
        #: the keys looked up once by a scan (the second lookup builds the key's value table)
        self._scanned: set[str] = set()
        self._value_index: dict[str, dict[Any, list[int]] | None] = {}
        self._event_index: EventPositions | None = None
        self._event_queries: dict[tuple[Any, ...], list[int]] = {}

    # -- lookups -----------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.spans)

    def __iter__(self) -> Iterator[Span]:
        return iter(self.spans)

    def __repr__(self) -> str:
        ids = {s.trace_id for s in self.spans}
        return f"{type(self).__name__}({len(self.spans)} spans, {len(ids)} trace id(s))"

    @property
    def trace_ids(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for s in self.spans:
            seen.setdefault(s.trace_id, None)
        return tuple(seen)

    def get(self, span_id: str, trace_id: str | None = None) -> Span | None:
        """The span with this id (hex, any case, with or without ``0x``), or None."""
        sid = span_id.lower().removeprefix("0x")
        if trace_id is not None:
            return self._by_key.get((trace_id.lower().removeprefix("0x"), sid))
        by_id = self._by_id
        if by_id is None:  # made from the last span to the first: the first span of an id is kept
            spans = self.spans
            by_id = self._by_id = dict(zip(map(_span_id, reversed(spans)), reversed(spans), strict=True))
        return by_id.get(sid)

    def parent(self, span: Span) -> Span | None:
        return self._parent.get(id(self._own(span)))

    def children(self, span: Span) -> tuple[Span, ...]:
        return tuple(self._children.get(id(self._own(span)), ()))

    def _own(self, span: Span) -> Span:
        """This trace's span object for ``span`` (an equal span from elsewhere maps to ours)."""
        if id(span) in self._pos:
            return span
        return self._by_key.get((span.trace_id, span.span_id), span)

    def descendants(self, span: Span) -> tuple[Span, ...]:
        """Every span below ``span``, depth first, children in start order."""
        out: list[Span] = []
        children = self._children
        stack = list(reversed(children.get(id(self._own(span)), ())))
        while stack:
            s = stack.pop()
            out.append(s)
            kids = children.get(id(s))
            if kids:
                stack.extend(reversed(kids))
        return tuple(out)

    def ancestors(self, span: Span) -> Iterator[Span]:
        """The parent, its parent, ... up to the root."""
        p = self.parent(span)
        while p is not None:
            yield p
            p = self.parent(p)

    def _position_of(self, span: Span) -> int:
        """The index of ``span`` in ``spans`` (start order)."""
        return self._pos[id(self._own(span))]

    def contains(self, span: Span) -> bool:
        """True when ``span`` is this trace's own span object."""
        return id(span) in self._pos

    @property
    def unfinished(self) -> tuple[Span, ...]:
        """Spans that had not ended when the trace was read."""
        return tuple(s for s in self.spans if s.end_ns is None)

    def adopt_signatures(self, signatures: dict[tuple[str, ...], list[int]]) -> None:
        """Take the positions of the spans of each set of attribute keys (``tuple(span.attributes)``),
        found by a walk that reads every span anyway (the reconstruction's): the attribute index is
        made of them."""
        if self._signatures is None:
            self._signatures = signatures

    def _signature_positions(self) -> dict[tuple[str, ...], list[int]]:
        """Attribute key set -> positions of the spans that have exactly those keys (in key order)."""
        signatures = self._signatures
        if signatures is None:
            signatures = {}
            for i, span in enumerate(self.spans):
                keys = tuple(span.attributes)
                positions = signatures.get(keys)
                if positions is None:
                    signatures[keys] = [i]
                else:
                    positions.append(i)
            self._signatures = signatures
        return signatures

    def _attribute_positions(self) -> Mapping[str, list[int]]:
        """Attribute key -> positions of the spans that carry it (``values.KeyPositions``: each key's
        made when first asked for, from the spans of each key set; the value index of
        ``_value_positions`` is built per key, when a value of that key is first looked up)."""
        index = self._attr_index
        if index is None:
            index = self._attr_index = KeyPositions(self._signature_positions(), len(self.spans))
        return index

    def _value_table(self, key: str, positions: list[int]) -> dict[Any, list[int]] | None:
        """``(type, value)`` -> positions for the spans carrying ``key`` (built once per key); None when
        a value cannot be indexed (too long, unhashable, another type): that key is looked up by a scan."""
        if key in self._value_index:
            return self._value_index[key]
        result = self._value_index[key] = value_table(self.spans, key, positions)
        return result

    def _event_lists(self) -> Mapping[str, list[int]]:
        """Event name -> positions of the spans with at least one event of that name (each name's made
        on its first lookup, see ``eventindex.EventPositions``)."""
        if self._event_index is None:
            self._event_index = EventPositions(self.spans)
        return self._event_index

    def _with_event(self, positions: list[int], name: str) -> list[int]:
        """The positions (of ``positions``, in order) of the spans with an event called ``name``, by a
        pass in C over those spans' events only (see ``eventindex.with_event``)."""
        return with_event(self.spans, positions, name)

    def _value_positions_with_event(self, key: str, value: Any, event: str) -> list[int] | None:
        """``_value_positions(key, value)`` narrowed to the spans with an event named ``event``; kept for the
        next call with the same arguments (a check repeated on one trace). Do not modify the list."""
        found = self._value_positions(key, value)
        if found is None:
            return None
        query = (key, type(value), tuple(value) if isinstance(value, list) else value, event)
        narrowed = self._event_queries.get(query)
        if narrowed is None:
            narrowed = self._with_event(found, event)
            if len(self._event_queries) >= 64:
                self._event_queries.clear()
            self._event_queries[query] = narrowed
        return narrowed

    def _scan(self, key: str, positions: list[int], value: Any) -> list[int] | None:
        """``_value_positions(key, value)`` by one pass in C (see ``values.scan_equal``)."""
        return scan_equal(self._attr_maps, key, positions, value)

    def _value_positions(self, key: str, value: Any) -> list[int] | None:
        """Positions of the spans whose attribute ``key`` equals ``value`` as ``where`` compares them
        (``values_equal``); None when the index cannot answer (a value not exactly a str, an int or a
        tuple of those and finite floats: a matcher, a float, a bool, a subclass such as an enum; or a
        key with long or unhashable values): the caller compares span by span."""
        if isinstance(value, list):
            value = tuple(value)
        tv = type(value)
        if tv is not str and tv is not int and (tv is not tuple or not indexable_tuple(value)):
            return None
        try:
            hash(value)
        except TypeError:
            return None
        positions = self._attribute_positions().get(key)
        if positions is None:
            return []
        if key not in self._value_index and key not in self._scanned:
            self._scanned.add(key)
            found = self._scan(key, positions, value)
            if found is not None:  # a first lookup: answered by a scan in C, no table made
                return found
        table = self._value_table(key, positions)
        if table is None:
            return None
        found = table.get((tv, value), [])
        if tv is int:  # 3 also matches a recorded 3.0 (a float equal to it exactly)
            try:
                as_float = float(value)
            except OverflowError:
                return found
            also = table.get((float, as_float)) if as_float == value else None
            if also:
                found = sorted(found + also)
        return found


_start_ns = attrgetter("start_ns")
_span_id = attrgetter("span_id")
_trace_and_span_id = attrgetter("trace_id", "span_id")
_attributes = attrgetter("attributes")
