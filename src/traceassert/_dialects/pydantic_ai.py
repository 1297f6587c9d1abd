"""Pydantic AI's own instrumentation, in every data format it has had, and its Logfire flavour.

Pydantic AI spans (instrumentation scope ``pydantic-ai``) build on the GenAI conventions with extras:

- agent runs: ``invoke_agent <agent>`` (formats 3+) or ``agent run`` (formats 1-2; the oldest releases set
  no ``gen_ai.operation.name`` and name the agent only in ``agent_name`` and ``logfire.msg``
  ``"<agent> run"``). The output is ``final_result``, the conversation ``pydantic_ai.all_messages``
  (``all_messages_events`` in format 1). The run's usage is ``gen_ai.aggregated_usage.*``; older releases
  put it in ``gen_ai.usage.*`` on the agent span. Either way it is the agent's aggregate, kept on the
  agent only as a fallback: model-call tokens come from the model-call spans, never from it.
- tool executions: ``execute_tool <tool>`` with ``gen_ai.tool.call.arguments`` / ``.result``, or the legacy
  ``running tool`` with ``tool_arguments`` / ``tool_response`` (and ``logfire.msg`` ``"running tool: X"``).
- model calls: ``chat <model>`` with ``gen_ai.*`` keys; format 1 put the messages in an ``events``
  attribute (a JSON list; the response is the ``gen_ai.choice`` entry's ``message``).
- grouping spans (``running tools``, ``running 2 tools``, ``preparing model request params``): other.

Logfire (``logfire.instrument_pydantic_ai()``) emits the same spans with ``logfire.*`` keys added
(``logfire.msg``, ``logfire.span_type``, ``logfire.metrics`` with token histograms, which are never read),
and files exported through it may carry list values as JSON strings (finish reasons).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .._model.span import Span
from . import _keys as k
from ._base import Operation, as_int, as_str, error_info, maybe_json
from ._messages import final_text, message_list, requested_tool_calls, texts_by_role, user_text
from .genai import model_fields

__all__ = ["NAME", "RECORDS_TOOL_EXECUTIONS", "SCOPE", "classify"]

NAME = "pydantic_ai"

#: whether its producers record every tool execution as a span of its own (``records_tool_executions``):
#: True for all of them, else the scopes (prefixes) of those known to
RECORDS_TOOL_EXECUTIONS: bool | tuple[str, ...] = True
#: the instrumentation scope every Pydantic AI span carries
SCOPE = "pydantic-ai"

AGENT_SPAN = "agent run"
TOOL_SPAN = "running tool"
AGENT_NAME = "agent_name"
MODEL_NAME = "model_name"
FINAL_RESULT = "final_result"
ALL_MESSAGES = "pydantic_ai.all_messages"
ALL_MESSAGES_EVENTS = "all_messages_events"
NEW_MESSAGE_INDEX = "pydantic_ai.new_message_index"
TOOL_ARGUMENTS = "tool_arguments"
TOOL_RESPONSE = "tool_response"
LOGFIRE_MSG = "logfire.msg"
AGGREGATED_INPUT = "gen_ai.aggregated_usage.input_tokens"
AGGREGATED_OUTPUT = "gen_ai.aggregated_usage.output_tokens"
AGGREGATED_TOTAL = "gen_ai.aggregated_usage.total_tokens"
EVENTS = "events"

_TOOL_MSG_PREFIX = "running tool: "
_RUN_SUFFIX = " run"
_MARKERS = (AGENT_NAME, TOOL_ARGUMENTS, TOOL_RESPONSE, FINAL_RESULT, ALL_MESSAGES_EVENTS)


def _is_pydantic_ai(span: Span) -> bool:
    """From the instrumentation scope; in files without it, from keys only Pydantic AI sets."""
    if span.scope_name == SCOPE:
        return True
    attrs = span.attributes
    msg = attrs.get(LOGFIRE_MSG)
    if isinstance(msg, str) and msg.startswith(_TOOL_MSG_PREFIX):
        return True
    return any(key in attrs for key in _MARKERS) or any(
        key.startswith(("pydantic_ai.", "gen_ai.aggregated_usage.")) for key in attrs
    )


def _failed(span: Span) -> bool | None:
    if span.status.code == "ERROR" or span.attributes.get(k.ERROR_TYPE) is not None:
        return True
    return None if span.end_ns is None else False


def _role(span: Span) -> str | None:
    """``agent`` / ``tool`` / a model operation / None, from the operation name or the legacy shapes."""
    attrs = span.attributes
    op = attrs.get(k.OPERATION_NAME)
    if isinstance(op, str) and op:
        return op
    if span.name == AGENT_SPAN or (AGENT_NAME in attrs and (FINAL_RESULT in attrs or MODEL_NAME in attrs)):
        return k.OP_INVOKE_AGENT
    if span.name == TOOL_SPAN or (
        k.TOOL_NAME in attrs
        and (TOOL_ARGUMENTS in attrs or TOOL_RESPONSE in attrs or k.TOOL_CALL_ID in attrs)
    ):
        return k.OP_EXECUTE_TOOL
    if k.REQUEST_MODEL in attrs and span.name.split(" ", 1)[0] in k.MODEL_OPERATIONS:
        return span.name.split(" ", 1)[0]
    return None


def _agent_name(span: Span) -> str:
    attrs = span.attributes
    name = as_str(attrs.get(k.AGENT_NAME)) or as_str(attrs.get(AGENT_NAME))
    if name:
        return name
    msg = as_str(attrs.get(LOGFIRE_MSG))
    if msg and msg.endswith(_RUN_SUFFIX) and len(msg) > len(_RUN_SUFFIX):
        return msg[: -len(_RUN_SUFFIX)]
    if span.name.startswith(k.OP_INVOKE_AGENT + " "):
        return span.name[len(k.OP_INVOKE_AGENT) + 1 :]
    return "agent"


def _run_messages(attrs: Mapping[str, Any]) -> list[Any]:
    """The messages of this run (from ``pydantic_ai.new_message_index`` on, when given)."""
    messages = message_list(attrs.get(ALL_MESSAGES)) or message_list(attrs.get(ALL_MESSAGES_EVENTS)) or []
    start = as_int(attrs.get(NEW_MESSAGE_INDEX))
    if start and 0 < start < len(messages):
        return messages[start:]
    return messages


def _agent(span: Span) -> Operation:
    attrs = span.attributes
    messages = _run_messages(attrs)
    prompts = texts_by_role(messages, ("user",))
    answers = texts_by_role(messages, ("assistant",))
    output: Any = maybe_json(attrs[FINAL_RESULT]) if FINAL_RESULT in attrs else None
    if output is None and answers:
        output = answers[-1]
    inp = as_int(attrs.get(AGGREGATED_INPUT))
    out = as_int(attrs.get(AGGREGATED_OUTPUT))
    total = as_int(attrs.get(AGGREGATED_TOTAL))
    if inp is None and out is None:
        # releases before the gen_ai.aggregated_usage namespace put the run's usage in gen_ai.usage.*
        inp = as_int(attrs.get(k.USAGE_INPUT_TOKENS))
        out = as_int(attrs.get(k.USAGE_OUTPUT_TOKENS))
        total = as_int(attrs.get(k.USAGE_TOTAL_TOKENS))
    if total is None and (inp is not None or out is not None):
        total = (inp or 0) + (out or 0)
    failed = _failed(span)
    return Operation(
        kind="agent",
        dialect=NAME,
        name=_agent_name(span),
        input="\n".join(prompts) if prompts else user_text(attrs.get(k.INPUT_MESSAGES)),
        output=output,
        conversation_id=as_str(attrs.get(k.CONVERSATION_ID)),
        input_tokens=inp,
        output_tokens=out,
        total_tokens=total,
        failed=failed,
        error=error_info(span) if failed else None,
    )


def _tool(span: Span) -> Operation:
    attrs = span.attributes
    name = as_str(attrs.get(k.TOOL_NAME))
    msg = as_str(attrs.get(LOGFIRE_MSG))
    if not name and msg and msg.startswith(_TOOL_MSG_PREFIX):
        name = msg[len(_TOOL_MSG_PREFIX) :]
    if not name and span.name.startswith(k.OP_EXECUTE_TOOL + " "):
        name = span.name[len(k.OP_EXECUTE_TOOL) + 1 :]
    arguments = attrs.get(k.TOOL_CALL_ARGUMENTS, attrs.get(TOOL_ARGUMENTS))
    result = attrs.get(k.TOOL_CALL_RESULT, attrs.get(TOOL_RESPONSE))
    failed = _failed(span)
    return Operation(
        kind="tool",
        dialect=NAME,
        name=name or span.name,
        call_id=as_str(attrs.get(k.TOOL_CALL_ID)),
        arguments=arguments,
        result=maybe_json(result),
        input=arguments,
        output=result,
        failed=failed,
        error=error_info(span) if failed else None,
    )


def _model(span: Span, op: str) -> Operation:
    base = model_fields(span, op, NAME)
    events = message_list(span.attributes.get(EVENTS))
    if not events or (base.output is not None and base.requested_tools):
        return base
    # format 1: request messages and the response (``gen_ai.choice``: {"index", "message"}) as events
    choices = [
        ev["message"] for ev in events if isinstance(ev, Mapping) and isinstance(ev.get("message"), Mapping)
    ]
    prompts = [ev for ev in events if isinstance(ev, Mapping) and "message" not in ev]
    return replace(
        base,
        input=base.input if base.input is not None else user_text(prompts),
        output=base.output if base.output is not None else (final_text(choices) if choices else None),
        requested_tools=base.requested_tools or requested_tool_calls(choices),
    )


def might_claim(scope: str | None, keys: frozenset[str]) -> bool:
    """Whether spans of this scope with these attribute keys can be this dialect's (a necessary
    condition, from names only: the dispatcher caches it per key signature)."""
    if scope == SCOPE or LOGFIRE_MSG in keys or not keys.isdisjoint(_MARKERS):
        return True
    return any(key.startswith(("pydantic_ai.", "gen_ai.aggregated_usage.")) for key in keys)


def classify(span: Span) -> Operation | None:
    if not _is_pydantic_ai(span):
        return None
    role = _role(span)
    if role == k.OP_INVOKE_AGENT:
        return _agent(span)
    if role == k.OP_EXECUTE_TOOL:
        return _tool(span)
    if role in k.MODEL_OPERATIONS:
        return _model(span, role)
    if span.scope_name == SCOPE:
        # grouping spans ("running tools", "preparing model request params") and anything newer
        return Operation(
            kind="other", dialect=NAME, name=as_str(span.attributes.get(LOGFIRE_MSG)) or span.name
        )
    return None
