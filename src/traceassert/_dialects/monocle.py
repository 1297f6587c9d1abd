"""The Monocle dialect (``monocle-apptrace``): ``span.type``, ``entity.N.*`` attributes and data events.

A Monocle span says what it is in ``span.type``:

- ``workflow`` (the root Monocle adds to every trace) and ``agentic.turn`` / ``agentic.request`` (the
  request sent to the top-level agent) are workflows;
- ``agentic.invocation`` is an agent run, ``agentic.tool.invocation`` and ``agentic.mcp.invocation`` are
  tool executions; ``agentic.delegation`` is a handoff (``entity.1.from_agent`` -> ``to_agent``): the
  agent handed to has its own invocation span, nested wherever the producer put it;
- ``inference`` (a provider call), ``inference.framework`` (a framework's model call, e.g. LangChain's)
  and ``*.modelapi`` (a provider call made inside a framework call: it carries no usage) are model calls;
  nested ones collapse into one logical call in the reconstructor; ``embedding`` is an embeddings call;
- ``retrieval`` is a retrieval; anything else (``http.process``, ``generic``, ...) is ``other``.

Names come from ``entity.N.name`` of the entity whose ``entity.N.type`` has the expected prefix
(``agent.``, ``tool.``, ``model.llm.``, ...). Inputs and outputs are in span events: ``data.input``
(``input``), ``data.output`` (``response``, or ``output`` for MCP tools, and ``error_code``) and
``metadata`` (``prompt_tokens``, ``completion_tokens``, ``total_tokens``, ``finish_reason``,
``finish_type``). Monocle's own scopes are ``scope.<name>`` attributes, read by the scope checks as they
are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._model.lazy import later
from .._model.records import ErrorInfo
from .._model.span import Span
from .._model.tree import SpanTree
from ._base import (
    NotRecorded,
    Operation,
    ToolCallRequest,
    as_int,
    as_str,
    error_info,
    failed_tool_result_not_recorded,
    maybe_json,
    model_op,
    parsed_later,
    tool_op,
)
from ._handoffs import handoff_span
from ._messages import message_text
from ._monocle_args import name_arguments
from ._monocle_read import data_of, entity, metadata_values, model_entities

__all__ = ["NAME", "RECORDS_TOOL_EXECUTIONS", "classify", "entity", "refine"]

NAME = "monocle"

#: whether its producers record every tool execution as a span of its own (``records_tool_executions``):
#: True for all of them, else the scopes (prefixes) of those known to
RECORDS_TOOL_EXECUTIONS: bool | tuple[str, ...] = True

#: what Monocle never records (see ``_base.NotRecorded``)
NOT_RECORDED = (
    failed_tool_result_not_recorded("(Monocle)", attribute=("entity.*.type", "*.langgraph")),
    NotRecorded("error.type", "Monocle", "the exception type of a failure", "the error message is recorded"),
    NotRecorded("model.streamed", "Monocle", "whether a model call streamed", "nowhere in the trace"),
)

SPAN_TYPE = "span.type"
_WORKFLOW_TYPES = frozenset({"workflow", "agentic.turn", "agentic.request"})
_AGENT_TYPES = frozenset({"agentic.invocation"})
_TOOL_TYPES = frozenset({"agentic.tool.invocation", "agentic.mcp.invocation"})
_MODEL_TYPES = frozenset({"inference", "inference.framework"})
_RETRIEVAL_TYPES = frozenset({"retrieval"})
_EMBEDDING_TYPES = frozenset({"embedding"})
_OTHER_TYPES = frozenset({"agentic.delegation", "generic", "http.process", "http.send", "a2a.resolve"})
_KNOWN = _WORKFLOW_TYPES | _AGENT_TYPES | _TOOL_TYPES | _MODEL_TYPES | _RETRIEVAL_TYPES | _EMBEDDING_TYPES
_MODELAPI = ".modelapi"
_USER_ROLES = ("user", "human")
#: CrewAI methods monocle-apptrace 0.7 records as ``agentic.invocation`` that are not an agent's run: a
#: task (entity name ``Task``) and a crew run inside a tool (``crew``); the agent is ``Agent.execute_task``
_CREWAI_NOT_AGENTS = ("crewai.task.Task.", "crewai.crew.Crew.")


def _is_monocle(span: Span, span_type: str) -> bool:
    attrs = span.attributes
    if "monocle_apptrace.version" in attrs or (span.scope_name or "").startswith("monocle"):
        return True
    # files exported without the version key: a known span.type together with Monocle's entities
    known = span_type in _KNOWN or span_type in _OTHER_TYPES or span_type.endswith(_MODELAPI)
    return known and ("entity.count" in attrs or any(key.startswith("entity.1.") for key in attrs))


def _text(value: Any) -> Any:
    """The text a Monocle input/output holds: a state with ``messages``, a list of texts or of messages
    (``{role: text}``, ``[role, text]``, chat messages; the user's are kept), a ``{role: text}`` message,
    or plain text. Anything else is returned parsed, as it is."""
    value = maybe_json(value)
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        if "messages" in value:
            text = _user_text(value["messages"])
            return text if text is not None else value
        if len(value) == 1:
            (only,) = value.values()
            if isinstance(only, str):
                return only
        text = _user_text([value]) if "role" in value else None
        return text if text is not None else value
    if isinstance(value, list | tuple):
        text = _user_text(value)
        return text if text is not None else value
    return value


def _user_text(messages: Any) -> str | None:
    """The user texts of a message list (all texts when none has a role); None when there is none."""
    if not isinstance(messages, list | tuple):
        return None
    plain: list[str] = []
    tagged: list[tuple[Any, str]] = []
    for item in messages:
        msg = maybe_json(item)
        if isinstance(msg, str):
            plain.append(msg)
        elif isinstance(msg, list | tuple) and len(msg) == 2 and isinstance(msg[1], str):
            tagged.append((msg[0], msg[1]))
        elif isinstance(msg, Mapping) and len(msg) == 1 and isinstance(next(iter(msg.values())), str):
            tagged.extend(msg.items())
        elif isinstance(msg, Mapping):
            text = message_text(msg)
            if text:
                tagged.append((msg.get("role"), text))
    texts = [text for role, text in tagged if role in _USER_ROLES] if tagged else plain
    return "\n".join(texts) if texts else None


def _requests(response: Any) -> tuple[ToolCallRequest, ...]:
    """Tool calls in a model response (JSON text, or parsed) as Monocle records them: ``{"ai": {"name",
    "args", "id"}}`` (LangChain; the first call only) or ``{"assistant": [{"tool_id", "tool_name",
    "tool_arguments"}]}``."""
    value = maybe_json(response)
    # (`isinstance(_, Mapping)`, its usual case first: a dict is one, tested without the ABC's check)
    if value.__class__ is not dict and not isinstance(value, Mapping):
        return ()
    out: list[ToolCallRequest] = []
    for item in value.values():
        calls = item if isinstance(item, list | tuple) else [item]
        for call in calls:
            if call.__class__ is not dict and not isinstance(call, Mapping):
                continue
            name = call.get("tool_name", call.get("name"))
            if not isinstance(name, str) or not name:
                continue
            if "tool_name" not in call and "args" not in call and call.get("type") != "tool_call":
                continue
            args = call.get("tool_arguments", call.get("args"))
            call_id = call.get("tool_id", call.get("id"))
            out.append(ToolCallRequest(name, args, call_id if isinstance(call_id, str) and call_id else None))
    return tuple(out)


def _error_code(value: Any) -> str | None:
    """``data.output`` ``error_code`` (not None) when it reports a failure: ``error`` or an HTTP-style
    code >= 400.

    Monocle also puts a result's own ``status`` there (``completed``, ``incomplete``, ...): not failures.
    """
    code = as_str(value)
    if code is None:
        return None
    number = as_int(code)
    if code.strip().lower() == "error" or (number is not None and number >= 400):
        return code
    return None


def _error(span: Span, code: str | None) -> ErrorInfo:
    """The error of a failed span: what it records (``error_info``), else the error code and the
    status description."""
    info = error_info(span)
    if info is None or (info.type is None and info.message is None):
        info = ErrorInfo(code, span.status.description)
    return info


def _model(
    span: Span,
    span_type: str,
    failed: bool | None,
    error: ErrorInfo | None,
    inp: Any,
    response: Any,
    metas: list[Mapping[str, Any]] | None,
) -> Operation:
    model, embedding, ptype, provider_name = model_entities(span.attributes)
    if metas is not None:
        prompt_value, completion_value, total_value, reason_value = metadata_values(metas)
        # `as_int` / `as_str`, whose answer for an int / a str is the value itself, called for the others
        prompt = prompt_value if prompt_value.__class__ is int else as_int(prompt_value)
        completion = completion_value if completion_value.__class__ is int else as_int(completion_value)
        total = total_value if total_value.__class__ is int else as_int(total_value)
        reason = reason_value if reason_value.__class__ is str else as_str(reason_value)
    else:  # (a provider call inside a framework's: no usage, nothing to look up)
        prompt = completion = total = reason = None
    if total is None and (prompt is not None or completion is not None):
        total = (prompt or 0) + (completion or 0)
    # the provider is the inference entity's type ("inference.openai"); provider_name is its host name
    provider = ptype.partition(".")[2] if ptype else None
    if not provider or provider == "generic":
        provider = provider_name or provider or None
    # the tool calls the response asks for, read now (the reconstruction reads every call's requests);
    # none, without parsing, for JSON text that holds no name (a call has a ``name`` or ``tool_name``)
    # nor an escape that could spell one
    if response is None or (response.__class__ is str and 'name"' not in response and "\\u" not in response):
        requested: tuple[ToolCallRequest, ...] = ()
    else:
        requested = _requests(response)
    return model_op(
        dialect=NAME,
        name=span.name,
        operation="embeddings" if embedding or span_type.startswith("embedding") else "chat",
        model=model,
        provider=provider,
        input_tokens=prompt,
        output_tokens=completion,
        total_tokens=total,
        finish_reasons=(reason,) if reason else (),
        input=None if inp is None else later(_text, inp),
        output=None if response is None else later(_model_output, response),
        requested_tools=requested,
        failed=failed,
        error=error,
    )


def _later(fn: Any, value: Any) -> Any:
    """``fn(value)`` when first read (``_model.lazy``); None for None."""
    return None if value is None else later(fn, value)


def _model_output(response: Any) -> Any:
    output = maybe_json(response)
    # a JSON string holding a string: the text as it is (``_text`` would parse it again)
    return output if isinstance(output, str) else _text(output)


def might_claim(scope: str | None, keys: frozenset[str]) -> bool:
    """Whether spans of this scope with these attribute keys can be this dialect's (a necessary
    condition, from names only: the dispatcher caches it per key signature)."""
    return SPAN_TYPE in keys


def classify(span: Span) -> Operation | None:
    attrs = span.attributes
    span_type = attrs.get(SPAN_TYPE)
    if not isinstance(span_type, str) or not span_type:
        return None
    # (`_is_monocle`'s first test inlined: the version key, which Monocle's own exporters write)
    if "monocle_apptrace.version" not in attrs and not _is_monocle(span, span_type):
        return None
    inp, out, response, code, metas = data_of(span.events)
    if code is not None:
        code = _error_code(code)
    if code is not None or span.status.code == "ERROR":
        failed: bool | None = True
        error = _error(span, code)
    else:
        failed = None if span.end_ns is None else False
        error = None
    if span_type in _WORKFLOW_TYPES or (
        span_type in _AGENT_TYPES and span.name.startswith(_CREWAI_NOT_AGENTS)
    ):
        name = entity(attrs, "workflow.", "agent.") or as_str(attrs.get("workflow.name")) or span.name
        return Operation(
            kind="workflow",
            dialect=NAME,
            name=name,
            input=_later(_text, inp),
            output=_later(_text, out),
            failed=failed,
            error=error,
        )
    if span_type in _AGENT_TYPES:
        return Operation(
            kind="agent",
            dialect=NAME,
            name=entity(attrs, "agent.") or as_str(attrs.get("entity.1.name")) or span.name,
            input=_later(_text, inp),
            output=_later(_text, out),
            conversation_id=as_str(attrs.get("scope.agentic.session")),
            failed=failed,
            error=error,
            from_agent=as_str(attrs.get("entity.1.from_agent")),  # the agent control came from
        )
    if span_type in _TOOL_TYPES:
        # the tool is entity 1; its type is set only when the call returns, so fall back to the index
        name = entity(attrs, "tool.", "mcp.") or as_str(attrs.get("entity.1.name")) or span.name
        return tool_op(
            dialect=NAME,
            name=name,
            call_id=None,
            arguments=inp,
            result=parsed_later(out),
            input=inp,
            output=out,
            failed=failed,
            error=error,
        )
    if span_type in _MODEL_TYPES or span_type in _EMBEDDING_TYPES or span_type.endswith(_MODELAPI):
        return _model(span, span_type, failed, error, inp, response, metas)
    if span_type in _RETRIEVAL_TYPES:
        query = as_str(_text(inp)) if inp is not None else None
        docs = _text(out)
        documents: tuple[str, ...] = ()
        if isinstance(docs, list | tuple):
            documents = tuple(str(d) for d in docs)
        elif docs is not None and docs != "":
            documents = (str(docs),)
        return Operation(
            kind="retrieval",
            dialect=NAME,
            name=entity(attrs, "vectorstore.", "retriever.") or span.name,
            query=query,
            documents=documents,
            input=query,
            output=docs,
            failed=failed,
            error=error,
        )
    if span_type == "agentic.delegation":
        target = as_str(attrs.get("entity.1.to_agent"))
        return handoff_span(NAME, as_str(attrs.get("entity.1.from_agent")), target, failed, error)
    return Operation(kind="other", dialect=NAME, name=span.name)


def _is_crewai(span: Span) -> bool:
    """A CrewAI tool span: the tool is entity 1, the agent running it entity 2."""
    attrs = span.attributes
    return attrs.get("entity.1.type") == "tool.crewai" or attrs.get("entity.2.type") == "agent.crewai"


def refine(trace: SpanTree, operation_of: Callable[[Span], Operation | None]) -> list[tuple[Span, Operation]]:
    """Tool inputs that older releases recorded without the parameter names, named (see
    ``_monocle_args``: by the values of the model's request, and CrewAI's ``name: value`` strings)."""
    return name_arguments(trace, operation_of, NAME, _is_crewai)
