"""The operations OpenInference spans become, field by field: a model call, a tool execution, an agent
invocation, a workflow or a retrieval, each with whether it failed and the error it records."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._model.span import Span
from . import _langgraph as lg
from . import _llamaindex as li
from . import _smolagents as sa
from ._base import Operation, as_int, as_str, as_str_tuple, error_info, maybe_json
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
    inp = as_int(attrs.get(TOKENS_PROMPT))
    out = as_int(attrs.get(TOKENS_COMPLETION))
    total = as_int(attrs.get(TOKENS_TOTAL))
    if total is None and (inp is not None or out is not None):
        total = (inp or 0) + (out or 0)
    return inp, out, total


def model_operation(span: Span, operation: str, failed: bool | None, error: ErrorInfo | None) -> Operation:
    """``span`` as a model call of ``operation`` (``chat``, ``text_completion``, ``embeddings``)."""
    attrs = span.attributes
    inp, out, total = _tokens(attrs)
    outputs = flattened_messages(attrs, OUTPUT_MESSAGES)
    model = (
        as_str(attrs.get(LLM_RESPONSE_MODEL_NAME))
        or as_str(attrs.get(LLM_MODEL_NAME))
        or as_str(attrs.get(LLM_REQUEST_MODEL_NAME))
        or as_str(attrs.get(EMBEDDING_MODEL_NAME))
    )

    return Operation(
        kind="model",
        dialect=NAME,
        operation=operation,
        model=model,
        provider=as_str(attrs.get(LLM_PROVIDER)) or as_str(attrs.get(LLM_SYSTEM)),
        input_tokens=inp,
        output_tokens=out,
        total_tokens=total,
        finish_reasons=as_str_tuple(attrs.get(FINISH_REASON)),
        input=user_text(flattened_messages(attrs, INPUT_MESSAGES)) if operation == "chat" else None,
        output=final_text(outputs) if outputs else maybe_json(attrs.get(OUTPUT_VALUE)),
        requested_tools=requested_tool_calls(outputs),
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
        isinstance(parsed, Mapping)
        and parsed.get("type") == "tool"
        and isinstance(parsed.get("data"), Mapping)
    ):
        data = parsed["data"]
        return maybe_json(data.get("content")), as_str(data.get("tool_call_id"))
    return parsed, None


def tool_operation(span: Span, failed: bool | None, error: ErrorInfo | None) -> Operation:
    """``span`` as a tool execution: arguments from ``input.value``, the result from ``output.value``."""
    attrs = span.attributes
    result, call_id = _tool_result(li.tool_result(attrs.get(OUTPUT_VALUE)))

    return Operation(
        kind="tool",
        dialect=NAME,
        name=tool_name(span),
        call_id=as_str(attrs.get(TOOL_CALL_ID)) or call_id,
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
        input=_agent_input(attrs),
        output=_agent_output(attrs),
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
        input=maybe_json(attrs.get(INPUT_VALUE)),
        output=maybe_json(attrs.get(OUTPUT_VALUE)),
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
