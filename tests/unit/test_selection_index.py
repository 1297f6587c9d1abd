"""Span selection by attribute value and event name: what a first lookup reads, and that every lookup
(the first, a scan; later ones, the key's value table) finds what ``where`` compares span by span
(``values_equal``).

A first ``where(attribute={key: value})`` after the build reads the value of ``key`` once on each span
that carries the key and nothing else (no other span, no other key, no walk over every span's
attributes); an ``event=`` beside it (or an event check on a narrowed selection) reads the events of
the spans the attribute kept, not every span's. Counted on recorded traces whose attribute mappings
and event tuples count their reads.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from traceassert._checks.matching import values_equal
from traceassert._checks.monocle.spans import _matches
from traceassert._checks.selection import selection_of

DATA = Path(__file__).resolve().parents[1] / "data"


class CountedAttributes(Mapping[str, Any]):
    """Attributes that count the values read from them and the walks over their keys."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self.data = dict(values)
        self.reads: list[str] = []
        self.walks = 0

    def __getitem__(self, key: str) -> Any:
        self.reads.append(key)
        return self.data[key]

    def __iter__(self) -> Iterator[str]:
        self.walks += 1
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


class CountedEvents(tuple):  # type: ignore[type-arg]
    """A span's events that count the passes over them."""

    passes = 0

    def __iter__(self) -> Iterator[Any]:
        self.passes += 1
        return super().__iter__()

    def __len__(self) -> int:
        self.passes += 1
        return super().__len__()


def _raw(span: ta.Span) -> dict[str, Any]:
    """A counted span's attributes, read without counting."""
    attrs = span.attributes
    assert isinstance(attrs, CountedAttributes)
    return attrs.data


def _counted(name: str) -> tuple[ta.Trace, list[CountedAttributes], list[CountedEvents]]:
    spans = [
        dataclasses.replace(s, attributes=CountedAttributes(s.attributes), events=CountedEvents(s.events))
        for s in ta.load_trace(DATA / name).spans
    ]
    trace = ta.Trace(spans)
    assert trace.tool_executions or trace.model_calls  # the build (the one walk) is done
    attrs = [a for s in trace.spans if isinstance(a := s.attributes, CountedAttributes)]
    events = [e for s in trace.spans if isinstance(e := s.events, CountedEvents)]
    assert len(attrs) == len(events) == len(trace.spans)
    for a in attrs:
        a.reads.clear()
        a.walks = 0
    for e in events:
        e.passes = 0
    return trace, attrs, events


def _fewest(trace: ta.Trace) -> tuple[str, str, list[int]]:
    """A key with str values carried by the fewest spans (at least 2, not all), one of its values, and
    the positions of the spans carrying it."""
    carriers: dict[str, list[int]] = {}
    for i, span in enumerate(trace.spans):
        for key, value in _raw(span).items():
            if isinstance(value, str):
                carriers.setdefault(key, []).append(i)
    key = min(
        (k for k, v in carriers.items() if 2 <= len(v) < len(trace.spans)), key=lambda k: len(carriers[k])
    )
    value = _raw(trace.spans[carriers[key][-1]])[key]
    return key, value, carriers[key]


@pytest.mark.parametrize("name", ["monocle_langgraph.json", "agent_framework.json"])
def test_a_first_where_reads_the_key_once_on_each_span_that_carries_it(name: str) -> None:
    trace, attrs, events = _counted(name)
    key, value, carrying = _fewest(trace)
    ta.assert_trace(trace).where(attribute={key: value})
    assert [i for i, a in enumerate(attrs) if a.reads] == carrying
    assert all(a.reads == [key] for i, a in enumerate(attrs) if i in carrying)
    assert sum(a.walks for a in attrs) == 0  # no walk over any span's keys
    assert sum(e.passes for e in events) == 0


def test_an_event_beside_an_attribute_reads_the_events_of_the_spans_the_attribute_kept() -> None:
    trace, attrs, events = _counted("monocle_langgraph.json")
    kept = [i for i, s in enumerate(trace.spans) if _raw(s).get("span.type") == "inference.framework"]
    assert 2 <= len(kept) < len(trace.spans)
    for a in attrs:
        a.reads.clear()
    selected = ta.assert_trace(trace).where(
        attribute={"span.type": "inference.framework"}, event={"name": "metadata"}
    )
    assert [i for i, e in enumerate(events) if e.passes] == kept
    assert sum(len(a.reads) for a in attrs) == sum(1 for s in trace.spans if "span.type" in s.attributes)
    # the same spans as a comparison span by span
    assert len(selected.spans) == len([i for i in kept if trace.spans[i].event("metadata") is not None])
    # an event check on a narrowed selection reads the events of the selected spans only
    narrowed = ta.assert_trace(trace).where(attribute={"span.type": "inference.framework"})
    for e in events:
        e.passes = 0
    narrowed.has_event("metadata")
    assert [i for i, e in enumerate(events) if e.passes] == kept


class Kind(str, enum.Enum):
    CHAT = "chat"


class Level(enum.IntEnum):
    ONE = 1


STORED: dict[str, list[Any]] = {
    "op": ["chat", "tool", "chat", Kind.CHAT, "x" * 600],
    "n": [3, 3.0, True, 1, 0, False, 2.0**53, Level.ONE, "3"],
    "t": [(1,), (True,), ("a", "b"), (1.0, 2), ((1, 2), 3), ("a", float("nan"))],
    "mixed": ["chat", 1, (1,), None, 1.0, True],
    # every value indexable: the later lookups are answered by the key's value table
    "clean": ["chat", 3, 3.0, (1,), (1.0, 2), ((1, 2), 3), True, 2.0**53, "x" * 40],
}
QUERIES: list[Any] = [
    "chat",
    Kind.CHAT,
    "x" * 600,
    3,
    1,
    0,
    Level.ONE,
    2**53 + 1,
    10**400,
    [1],
    (1,),
    (1, 2),
    ["a", "b"],
    ((1, 2), 3),
    "absent",
]


def _stored_spans() -> list[ta.Span]:
    spans = []
    for i in range(max(len(v) for v in STORED.values())):
        attrs = {key: values[i] for key, values in STORED.items() if i < len(values)}
        spans.append(ta.Span("0" * 31 + "1", f"{i + 1:016x}", None, f"s{i}", start_ns=i, attributes=attrs))
    return spans


@pytest.mark.parametrize("key", sorted(STORED))
def test_every_lookup_finds_what_where_compares_span_by_span(key: str) -> None:
    """The first lookup of a key (a scan), the later ones (its value table) and ``where`` itself
    find the spans ``values_equal`` finds: an enum member finds its value, a bool is never a number,
    an int finds only a float equal to it exactly (and one too large for a float is no error)."""
    spans = _stored_spans()
    answered = tabled_answers = 0
    for query in QUERIES:
        expected = [
            i for i, s in enumerate(spans) if key in s.attributes and values_equal(query, s.attributes[key])
        ]
        first = ta.Trace(spans)
        tabled = ta.Trace(spans)
        tabled._value_positions(key, "warm")  # the first lookup: a scan; the next ones use the table
        for trace in (first, tabled):
            found = trace._value_positions(key, query)
            if found is not None:
                answered += 1
                tabled_answers += trace is tabled
                assert found == expected, (key, query, found)
            assert _matches(selection_of(trace), {key: query}, None, None) == expected, (key, query)
    assert answered >= 8  # every str and int query's first lookup (a scan)
    if key == "clean":
        assert tabled_answers == 13  # all but the enum members, by the table


def test_where_finds_an_enum_member_and_keeps_bools_from_numbers() -> None:
    trace = ta.Trace(_stored_spans())
    for _ in range(2):  # the first lookup and the value table alike
        assert len(ta.assert_trace(trace).where(attribute={"op": Kind.CHAT}).spans) == 3
        assert len(ta.assert_trace(trace).where(attribute={"t": [1]}).spans) == 1  # (1,), not (True,)
        assert len(ta.assert_trace(trace).where(attribute={"n": 1}).spans) == 2  # 1 and Level.ONE
        ta.assert_trace(trace).does_not_match(attribute={"n": 2**53 + 1})  # 2.0**53 is not equal to it
        ta.assert_trace(trace).does_not_match(attribute={"n": 10**400})
