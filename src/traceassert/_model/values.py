"""What a value is, as the indexes and matchers need to know it; the span tree's value index of one
attribute key, and the scan in C that answers a key's first lookup without it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import chain, compress, repeat
from operator import eq, itemgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .span import Span

__all__ = ["KeyPositions", "has_own_eq", "indexable_tuple", "scan_equal", "value_table"]

#: attribute values kept in the value index (longer strings are found by a scan)
MAX_INDEXED_CHARS = 512
_INDEXED_TYPES = frozenset({str, int, float, bool, tuple})

_PLAIN = (str, int, float, bool, type(None), list, tuple, dict)


def has_own_eq(value: Any) -> bool:
    """True for matcher objects (dirty-equals, ``unittest.mock.ANY``) that define their own ``__eq__``."""
    if isinstance(value, (*_PLAIN, Mapping)):
        return False
    eq: object = type(value).__eq__
    return eq is not object.__eq__


def indexable_tuple(value: tuple[Any, ...]) -> bool:
    """True when every item of ``value`` (and of the tuples in it, however deep) is exactly a str, an
    int or a float equal to itself: then a tuple's own equality (and hash) is ``where``'s, which never
    finds a bool equal to a number and honours a matcher's or a subclass's own equality."""
    stack = [value]
    while stack:
        for item in stack.pop():
            ti = type(item)
            if ti is tuple:
                stack.append(item)
            elif (ti is not str and ti is not int and ti is not float) or item != item:
                return False
    return True


def value_table(spans: Sequence[Span], key: str, positions: list[int]) -> dict[Any, list[int]] | None:
    """``(type, value)`` -> positions of the spans carrying ``key`` (at ``positions``); None when a
    value cannot be indexed (too long, unhashable, another type): that key is looked up by a scan."""
    table: dict[Any, list[int]] = {}
    for i in positions:
        v = spans[i].attributes[key]
        tv = type(v)
        if tv is tuple or tv is list:
            v = tuple(v)
            if not indexable_tuple(v):
                return None
            tv = tuple
        elif (tv is str and len(v) > MAX_INDEXED_CHARS) or tv not in _INDEXED_TYPES:
            return None
        # True == 1 and 1.0 == 1 hash alike: the type is in the key so only exact types meet
        bucket = table.get((tv, v))
        if bucket is None:
            table[(tv, v)] = [i]
        else:
            bucket.append(i)
    return table


def scan_equal(
    maps: Sequence[Mapping[str, Any]], key: str, positions: Sequence[int], value: Any
) -> list[int] | None:
    """The positions (of ``positions``, each carrying ``key``) whose value of ``key`` is equal to
    ``value`` as ``where`` compares attribute values (``values_equal``: ``value == actual``, a bool never
    equal to a number), for a ``str`` or an ``int`` (not bool) ``value``: one pass in C over the spans
    that carry the key (``maps``: every span's attributes), whatever the types of their values; None
    for other values (the value table or the caller decides)."""
    tv = type(value)
    if tv is not str and tv is not int:
        return None
    # positions as many as the spans are every span's, in order (a key every span carries)
    carriers = maps if len(positions) == len(maps) else map(maps.__getitem__, positions)
    actual = map(itemgetter(key), carriers)
    found = list(compress(positions, map(eq, repeat(value), actual)))
    if tv is int and found and (value == 0 or value == 1):  # True == 1 and False == 0: not for where
        found = [i for i in found if type(maps[i][key]) is not bool]
    return found


class KeyPositions(Mapping[str, list[int]]):
    """Attribute key -> positions of the spans that carry it, in order, made from the positions of the
    spans of each set of keys (``signatures``): a key's list is made when it is first asked for (the
    runs of its key sets joined and sorted, in C; a key all ``count`` spans carry needs no sort), so
    the first lookup of one key pays for that key only. Do not modify the lists."""

    __slots__ = ("_count", "_made", "_runs", "_signatures")

    def __init__(self, signatures: Mapping[tuple[str, ...], list[int]], count: int) -> None:
        self._signatures = signatures
        self._count = count
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
            if len(runs) == 1:
                made = runs[0]
            elif sum(map(len, runs)) == self._count:
                made = list(range(self._count))
            else:
                made = sorted(chain.from_iterable(runs))
            self._made[key] = made
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._key_runs())

    def __len__(self) -> int:
        return len(self._key_runs())
