"""Reading chat messages in the shapes producers record them.

Shapes understood: GenAI semantic conventions (``{"role", "parts": [{"type": "text", "content"},
{"type": "tool_call", "id", "name", "arguments"}]}``), OpenAI chat (``{"role", "content": str | [{"type":
"text", "text"}], "tool_calls": [{"id", "function": {"name", "arguments"}}]}``) and bare strings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ._base import ToolCallRequest, maybe_json

__all__ = ["final_text", "message_list", "message_text", "requested_tool_calls", "texts_by_role"]


def message_list(value: Any) -> list[Any] | None:
    """A list of messages from a JSON string, a list, or one message; None when it is not messages."""
    if value is None:
        return None
    value = maybe_json(value)
    if isinstance(value, Mapping):
        if "messages" in value and isinstance(value["messages"], list | tuple):
            return list(value["messages"])
        if "role" in value or "parts" in value or "content" in value:
            return [value]
        return None
    if isinstance(value, list | tuple):
        return list(value)
    return None


def _part_text(part: Any) -> str | None:
    if isinstance(part, str):
        return part
    if not isinstance(part, Mapping):
        return None
    kind = part.get("type")
    if kind in (None, "text", "output_text", "input_text", "reasoning_text"):
        for key in ("content", "text", "value"):
            val = part.get(key)
            if isinstance(val, str):
                return val
    return None


def message_text(message: Any) -> str | None:
    """The text of one message (its text parts joined), or None when it has none."""
    if isinstance(message, str):
        return message
    if not isinstance(message, Mapping):
        return None
    chunks: list[str] = []
    parts = message.get("parts")
    if isinstance(parts, list | tuple):
        chunks.extend(t for t in (_part_text(p) for p in parts) if t)
    content = message.get("content")
    if isinstance(content, str):
        chunks.append(content)
    elif isinstance(content, list | tuple):
        chunks.extend(t for t in (_part_text(p) for p in content) if t)
    elif isinstance(content, Mapping):
        text = _part_text(content)
        if text:
            chunks.append(text)
    return "\n".join(chunks) if chunks else None


def texts_by_role(messages: Iterable[Any], roles: Sequence[str] | None) -> list[str]:
    """Texts of the messages whose role is in ``roles`` (all messages when roles is None)."""
    out: list[str] = []
    for msg in messages:
        if roles is not None:
            role = msg.get("role") if isinstance(msg, Mapping) else None
            if role is not None and role not in roles:
                continue
        text = message_text(msg)
        if text:
            out.append(text)
    return out


def final_text(value: Any) -> Any:
    """The text of the last assistant message in ``value`` when it holds messages; else ``value``."""
    if value is None:
        return None
    messages = message_list(value)
    if messages is None:
        return maybe_json(value) if isinstance(value, str) else value
    texts = texts_by_role(messages, ("assistant", "model", "ai", "bot"))
    if texts:
        return texts[-1]
    return value


def user_text(value: Any) -> Any:
    """The text of the user messages in ``value`` when it holds messages; else ``value``. An empty
    list of messages (``'[]'``) is no input: None."""
    if value is None:
        return None
    messages = message_list(value)
    if messages is None:
        return value
    if not messages:
        return None
    texts = texts_by_role(messages, ("user", "human"))
    if texts:
        return "\n".join(texts)
    return value


def requested_tool_calls(value: Any) -> tuple[ToolCallRequest, ...]:
    """The tool calls asked for in output messages, in the order the model listed them."""
    if value is None:
        return ()
    messages = message_list(value)
    if not messages:
        return ()
    out: list[ToolCallRequest] = []
    for msg in messages:
        if msg.__class__ is not dict and not isinstance(msg, Mapping):  # (a dict tested first: fast)
            continue
        parts = msg.get("parts")
        if isinstance(parts, list | tuple):
            for part in parts:
                if (part.__class__ is dict or isinstance(part, Mapping)) and part.get("type") == "tool_call":
                    name = part.get("name")
                    if isinstance(name, str):
                        out.append(ToolCallRequest(name, part.get("arguments"), _opt_str(part.get("id"))))
        calls = msg.get("tool_calls")
        if isinstance(calls, list | tuple):
            for call in calls:
                if call.__class__ is not dict and not isinstance(call, Mapping):
                    continue
                fn = call.get("function")
                fn = fn if fn.__class__ is dict or isinstance(fn, Mapping) else call
                name = fn.get("name")
                if isinstance(name, str):
                    out.append(ToolCallRequest(name, fn.get("arguments"), _opt_str(call.get("id"))))
    return tuple(out)


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
