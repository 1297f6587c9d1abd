"""Reading values that producers write as text: JSON (parsed only when shallow enough to walk safely),
counts and finish reasons. Every stage reads such values, so they live on the floor."""

from __future__ import annotations

import contextvars
import json
import math
import os
import re
from typing import Any

__all__ = [
    "MAX_JSON_DEPTH",
    "NON_FINITE",
    "as_int",
    "as_str",
    "as_str_tuple",
    "loads_json",
    "maybe_json",
    "shallow_json",
]


def as_str(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return str(value)


#: JSON text nested deeper than this stays text (parsing it, and every later walk of the value, would
#: recurse that deep)
MAX_JSON_DEPTH = 100

#: while set to a list, ``as_int`` adds to it every NaN or infinite number it meets (the reconstruction
#: sets it, to name the spans that record such a count)
NON_FINITE: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "traceassert_non_finite", default=None
)


def as_int(value: Any) -> int | None:
    """An integer count from an int, float or numeric string; None otherwise.

    NaN and infinities (``float("inf")``, ``"Infinity"``, ``"1e400"``) are not counts: None, and the
    value is noted in the active ``NON_FINITE`` collector so that the reader can warn.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        number = value
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    if math.isfinite(number):
        return int(number)
    notes = NON_FINITE.get()
    if notes is not None:
        notes.append(value)
    return None


def loads_json(text: str) -> tuple[bool, Any]:
    """``(True, value)`` for JSON text nested at most ``MAX_JSON_DEPTH`` levels, else ``(False, None)``.

    Deeper JSON is refused, not parsed: a value thousands of levels deep would overflow the stack of the
    parser and of everything that walks the value later (rendering, matching, comparing).
    """
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and not shallow_json(text):
        return False, None
    if _fast_decode is not None:
        try:
            return True, _fast_decode(text)
        except _FAST_ERRORS:
            pass  # what msgspec refuses (NaN, 1e400, lone surrogates, ...) the stdlib may read
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


def _msgspec_decode() -> tuple[Any, tuple[type[BaseException], ...]]:
    """msgspec's JSON decoder (the optional accelerator; ``TRACEASSERT_JSON=stdlib`` turns it off): where
    it reads a text, it gives what ``json.loads`` gives, several times faster."""
    if os.environ.get("TRACEASSERT_JSON", "").lower() in ("stdlib", "json"):
        return None, ()
    try:
        import msgspec
    except ImportError:
        return None, ()
    return msgspec.json.decode, (msgspec.MsgspecError, ValueError, RecursionError)


_fast_decode, _FAST_ERRORS = _msgspec_decode()


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")


def shallow_json(text: str) -> bool:
    """True when the brackets of ``text`` (outside double-quoted strings) nest at most
    ``MAX_JSON_DEPTH`` deep: JSON (or a Python literal) that is safe to parse and to walk.

    Each pass removes the innermost pairs (in C, by the regex engine), so the cost is one pass per
    level, not one Python step per bracket.
    """
    rest = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    for _ in range(MAX_JSON_DEPTH):
        if not rest:
            return True
        rest, removed = _INNERMOST.subn("", rest)
        if not removed:
            return True  # unbalanced: not JSON, which the parser will say
    return not rest


def maybe_json(value: Any) -> Any:
    """Parse a JSON string when it is one; anything else (and JSON nested deeper than
    ``MAX_JSON_DEPTH``) is returned as it is."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "[", '"') or text in ("true", "false", "null"):
            ok, parsed = loads_json(text)
            return parsed if ok else value
    return value


def as_str_tuple(value: Any) -> tuple[str, ...]:
    """Finish reasons and similar: a sequence, a JSON-encoded list, or one string."""
    if value is None:
        return ()
    if type(value) is tuple and all(type(v) is str for v in value):
        return value
    value = maybe_json(value)
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple):
        return tuple(str(v) for v in value if v is not None)
    return (str(value),)
