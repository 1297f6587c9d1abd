"""The one writer of values into generated Python source: literals that evaluate to an equal value.

Everything ``traceassert generate`` pastes into source (names, paths, texts, numbers, arguments, and
the names it shows in comments) goes through `literal`. Text is written from ``repr``, which escapes
every character that could end a line, a string or a comment (newlines, quotes, backslashes, control
and format characters, lone surrogates), in the quotes ``ruff format`` prefers; numbers by ``repr``
(infinities as ``float("inf")``). A value that has no literal equal to it (NaN, which equals nothing;
objects of other types; integers too long for ``repr``; nesting deeper than `MAX_DEPTH`) raises
`Unwritable`, so the caller leaves it out instead of writing something untrue or unsafe.

`expected` writes what a check expects of a value that was redacted in the golden trace: the value
itself where redaction left it alone, ``ta.Redacted("... [REDACTED] ...")`` for text with a secret in
it, ``ta.Redacted()`` where a secret replaced the value whole (under a secret-looking key, or text
that is a secret as a whole: the next run's secret may look different), see ``traceassert.Redacted``.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from typing import Any

from .._checks.redacted import Redacted
from .._common.redact import REDACTED

__all__ = ["MAX_DEPTH", "Unwritable", "expected", "literal"]

#: values nested deeper are not written (Python's parser caps the nesting of displays)
MAX_DEPTH = 20


class Unwritable(ValueError):
    """The value has no Python literal equal to it (NaN, another type, too deep)."""


def literal(value: Any, depth: int = 0) -> str:
    """``value`` as Python source that evaluates to an equal value (raises `Unwritable`)."""
    if depth > MAX_DEPTH:
        raise Unwritable("nested too deep")
    if isinstance(value, str):
        return _text(value)
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return _int(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, bytes):
        return repr(value)  # ASCII only: every other byte is escaped
    if isinstance(value, dict):
        items = (f"{literal(k, depth + 1)}: {literal(v, depth + 1)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v, depth + 1) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(literal(v, depth + 1) for v in value)
        return f"({inner}{',' if len(value) == 1 else ''})"
    raise Unwritable(f"no literal for a value of type {type(value).__name__}")


def _text(text: str) -> str:
    """``text`` as a string literal from ``repr`` (double quotes unless that needs more escapes, as
    ``ruff format`` does), checked to read back as ``text``."""
    written = repr(text)
    if written[0] == "'" and '"' not in text:
        # repr chose single quotes although the text holds no double quote: the body has no escaped
        # quote either (an apostrophe would have made repr choose double quotes), so only the quotes change
        written = f'"{written[1:-1]}"'
    if ast.literal_eval(written) != text:  # pragma: no cover - repr always reads back
        raise Unwritable("text does not read back")
    return written


def _int(value: int) -> str:
    try:
        return repr(int(value))  # int(): a subclass's own repr is never pasted
    except ValueError as exc:  # longer than sys.get_int_max_str_digits()
        raise Unwritable("integer too long to write") from exc


def _float(value: float) -> str:
    value = float(value)
    if math.isnan(value):
        raise Unwritable("NaN equals no value")
    if math.isinf(value):
        return 'float("inf")' if value > 0 else '-float("inf")'
    return repr(value)


def expected(live: Any, golden: Any, shown: Any, depth: int = 0) -> str:
    """Source for what a check expects where the run held ``live``, its golden holds ``golden`` and
    ``shown`` is the golden's value redacted again with its keys (what may be written): true of the run
    and of the golden, and holding nothing that redaction removes (raises `Unwritable` when the value
    has no literal)."""
    if depth > MAX_DEPTH:
        raise Unwritable("nested too deep")
    if (
        isinstance(shown, Mapping)
        and isinstance(golden, dict)
        and isinstance(live, dict)
        and list(shown) == list(golden) == list(live)
    ):
        items = (
            f"{literal(k, depth + 1)}: {expected(live[k], golden[k], v, depth + 1)}" for k, v in shown.items()
        )
        return "{" + ", ".join(items) + "}"
    if (
        isinstance(shown, list | tuple)
        and type(golden) is type(shown)
        and type(live) is type(shown)
        and len(live) == len(golden) == len(shown)
    ):
        inner = ", ".join(expected(*trio, depth + 1) for trio in zip(live, golden, shown, strict=True))
        if isinstance(shown, list):
            return f"[{inner}]"
        return f"({inner}{',' if len(shown) == 1 else ''})"
    written = literal(golden, depth)  # a golden value with no literal cannot be expected at all
    if _same(shown, written, depth) and _same(live, written, depth):
        return written
    if isinstance(shown, str) and shown != REDACTED and isinstance(golden, str) and isinstance(live, str):
        matcher = Redacted(shown)
        if matcher == live and matcher == golden:
            return f"ta.Redacted({literal(shown)})"
    return "ta.Redacted()"


def _same(value: Any, written: str, depth: int) -> bool:
    """Whether ``value`` is written as ``written`` (so it equals the value written so)."""
    try:
        return literal(value, depth) == written
    except Unwritable:
        return False
