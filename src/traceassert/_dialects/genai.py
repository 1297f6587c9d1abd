"""The OpenTelemetry GenAI semantic conventions (``gen_ai.*``), current keys and deprecated aliases.

The span's role comes from ``gen_ai.operation.name``; without it, from the span name's first word when
that is an operation name (``"execute_tool get_weather"``), or from a ``gen_ai.tool.name`` /
``gen_ai.request.model`` key. ``create_agent`` spans create an agent without running it: they are
classified as ``other``, not as invocations. ``agent_handoff`` spans (OpenLLMetry's OpenAI Agents
instrumentation) are handoffs, from ``gen_ai.handoff.from_agent`` to ``gen_ai.handoff.to_agent``.

MCP (mcp 2.x traces itself with these conventions): a server's ``tools/call <tool>`` SERVER span is a
tool execution (``gen_ai.operation.name = execute_tool``), one with the calling agent's tool span when
the trace context joins them (see ``_reconstruct/layers``); every other span with ``mcp.method.name``
(``MCP send <method>`` CLIENT spans, ``initialize``, ``tools/list``) is protocol traffic, ``other``.
google-genai's tool arguments (``code.function.parameters.<name>.value`` pairs) are read as
``{name: value}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._model.lazy import later
from .._model.span import Span
from . import _any_agent as aa
from . import _keys as k
from ._base import (
    NotRecorded,
    Operation,
    ToolCallRequest,
    as_int,
    as_str,
    as_str_tuple,
    error_info,
    maybe_json,
    model_op,
    parsed_later,
    tool_op,
)
from ._genai_events import with_event_content
from ._handoffs import handoff_span
from ._messages import final_text, requested_tool_calls, user_text
from ._requested_fast import tool_calls_from_text
from ._traceloop_payloads import flat_messages

__all__ = [
    "NAME",
    "RECORDS_TOOL_EXECUTIONS",
    "classify",
    "model_fields",
    "model_output",
    "model_requests",
    "operation_name",
]

NAME = "genai"

#: whether its producers record every tool execution as a span of its own (``records_tool_executions``):
#: True for all of them, else the scopes (prefixes) of those known to
RECORDS_TOOL_EXECUTIONS: bool | tuple[str, ...] = ("agent_framework",)

#: what the OpenAI SDK's instrumentation (opentelemetry-instrumentation-openai-v2) never records (see
#: ``_base.NotRecorded``); in ``event_only`` mode, or without content capture, it also leaves out message
#: content and tool arguments, which no span says (in ``event_only`` mode they are in its log records,
#: read when they are captured or loaded: ``_genai_events``)
NOT_RECORDED = (
    NotRecorded(
        "tool.executions",
        "the OpenAI SDK's instrumentation (chat spans only)",
        "tool executions and agents",
        "the model's requests are recorded (ModelCall.requested_tools); one whose result the next call's "
        "input holds is an execution from the conversation (ToolExecution.source)",
        scope="opentelemetry.instrumentation.openai_v2",
    ),
    NotRecorded(
        "content",
        "the OpenAI SDK's instrumentation without content capture, or in event_only mode without its logs",
        "message content and tool arguments",
        "the failure flags still come from the span status",
        scope="opentelemetry.instrumentation.openai_v2",
    ),
)

_OP_WORDS = frozenset(
    {k.OP_INVOKE_AGENT, k.OP_CREATE_AGENT, k.OP_EXECUTE_TOOL, k.OP_INVOKE_WORKFLOW, k.OP_RETRIEVAL}
    | k.MODEL_OPERATIONS
)


def operation_name(span: Span) -> str | None:
    """``gen_ai.operation.name``, or the operation the span name starts with."""
    op = span.attributes.get(k.OPERATION_NAME)
    if isinstance(op, str) and op:
        return op
    first = span.name.split(" ", 1)[0]
    if first in _OP_WORDS and any(key.startswith("gen_ai.") for key in span.attributes):
        return first
    return None


def _name_after_op(span: Span, op: str) -> str | None:
    prefix = op + " "
    if span.name.startswith(prefix):
        rest = span.name[len(prefix) :].strip()
        return rest or None
    return None


def _tokens(attrs: Mapping[str, Any]) -> tuple[int | None, int | None, int | None]:
    # ``as_int``, skipped for the usual int or None (it returns them as they are)
    get = attrs.get
    inp = get(k.USAGE_INPUT_TOKENS)
    if inp.__class__ is not int:
        inp = as_int(inp)
    if inp is None:
        inp = as_int(get(k.USAGE_PROMPT_TOKENS))
    out = get(k.USAGE_OUTPUT_TOKENS)
    if out.__class__ is not int:
        out = as_int(out)
    if out is None:
        out = as_int(get(k.USAGE_COMPLETION_TOKENS))
    total = get(k.USAGE_TOTAL_TOKENS)
    if total.__class__ is not int:
        total = as_int(total)
    if total is None and (inp is not None or out is not None):
        total = (inp or 0) + (out or 0)
    return inp, out, total


def _failed(span: Span) -> bool | None:
    if span.status.code == "ERROR" or span.attributes.get(k.ERROR_TYPE) is not None:
        return True
    if span.end_ns is None:
        return None
    return False


_FLAT_CALL = f"{k.COMPLETION}.0.function_call.name"


def _output_messages(attrs: Mapping[str, Any]) -> Any:
    """The output messages, parsed; else flattened (``gen_ai.completion.0.function_call.name``)."""
    output_messages = attrs.get(k.OUTPUT_MESSAGES)
    if output_messages is None:
        output_messages = attrs.get(k.COMPLETION)
    if output_messages is not None:
        return maybe_json(output_messages)
    return flat_messages(attrs, k.COMPLETION)


def model_output(attrs: Mapping[str, Any]) -> Any:
    """The text of a model call's output (computed when first read: see ``_model.lazy``)."""
    output_messages = _output_messages(attrs)
    if output_messages is None and aa.OUTPUT in attrs:  # any-agent: gen_ai.output
        return aa.model_output(attrs)[0]
    return final_text(output_messages)


def model_requests(attrs: Mapping[str, Any]) -> tuple[ToolCallRequest, ...]:
    """The tool calls a model call's output asks for (computed when first read)."""
    raw = attrs.get(k.OUTPUT_MESSAGES)
    if raw.__class__ is str and _FLAT_CALL not in attrs:
        found = tool_calls_from_text(raw)  # without reading the messages' content
        if found is not None:
            return found
    return _parsed_requests(attrs)


def _parsed_requests(attrs: Mapping[str, Any]) -> tuple[ToolCallRequest, ...]:
    """`model_requests` from the output messages parsed whole."""
    output_messages = _output_messages(attrs)
    requested = requested_tool_calls(output_messages)
    if output_messages is None and aa.OUTPUT in attrs:  # any-agent: gen_ai.output
        requested = aa.model_output(attrs)[1]
    if not requested and _FLAT_CALL in attrs:
        # LiteLLM: the tool call only as gen_ai.completion.0.function_call.*, beside output messages
        # whose parts are empty
        requested = requested_tool_calls(flat_messages(attrs, k.COMPLETION))
    return requested


def _requests_of(attrs: Mapping[str, Any]) -> tuple[ToolCallRequest, ...]:
    """``model_requests(attrs)`` (read now: the reconstruction reads every call's requests to match
    them); none at all, without parsing, when the output is JSON text that names no tool call (no
    ``tool_call`` / ``function`` in it, nor an escape that could spell one)."""
    raw = attrs.get(k.OUTPUT_MESSAGES)
    if raw.__class__ is str and _FLAT_CALL not in attrs:  # `model_requests`' first step, inlined
        if "tool_call" not in raw and "function" not in raw and "\\u" not in raw:
            return ()
        found = tool_calls_from_text(raw)
        return _parsed_requests(attrs) if found is None else found
    if raw is None:
        raw = attrs.get(k.COMPLETION)
    if (
        raw.__class__ is str
        and "tool_call" not in raw
        and "function" not in raw
        and "\\u" not in raw
        and _FLAT_CALL not in attrs
    ):
        return ()
    return model_requests(attrs)


def _later(fn: Any, value: Any) -> Any:
    return None if value is None else later(fn, value)


def model_fields(span: Span, op: str, dialect: str = NAME) -> Operation:
    """A model call from the ``gen_ai.*`` keys of ``span`` (shared by dialects that build on GenAI); its
    content (input and output text, the tool calls asked for) is read when first used."""
    attrs = span.attributes
    get = attrs.get
    inp, out, total = _tokens(attrs)
    finish = get(k.RESPONSE_FINISH_REASONS)
    if finish is None:
        finish = get(k.RESPONSE_FINISH_REASON)
    if finish.__class__ is not tuple or len(finish) != 1 or finish[0].__class__ is not str:
        finish = as_str_tuple(finish)  # (a tuple of one string is its own answer)
    stream = get(k.REQUEST_STREAM)
    if stream is None:
        stream = get("gen_ai.is_streaming")
    model = get(k.RESPONSE_MODEL)  # `as_str(response model) or as_str(request model)`: a str as it is
    if model.__class__ is not str or not model:
        model = as_str(model) or as_str(get(k.REQUEST_MODEL))
    provider = get(k.PROVIDER_NAME)
    if provider.__class__ is not str or not provider:
        provider = as_str(provider) or as_str(get(k.SYSTEM))
    messages = get(k.INPUT_MESSAGES)  # `get(INPUT_MESSAGES, get(PROMPT))`
    if messages is None and k.INPUT_MESSAGES not in attrs:
        messages = get(k.PROMPT)
    failed = _failed(span)
    return model_op(
        dialect=dialect,
        operation=op,
        model=model,
        provider=provider,
        input_tokens=inp,
        output_tokens=out,
        total_tokens=total,
        finish_reasons=finish,
        streamed=bool(stream) if isinstance(stream, bool | int) else None,
        input=None if messages is None else later(user_text, messages),
        output=later(model_output, attrs),
        requested_tools=_requests_of(attrs),
        failed=failed,
        error=error_info(span) if failed else None,
    )


def might_claim(scope: str | None, keys: frozenset[str]) -> bool:
    """Whether spans of this scope with these attribute keys can be this dialect's (a necessary
    condition, from names only: the dispatcher caches it per key signature)."""
    return MCP_METHOD in keys or any(key.startswith("gen_ai.") for key in keys)


#: the JSON-RPC method of an MCP request (mcp 2.x's own spans: ``MCP send <method>`` CLIENT and
#: ``<method> [<name>]`` SERVER; a ``tools/call`` SERVER span also carries ``gen_ai.*`` keys)
MCP_METHOD = "mcp.method.name"


def classify(span: Span, *, events: bool = True) -> Operation | None:
    """The operation ``span`` records; ``events``: also read the message content its events (or the log
    records joined to it) carry (``_genai_events``), False for a dialect that reads its events itself."""
    if events and span.events:
        span = with_event_content(span)
    attrs = span.attributes
    op = attrs.get(k.OPERATION_NAME)  # `operation_name`, the common case inlined
    if op.__class__ is not str or not op:
        op = operation_name(span)
    if op is None:
        if k.TOOL_NAME in attrs and (k.TOOL_CALL_ARGUMENTS in attrs or k.TOOL_CALL_ID in attrs):
            op = k.OP_EXECUTE_TOOL
        elif k.REQUEST_MODEL in attrs and (k.USAGE_INPUT_TOKENS in attrs or k.USAGE_PROMPT_TOKENS in attrs):
            op = "chat"
        elif MCP_METHOD in attrs:  # MCP protocol traffic: known, but no agent, tool or model call
            return Operation(kind="other", dialect=NAME, name=span.name)
        else:
            return None
    if op in k.MODEL_OPERATIONS or op == aa.MODEL_OPERATION:
        return model_fields(span, op)
    failed = _failed(span)
    error = error_info(span) if failed else None
    if op == k.OP_INVOKE_AGENT:
        inp, out, total = _tokens(attrs)
        return Operation(
            kind="agent",
            dialect=NAME,
            name=as_str(attrs.get(k.AGENT_NAME)) or _name_after_op(span, op) or span.name,
            input=_later(user_text, attrs.get(k.INPUT_MESSAGES)),
            output=_later(final_text, attrs.get(k.OUTPUT_MESSAGES)),
            conversation_id=as_str(attrs.get(k.CONVERSATION_ID)),
            input_tokens=inp,
            output_tokens=out,
            total_tokens=total,
            failed=failed,
            error=error,
        )
    if op == k.OP_EXECUTE_TOOL:
        raw_args = attrs.get(k.TOOL_CALL_ARGUMENTS)
        result = attrs.get(k.TOOL_CALL_RESULT)
        if raw_args is None and result is None:  # any-agent's own keys
            raw_args, result = attrs.get(aa.TOOL_ARGS), attrs.get(aa.OUTPUT)
        arguments = _tool_arguments(raw_args)
        return tool_op(
            dialect=NAME,
            name=as_str(attrs.get(k.TOOL_NAME)) or _name_after_op(span, op) or span.name,
            call_id=as_str(attrs.get(k.TOOL_CALL_ID)),
            arguments=arguments,
            result=parsed_later(result),
            input=arguments,
            output=result,
            failed=failed,
            error=error,
        )
    if op == k.OP_RETRIEVAL:
        docs = maybe_json(attrs.get(k.RETRIEVAL_DOCUMENTS))
        return Operation(
            kind="retrieval",
            dialect=NAME,
            query=as_str(attrs.get(k.RETRIEVAL_QUERY_TEXT)),
            documents=_documents(docs),
            input=as_str(attrs.get(k.RETRIEVAL_QUERY_TEXT)),
            output=docs,
            failed=failed,
            error=error,
        )
    if op == k.OP_AGENT_HANDOFF:
        to = as_str(attrs.get("gen_ai.handoff.to_agent"))
        source = as_str(attrs.get("gen_ai.handoff.from_agent"))
        return handoff_span(NAME, source, None if to == "unknown" else to, failed, error)
    if op == k.OP_INVOKE_WORKFLOW:
        return Operation(
            kind="workflow",
            dialect=NAME,
            name=as_str(attrs.get(k.WORKFLOW_NAME)) or _name_after_op(span, op) or span.name,
            input=_later(user_text, attrs.get(k.INPUT_MESSAGES)),
            output=_later(final_text, attrs.get(k.OUTPUT_MESSAGES)),
            failed=failed,
            error=error,
        )
    return Operation(kind="other", dialect=NAME, name=as_str(attrs.get(k.AGENT_NAME)) or span.name)


def _tool_arguments(value: Any) -> Any:
    """``gen_ai.tool.call.arguments``; Microsoft Agent Framework writes ``str(None)``, ``"None"`` (not
    JSON), for a call without arguments: that is no arguments, ``{}``."""
    if value == "None":
        return {}
    return _code_function_parameters(value)


_PARAMETER_PREFIX = "code.function.parameters."


def _code_function_parameters(value: Any) -> Any:
    """The arguments of google-genai's instrumentation (its wrapper of automatic-function-calling tools)
    writes every argument as two keys, ``code.function.parameters.<name>.type`` and ``...<name>.value``:
    the arguments are ``{name: value}``. Anything else is returned as it is."""
    if not isinstance(value, str) or _PARAMETER_PREFIX not in value:
        return value
    parsed = maybe_json(value)
    if not isinstance(parsed, Mapping) or not parsed:
        return value
    arguments: dict[str, Any] = {}
    for key, item in parsed.items():
        name, _, field = str(key).removeprefix(_PARAMETER_PREFIX).rpartition(".")
        if not str(key).startswith(_PARAMETER_PREFIX) or not name or field not in ("type", "value"):
            return value
        if field == "value":
            arguments[name] = item
    return arguments


def _documents(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Mapping):
        value = [value]
    if not isinstance(value, list | tuple):
        return (str(value),)
    out: list[str] = []
    for doc in value:
        if isinstance(doc, Mapping):
            text = doc.get("content", doc.get("text", doc.get("page_content")))
            out.append(str(text) if text is not None else str(dict(doc)))
        else:
            out.append(str(doc))
    return tuple(out)
