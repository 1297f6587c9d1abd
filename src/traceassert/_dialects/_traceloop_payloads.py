"""Reading the payloads OpenLLMetry (Traceloop) records: entity input/output wrappers and flat messages.

- ``traceloop.entity.input`` / ``.output`` are JSON. The LangChain callback handler wraps them:
  a tool's input is ``{"input_str", "tags", "metadata", "inputs", "kwargs"}`` (the arguments the tool
  received are ``inputs``; ``kwargs.tool_call_id`` is the call id), a chain's is ``{"inputs", ...}``,
  outputs are ``{"output": ...}`` / ``{"outputs": ...}``, and messages inside them are LangChain's
  serialised objects (``{"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs": {...}}``).
  The SDK decorators (``@workflow``, ``@agent``, ``@tool``, ``@task``) record ``{"args", "kwargs"}``.
- Releases before the GenAI message attributes flattened chat messages into ``gen_ai.prompt.N.*`` and
  ``gen_ai.completion.N.*`` keys (``role``, ``content``, ``finish_reason``, ``tool_call_id``,
  ``tool_calls.M.{id,name,arguments}``, ``function_call.{name,arguments}``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._base import maybe_json
from ._messages import final_text, user_text

__all__ = [
    "call_arguments",
    "call_id",
    "call_result",
    "entity_input",
    "entity_output",
    "flat_messages",
    "lc_value",
]

_LC_ROLES = {
    "HumanMessage": "user",
    "HumanMessageChunk": "user",
    "AIMessage": "assistant",
    "AIMessageChunk": "assistant",
    "SystemMessage": "system",
    "SystemMessageChunk": "system",
    "ToolMessage": "tool",
    "ToolMessageChunk": "tool",
    "FunctionMessage": "tool",
}
_TUPLE_ROLES = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "system": "system",
}


def _parsed(value: Any) -> Any:
    return maybe_json(value) if isinstance(value, str) else value


def _is_lc(value: Any) -> bool:
    return isinstance(value, Mapping) and value.get("lc") == 1 and isinstance(value.get("kwargs"), Mapping)


def lc_value(value: Any) -> Any:
    """A LangChain serialised object as plain data: a message as ``{"role", "content", ...}``, a
    serialised tool message's content, anything else unchanged."""
    if not _is_lc(value):
        return value
    kwargs = value["kwargs"]
    ident = value.get("id")
    cls = ident[-1] if isinstance(ident, list | tuple) and ident else None
    role = _LC_ROLES.get(str(cls)) if cls is not None else None
    if role is None:
        return dict(kwargs)
    message: dict[str, Any] = {"role": role, "content": kwargs.get("content")}
    calls = kwargs.get("tool_calls")
    if isinstance(calls, list | tuple) and calls:
        message["tool_calls"] = [
            {"id": c.get("id"), "function": {"name": c.get("name"), "arguments": c.get("args")}}
            for c in calls
            if isinstance(c, Mapping)
        ]
    return message


def _message(value: Any) -> Any:
    """One chat message from LangChain's shapes: serialised, a ``(role, text)`` pair, or a dict."""
    if _is_lc(value):
        return lc_value(value)
    if isinstance(value, list | tuple) and len(value) == 2 and isinstance(value[0], str):
        return {"role": _TUPLE_ROLES.get(value[0], value[0]), "content": value[1]}
    return value


def _messages_of(value: Any) -> list[Any] | None:
    if isinstance(value, Mapping) and isinstance(value.get("messages"), list | tuple):
        return [_message(m) for m in value["messages"]]
    if isinstance(value, list | tuple) and value and all(_is_lc(m) for m in value):
        return [_message(m) for m in value]
    return None


def _unwrap_decorator(value: Any) -> Any:
    """``{"args": [...], "kwargs": {...}}`` (SDK decorators): the keyword arguments, the only positional
    argument, or both kept when there are several."""
    if not (isinstance(value, Mapping) and set(value) == {"args", "kwargs"}):
        return value
    args = value["args"] if isinstance(value["args"], list | tuple) else []
    kwargs = value["kwargs"] if isinstance(value["kwargs"], Mapping) else {}
    if not args:
        return dict(kwargs)
    if len(args) == 1 and not kwargs:
        return args[0]
    return {"args": list(args), **kwargs}


def entity_input(raw: Any) -> Any:
    """What an agent, workflow or task was given: the user's text when the input holds messages."""
    value = _unwrap_decorator(_parsed(raw))
    if isinstance(value, Mapping) and "inputs" in value:
        value = value["inputs"]
    messages = _messages_of(value)
    if messages is not None:
        return user_text(messages)
    return lc_value(value)


def entity_output(raw: Any) -> Any:
    """What an agent, workflow or task returned: the last assistant text when it holds messages."""
    value = _parsed(raw)
    if isinstance(value, Mapping) and "outputs" in value:
        value = value["outputs"]
    elif isinstance(value, Mapping) and set(value) <= {"output", "kwargs"} and "output" in value:
        value = value["output"]
    messages = _messages_of(value)
    if messages is not None:
        return final_text(messages)
    return lc_value(value)


def _is_langchain_tool_input(value: Any) -> bool:
    return isinstance(value, Mapping) and "input_str" in value


def call_arguments(raw: Any) -> Any:
    """A tool's arguments without the producer's wrapper (still raw: a dict, JSON text or a repr)."""
    value = _parsed(raw)
    if _is_langchain_tool_input(value):
        inputs = value.get("inputs")
        return dict(inputs) if isinstance(inputs, Mapping) else value.get("input_str")
    if isinstance(value, Mapping) and set(value) == {"args", "kwargs"}:
        return _unwrap_decorator(value)
    return raw


def call_id(raw: Any) -> str | None:
    """The tool-call id a LangChain tool input carries (``kwargs.tool_call_id``), if any."""
    value = _parsed(raw)
    if not _is_langchain_tool_input(value):
        return None
    kwargs = value.get("kwargs")
    ident = kwargs.get("tool_call_id") if isinstance(kwargs, Mapping) else None
    return ident if isinstance(ident, str) and ident else None


def call_result(raw: Any) -> Any:
    """A tool's result without the wrapper; a serialised LangChain tool message becomes its content."""
    value = _parsed(raw)
    if isinstance(value, Mapping) and "output" in value and set(value) <= {"output", "kwargs"}:
        value = value["output"]
    if _is_lc(value):
        content = value["kwargs"].get("content")
        return _parsed(content) if content is not None else lc_value(value)
    return value


def _flat_index(key: str, prefix: str) -> tuple[int, str] | None:
    rest = key[len(prefix) :]
    head, dot, field = rest.partition(".")
    if not dot or not head.isdigit():
        return None
    return int(head), field


#: a flattened message list starts with one of these (a completion that only asked for a tool, as
#: LiteLLM and older OpenLLMetry record it, has nothing but ``function_call.*``)
_FIRST_FIELDS = ("role", "content", "tool_calls.0.name", "function_call.name")
#: prefix -> the keys of ``_FIRST_FIELDS`` under it (made once per prefix, not per span)
_FIRST_KEYS: dict[str, tuple[str, ...]] = {}


def flat_messages(attributes: Mapping[str, Any], prefix: str) -> list[dict[str, Any]] | None:
    """Messages flattened under ``prefix`` (``gen_ai.prompt`` / ``gen_ai.completion``), in index order,
    as OpenAI-style dicts; None when there are none."""
    start = prefix + "."
    firsts = _FIRST_KEYS.get(prefix)
    if firsts is None:
        firsts = _FIRST_KEYS[prefix] = tuple(f"{start}0.{f}" for f in _FIRST_FIELDS)
    for first in firsts:
        if first in attributes:
            break
    else:
        return None
    found: dict[int, dict[str, Any]] = {}
    calls: dict[int, dict[int, dict[str, Any]]] = {}
    for key, value in attributes.items():
        if not key.startswith(start):
            continue
        parsed = _flat_index(key, start)
        if parsed is None:
            continue
        index, field = parsed
        message = found.setdefault(index, {})
        if field.startswith("tool_calls."):
            slot = _flat_index(field, "tool_calls.")
            if slot is not None:
                calls.setdefault(index, {}).setdefault(slot[0], {})[slot[1]] = value
        elif field.startswith("function_call."):
            calls.setdefault(index, {}).setdefault(0, {})[field.partition(".")[2]] = value
        elif field == "content" and isinstance(value, str) and value.lstrip()[:1] == "[":
            message[field] = maybe_json(value)
        else:
            message[field] = value
    for index, slots in calls.items():
        found[index]["tool_calls"] = [
            {"id": c.get("id"), "function": {"name": c.get("name"), "arguments": c.get("arguments")}}
            for _, c in sorted(slots.items())
        ]
    return [found[i] for i in sorted(found)]
