"""What a value is, as the indexes and matchers need to know it; the span tree's value index of one
attribute key, and the scan in C that answers a key's first lookup without it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import compress, repeat
from operator import eq, itemgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .span import Span

__all__ = ["has_own_eq", "scan_values", "value_table"]

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
    table; None where the table would not be made (values of other types, long strings)."""
    values = list(map(itemgetter(key), map(maps.__getitem__, positions)))
    kinds = set(map(type, values))
    if not kinds <= _SCANNED_TYPES:
        return None
    if str in kinds and (len(kinds) > 1 or max(map(len, values)) > MAX_INDEXED_CHARS):
        return None
    found = list(compress(positions, map(eq, values, repeat(value))))
    tv = type(value)
    if kinds <= {tv} or (tv is int and kinds <= {int, float}):
        return found  # what is equal is found: no other type to tell apart
    allowed = (tv, float) if tv is int else (tv,)
    return [i for i in found if type(spans[i].attributes[key]) in allowed]
