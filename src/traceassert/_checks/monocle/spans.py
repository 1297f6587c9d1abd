"""Selectors and span-level checks: where / attributes / events (tools: ``tools``, agents: ``agents``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..._common.redact import shown
from ..._common.text import short
from ..._model.span import Span
from ..describe import call_text
from ..examined import note_spans
from ..fail import fail
from ..matching import values_equal
from ..selection import Selection

__all__ = ["does_not_have_attribute", "does_not_match", "has_attribute", "has_event", "where"]

_MISSING = object()


def _event_matches(span: Span, name: str, attributes: Mapping[str, Any] | None) -> bool:
    for ev in span.events:
        if ev.name != name:
            continue
        if not attributes:
            return True
        if all(
            (k in ev.attributes) if v is None else (k in ev.attributes and values_equal(v, ev.attributes[k]))
            for k, v in attributes.items()
        ):
            return True
    return False


def _normalise_event(event: Mapping[str, Any] | str | None) -> tuple[str, Mapping[str, Any] | None] | None:
    if event is None:
        return None
    if isinstance(event, str):
        return (event, None)
    if not isinstance(event, Mapping) or not isinstance(event.get("name"), str):
        raise TypeError('event must be {"name": <event name>, "attributes": {...}} or an event name')
    attrs = event.get("attributes")
    if attrs is not None and not isinstance(attrs, Mapping):
        raise TypeError("event['attributes'] must be a mapping")
    return (event["name"], attrs)


def _matching_positions(
    sel: Selection,
    attribute: Mapping[str, Any] | None,
    event: Mapping[str, Any] | str | None,
    predicate: Callable[[Span], bool] | None,
) -> list[int]:
    """The positions of the selected spans matching every criterion: what the running check examined."""
    found = _matches(sel, attribute, event, predicate)
    note_spans(sel.trace.spans, found)
    return found


def _matches(
    sel: Selection,
    attribute: Mapping[str, Any] | None,
    event: Mapping[str, Any] | str | None,
    predicate: Callable[[Span], bool] | None,
) -> list[int]:
    if attribute is not None and not isinstance(attribute, Mapping):
        raise TypeError("attribute must be a mapping {name: expected value or None}")
    if predicate is not None and not callable(predicate):
        raise TypeError("predicate must be a callable taking a Span")
    ev = _normalise_event(event)
    if not attribute and ev is None and predicate is None:
        raise ValueError("give at least one of attribute=, event=, predicate=")
    trace = sel.trace
    spans = trace.spans
    selected = sel.position_set()
    candidates: Iterable[int]
    # criteria the indexes answered whole, not checked again span by span
    attribute_done = event_done = by_event = False
    if attribute:
        index = trace._attribute_positions()
        keys = sorted(attribute, key=lambda key: len(index.get(key, ())))
        first = keys[0]
        candidates = index.get(first, ())
        expected_first = attribute[first]
        if expected_first is not None:
            by_value = (
                trace._value_positions(first, expected_first)
                if ev is None
                else trace._value_positions_with_event(first, expected_first, ev[0])
            )
            if by_value is not None:
                candidates = by_value
                attribute_done = len(attribute) == 1
                by_event = ev is not None
    elif selected is not None:
        candidates = sorted(selected)
    else:
        candidates = range(len(spans))
    if ev is not None:
        # the spans with an event of that name (the candidates' events, or the event index); its
        # attributes are checked below. ``filter`` with a set's ``__contains__`` keeps the order
        if attribute:
            if not by_event:  # else ``_value_positions_with_event`` narrowed them already
                candidates = trace._with_event(list(candidates), ev[0])
        elif selected is not None:  # the selection's own events, not every span's
            candidates = trace._with_event(sorted(selected), ev[0])
        else:
            candidates = trace._event_lists().get(ev[0], ())
        event_done = not ev[1]
    if (attribute_done or not attribute) and (event_done or ev is None) and predicate is None:
        if selected is None:
            return list(candidates)
        return list(filter(selected.__contains__, candidates))
    out: list[int] = []
    for i in candidates:
        if selected is not None and i not in selected:
            continue
        span = spans[i]
        if attribute and not attribute_done:
            attrs = span.attributes
            ok = True
            for key, expected in attribute.items():
                actual = attrs.get(key, _MISSING)
                if actual is _MISSING or (expected is not None and not values_equal(expected, actual)):
                    ok = False
                    break
            if not ok:
                continue
        if ev is not None and not event_done and not _event_matches(span, ev[0], ev[1]):
            continue
        if predicate is not None and not predicate(span):
            continue
        out.append(i)
    return out


def where(
    sel: Selection,
    attribute: Mapping[str, Any] | None = None,
    event: Mapping[str, Any] | str | None = None,
    predicate: Callable[[Span], bool] | None = None,
    *,
    message: str | None = None,
) -> Selection:
    """Narrow to the spans matching every criterion given; fail when none does."""
    __tracebackhide__ = True
    found = _matching_positions(sel, attribute, event, predicate)
    if not found:
        fail(
            sel,
            call_text("where", attribute=attribute, event=event, predicate=predicate),
            "no span matches",
            message=message,
            details=_attribute_hint(sel, attribute),
        )
        return sel
    return sel.narrow("spans", tuple(found))


def does_not_match(
    sel: Selection,
    attribute: Mapping[str, Any] | None = None,
    event: Mapping[str, Any] | str | None = None,
    predicate: Callable[[Span], bool] | None = None,
    *,
    message: str | None = None,
) -> Selection:
    """Fail when any selected span matches every criterion given."""
    __tracebackhide__ = True
    found = _matching_positions(sel, attribute, event, predicate)
    if found:
        spans = sel.trace.spans
        names = ", ".join(repr(spans[i].name) for i in found[:10])
        fail(
            sel,
            call_text("does_not_match", attribute=attribute, event=event, predicate=predicate),
            f"expected no matching span, found {len(found)}: {names}",
            message=message,
        )
    return sel


def has_attribute(
    sel: Selection,
    attribute_name: str,
    expected: Any = None,
    *,
    message: str | None = None,
    as_called: str = "has_attribute",
) -> Selection:
    """Narrow to the spans carrying ``attribute_name`` (equal to ``expected`` when given)."""
    __tracebackhide__ = True
    found = _matching_positions(sel, {attribute_name: expected}, None, None)
    if not found:
        fail(
            sel,
            call_text(as_called, attribute_name, expected),
            f"no span has attribute {attribute_name!r}"
            + (f" = {short(expected)}" if expected is not None else ""),
            message=message,
            details=_attribute_hint(sel, {attribute_name: expected}),
        )
        return sel
    return sel.narrow("spans", tuple(found))


def does_not_have_attribute(
    sel: Selection, attribute_name: str, expected: Any = None, *, message: str | None = None
) -> Selection:
    """Fail when a selected span carries ``attribute_name`` (with value ``expected`` when given)."""
    __tracebackhide__ = True
    found = _matching_positions(sel, {attribute_name: expected}, None, None)
    if found:
        spans = sel.trace.spans
        listed = ", ".join(
            f"{spans[i].name!r}={short(shown(spans[i].attributes[attribute_name], attribute_name), 40)}"
            for i in found[:5]
        )
        fail(
            sel,
            call_text("does_not_have_attribute", attribute_name, expected),
            f"expected no span with attribute {attribute_name!r}, found {len(found)}: {listed}",
            message=message,
        )
    return sel


def has_event(
    sel: Selection,
    event_name: str,
    attribute_name: str | None = None,
    expected: Any = None,
    *,
    message: str | None = None,
    as_called: str = "has_event",
) -> Selection:
    """Narrow to the spans with an event ``event_name`` (carrying the attribute/value when given)."""
    __tracebackhide__ = True
    attrs = {attribute_name: expected} if attribute_name is not None else None
    found = _matching_positions(sel, None, {"name": event_name, "attributes": attrs}, None)
    if not found:
        names = sorted({ev.name for s in sel.selected_spans() for ev in s.events})
        fail(
            sel,
            call_text(as_called, event_name, attribute_name, expected),
            f"no span has event {event_name!r}" + (f" with {attribute_name!r}" if attribute_name else ""),
            message=message,
            details=f"event names in the selection: {', '.join(names) if names else 'none'}",
        )
        return sel
    return sel.narrow("spans", tuple(found))


def _attribute_hint(sel: Selection, attribute: Mapping[str, Any] | None) -> str:
    if not attribute:
        return ""
    trace = sel.trace
    selected = sel.position_set()
    lines = []
    for key in attribute:
        positions = trace._attribute_positions().get(key, [])
        if selected is not None:
            positions = [i for i in positions if i in selected]
        values = sorted({short(shown(trace.spans[i].attributes[key], key), 40) for i in positions[:200]})
        if values:
            lines.append(f"values of {key!r} in the selection: {', '.join(values[:10])}")
        else:
            lines.append(f"no selected span has attribute {key!r}")
    return "\n".join(lines)
