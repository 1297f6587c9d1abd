"""What a value is, as the indexes and matchers need to know it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["has_own_eq"]

_PLAIN = (str, int, float, bool, type(None), list, tuple, dict)


def has_own_eq(value: Any) -> bool:
    """True for matcher objects (dirty-equals, ``unittest.mock.ANY``) that define their own ``__eq__``."""
    if isinstance(value, (*_PLAIN, Mapping)):
        return False
    eq: object = type(value).__eq__
    return eq is not object.__eq__
