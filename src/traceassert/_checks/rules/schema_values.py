"""What the schema subset (``schema_subset``) reports, and the value tests its keywords share: JSON
types, JSON equality, numeric limits, patterns."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..._common.pyast import literal_eval
from ..._common.redact import secret_key, shown
from ..._common.text import short

__all__ = [
    "Finding",
    "Verdict",
    "bound",
    "compile_pattern",
    "instance",
    "is_number",
    "is_type",
    "json_equal",
    "limit",
    "show",
    "type_name",
]


@dataclass(frozen=True, slots=True)
class Finding:
    """One violation, or one reason the check cannot tell: where (``args['seat']``), the keyword, why."""

    path: str
    keyword: str
    text: str

    def __str__(self) -> str:
        return f"{self.path}: {self.keyword}: {self.text}"


@dataclass(slots=True)
class Verdict:
    """``errors``: violations the schema shows for sure; ``unknown``: where it cannot tell."""

    errors: list[Finding] = field(default_factory=list)
    unknown: list[Finding] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.errors and not self.unknown

    def add(self, other: Verdict) -> None:
        self.errors.extend(other.errors)
        self.unknown.extend(other.unknown)


def show(value: Any) -> str:
    """A value of the schema, as a message shows it (cut, secrets redacted)."""
    return short(shown(value), 60)


_KEYS = re.compile(r"\[('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\]")


def instance(value: Any, path: str) -> str:
    """The value found at ``path`` (``args['user']['password']``), as a message shows it: redacted as a
    whole under a secret key (or below one)."""
    keys = [str(literal_eval(m.group(1))) for m in _KEYS.finditer(path)]
    secret = any(secret_key(k) for k in keys[:-1])
    return short(shown(value, keys[-1] if keys else None, secret=secret), 60)


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def is_type(value: Any, kind: str) -> bool:
    actual = type_name(value)
    return actual == kind or (kind == "number" and actual == "integer")


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def json_equal(a: Any, b: Any) -> bool:
    """Equal as JSON values: ``1 == 1.0``, never ``True == 1``; objects and arrays member by member."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if is_number(a) and is_number(b):
        return bool(a == b)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return set(a) == set(b) and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def bound(out: Verdict, path: str, keyword: str, schema: Mapping[str, Any], ok: Any, found: str) -> None:
    """A count (of properties, items, characters) within ``schema[keyword]``."""
    words = "at least" if keyword.startswith("min") else "at most"
    limit(out, path, keyword, schema.get(keyword), ok, words, found)


def limit(
    out: Verdict, path: str, keyword: str, limit: Any, ok: Any, words: str, found: str | Callable[[], str]
) -> None:
    """``ok(limit)``, else a violation: ``expected <words> <limit>, found <found>`` (``found`` may be a
    function that makes the text, called only for the message)."""
    if limit is None:
        return
    if not is_number(limit):
        out.unknown.append(Finding(path, keyword, f"{show(limit)} is not a number"))
    elif not ok(limit):
        text = found() if callable(found) else found
        out.errors.append(Finding(path, keyword, f"expected {words} {show(limit)}, found {text}"))


def compile_pattern(pattern: Any) -> re.Pattern[str] | None:
    if not isinstance(pattern, str):
        return None
    try:
        return re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return None
