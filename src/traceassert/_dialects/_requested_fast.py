"""The tool calls of GenAI output messages read from their JSON text without the messages' content.

`requested_tool_calls` (``_messages``) needs the whole output parsed: every text part becomes a Python
string, then is walked past. With msgspec installed (the optional accelerator), the text is decoded
straight into small typed structs that keep only what a tool call is made of (a part's ``type``,
``id``, ``name``, ``arguments``; a message's ``tool_calls``) and skip the rest unread. Anything of
another shape (a part that is not an object, ``parts`` that is not a list, a single message, ...)
makes `tool_calls_from_text` return None, and the caller takes the general path, so both give the
same requests (tested).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._common.jsonvalue import MAX_JSON_DEPTH, shallow_json
from ._base import ToolCallRequest, tool_call_request

__all__ = ["tool_calls_from_text"]


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _from_messages(messages: list[Any]) -> tuple[ToolCallRequest, ...]:
    out: list[ToolCallRequest] = []
    for msg in messages:
        parts = msg.parts
        if parts:
            for part in parts:
                if part.type == "tool_call" and isinstance(part.name, str):
                    call_id = part.id
                    if call_id.__class__ is not str or not call_id:  # `_opt_str`: a str as it is
                        call_id = _opt_str(call_id)
                    out.append(tool_call_request(part.name, part.arguments, call_id))
        calls = msg.tool_calls
        if isinstance(calls, list):
            for call in calls:
                if not isinstance(call, dict):
                    continue
                fn = call.get("function")
                fn = fn if isinstance(fn, dict) else call
                name = fn.get("name")
                if isinstance(name, str):
                    out.append(ToolCallRequest(name, fn.get("arguments"), _opt_str(call.get("id"))))
    return tuple(out)


def _accelerated() -> bool:
    import os

    return os.environ.get("TRACEASSERT_JSON", "").lower() not in ("stdlib", "json")


try:
    import msgspec
except ImportError:  # pragma: no cover - msgspec is the optional accelerator
    msgspec = None  # type: ignore[assignment]

_read: Callable[[str], list[Any]] | None = None
_ERRORS: tuple[type[BaseException], ...] = ()

if msgspec is not None and _accelerated():

    class _Part(msgspec.Struct, gc=False):
        type: Any = None
        id: Any = None
        name: Any = None
        arguments: Any = None

    class _Message(msgspec.Struct, gc=False):
        parts: list[_Part] | None = None
        tool_calls: Any = None

    _read = msgspec.json.Decoder(list[_Message]).decode
    _ERRORS = (msgspec.MsgspecError, ValueError, RecursionError)


def tool_calls_from_text(text: str) -> tuple[ToolCallRequest, ...] | None:
    """The tool calls asked for in ``text``, a JSON list of GenAI or OpenAI chat messages; None when
    the text has another shape or msgspec is not installed (then ``requested_tool_calls`` decides)."""
    if _read is None or not text.startswith("["):
        return None
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and not shallow_json(text):
        return None
    try:
        return _from_messages(_read(text))
    except _ERRORS:
        return None
