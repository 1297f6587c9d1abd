"""Scope checks (Monocle's eight): the ``scope.<name>`` attributes that ``ta.scope()`` (or Monocle)
puts on spans. Positive checks narrow the selection to the matching spans."""

from __future__ import annotations

from typing import Any

from ..._common.redact import shown
from ..._common.text import short
from ..examined import note_spans
from ..fail import fail
from ..matching import contains_text
from ..selection import Selection
from .values import compare

__all__ = [
    "contains_any_scope",
    "contains_scope",
    "does_not_contain_any_scope",
    "does_not_contain_scope",
    "does_not_have_any_scope",
    "does_not_have_scope",
    "has_any_scope",
    "has_scope",
]


def _scope(
    sel: Selection,
    check: str,
    scope_name: str,
    wanted: tuple[Any, ...],
    *,
    contains: bool,
    negative: bool,
    message: str | None,
) -> Selection:
    __tracebackhide__ = True
    if not isinstance(scope_name, str) or not scope_name:
        raise TypeError("scope_name must be a non-empty str")
    if contains and not wanted:
        raise ValueError(f"{check} needs at least one substring")
    if contains and not all(isinstance(w, str) for w in wanted):
        raise TypeError(f"{check} takes substrings (str)")
    key = f"scope.{scope_name}"
    trace = sel.trace
    selected = sel.position_set()
    positions = trace._attribute_positions().get(key, [])
    if selected is not None:
        positions = [i for i in positions if i in selected]
    spans = trace.spans

    def matches(value: Any) -> bool:
        if not wanted:
            return True
        if contains:
            return any(contains_text(value, w) for w in wanted)
        return any(compare(sel, w, value) for w in wanted)

    found = [i for i in positions if matches(spans[i].attributes[key])]
    note_spans(spans, found)  # what the running check examined
    args = ", ".join([repr(scope_name), *(short(w, 60) for w in wanted)])
    values = sorted({short(shown(spans[i].attributes[key], key), 60) for i in positions[:500]})
    details = f"values of scope {scope_name!r} in the selection: {', '.join(values) if values else 'none'}"
    if negative:
        if found:
            fail(
                sel,
                f"{check}({args})",
                f"expected no span with scope {scope_name!r}"
                + (f" matching {', '.join(short(w, 60) for w in wanted)}" if wanted else "")
                + f", found {len(found)}",
                message=message,
                details=details,
            )
        return sel
    if not found:
        fail(
            sel,
            f"{check}({args})",
            f"no span has scope {scope_name!r}"
            + (f" matching {', '.join(short(w, 60) for w in wanted)}" if wanted else ""),
            message=message,
            details=details,
        )
        return sel
    return sel.narrow("spans", tuple(found))


def has_scope(
    sel: Selection,
    scope_name: str,
    expected_value: Any = None,
    *,
    message: str | None = None,
    as_called: str = "has_scope",
) -> Selection:
    __tracebackhide__ = True
    wanted = () if expected_value is None else (expected_value,)
    return _scope(sel, as_called, scope_name, wanted, contains=False, negative=False, message=message)


def has_any_scope(
    sel: Selection,
    scope_name: str,
    *expected_values: Any,
    message: str | None = None,
    as_called: str = "has_any_scope",
) -> Selection:
    __tracebackhide__ = True
    if not expected_values:
        raise ValueError(f"{as_called} needs at least one expected value")
    return _scope(
        sel, as_called, scope_name, expected_values, contains=False, negative=False, message=message
    )


def does_not_have_scope(
    sel: Selection, scope_name: str, unexpected_value: Any = None, *, message: str | None = None
) -> Selection:
    __tracebackhide__ = True
    wanted = () if unexpected_value is None else (unexpected_value,)
    return _scope(
        sel, "does_not_have_scope", scope_name, wanted, contains=False, negative=True, message=message
    )


def does_not_have_any_scope(
    sel: Selection, scope_name: str, *unexpected_values: Any, message: str | None = None
) -> Selection:
    __tracebackhide__ = True
    if not unexpected_values:
        raise ValueError("does_not_have_any_scope needs at least one value")
    return _scope(
        sel,
        "does_not_have_any_scope",
        scope_name,
        unexpected_values,
        contains=False,
        negative=True,
        message=message,
    )


def contains_scope(
    sel: Selection,
    scope_name: str,
    expected_substring: str,
    *,
    message: str | None = None,
    as_called: str = "contains_scope",
) -> Selection:
    __tracebackhide__ = True
    return _scope(
        sel,
        as_called,
        scope_name,
        (expected_substring,),
        contains=True,
        negative=False,
        message=message,
    )


def contains_any_scope(
    sel: Selection,
    scope_name: str,
    *expected_substrings: str,
    message: str | None = None,
    as_called: str = "contains_any_scope",
) -> Selection:
    __tracebackhide__ = True
    return _scope(
        sel,
        as_called,
        scope_name,
        expected_substrings,
        contains=True,
        negative=False,
        message=message,
    )


def does_not_contain_scope(
    sel: Selection, scope_name: str, unexpected_substring: str, *, message: str | None = None
) -> Selection:
    __tracebackhide__ = True
    return _scope(
        sel,
        "does_not_contain_scope",
        scope_name,
        (unexpected_substring,),
        contains=True,
        negative=True,
        message=message,
    )


def does_not_contain_any_scope(
    sel: Selection, scope_name: str, *unexpected_substrings: str, message: str | None = None
) -> Selection:
    __tracebackhide__ = True
    return _scope(
        sel,
        "does_not_contain_any_scope",
        scope_name,
        unexpected_substrings,
        contains=True,
        negative=True,
        message=message,
    )
