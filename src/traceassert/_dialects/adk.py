"""Google ADK (``google-adk``): its own spans, scope ``gcp.vertex.agent``, current and legacy formats.

ADK emits GenAI-convention spans with ADK extras, in two formats chosen by
``ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN`` (google-adk 2.x), plus the shapes of older releases:

- schema 2 (default): ``invoke_workflow <app>`` > ``invoke_agent <agent>`` > ``generate_content <model>``
  and ``execute_tool <tool>`` with ``gen_ai.*`` keys (read by the GenAI dialect, then adjusted here);
- schema 1 / 1.x releases: ``invocation`` > ``invoke_agent <agent>`` (older: ``agent_run [<agent>]``) >
  ``call_llm`` (``gen_ai.system = gcp.vertex.agent``, ``gcp.vertex.agent.llm_request`` /
  ``llm_response`` as JSON) over ``generate_content <model>`` (the same call again); tool spans carry
  ``gcp.vertex.agent.tool_call_args`` / ``tool_response`` JSON (very old live tools: ``tool_call [<tool>]``).

Differences from plain GenAI that matter here:

- ``call_llm`` wraps the provider's span of the same call: it is a ``wrapper`` model call, and the
  reconstructor collapses the two (tokens once). Its usage is read from the response JSON's
  ``usage_metadata`` when there, because early 1.x releases wrote the *total* into
  ``gen_ai.usage.output_tokens``;
- ADK wraps a tool's non-dict return value as ``{"result": value}``: the result is unwrapped;
- a tool whose response carries a truthy ``"error"`` (how ``on_tool_error_callback`` and
  ``ReflectAndRetryToolPlugin`` report a failure back to the model) failed, as ADK's own ``FunctionTool``
  judges it (recent releases also set ``error.type`` and an ERROR status on the span);
- ``execute_tool (merged)`` spans (parallel calls) only group the real tool spans: classified as other;
- the built-in ``transfer_to_agent`` tool hands off to the agent named in its ``agent_name`` argument:
  a handoff, not a tool execution;
- content can be switched off: placeholders (``"{}"`` for both arguments and response, ``"N/A"``,
  ``"<not specified>"``) mean "not recorded", not empty values.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

from .._model.records import ErrorInfo
from .._model.span import Span
from . import _keys as k
from . import genai
from ._base import (
    NotRecorded,
    Operation,
    ToolCallRequest,
    agent_io_not_recorded,
    as_int,
    as_str,
    as_str_tuple,
    error_info,
    maybe_json,
)
from ._handoffs import handoff_operation, named_target
from ._messages import final_text, user_text

__all__ = ["NAME", "RECORDS_TOOL_EXECUTIONS", "SCOPE", "classify"]

NAME = "adk"

#: whether its producers record every tool execution as a span of its own (``records_tool_executions``):
#: True for all of them, else the scopes (prefixes) of those known to
RECORDS_TOOL_EXECUTIONS: bool | tuple[str, ...] = True
#: the instrumentation scope (tracer name) of every ADK span
SCOPE = "gcp.vertex.agent"

#: what Google ADK's instrumentation never records (see ``_base.NotRecorded``); without content capture
#: it also leaves out message content and tool arguments, which no span says
NOT_RECORDED = (
    *agent_io_not_recorded("Google ADK's instrumentation", SCOPE),
    NotRecorded(
        "content",
        "Google ADK's instrumentation without content capture",
        "message content and tool arguments",
        "the failure flags still come from the span status",
        scope=SCOPE,
    ),
)
_PREFIX = "gcp.vertex.agent."
LLM_REQUEST = "gcp.vertex.agent.llm_request"
LLM_RESPONSE = "gcp.vertex.agent.llm_response"
TOOL_CALL_ARGS = "gcp.vertex.agent.tool_call_args"
TOOL_RESPONSE = "gcp.vertex.agent.tool_response"

_AGENT_RUN = re.compile(r"agent_run \[(?P<name>.+)\]")
_TOOL_CALL = re.compile(r"tool_call \[(?P<name>.+)\]")
_MERGED = "(merged tools)"
_NOT_RECORDED = frozenset({"", "N/A", "<not specified>", "<not serializable>"})


def _is_adk(span: Span) -> bool:
    if span.scope_name == SCOPE:
        return True
    attrs = span.attributes
    if attrs.get(k.SYSTEM) == SCOPE:
        return True
    return any(key.startswith(_PREFIX) for key in attrs)


def might_claim(scope: str | None, keys: frozenset[str]) -> bool:
    """Whether spans of this scope with these attribute keys can be this dialect's (a necessary
    condition, from names only: the dispatcher caches it per key signature)."""
    return scope == SCOPE or k.SYSTEM in keys or any(key.startswith(_PREFIX) for key in keys)


def scope_hint(span: Span, trace_scopes: frozenset[str]) -> str | None:
    """ADK's scope for a span without one (an SDK dump): from ADK's own keys, or, for the spans ADK
    writes with no attributes (``invocation``, ``agent_run [<agent>]``, ...), from their name in a trace
    with other ADK spans."""
    if not trace_scopes:
        return SCOPE if _is_adk(span) else None
    if SCOPE in trace_scopes and _adk_name(span.name):
        return SCOPE
    return None


def _adk_name(name: str) -> bool:
    """A span name only ADK writes (the runner, legacy agent and tool spans, the legacy model call)."""
    return (
        name in ("invocation", "call_llm", "execute_tool (merged)")
        or _AGENT_RUN.fullmatch(name) is not None
        or _TOOL_CALL.fullmatch(name) is not None
    )


def classify(span: Span) -> Operation | None:
    if not _is_adk(span):
        return None
    name = span.name
    if name == "call_llm":
        return _call_llm(span)
    if name == "invocation":
        return Operation(kind="workflow", dialect=NAME, name=name)
    match = _AGENT_RUN.fullmatch(name)
    if match is not None:
        failed = _failed(span)
        return Operation(
            kind="agent",
            dialect=NAME,
            name=match["name"],
            failed=failed,
            error=error_info(span) if failed else None,
        )
    attrs = span.attributes
    if attrs.get(k.TOOL_NAME) == _MERGED or name == "execute_tool (merged)":
        return Operation(kind="other", dialect=NAME, name=name)
    match = _TOOL_CALL.fullmatch(name)
    if match is not None:
        return _tool(span, match["name"])
    op = genai.classify(span)
    if op is None:
        return Operation(kind="other", dialect=NAME, name=name)
    if op.kind == "tool":
        return _tool(span, op.name or name)
    return dataclasses.replace(op, dialect=NAME)


# -- tools -------------------------------------------------------------------------------------------


def _tool(span: Span, name: str) -> Operation:
    attrs = span.attributes
    raw_args = attrs.get(k.TOOL_CALL_ARGUMENTS)
    raw_response = attrs.get(k.TOOL_CALL_RESULT)
    if raw_args is None and raw_response is None:
        raw_args = attrs.get(TOOL_CALL_ARGS)
        raw_response = attrs.get(TOOL_RESPONSE)
        if raw_args == "{}" and raw_response == "{}":
            # ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=false writes "{}" for both: nothing was recorded
            raw_args = raw_response = None
    if isinstance(raw_args, str) and raw_args.strip() in _NOT_RECORDED:
        raw_args = None
    response = maybe_json(raw_response)
    if isinstance(response, str) and response.strip() in _NOT_RECORDED:
        response = None
    failed = _failed(span)
    error: ErrorInfo | None = None
    reported = response.get("error") if isinstance(response, Mapping) else None
    if reported:
        failed = True
    if failed:
        error = _tool_error(span, reported)
    result = _unwrap(response)
    op = Operation(
        kind="tool",
        dialect=NAME,
        name=name,
        call_id=_call_id(attrs.get(k.TOOL_CALL_ID)),
        arguments=raw_args,
        result=result,
        input=raw_args,
        output=result,
        failed=failed,
        error=error,
    )
    if name != "transfer_to_agent":
        return op
    # ADK's built-in handoff tool: the agent it transfers to is its ``agent_name`` argument
    return handoff_operation(op, as_str(attrs.get(k.AGENT_NAME)), named_target(name, raw_args))


def _unwrap(response: Any) -> Any:
    """ADK sends a non-dict tool result to the model as ``{"result": value}``; give the value back."""
    if isinstance(response, Mapping) and len(response) == 1 and "result" in response:
        return response["result"]
    return response


def _tool_error(span: Span, reported: Any) -> ErrorInfo | None:
    if any(ev.name == "exception" for ev in span.events) or not reported:
        return error_info(span)
    return ErrorInfo(as_str(span.attributes.get(k.ERROR_TYPE)), str(reported))


def _call_id(value: Any) -> str | None:
    text = as_str(value)
    if text is None or text.strip() in _NOT_RECORDED:
        return None
    return text


def _failed(span: Span) -> bool | None:
    if span.status.code == "ERROR" or span.attributes.get(k.ERROR_TYPE) is not None:
        return True
    return None if span.end_ns is None else False


# -- call_llm ----------------------------------------------------------------------------------------


def _call_llm(span: Span) -> Operation:
    attrs = span.attributes
    request = _mapping(attrs.get(LLM_REQUEST))
    response = _mapping(attrs.get(LLM_RESPONSE))
    inp, out, total = _usage(response.get("usage_metadata"))
    if inp is None and out is None:
        inp = as_int(attrs.get(k.USAGE_INPUT_TOKENS))
        out = as_int(attrs.get(k.USAGE_OUTPUT_TOKENS))
        total = None if inp is None and out is None else (inp or 0) + (out or 0)
    content = response.get("content")
    finish = as_str_tuple(attrs.get(k.RESPONSE_FINISH_REASONS))
    if not finish and isinstance(response.get("finish_reason"), str):
        finish = (response["finish_reason"].lower(),)
    failed = _failed(span) or bool(response.get("error_code"))
    error = error_info(span) if _failed(span) else None
    if failed and error is None:
        error = ErrorInfo(as_str(response.get("error_code")), as_str(response.get("error_message")))
    contents = request.get("contents")
    return Operation(
        kind="model",
        dialect=NAME,
        operation="generate_content",
        model=as_str(attrs.get(k.REQUEST_MODEL))
        or as_str(response.get("model_version"))
        or as_str(request.get("model")),
        input_tokens=inp,
        output_tokens=out,
        total_tokens=total,
        finish_reasons=finish,
        input=user_text(contents) if isinstance(contents, list) else None,
        output=final_text([content]) if isinstance(content, Mapping) else None,
        requested_tools=_function_calls(content),
        failed=failed,
        error=error,
        wrapper=True,
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    value = maybe_json(value)
    return value if isinstance(value, Mapping) else {}


def _usage(value: Any) -> tuple[int | None, int | None, int | None]:
    """Input, output and total tokens from a ``usage_metadata`` object, as ADK counts them."""
    if not isinstance(value, Mapping):
        return None, None, None
    prompt = as_int(value.get("prompt_token_count"))
    tool_prompt = as_int(value.get("tool_use_prompt_token_count"))
    candidates = as_int(value.get("candidates_token_count"))
    thoughts = as_int(value.get("thoughts_token_count"))
    inp = None if prompt is None and tool_prompt is None else (prompt or 0) + (tool_prompt or 0)
    out = None if candidates is None and thoughts is None else (candidates or 0) + (thoughts or 0)
    if inp is None and out is None:
        return None, None, as_int(value.get("total_token_count"))
    return inp, out, (inp or 0) + (out or 0)


def _function_calls(content: Any) -> tuple[ToolCallRequest, ...]:
    if not isinstance(content, Mapping):
        return ()
    parts = content.get("parts")
    if not isinstance(parts, list | tuple):
        return ()
    out: list[ToolCallRequest] = []
    for part in parts:
        call = part.get("function_call") if isinstance(part, Mapping) else None
        if isinstance(call, Mapping) and isinstance(call.get("name"), str):
            out.append(ToolCallRequest(call["name"], call.get("args"), _call_id(call.get("id"))))
    return tuple(out)
