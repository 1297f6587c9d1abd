"""The attributes OpenInference writes: their keys, and the flattened lists (messages with their content
parts and tool calls, retrieved documents) read back into values.

A list is flattened into one key per field: ``llm.output_messages.N.message.role``,
``...message.tool_calls.M.tool_call.function.name``, ``retrieval.documents.N.document.content``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._base import as_str
from ._indexed import indexed

__all__ = ["documents", "flattened_messages"]

#: the dialect's name, in every operation it makes
NAME = "openinference"

SPAN_KIND = "openinference.span.kind"
INPUT_VALUE = "input.value"
OUTPUT_VALUE = "output.value"
TOOL_NAME = "tool.name"
TOOL_PARAMETERS = "tool.parameters"
TOOL_CALL_ID = "tool_call.id"
AGENT_NAME = "agent.name"
GRAPH_NODE_ID = "graph.node.id"
SESSION_ID = "session.id"
METADATA = "metadata"
LLM_MODEL_NAME = "llm.model_name"
LLM_RESPONSE_MODEL_NAME = "llm.response.model_name"
LLM_REQUEST_MODEL_NAME = "llm.request.model_name"
EMBEDDING_MODEL_NAME = "embedding.model_name"
LLM_PROVIDER = "llm.provider"
LLM_SYSTEM = "llm.system"
LLM_PROMPTS = "llm.prompts"
TOKENS_PROMPT = "llm.token_count.prompt"
TOKENS_COMPLETION = "llm.token_count.completion"
TOKENS_TOTAL = "llm.token_count.total"
FINISH_REASON = "llm.finish_reason"
INPUT_MESSAGES = "llm.input_messages."
OUTPUT_MESSAGES = "llm.output_messages."
RETRIEVAL_DOCUMENTS = "retrieval.documents."

_MESSAGE_FIELDS = tuple((key, f"message.{key}") for key in ("role", "content", "name", "tool_call_id"))


#: a role written as the ``str()`` of a Python enum member (``ChatRole.TOOL``): the member's name is the role
_ENUM_ROLE = re.compile(r"[A-Z][A-Za-z0-9]*\.([A-Z][A-Z_]*)")


def _role(value: Any) -> Any:
    """``value`` as a role: an enum member's ``str()`` (``ChatRole.USER``) is ``user``."""
    if isinstance(value, str) and (match := _ENUM_ROLE.fullmatch(value)):
        return match.group(1).lower()
    return value


def _message(fields: Mapping[str, Any]) -> dict[str, Any]:
    """One message in the OpenAI chat shape, from its flattened ``message.*`` fields."""
    msg: dict[str, Any] = {}
    for key, field in _MESSAGE_FIELDS:
        if field in fields:
            msg[key] = _role(fields[field]) if key == "role" else fields[field]

    parts = indexed(fields, "message.contents.")
    if parts and "content" not in msg:
        msg["content"] = [
            {"type": part.get("message_content.type", "text"), "text": part.get("message_content.text")}
            for part in parts.values()
        ]

    calls = indexed(fields, "message.tool_calls.")
    if calls:
        msg["tool_calls"] = [
            {
                "id": call.get("tool_call.id"),
                "function": {
                    "name": call.get("tool_call.function.name"),
                    "arguments": call.get("tool_call.function.arguments"),
                },
            }
            for call in calls.values()
        ]

    return msg


def flattened_messages(attrs: Mapping[str, Any], prefix: str) -> list[dict[str, Any]]:
    """The messages recorded under ``prefix`` (``"llm.input_messages."`` or ``"llm.output_messages."``)."""
    return [_message(fields) for fields in indexed(attrs, prefix).values()]


def documents(attrs: Mapping[str, Any]) -> tuple[str, ...]:
    """The content of each retrieved document (``""`` for one without)."""
    docs = indexed(attrs, RETRIEVAL_DOCUMENTS)
    return tuple(as_str(doc.get("document.content")) or "" for doc in docs.values())
