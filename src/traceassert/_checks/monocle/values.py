"""The inputs and outputs of a selection as the checks compare them: each value in its recorded form
and its structured form (JSON text parsed, literal lists read), and the comparer that decides a match."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..._common.jsonvalue import loads_json, shallow_json
from ..._common.pyast import literal_eval
from ..._model.span import Span
from ..examined import note_spans
from ..matching import as_text, contains_text, values_equal
from ..selection import Selection

__all__ = ["compare", "default_compare", "matches", "structured", "values_of"]

Comparer = Callable[[Any, Any], bool]


_NOTHING = object()
#: text longer than this is not parsed as a Python literal (``ast`` is slow and deep on large input)
_LITERAL_LIMIT = 100_000


def structured(value: Any) -> Any:
    """The object or array a text holds as JSON or as a Python literal (``_NOTHING`` when it holds
    none); any other value as it is."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text[:1] not in ("{", "["):
        return _NOTHING
    ok, parsed = loads_json(text)  # JSON nested deeper than MAX_JSON_DEPTH is not parsed: it stays text
    if not ok:
        if len(text) > _LITERAL_LIMIT or not shallow_json(text):
            return _NOTHING
        try:
            parsed = literal_eval(text)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return _NOTHING
    if isinstance(parsed, tuple):
        parsed = list(parsed)
    return parsed if isinstance(parsed, dict | list) else _NOTHING


def default_compare(expected: Any, actual: Any) -> bool:
    """Equal as values; an expected text also matches a structured value written as that text, and
    text holding a JSON (or Python literal) object or array matches by the structure it holds."""
    if values_equal(expected, actual):
        return True
    if isinstance(expected, str) and not isinstance(actual, str) and expected == as_text(actual):
        return True
    if isinstance(expected, str | bytes) or isinstance(actual, str | bytes):
        if not isinstance(expected, str | bytes | Mapping | list | tuple):
            return False
        left, right = structured(expected), structured(actual)
        if left is _NOTHING or right is _NOTHING or not isinstance(right, Mapping | list | tuple):
            return False
        return values_equal(_listed(left), _listed(right))
    return False


def _listed(value: Any) -> Any:
    """Tuples as lists, recursively (JSON has arrays only)."""
    if isinstance(value, Mapping):
        return {k: _listed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_listed(v) for v in value]
    return value


#: one value of the selection: (the value, the text the producer recorded for it or None, its span)
Value = tuple[Any, Any, Span | None]


def values_of(sel: Selection, which: str) -> list[Value]:
    values: list[Value] = []
    if sel.kind == "tools":
        for tool in sel.tools or ():
            if which == "input":
                raw = tool.raw_arguments if isinstance(tool.raw_arguments, str | bytes) else None
                values.append((tool.arguments, raw, tool.span))
            elif tool.result is not None:
                values.append((tool.result, None, tool.span))
        return values
    if sel.kind == "agents":
        for inv in sel.agents or ():
            v = getattr(inv, which)
            if v is None and which == "output":
                v = inv.streamed_output
            if v is not None:
                values.append((v, None, inv.span))
        return values
    trace = sel.trace
    for span in sel.selected_spans():
        op = trace.operation(span)
        if op is None:
            continue
        v = op.input if which == "input" else op.output
        if v is not None:
            values.append((v, None, span))
    return values


def compare(sel: Selection, expected: Any, actual: Any) -> bool:
    comparer = sel.comparer
    if comparer is None:
        return default_compare(expected, actual)
    return bool(comparer(expected, actual))


def matches(sel: Selection, wanted: Any, value: Value, contains: bool) -> bool:
    """``wanted`` matches the value, or the text the producer recorded for it. A match is what the
    running check examined (the record of the value's span)."""
    forms = (value[0],) if value[1] is None else (value[0], value[1])
    if contains:
        found = any(contains_text(v, wanted) for v in forms)
    else:
        found = any(compare(sel, wanted, v) for v in forms)
    if found and value[2] is not None:
        note_spans((value[2],))
    return found
