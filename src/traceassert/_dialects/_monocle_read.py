"""Reading a Monocle span's entities (``entity.N.type`` / ``entity.N.name``) and data events (``data.input``,
``data.output``, ``metadata``): each read once per span, then looked up by the classifier.

`entities_of` lists the entities in number order (dense in practice; a gap of up to two numbers is
tolerated), `entity_in` finds the first whose type starts with a prefix; `events_of` gathers the events
by name, `event_value` finds the first set value of some keys in them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .._model.span import Span
from ._base import as_str

__all__ = [
    "Entities",
    "Events",
    "entities_of",
    "entity",
    "entity_in",
    "event_value",
    "events_of",
]


#: a span's entities: ``(N, entity.N.type, entity.N.name)`` of each entity whose type is text
Entities = list[tuple[int, str, Any]]

#: ``entity.N.type`` and ``entity.N.name`` for the usual N (built once, not per lookup)
_ENTITY_KEYS = tuple((f"entity.{n}.type", f"entity.{n}.name") for n in range(32))


def _typed_entities(get: Callable[[str], Any]) -> Iterator[tuple[int, str, Any]]:
    """``(N, entity.N.type, entity.N.name)`` of each entity whose type is text, in number order, read
    lazily: entity numbers are dense in practice, so the walk ends after three missing numbers in a row."""
    index = 1
    misses = 0
    while misses < 3:
        type_key, name_key = (
            _ENTITY_KEYS[index] if index < 32 else (f"entity.{index}.type", f"entity.{index}.name")
        )
        etype = get(type_key)
        name = get(name_key)
        if etype is None and name is None:
            misses += 1
        else:
            misses = 0
            if isinstance(etype, str):
                yield index, etype, name
        index += 1


def entities_of(attrs: Mapping[str, Any]) -> Entities:
    """The typed entities of a span as a list (read once per span: every `entity_in` lookup of the span
    walks this list, not the attributes)."""
    return list(_typed_entities(attrs.get))


def entity_in(
    entities: Entities, attrs: Mapping[str, Any], prefixes: tuple[str, ...], key: str = "name"
) -> str | None:
    """`entity` over the list `entities_of` read."""
    for index, etype, name in entities:
        if etype.startswith(prefixes):
            if key == "name":
                value = name
            elif key == "type":
                value = etype
            else:
                value = attrs.get(f"entity.{index}.{key}")
            if value is not None and value != "":
                return as_str(value)
    return None


def entity(attrs: Mapping[str, Any], *prefixes: str, key: str = "name") -> str | None:
    """``entity.N.<key>`` of the lowest-numbered entity whose type starts with one of ``prefixes`` (as
    `entity_in` of `entities_of`, reading no further than the entity found: for one lookup a span)."""
    get = attrs.get
    for index, etype, name in _typed_entities(get):
        if etype.startswith(prefixes):
            value = name if key == "name" else get(f"entity.{index}.{key}")
            if value is not None and value != "":
                return as_str(value)
    return None


#: a span's events by name, each name's event attributes in the span's order
Events = dict[str, list[Mapping[str, Any]]]
_NO_EVENTS: Events = {}


def events_of(span: Span) -> Events:
    """The events of ``span`` by name (gathered once per span: each `event_value` is a lookup)."""
    events = span.events
    if not events:
        return _NO_EVENTS
    out: Events = {}
    for ev in events:
        name = ev.name
        if name in out:
            out[name].append(ev.attributes)
        else:
            out[name] = [ev.attributes]
    return out


def event_value(events: Events, event: str, *keys: str, last: bool = False) -> Any:
    """The first value of ``keys`` (in order) that is set and not empty in the first event called
    ``event`` that has one (the last such event with ``last``)."""
    if event not in events:
        return None
    found = events[event]
    for attrs in reversed(found) if last else found:
        for key in keys:
            value = attrs.get(key)
            if value is not None and value != "":
                return value
    return None
