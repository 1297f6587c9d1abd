"""JSON text of plain values (dicts, lists, scalars), also when they nest deeper than the recursion
limit: ``traceassert summary --json`` of agents nested a thousand deep."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["json_text"]


def json_text(value: Any) -> str:
    """``value`` as indented JSON (sorted keys), also when it nests deeper than the recursion limit
    (agents nested a thousand deep): then written by an iterative encoder giving the same text."""
    try:
        return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    except RecursionError:
        pass
    out: list[str] = []
    stack: list[tuple[bool, Any, int]] = [(False, value, 0)]  # (is text, item, level)
    while stack:
        is_text, item, level = stack.pop()
        if is_text:
            out.append(item)
            continue
        is_dict = isinstance(item, dict)
        if not (is_dict or isinstance(item, list | tuple)) or not item:
            out.append(json.dumps(item, ensure_ascii=False, default=str))
            continue
        pad = "\n" + "  " * (level + 1)
        parts: list[tuple[bool, Any, int]] = [(True, "{" if is_dict else "[", 0)]
        pairs = sorted(item.items()) if is_dict else [(None, v) for v in item]
        for i, (key, member) in enumerate(pairs):
            head = ("," if i else "") + pad
            if is_dict:
                head += json.dumps(key, ensure_ascii=False) + ": "
            parts.append((True, head, 0))
            parts.append((False, member, level + 1))
        parts.append((True, "\n" + "  " * level + ("}" if is_dict else "]"), 0))
        stack.extend(reversed(parts))
    return "".join(out)
