"""Flattened lists in span attributes: ``<prefix>N.<rest>`` keys (OpenInference's
``llm.input_messages.0.message.role``, ...) grouped by N."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["has_key_under", "indexed"]

#: (attribute keys, prefix) -> ``(N, key, rest)`` of the keys ``<prefix>N.<rest>``, by N (then key
#: order): spans of one producer share a few key sets, so the keys are matched once per set
_PLANS: dict[tuple[tuple[str, ...], str], tuple[tuple[int, str, str], ...]] = {}
_PLANS_LIMIT = 20_000


def _plan(keys: tuple[str, ...], prefix: str) -> tuple[tuple[int, str, str], ...]:
    found: list[tuple[int, str, str]] = []
    for key in keys:
        if key.startswith(prefix):
            index, _, rest = key[len(prefix) :].partition(".")
            if index.isdigit() and rest:
                found.append((int(index), key, rest))
    found.sort(key=lambda item: item[0])  # stable: a message's fields stay in key order
    if len(_PLANS) >= _PLANS_LIMIT:
        _PLANS.clear()
    plan = _PLANS[(keys, prefix)] = tuple(found)
    return plan


def indexed(attrs: Mapping[str, Any], prefix: str) -> dict[int, dict[str, Any]]:
    """``{N: {rest: value}}`` from the keys ``<prefix>N.<rest>``, in index order."""
    keys = tuple(attrs)
    plan = _PLANS.get((keys, prefix))
    if plan is None:
        plan = _plan(keys, prefix)
    out: dict[int, dict[str, Any]] = {}
    for index, key, rest in plan:
        fields = out.get(index)
        if fields is None:
            fields = out[index] = {}
        fields[rest] = attrs[key]
    return out


_UNDER: dict[tuple[tuple[str, ...], str], bool] = {}


def has_key_under(attrs: Mapping[str, Any], prefix: str) -> bool:
    """Whether a key of ``attrs`` starts with ``prefix`` (answered once per key set)."""
    keys = tuple(attrs)
    found = _UNDER.get((keys, prefix))
    if found is None:
        if len(_UNDER) >= _PLANS_LIMIT:
            _UNDER.clear()
        found = _UNDER[(keys, prefix)] = any(key.startswith(prefix) for key in keys)
    return found
