"""any-agent's ``AgentTrace`` dumps: ``{"spans": [...], "final_output": ...}``.

A span is the SDK's span as any-agent's pydantic model keeps it: ``context`` and ``parent`` are span
context objects whose ``trace_id``/``span_id`` are *integers* (the SDK's own ints, not hex);
``parent`` is null on the root (or a context whose ids are null); ``start_time``/``end_time`` are
integer nanoseconds; ``kind`` and the status code are lower-case names (``"internal"``,
``{"status_code": "ok"}``); ``resource`` is ``{"attributes": ..., "schema_url": ...}``. Links carry
their context the same way. The dump has no instrumentation scope. ``final_output`` (the agent's
answer) is not a span and is not read: the agent span records it too.
"""

from __future__ import annotations

from typing import Any

from .common import Context, freeze_attributes_json, iso_to_ns, make_span, whole_span_record
from .sdk import events_from_json, kind_of, links_from_json, resource_from_json, status_from_json

__all__ = ["NAME", "convert", "is_record"]

NAME = "any-agent"


def is_record(value: Any) -> bool:
    """A span whose ``context`` holds integer ids."""
    if value.__class__ is not dict or "name" not in value:
        return False
    context = value.get("context")
    return context.__class__ is dict and context.get("span_id").__class__ is int


def _int_id(value: Any, nbytes: int) -> str:
    if value.__class__ is not int or value < 0 or value >= 1 << (8 * nbytes):
        kind = "trace" if nbytes == 16 else "span"
        raise ValueError(f"{kind} id {value!r} is not an unsigned {8 * nbytes}-bit integer")
    return format(value, f"0{2 * nbytes}x")


def _ids(context: Any) -> tuple[str, str]:
    if context.__class__ is not dict:
        raise TypeError(f"a span context must be an object, got {type(context).__name__}")
    return _int_id(context.get("trace_id"), 16), _int_id(context.get("span_id"), 8)


def convert(key: str | None, where: str, value: Any, ctx: Context) -> None:
    """Add one ``AgentTrace`` span."""
    if not whole_span_record(value, ctx):
        return
    keys = ctx.keys
    trace_id, span_id = _ids(value["context"])
    parent = value.get("parent")
    parent_span = None
    # the root's parent: null, or a context whose ids are null
    if parent is not None and (parent.__class__ is not dict or parent.get("span_id") is not None):
        parent_span = _ids(parent)[1]
        if parent_span == "0000000000000000":
            parent_span = None
    start = iso_to_ns(value.get("start_time"))
    ctx.add(
        make_span(
            trace_id,
            span_id,
            parent_span,
            value["name"],
            kind_of(value.get("kind")),
            start if start is not None else 0,
            iso_to_ns(value.get("end_time")),
            status_from_json(value.get("status")),
            freeze_attributes_json(value.get("attributes"), keys),
            events_from_json(value.get("events"), keys),
            resource_from_json(value.get("resource"), keys),
            None,
            None,
            links_from_json(value.get("links"), keys, _ids),
        )
    )
