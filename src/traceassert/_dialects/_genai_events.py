"""GenAI message content carried by a span's events: the span with that content lifted into its
attributes, so that the attribute readers of ``genai`` read it.

Two shapes, both written as span events or as log records tied to the span (which the loaders and the
capture join to it as events, see ``_model.logs``):

- the latest conventions: one ``gen_ai.client.inference.operation.details`` event whose attributes are
  those of the span (``gen_ai.input.messages``, ``gen_ai.output.messages``, tokens, ...); the OpenAI
  SDK's instrumentation in ``event_only`` mode writes it as a log record;
- the older per-message events: ``gen_ai.system.message`` / ``gen_ai.user.message`` /
  ``gen_ai.assistant.message`` / ``gen_ai.tool.message`` (``content``, ``tool_calls``, the tool
  message's ``id``) for the input, one ``gen_ai.choice`` (``message``, ``finish_reason``) per output
  choice; they become OpenAI-style chat messages.

What the span's own attributes say always wins; a span without such events is returned as it is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from .._model.span import Span, freeze_attributes
from . import _keys as k
from ._base import maybe_json

__all__ = ["with_event_content"]

_DETAILS_SUFFIX = ".operation.details"
_INPUT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
_CHOICE = "gen_ai.choice"


def with_event_content(span: Span) -> Span:
    """``span`` with the message content its events carry lifted into its attributes (see above)."""
    if not span.events:
        return span
    lifted: dict[str, Any] = {}
    inputs: list[dict[str, Any]] = []
    outputs: list[dict[str, Any]] = []
    for event in span.events:
        name = event.name
        if name.startswith("gen_ai.") and name.endswith(_DETAILS_SUFFIX):
            for key, value in event.attributes.items():
                lifted.setdefault(key, value)
        elif name in _INPUT_ROLES:
            inputs.append(_message(_INPUT_ROLES[name], event.attributes))
        elif name == _CHOICE:
            outputs.append(_choice(event.attributes))
    if inputs:
        lifted.setdefault(k.INPUT_MESSAGES, inputs)
    if outputs:
        lifted.setdefault(k.OUTPUT_MESSAGES, outputs)
    if not lifted or all(key in span.attributes for key in lifted):
        return span
    return dataclasses.replace(span, attributes=freeze_attributes({**lifted, **span.attributes}))


def _message(role: str, attrs: Mapping[str, Any]) -> dict[str, Any]:
    named = attrs.get("role")
    message: dict[str, Any] = {"role": named if isinstance(named, str) and named else role}
    content = attrs.get("content")
    if content is not None:
        message["content"] = content
    calls = maybe_json(attrs.get("tool_calls"))
    if isinstance(calls, list | tuple):
        message["tool_calls"] = list(calls)
    call_id = attrs.get("id", attrs.get("tool_call_id"))
    if role == "tool" and isinstance(call_id, str):
        message["tool_call_id"] = call_id
    return message


def _choice(attrs: Mapping[str, Any]) -> dict[str, Any]:
    inner = maybe_json(attrs.get("message"))
    message = _message("assistant", inner) if isinstance(inner, Mapping) else {"role": "assistant"}
    if inner is not None and not isinstance(inner, Mapping):
        message["content"] = inner
    reason = attrs.get("finish_reason")
    if isinstance(reason, str):
        message["finish_reason"] = reason
    return message
