"""What a value is, as the indexes and matchers need to know it; the span tree's value index of one
attribute key, and the scan in C that answers a key's first lookup without it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import chain, compress, repeat
from operator import eq, itemgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .span import Span

__all__ = ["KeyPositions", "has_own_eq", "scan_values", "value_table"]

#: attribute values kept in the value index (longer strings are found by a scan)
MAX_INDEXED_CHARS = 512
_INDEXED_TYPES = frozenset({str, int, float, bool, tuple})
#: the value types a first lookup scans in C (`scan_values`); others wait for the value table
_SCANNED_TYPES = frozenset({str, int, float, bool})

_PLAIN = (str, int, float, bool, type(None), list, tuple, dict)


def has_own_eq(value: Any) -> bool:
    """True for matcher objects (dirty-equals, ``unittest.mock.ANY``) that define their own ``__eq__``."""
    if isinstance(value, (*_PLAIN, Mapping)):
        return False
    eq: object = type(value).__eq__
    return eq is not object.__eq__


def value_table(spans: Sequence[Span], key: str, positions: list[int]) -> dict[Any, list[int]] | None:
    """``(type, value)`` -> positions of the spans carrying ``key`` (at ``positions``); None when a
    value cannot be indexed (too long, unhashable, another type): that key is looked up by a scan."""
    table: dict[Any, list[int]] = {}
    for i in positions:
        v = spans[i].attributes[key]
        tv = type(v)
        if tv is tuple or tv is list:
            try:
                v = tuple(v)
                hash(v)
            except TypeError:
                return None
        elif (tv is str and len(v) > MAX_INDEXED_CHARS) or tv not in _INDEXED_TYPES:
            return None
        # True == 1 and 1.0 == 1 hash alike: the type is in the key so only exact types meet
        bucket = table.get((tv, v))
        if bucket is None:
            table[(tv, v)] = [i]
        else:
            bucket.append(i)
    return table


def scan_values(
    spans: Sequence[Span], maps: Sequence[Mapping[str, Any]], key: str, positions: list[int], value: Any
) -> list[int] | None:
    """The positions (of ``positions``) whose attribute ``key`` is ``value``, as `value_table` would
    answer, by one pass in C over the spans (``maps``: every span's attributes) without making the
    table; None for values of other types or a mix of strings and other values (the table decides).
    Long strings are compared as the caller's scan would where the table is not made for them."""
    values = list(map(itemgetter(key), map(maps.__getitem__, positions)))
    kinds = set(map(type, values))
    if not kinds <= _SCANNED_TYPES:
        return None
    if str in kinds and len(kinds) > 1:
        return None  # (strings alone: equal is equal, long or not, as the caller's own scan finds)
    found = list(compress(positions, map(eq, values, repeat(value))))
    tv = type(value)
    if kinds <= {tv} or (tv is int and kinds <= {int, float}):
        return found  # what is equal is found: no other type to tell apart
    allowed = (tv, float) if tv is int else (tv,)
    return [i for i in found if type(spans[i].attributes[key]) in allowed]


class KeyPositions(Mapping[str, list[int]]):
    """Attribute key -> positions of the spans that carry it, in order, made from the positions of the
    spans of each set of keys (``signatures``): a key's list is made when it is first asked for (the
    runs of its key sets joined and sorted, in C), so the first lookup of one key pays for that key
    only. Do not modify the lists."""

    __slots__ = ("_made", "_runs", "_signatures")

    def __init__(self, signatures: Mapping[tuple[str, ...], list[int]]) -> None:
        self._signatures = signatures
        self._made: dict[str, list[int]] = {}
        self._runs: dict[str, list[list[int]]] | None = None

    def _key_runs(self) -> dict[str, list[list[int]]]:
        runs = self._runs
        if runs is None:
            runs = self._runs = {}
            for keys, positions in self._signatures.items():
                for key in keys:
                    runs.setdefault(key, []).append(positions)
        return runs

    def __getitem__(self, key: str) -> list[int]:
        made = self._made.get(key)
        if made is None:
            runs = self._key_runs()[key]  # KeyError: no span carries it
            made = self._made[key] = runs[0] if len(runs) == 1 else sorted(chain.from_iterable(runs))
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._key_runs())

    def __len__(self) -> int:
        return len(self._key_runs())
