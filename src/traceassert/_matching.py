"""Value matching: attribute values, inputs/outputs and tool arguments compared with JSON semantics."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["as_text", "contains_text", "json_equal", "values_equal"]

_PLAIN = (str, int, float, bool, type(None), list, tuple, dict)


def _has_own_eq(value: Any) -> bool:
    """True for matcher objects (dirty-equals, ``unittest.mock.ANY``) that define their own ``__eq__``."""
    if isinstance(value, _PLAIN) or isinstance(value, Mapping):
        return False
    return type(value).__eq__ is not object.__eq__


def json_equal(expected: Any, actual: Any) -> bool:
    """``expected`` matches ``actual`` as JSON values.

    Numbers compare by value (``3 == 3.0``); a number or bool given as expected also matches its string
    form (``"3"``, ``"true"``) and the other way round; mappings and sequences must match exactly (same
    keys, same length), recursively; objects with their own ``__eq__`` are asked.
    """
    if _has_own_eq(expected):
        return bool(expected == actual)
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping) or set(expected) != set(actual):
            return False
        return all(json_equal(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list | tuple):
        if not isinstance(actual, list | tuple) or len(expected) != len(actual):
            return False
        return all(json_equal(e, a) for e, a in zip(expected, actual, strict=True))
    if isinstance(expected, bool) or isinstance(actual, bool):
        if isinstance(expected, bool) and isinstance(actual, bool):
            return expected is actual
        if isinstance(expected, bool) and isinstance(actual, str):
            return actual.strip().lower() == ("true" if expected else "false")
        if isinstance(actual, bool) and isinstance(expected, str):
            return expected.strip().lower() == ("true" if actual else "false")
        return False
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return bool(expected == actual)
    if isinstance(expected, int | float) and isinstance(actual, str):
        return _num_str(actual) == expected
    if isinstance(expected, str) and isinstance(actual, int | float):
        return _num_str(expected) == actual
    return bool(expected == actual)


def _num_str(text: str) -> float | None:
    try:
        return float(text.strip())
    except ValueError:
        return None


def values_equal(expected: Any, actual: Any) -> bool:
    """Attribute-style equality: ``==``, with tuples and lists alike and matchers honoured."""
    if _has_own_eq(expected):
        return bool(expected == actual)
    if isinstance(expected, list | tuple) and isinstance(actual, list | tuple):
        return len(expected) == len(actual) and all(
            values_equal(e, a) for e, a in zip(expected, actual, strict=True)
        )
    if isinstance(expected, bool) != isinstance(actual, bool):
        return False
    return bool(expected == actual)


def as_text(value: Any) -> str:
    """Text for substring checks: strings as they are, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    try:
        return json.dumps(_plain(value), ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [_plain(v) for v in value]
    return value


def contains_text(actual: Any, needle: str) -> bool:
    """Case-insensitive substring test on the text form of ``actual``."""
    return needle.casefold() in as_text(actual).casefold()
