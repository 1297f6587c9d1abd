"""Strands Agents (``strands-agents``): its built-in GenAI-flavoured spans (``strands.telemetry.tracer``).

Spans: ``invoke_agent <name>`` > ``execute_event_loop_cycle`` (one per model turn) > ``chat`` and
``execute_tool <tool>``; multi-agent runs add ``invoke_swarm`` / ``invoke_graph``. Every span has
``gen_ai.operation.name`` and ``gen_ai.system`` (or, with the latest conventions, ``gen_ai.provider.name``)
``= "strands-agents"``: a framework marker, not the model provider.

What the GenAI reader alone would get wrong:

- the agent span carries the run's *accumulated* usage under the same ``gen_ai.usage.*`` keys as a
  model call; it is kept on the agent operation (used only when no model call records usage) and never
  added to the model calls' tokens;
- by default (no ``OTEL_SEMCONV_STABILITY_OPT_IN``) the content is in span *events*, not attributes:
  ``gen_ai.user.message`` / ``gen_ai.assistant.message`` / ``gen_ai.tool.message`` (``content``: JSON
  content blocks; a tool span's ``gen_ai.tool.message`` holds the tool's input) and ``gen_ai.choice``
  (``message``, ``finish_reason``; on a tool span the result blocks). With
  ``gen_ai_latest_experimental`` the messages are ``gen_ai.input.messages`` / ``gen_ai.output.messages``
  on ``gen_ai.client.inference.operation.details`` events, or span attributes with
  ``gen_ai_span_attributes_only``: all three layouts are read;
- tool results are content blocks (``[{"text": ...}]``, ``[{"json": ...}]``): a single block is unwrapped
  to its text or JSON value;
- the stop reason (``end_turn``, ``tool_use``) is only in the ``gen_ai.choice`` event or the output
  messages' ``finish_reason``;
- a swarm's ``handoff_to_agent`` tool passes control to the agent named in its ``agent_name`` argument:
  a handoff, not a tool execution (the next agent's ``invoke_agent`` span is a sibling under
  ``invoke_swarm``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from .._model.span import Span, freeze_attributes
from . import _keys as k
from . import genai
from ._base import Operation, ToolCallRequest, maybe_json
from ._handoffs import handoff_operation, named_target
from ._messages import final_text, requested_tool_calls, user_text

__all__ = ["MARKER", "NAME", "RECORDS_TOOL_EXECUTIONS", "SCOPE", "claim_values", "classify"]

NAME = "strands"

#: whether its producers record every tool execution as a span of its own (``records_tool_executions``):
#: True for all of them, else the scopes (prefixes) of those known to
RECORDS_TOOL_EXECUTIONS: bool | tuple[str, ...] = True
SCOPE = "strands.telemetry.tracer"
#: the value of gen_ai.system / gen_ai.provider.name on every Strands span
MARKER = "strands-agents"
_DETAILS_EVENT = "gen_ai.client.inference.operation.details"
_CHOICE_EVENT = "gen_ai.choice"
_TOOL_MESSAGE_EVENT = "gen_ai.tool.message"
_WORKFLOWS = frozenset({"invoke_swarm", "invoke_graph"})


def _is_strands(span: Span) -> bool:
    if span.scope_name == SCOPE:
        return True
    attrs = span.attributes
    return attrs.get(k.SYSTEM) == MARKER or attrs.get(k.PROVIDER_NAME) == MARKER


def might_claim(scope: str | None, keys: frozenset[str]) -> bool:
    """Whether spans of this scope with these attribute keys can be this dialect's (a necessary
    condition, from names only: the dispatcher caches it per key signature)."""
    return scope == SCOPE or k.SYSTEM in keys or k.PROVIDER_NAME in keys


def claim_values(scope: str | None, keys: frozenset[str]) -> tuple[tuple[str, str], ...] | None:
    """Outside its own scope, a span is Strands' only with its marker (`_is_strands`): the dispatcher
    checks the marker itself (see the package's ``__init__``) instead of asking `classify` of every span
    that carries ``gen_ai.system`` or ``gen_ai.provider.name``."""
    if scope == SCOPE:
        return None
    return tuple((key, MARKER) for key in (k.SYSTEM, k.PROVIDER_NAME) if key in keys)


def classify(span: Span) -> Operation | None:
    if span.scope_name != SCOPE:  # `_is_strands`, inlined: asked of every GenAI span
        get = span.attributes.get
        if get(k.SYSTEM) != MARKER and get(k.PROVIDER_NAME) != MARKER:
            return None
    view = _with_event_messages(span)
    op = genai.classify(view, events=False)  # its events are read here, as content blocks
    if op is None:
        return Operation(kind="other", dialect=NAME, name=span.name)
    op = dataclasses.replace(op, dialect=NAME, provider=None)
    if op.kind == "model":
        return _model(span, op)
    if op.kind == "tool":
        return _tool(span, op)
    if op.kind == "agent":
        return _agent(span, op)
    operation = span.attributes.get(k.OPERATION_NAME)
    if operation in _WORKFLOWS:
        return dataclasses.replace(op, kind="workflow", name=span.name)
    return op


def _with_event_messages(span: Span) -> Span:
    """``span`` with the latest-convention messages its events carry lifted into its attributes."""
    lifted: dict[str, Any] = {}
    for event in span.events:
        if event.name == _DETAILS_EVENT:
            for key, value in event.attributes.items():
                lifted.setdefault(key, value)
    if not lifted:
        return span
    return dataclasses.replace(span, attributes=freeze_attributes({**lifted, **span.attributes}))


def _events(span: Span, name: str) -> Iterable[Mapping[str, Any]]:
    return (ev.attributes for ev in span.events if ev.name == name)


def _last_choice(span: Span) -> Mapping[str, Any] | None:
    choices = list(_events(span, _CHOICE_EVENT))
    return choices[-1] if choices else None


# -- content blocks ----------------------------------------------------------------------------------


def _blocks_text(blocks: Any) -> str | None:
    if isinstance(blocks, str):
        return blocks
    if not isinstance(blocks, list | tuple):
        return None
    texts = [b["text"] for b in blocks if isinstance(b, Mapping) and isinstance(b.get("text"), str)]
    return "".join(texts) if texts else None


def _block_value(blocks: Any) -> Any:
    """A tool result from content blocks: the text, the JSON value of a single json block, or the blocks."""
    blocks = maybe_json(blocks)
    if isinstance(blocks, list | tuple):
        if len(blocks) == 1 and isinstance(blocks[0], Mapping) and "json" in blocks[0]:
            return blocks[0]["json"]
        text = _blocks_text(blocks)
        if text is not None:
            return text
    return blocks


def _tool_uses(blocks: Any) -> tuple[ToolCallRequest, ...]:
    blocks = maybe_json(blocks)
    if not isinstance(blocks, list | tuple):
        return ()
    out: list[ToolCallRequest] = []
    for block in blocks:
        use = block.get("toolUse") if isinstance(block, Mapping) else None
        if isinstance(use, Mapping) and isinstance(use.get("name"), str):
            call_id = use.get("toolUseId")
            out.append(ToolCallRequest(use["name"], use.get("input"), call_id if call_id else None))
    return tuple(out)


def _user_text_from_events(span: Span) -> str | None:
    texts = [_blocks_text(maybe_json(ev.get("content"))) for ev in _events(span, "gen_ai.user.message")]
    joined = [t for t in texts if t]
    return "\n".join(joined) if joined else None


# -- per kind ----------------------------------------------------------------------------------------


def _model(span: Span, op: Operation) -> Operation:
    choice = _last_choice(span)
    if choice is None:
        output_messages = _details_value(span, k.OUTPUT_MESSAGES)
        return dataclasses.replace(op, finish_reasons=op.finish_reasons or _finish_of(output_messages))
    message = maybe_json(choice.get("message"))
    reason = choice.get("finish_reason")
    return dataclasses.replace(
        op,
        finish_reasons=op.finish_reasons or ((str(reason),) if reason else ()),
        output=_blocks_text(message) if _blocks_text(message) is not None else op.output,
        requested_tools=op.requested_tools or _tool_uses(message),
        input=op.input if op.input is not None else _user_text_from_events(span),
    )


def _details_value(span: Span, key: str) -> Any:
    value = span.attributes.get(key)
    if value is None:
        for attrs in _events(span, _DETAILS_EVENT):
            if key in attrs:
                return attrs[key]
    return value


def _finish_of(messages: Any) -> tuple[str, ...]:
    messages = maybe_json(messages)
    if not isinstance(messages, list | tuple):
        return ()
    reasons = [m.get("finish_reason") for m in messages if isinstance(m, Mapping)]
    return tuple(str(r) for r in reasons if r)


def _tool(span: Span, op: Operation) -> Operation:
    arguments = op.arguments
    if arguments is None:
        for attrs in _events(span, _TOOL_MESSAGE_EVENT):
            arguments = attrs.get("content")
            break
    if arguments is None:
        calls = requested_tool_calls(_details_value(span, k.INPUT_MESSAGES))
        arguments = calls[0].arguments if calls else None
    result: Any = op.result
    if result is None:
        choice = _last_choice(span)
        if choice is not None:
            result = choice.get("message")
        else:
            result = _tool_response(_details_value(span, k.OUTPUT_MESSAGES))
    result = _block_value(result)
    op = dataclasses.replace(op, arguments=arguments, input=arguments, result=result, output=result)
    if op.name != "handoff_to_agent":
        return op
    # a swarm's handoff tool: control goes to the agent named in ``agent_name``
    return handoff_operation(op, None, named_target(op.name, arguments))


def _tool_response(messages: Any) -> Any:
    messages = maybe_json(messages)
    if not isinstance(messages, list | tuple):
        return None
    for message in messages:
        parts = message.get("parts") if isinstance(message, Mapping) else None
        for part in parts if isinstance(parts, list | tuple) else ():
            if isinstance(part, Mapping) and part.get("type") == "tool_call_response":
                return part.get("response")
    return None


def _agent(span: Span, op: Operation) -> Operation:
    output = op.output
    choice = _last_choice(span)
    if choice is not None and isinstance(choice.get("message"), str):
        output = choice["message"]
    if isinstance(output, str):
        output = output.strip()  # Strands records str(AgentResult), which ends in a newline
    inp = op.input
    if inp is None or not isinstance(inp, str):
        inp = _user_text_from_events(span) or user_text(inp)
    return dataclasses.replace(op, input=inp, output=final_text(output) if output is not None else None)
