"""Turning recorded tool arguments, in whatever shape a producer used, into the dict the tool received."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from .._common.jsonvalue import loads_json, shallow_json

__all__ = ["SCALAR_KEY", "parse_arguments", "thaw"]

#: the key a bare scalar argument is put under when the parameter's name is not known
SCALAR_KEY = "input"

_MAX_LITERAL_CHARS = 100_000


_ATOMS = frozenset({str, int, float, bool, type(None)})


def thaw(value: Any) -> Any:
    """Plain dicts and lists from read-only mappings and tuples (recursively)."""
    if value.__class__ in _ATOMS:  # the usual argument: no abstract-class check
        return value
    if isinstance(value, Mapping):
        return {str(k): thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value


def _parse_text(text: str) -> tuple[bool, Any]:
    stripped = text.strip()
    if not stripped:
        return True, None
    ok, value = loads_json(stripped)
    if ok:
        return True, value
    return _parse_literal(text, stripped)


def _parse_literal(text: str, stripped: str) -> tuple[bool, Any]:
    """A Python literal (the repr of a dict, list or tuple); ``(False, text)`` when it is none."""
    if stripped[0] in "{[(" and len(stripped) <= _MAX_LITERAL_CHARS and shallow_json(stripped):
        quick = _repr_as_json(stripped)
        if quick is not None:
            return True, quick
        try:
            return True, ast.literal_eval(stripped)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            pass
    return False, text


def _repr_as_json(text: str) -> dict[str, Any] | list[Any] | None:
    """``str()`` of a dict or list of JSON values (what Monocle records), read as JSON: quotes and
    ``True``/``False``/``None`` swapped. Kept only when the value's repr is ``text`` itself, so it is
    what ``ast.literal_eval`` gives; None otherwise (and ``literal_eval`` decides), much faster."""
    if text[0] == "(":
        return None
    swapped = text.replace("'", '"').replace("True", "true").replace("False", "false").replace("None", "null")
    ok, value = loads_json(swapped)
    if ok and value.__class__ in (dict, list) and repr(value) == text:
        return value
    return None


def parse_arguments(raw: Any, param_names: tuple[str, ...] = ()) -> dict[str, Any]:
    """The arguments as a dict.

    JSON text (compact or re-spaced) and Python reprs of dicts are parsed; a mapping is copied. A bare
    scalar or list becomes ``{name: value}`` when the tool has exactly one known parameter name, else
    ``{"input": value}``. None and empty text give ``{}``.
    """
    value = raw
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        stripped = value.strip()
        if not stripped:
            return {}
        ok, parsed = loads_json(stripped)
        if not ok:
            _, value = _parse_literal(value, stripped)
        elif parsed.__class__ is dict:
            return parsed  # a JSON object, just parsed: plain dicts and lists already (what ``thaw`` makes)
        else:
            value = parsed
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return {str(k): thaw(v) for k, v in value.items()}
    key = param_names[0] if len(param_names) == 1 else SCALAR_KEY
    return {key: thaw(value)}
