"""The operations OpenInference spans become, field by field: a model call, a tool execution, an agent
invocation, a workflow or a retrieval, each with whether it failed and the error it records."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._model.lazy import later
from .._model.span import Span
from . import _langgraph as lg
from . import _llamaindex as li
from . import _smolagents as sa
from ._base import Operation, as_int, as_str, as_str_tuple, error_info, maybe_json, model_op, tool_op
from ._messages import final_text, requested_tool_calls, user_text
from ._openinference_attrs import (
    AGENT_NAME,
    EMBEDDING_MODEL_NAME,
    FINISH_REASON,
    INPUT_MESSAGES,
    INPUT_VALUE,
    LLM_MODEL_NAME,
    LLM_PROVIDER,
    LLM_REQUEST_MODEL_NAME,
    LLM_RESPONSE_MODEL_NAME,
    LLM_SYSTEM,
    NAME,
    OUTPUT_MESSAGES,
    OUTPUT_VALUE,
    SESSION_ID,
    TOKENS_COMPLETION,
    TOKENS_PROMPT,
    TOKENS_TOTAL,
    TOOL_CALL_ID,
    documents,
    flattened_messages,
)
from ._openinference_tools import schema_arguments, tool_name
from ._span_names import agent_name as named_agent

if TYPE_CHECKING:
    from .._model.records import ErrorInfo

__all__ = [
    "agent_operation",
    "model_operation",
    "retrieval_operation",
    "span_error",
    "span_failed",
    "tool_operation",
    "workflow_operation",
]

_MAX_REPR_CHARS = 100_000


# --------------------------------------------------------------------------------------------------
# Failure and errors
# --------------------------------------------------------------------------------------------------


def span_failed(span: Span) -> bool | None:
    """True for status ERROR; None while the span is open; else False."""
    if span.status.code == "ERROR":
        return True
    return None if span.end_ns is None else False


def span_error(span: Span) -> ErrorInfo | None:
    """The error a failed span records; the OpenAI Agents instrumentation's comes from its status."""
    info = error_info(span)
    if info is None or info.type is not None or span.events:
        return info

    # OpenAI Agents: "<message>: {'tool_name': ..., 'error': '<what went wrong>'}" (a Python repr)
    head, sep, data = (span.status.description or "").partition(": {")
    if sep and len(data) <= _MAX_REPR_CHARS:
        try:
            parsed = ast.literal_eval("{" + data)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return info
        if isinstance(parsed, Mapping) and parsed.get("error"):
            return dataclasses.replace(info, message=f"{head}: {parsed['error']}")

    return info


# --------------------------------------------------------------------------------------------------
# Model calls
# --------------------------------------------------------------------------------------------------


def _tokens(attrs: Mapping[str, Any]) -> tuple[int | None, int | None, int | None]:
    # ``as_int``, skipped for the usual int (it returns one as it is)
    get = attrs.get
    inp, out, total = get(TOKENS_PROMPT), get(TOKENS_COMPLETION), get(TOKENS_TOTAL)
    if inp.__class__ is not int:
        inp = as_int(inp)
    if out.__class__ is not int:
        out = as_int(out)
    if total.__class__ is not int:
        total = as_int(total)
    if total is None and (inp is not None or out is not None):
        total = (inp or 0) + (out or 0)
    return inp, out, total


def _model_input(attrs: Mapping[str, Any]) -> Any:
    return user_text(flattened_messages(attrs, INPUT_MESSAGES))


def _model_output(attrs: Mapping[str, Any]) -> Any:
    outputs = flattened_messages(attrs, OUTPUT_MESSAGES)
    return final_text(outputs) if outputs else maybe_json(attrs.get(OUTPUT_VALUE))


def _model_requests(attrs: Mapping[str, Any]) -> Any:
    return requested_tool_calls(flattened_messages(attrs, OUTPUT_MESSAGES))


#: attribute keys -> whether one may hold a tool call of the output messages (once per key set)
_MAY_REQUEST: dict[tuple[str, ...], bool] = {}


def _no_requests(attrs: Mapping[str, Any]) -> bool:
    """No output message key of a tool call (``llm.output_messages.N.message.tool_calls...``): no
    request, and nothing to parse."""
    keys = tuple(attrs)
    found = _MAY_REQUEST.get(keys)
    if found is None:
        if len(_MAY_REQUEST) >= 20_000:
            _MAY_REQUEST.clear()
        found = _MAY_REQUEST[keys] = any(k.startswith(OUTPUT_MESSAGES) and "tool_calls" in k for k in keys)
    return not found


def model_operation(span: Span, operation: str, failed: bool | None, error: ErrorInfo | None) -> Operation:
    """``span`` as a model call of ``operation`` (``chat``, ``text_completion``, ``embeddings``); its
    content (messages, the tool calls asked for) is read when first used (``_model.lazy``)."""
    attrs = span.attributes
    inp, out, total = _tokens(attrs)
    model = (
        as_str(attrs.get(LLM_RESPONSE_MODEL_NAME))
        or as_str(attrs.get(LLM_MODEL_NAME))
        or as_str(attrs.get(LLM_REQUEST_MODEL_NAME))
        or as_str(attrs.get(EMBEDDING_MODEL_NAME))
    )

    return model_op(
        dialect=NAME,
        operation=operation,
        model=model,
        provider=as_str(attrs.get(LLM_PROVIDER)) or as_str(attrs.get(LLM_SYSTEM)),
        input_tokens=inp,
        output_tokens=out,
        total_tokens=total,
        finish_reasons=as_str_tuple(attrs.get(FINISH_REASON)),
        input=later(_model_input, attrs) if operation == "chat" else None,
        output=later(_model_output, attrs),
        requested_tools=() if _no_requests(attrs) else _model_requests(attrs),
        failed=failed,
        error=error,
    )


# --------------------------------------------------------------------------------------------------
# Tool executions
# --------------------------------------------------------------------------------------------------


def _tool_result(value: Any) -> tuple[Any, str | None]:
    """The tool's result and call id: a serialised LangChain ``ToolMessage`` gives its content."""
    parsed = maybe_json(value)
    if (
        parsed.__class__ is not str  # (most results are text: no isinstance of an ABC for them)
        and isinstance(parsed, Mapping)
        and parsed.get("type") == "tool"
        and isinstance(parsed.get("data"), Mapping)
    ):
        data = parsed["data"]
        return maybe_json(data.get("content")), as_str(data.get("tool_call_id"))
    return parsed, None


def _result(value: Any) -> Any:
    return _tool_result(li.tool_result(value))[0]


def tool_operation(span: Span, failed: bool | None, error: ErrorInfo | None) -> Operation:
    """``span`` as a tool execution: arguments from ``input.value``, the result from ``output.value``
    (read when first used, unless the call id is needed from it)."""
    attrs = span.attributes
    call_id = as_str(attrs.get(TOOL_CALL_ID))
    raw = attrs.get(OUTPUT_VALUE)
    if raw is None:
        result = None
    elif call_id is None and (raw.__class__ is not str or "tool_call_id" in raw or "\\u" in raw):
        result, call_id = _tool_result(li.tool_result(raw))
    else:
        result = later(_result, raw)

    return tool_op(
        dialect=NAME,
        name=tool_name(span),
        call_id=call_id,
        arguments=schema_arguments(li.tool_arguments(sa.tool_arguments(attrs.get(INPUT_VALUE))), attrs),
        result=result,
        input=attrs.get(INPUT_VALUE),
        output=result,
        failed=failed,
        error=error,
    )


# --------------------------------------------------------------------------------------------------
# Agent invocations, workflows, retrievals
# --------------------------------------------------------------------------------------------------


def _raw_output(attrs: Mapping[str, Any]) -> Any:
    return maybe_json(attrs.get(OUTPUT_VALUE))


def _agent_input(attrs: Mapping[str, Any]) -> Any:
    messages = flattened_messages(attrs, INPUT_MESSAGES) or lg.state_messages(attrs.get(INPUT_VALUE))
    return user_text(messages) if messages else sa.agent_input(attrs)


def _agent_output(attrs: Mapping[str, Any]) -> Any:
    messages = flattened_messages(attrs, OUTPUT_MESSAGES) or lg.state_messages(attrs.get(OUTPUT_VALUE))
    return final_text(messages) if messages else maybe_json(attrs.get(OUTPUT_VALUE))


def agent_operation(span: Span, name: str | None = None) -> Operation:
    """``span`` as an agent invocation (named ``name``, else ``agent.name``, else the span name)."""
    attrs = span.attributes
    failed = span_failed(span)
    # usage on the agent span (the Claude Agent SDK's, smolagents' run): counted only where no model
    # call of the agent records usage
    inp, out, total = _tokens(attrs)

    return Operation(
        kind="agent",
        dialect=NAME,
        name=name or as_str(attrs.get(AGENT_NAME)) or named_agent(span) or span.name,
        input=later(_agent_input, attrs),
        output=later(_agent_output, attrs),
        conversation_id=as_str(attrs.get(SESSION_ID)),
        input_tokens=inp,
        output_tokens=out,
        total_tokens=total,
        failed=failed,
        error=span_error(span) if failed else None,
    )


def workflow_operation(span: Span, failed: bool | None, error: ErrorInfo | None) -> Operation:
    """``span`` as a workflow named after the span, its input and output from ``input/output.value``."""
    attrs = span.attributes
    return Operation(
        kind="workflow",
        dialect=NAME,
        name=span.name,
        input=later(maybe_json, attrs.get(INPUT_VALUE)),
        output=later(_raw_output, attrs),
        failed=failed,
        error=error,
    )


def retrieval_operation(span: Span, failed: bool | None, error: ErrorInfo | None) -> Operation:
    """``span`` as a retrieval: the query from ``input.value``, the retrieved documents' content."""
    attrs = span.attributes
    query = maybe_json(attrs.get(INPUT_VALUE))
    docs = documents(attrs)

    return Operation(
        kind="retrieval",
        dialect=NAME,
        query=as_str(query),
        documents=docs,
        input=query,
        output=list(docs),
        failed=failed,
        error=error,
    )
