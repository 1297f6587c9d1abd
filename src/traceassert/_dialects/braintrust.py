"""Braintrust's OpenTelemetry spans (``braintrust-python-otel``, the SDK's OTel export).

Braintrust keeps a span's content in JSON-text attributes of its own:

- ``braintrust.span_attributes``: ``{"type": ..., "name": ...}``; the type says what the span is:
  ``llm`` a model call, ``tool`` a tool execution; ``task``, ``function``, ``eval``, ``score`` (an
  evaluation's grading) and the rest are other work;
- ``braintrust.input_json`` / ``braintrust.output_json`` (or ``braintrust.input`` / ``.output``): a
  model call's messages (OpenAI chat messages: its tool calls are in ``tool_calls``), a tool's
  arguments and result;
- ``braintrust.metrics``: usage (``prompt_tokens``, ``completion_tokens``, ``tokens``);
- ``braintrust.metadata``: ``model`` (besides ``gen_ai.request.model`` / ``gen_ai.response.model``).

Braintrust records no agents: work that is not a model call or a tool is ``other``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._model.span import Span
from . import _keys as k
from ._base import Operation, as_int, as_str, error_info, maybe_json
from ._messages import final_text, requested_tool_calls, user_text

__all__ = ["NAME", "classify", "might_claim"]

NAME = "braintrust"
SPAN_ATTRIBUTES = "braintrust.span_attributes"
_PREFIX = "braintrust."


def might_claim(scope: str | None, keys: frozenset[str]) -> bool:
    """Whether spans of this scope with these attribute keys can be this dialect's (a necessary
    condition, from names only: the dispatcher caches it per key signature)."""
    return SPAN_ATTRIBUTES in keys


def _object(value: Any) -> Mapping[str, Any]:
    parsed = maybe_json(value)
    return parsed if isinstance(parsed, Mapping) else {}


def _content(attrs: Mapping[str, Any], which: str) -> Any:
    value = attrs.get(f"{_PREFIX}{which}_json")
    if value is None:
        value = attrs.get(f"{_PREFIX}{which}")
    return maybe_json(value)


def _failed(span: Span) -> bool | None:
    if span.status.code == "ERROR" or span.attributes.get(k.ERROR_TYPE) is not None:
        return True
    return None if span.end_ns is None else False


def classify(span: Span) -> Operation | None:
    attrs = span.attributes
    if SPAN_ATTRIBUTES not in attrs:
        return None
    described = _object(attrs.get(SPAN_ATTRIBUTES))
    kind = as_str(described.get("type"))
    name = as_str(described.get("name")) or span.name
    failed = _failed(span)
    error = error_info(span) if failed else None
    if kind == "llm":
        metrics = _object(attrs.get(f"{_PREFIX}metrics"))
        metadata = _object(attrs.get(f"{_PREFIX}metadata"))
        inp = as_int(metrics.get("prompt_tokens"))
        out = as_int(metrics.get("completion_tokens"))
        total = as_int(metrics.get("tokens"))
        if total is None and (inp is not None or out is not None):
            total = (inp or 0) + (out or 0)
        output = _content(attrs, "output")
        model = as_str(attrs.get(k.RESPONSE_MODEL)) or as_str(metadata.get("model"))
        return Operation(
            kind="model",
            dialect=NAME,
            name=name,
            operation="chat",
            model=model or as_str(attrs.get(k.REQUEST_MODEL)),
            provider=as_str(metadata.get("provider")),
            input_tokens=inp,
            output_tokens=out,
            total_tokens=total,
            input=user_text(_content(attrs, "input")),
            output=final_text(output),
            requested_tools=requested_tool_calls(output),
            failed=failed,
            error=error,
        )
    if kind == "tool":
        arguments = _content(attrs, "input")
        result = _content(attrs, "output")
        return Operation(
            kind="tool",
            dialect=NAME,
            name=name,
            arguments=arguments,
            result=result,
            input=arguments,
            output=result,
            failed=failed,
            error=error,
        )
    return Operation(kind="other", dialect=NAME, name=name, failed=failed, error=error)
