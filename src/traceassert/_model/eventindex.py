"""The span tree's event-name index: which spans have an event of a given name, found by passes in C
over the events' names (no Python call per span or per event), each name's positions made when the
name is first asked for."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import chain, compress, repeat
from operator import attrgetter, eq
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .span import Span

__all__ = ["EventPositions", "with_event"]

_events = attrgetter("events")
_name = attrgetter("name")


def _owners_and_names(spans: Sequence[Span], positions: Sequence[int]) -> tuple[Iterator[int], Iterator[str]]:
    """One entry per event of the spans at ``positions``, read lazily (in C): the span's position and
    the event's name."""
    events = list(map(_events, map(spans.__getitem__, positions)))
    owners = chain.from_iterable(map(repeat, positions, map(len, events)))
    return owners, map(_name, chain.from_iterable(events))


def _named(owners: Iterable[int], names: Iterable[str], name: str) -> list[int]:
    """The owners (in order, each once) of the events called ``name``."""
    return list(dict.fromkeys(compress(owners, map(eq, names, repeat(name)))))


def with_event(spans: Sequence[Span], positions: Sequence[int], name: str) -> list[int]:
    """The positions (of ``positions``, in their order) of the spans with at least one event called
    ``name``: one pass over those spans' events only (each event's name read once, beside the length
    of its span's events)."""
    return _named(*_owners_and_names(spans, positions), name)


class EventPositions(Mapping[str, list[int]]):
    """Event name -> positions of the spans with at least one event of that name, in order. The names
    of every event are gathered once (in C), on the first lookup; a name's positions are made when
    it is first asked for (one pass in C over the names). Do not modify the lists."""

    __slots__ = ("_columns", "_made", "_spans")

    def __init__(self, spans: Sequence[Span]) -> None:
        self._spans = spans
        self._made: dict[str, list[int]] = {}
        self._columns: tuple[list[int], list[str]] | None = None

    def _gathered(self) -> tuple[list[int], list[str]]:
        columns = self._columns
        if columns is None:
            owners, names = _owners_and_names(self._spans, range(len(self._spans)))
            columns = self._columns = (list(owners), list(names))
        return columns

    def __getitem__(self, name: str) -> list[int]:
        made = self._made.get(name)
        if made is None:
            made = self._made[name] = _named(*self._gathered(), name)
        if not made:
            raise KeyError(name)
        return made

    def __contains__(self, name: object) -> bool:
        made = self._made.get(name)  # type: ignore[call-overload]
        if made is not None:  # (a name looked up and not found is kept as an empty list)
            return bool(made)
        return name in self._gathered()[1]

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(self._gathered()[1]))

    def __len__(self) -> int:
        return len(set(self._gathered()[1]))
