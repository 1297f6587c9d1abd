"""The Vercel AI SDK's ``experimental_telemetry`` spans (TypeScript ``ai`` package, scope ``ai``).

Every span carries ``ai.operationId`` (the span name: ``ai.generateText``, ``ai.generateText.doGenerate``,
``ai.toolCall``, ...), and, when the call sets them, ``ai.telemetry.functionId`` and
``ai.telemetry.metadata.<key>``; ``operation.name`` is the operation id followed by the function id.

- ``ai.generateText`` / ``ai.streamText`` / ``ai.generateObject`` / ``ai.streamObject``: one call of the
  SDK, with its whole tool loop (``stopWhen`` / ``maxSteps``): an agent invocation named by its
  ``ai.telemetry.functionId`` (the span name when the call sets none). ``ai.prompt`` holds the call's
  ``{system, prompt, messages}``, ``ai.response.text`` the final text, ``ai.usage.*`` the usage of *all*
  its steps (kept on the agent, used only when no model call records usage, never added again).
- ``ai.<call>.doGenerate`` / ``ai.<call>.doStream``: one model call (a step), with ``ai.model.id``,
  ``ai.model.provider``, ``ai.prompt.messages``, ``ai.response.text`` / ``ai.response.toolCalls``
  (``[{toolCallId, toolName, input}]``, ``args`` before SDK 5), ``ai.response.finishReason``, and usage in
  ``ai.usage.inputTokens`` / ``outputTokens`` (``promptTokens`` / ``completionTokens`` before SDK 5) as
  well as ``gen_ai.usage.*``. ``ai.embed.doEmbed`` / ``ai.embedMany.doEmbed`` are ``embeddings`` calls.
- ``ai.toolCall``: one tool execution, a child of the SDK call that ran it (a nested ``generateText``
  inside a tool's ``execute`` is a child of that ``ai.toolCall``): ``ai.toolCall.name`` / ``.id`` /
  ``.args`` / ``.result`` (JSON). A tool that throws gets status ERROR and an ``exception`` event; since
  SDK 5 the loop goes on (the model gets a ``tool-error`` part).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._model.span import Span
from . import _keys as k
from ._base import Operation, ToolCallRequest, as_int, as_str, as_str_tuple, error_info, maybe_json
from ._messages import user_text

__all__ = ["NAME", "RECORDS_TOOL_EXECUTIONS", "SCOPE", "classify", "might_claim", "scope_hint"]

NAME = "vercel_ai"

#: whether its producers record every tool execution as a span of its own (``records_tool_executions``):
#: True for all of them, else the scopes (prefixes) of those known to
RECORDS_TOOL_EXECUTIONS: bool | tuple[str, ...] = True
#: the tracer name the SDK asks the global provider for (``trace.getTracer('ai')``)
SCOPE = "ai"
OPERATION_ID = "ai.operationId"
FUNCTION_ID = "ai.telemetry.functionId"

#: the SDK calls that run a (possibly multi-step) generation: agent invocations
_CALLS = frozenset({"ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject"})
_MODEL_STEPS = frozenset({"doGenerate", "doStream"})
_EMBEDDINGS = frozenset({"ai.embed.doEmbed", "ai.embedMany.doEmbed"})


def might_claim(scope: str | None, keys: frozenset[str]) -> bool:
    """Whether spans of this scope with these attribute keys can be this dialect's (a necessary
    condition, from names only: the dispatcher caches it per key signature)."""
    return OPERATION_ID in keys or scope == SCOPE


def scope_hint(span: Span, trace_scopes: frozenset[str]) -> str | None:
    """The SDK's scope for a span without one (an SDK dump): every span it writes has ``ai.operationId``."""
    op = span.attributes.get(OPERATION_ID)
    if not trace_scopes and isinstance(op, str) and op.startswith("ai."):
        return SCOPE
    return None


def _operation_id(span: Span) -> str | None:
    op = span.attributes.get(OPERATION_ID)
    if isinstance(op, str) and op.startswith("ai."):
        return op
    if span.scope_name == SCOPE and span.name.startswith("ai."):
        return span.name
    return None


def classify(span: Span) -> Operation | None:
    op_id = _operation_id(span)
    if op_id is None:
        return None
    if op_id in _CALLS:
        return _call(span)
    if op_id == "ai.toolCall":
        return _tool(span)
    call, _, step = op_id.rpartition(".")
    if op_id in _EMBEDDINGS:
        return _model(span, "embeddings", streamed=False)
    if step in _MODEL_STEPS and call in _CALLS:
        return _model(span, "chat", streamed=step == "doStream")
    return Operation(kind="other", dialect=NAME, name=_function_id(span) or span.name)


def _function_id(span: Span) -> str | None:
    return as_str(span.attributes.get(FUNCTION_ID)) or None


def _failed(span: Span) -> bool | None:
    if span.status.code == "ERROR":
        return True
    return None if span.end_ns is None else False


def _usage(attrs: Mapping[str, Any]) -> tuple[int | None, int | None, int | None]:
    inp = as_int(attrs.get("ai.usage.inputTokens"))
    if inp is None:
        inp = as_int(attrs.get("ai.usage.promptTokens"))
    if inp is None:
        inp = as_int(attrs.get(k.USAGE_INPUT_TOKENS))
    out = as_int(attrs.get("ai.usage.outputTokens"))
    if out is None:
        out = as_int(attrs.get("ai.usage.completionTokens"))
    if out is None:
        out = as_int(attrs.get(k.USAGE_OUTPUT_TOKENS))
    total = as_int(attrs.get("ai.usage.totalTokens"))
    if total is None and (inp is not None or out is not None):
        total = (inp or 0) + (out or 0)
    return inp, out, total


def _prompt_text(value: Any) -> Any:
    """The user's text from ``ai.prompt`` (``{system, prompt, messages}``) or ``ai.prompt.messages``."""
    value = maybe_json(value)
    if isinstance(value, Mapping):
        prompt = value.get("prompt")
        if prompt is not None:
            return user_text(prompt) if not isinstance(prompt, str) else prompt
        messages = value.get("messages")
        return user_text(messages) if messages is not None else None
    return user_text(value)


def _call(span: Span) -> Operation:
    attrs = span.attributes
    failed = _failed(span)
    inp, out, total = _usage(attrs)
    text = attrs.get("ai.response.text")
    if text is None:
        text = maybe_json(attrs.get("ai.response.object"))
    return Operation(
        kind="agent",
        dialect=NAME,
        name=_function_id(span) or span.name,
        input=_prompt_text(attrs.get("ai.prompt")),
        output=text,
        input_tokens=inp,
        output_tokens=out,
        total_tokens=total,
        failed=failed,
        error=error_info(span) if failed else None,
    )


def _requested(value: Any) -> tuple[ToolCallRequest, ...]:
    calls = maybe_json(value)
    if not isinstance(calls, list | tuple):
        return ()
    out: list[ToolCallRequest] = []
    for call in calls:
        if not isinstance(call, Mapping) or not isinstance(call.get("toolName"), str):
            continue
        arguments = call.get("input", call.get("args"))
        call_id = call.get("toolCallId")
        out.append(
            ToolCallRequest(
                call["toolName"], maybe_json(arguments), call_id if isinstance(call_id, str) else None
            )
        )
    return tuple(out)


def _model(span: Span, operation: str, *, streamed: bool) -> Operation:
    attrs = span.attributes
    failed = _failed(span)
    inp, out, total = _usage(attrs)
    if operation == "embeddings" and inp is None:
        inp = as_int(attrs.get("ai.usage.tokens"))
        total = inp
    finish = attrs.get("ai.response.finishReason")
    return Operation(
        kind="model",
        dialect=NAME,
        operation=operation,
        model=as_str(attrs.get("ai.response.model")) or as_str(attrs.get("ai.model.id")),
        provider=as_str(attrs.get("ai.model.provider")),
        input_tokens=inp,
        output_tokens=out,
        total_tokens=total,
        finish_reasons=as_str_tuple(finish) if finish is not None else (),
        streamed=streamed,
        input=_prompt_text(attrs.get("ai.prompt.messages")),
        output=as_str(attrs.get("ai.response.text")),
        requested_tools=_requested(attrs.get("ai.response.toolCalls")),
        failed=failed,
        error=error_info(span) if failed else None,
    )


def _tool(span: Span) -> Operation:
    attrs = span.attributes
    failed = _failed(span)
    arguments = maybe_json(attrs.get("ai.toolCall.args"))
    result = maybe_json(attrs.get("ai.toolCall.result"))
    return Operation(
        kind="tool",
        dialect=NAME,
        name=as_str(attrs.get("ai.toolCall.name")) or span.name,
        call_id=as_str(attrs.get("ai.toolCall.id")),
        arguments=arguments,
        result=result,
        input=arguments,
        output=result,
        failed=failed,
        error=error_info(span) if failed else None,
    )
