"""The OpenLLMetry (Traceloop) dialect: ``traceloop.*`` keys plus OpenLLMetry's flavour of ``gen_ai.*``.

Detection is per span: any of ``traceloop.span.kind`` / ``traceloop.entity.name`` /
``traceloop.workflow.name`` / ``traceloop.entity.path``, the OpenLLMetry-only keys ``llm.request.type``,
``llm.is_streaming``, ``llm.usage.total_tokens``, ``gen_ai.is_streaming``, or an OpenLLMetry
instrumentation scope (``opentelemetry.instrumentation.langchain``, ``...openai_agents``,
``...openai.v1``, ...) for the spans that carry only ``gen_ai.*`` keys; without a scope (an SDK dump),
such a span is known by its name where only OpenLLMetry writes it (``anthropic.chat``, `scope_hint`).

What each span is:

- ``traceloop.span.kind`` ``tool`` or ``gen_ai.operation.name`` ``execute_tool``: a tool execution. Name
  from ``gen_ai.tool.name`` / ``traceloop.entity.name`` / the span name (``get_weather.tool``,
  ``execute_tool get_weather``). Arguments from ``gen_ai.tool.call.arguments`` or
  ``traceloop.entity.input``, unwrapped (LangChain: ``inputs``; SDK decorators: ``kwargs``).
- model calls: ``gen_ai.operation.name`` chat / text_completion / embeddings, or ``llm.request.type``
  (older releases), e.g. ``ChatOpenAI.chat``, ``openai.chat``, ``openai.response``. Messages from
  ``gen_ai.input.messages`` / ``gen_ai.output.messages`` or the flattened ``gen_ai.prompt.N.*`` /
  ``gen_ai.completion.N.*``; tokens from ``gen_ai.usage.*`` (also ``prompt_tokens`` /
  ``completion_tokens``) with ``gen_ai.usage.total_tokens`` / ``llm.usage.total_tokens``; streaming from
  ``gen_ai.is_streaming`` / ``llm.is_streaming`` or completion-chunk events. The placeholder model name
  ``unknown`` is replaced by LangChain's ``ls_model_name`` association property, or dropped.
- agents: ``traceloop.span.kind`` ``agent``, ``gen_ai.operation.name`` ``invoke_agent`` (LangGraph's
  ``invoke_agent X`` span), and a LangGraph graph's own ``X.workflow`` span (merged with the former).
  OpenAI Agents SDK agent spans (``X.agent``) are parented on the workflow root even when a tool ran
  them: they are marked ``nest_by_time``. CrewAI's ``crewai.workflow`` (``invoke_agent`` with
  ``crewai.crew.id``) is the crew's kickoff, a workflow: its agents have ``<role>.agent`` spans.
- ``traceloop.span.kind`` ``workflow`` / ``task`` (``Agent Workflow``, ``execute_task X``, ``X.task``):
  workflow steps, named by their entity name (so that LangGraph's ``execute_task helper`` is found to be
  the body of the ``invoke_agent helper`` span beside it, see ``_regroup``).
- handoffs: the OpenAI Agents SDK's ``<from> → <to>.handoff`` (``traceloop.span.kind=handoff``, or
  ``gen_ai.operation.name`` ``handoff`` / ``agent_handoff``;
  ``gen_ai.handoff.from_agent`` / ``.to_agent``; the target is often not recorded) and a LangGraph tool
  whose result is a ``Command`` to the parent graph;
- ``vector_db_retrieve X``: a retrieval. Anything else (``goto``, ``create_agent``): other, with
  ``gen_ai.agent.name`` kept as ``agent_hint``.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._model.records import ErrorInfo
from .._model.span import Span
from . import _keys as k
from . import _traceloop_llamaindex as tli
from . import _traceloop_payloads as p
from ._base import Operation, agent_io_not_recorded, as_int, as_str, as_str_tuple, error_info, maybe_json
from ._handoffs import handoff_span, langgraph_handoff
from ._messages import final_text, requested_tool_calls, user_text
from .genai import model_fields

if TYPE_CHECKING:
    from .._model.tree import SpanTree

__all__ = ["NAME", "RECORDS_TOOL_EXECUTIONS", "classify", "refine"]

NAME = "traceloop"

#: whether its producers record every tool execution as a span of its own (``records_tool_executions``):
#: True for all of them, else the scopes (prefixes) of those known to
RECORDS_TOOL_EXECUTIONS: bool | tuple[str, ...] = (
    "opentelemetry.instrumentation.langchain",
    "opentelemetry.instrumentation.openai_agents",
    "opentelemetry.instrumentation.llamaindex",
)

#: what these instrumentations never record (see ``_base.NotRecorded``)
NOT_RECORDED = agent_io_not_recorded(
    "the OpenAI Agents SDK's instrumentation (OpenLLMetry)", "opentelemetry.instrumentation.openai_agents"
)

SPAN_KIND = "traceloop.span.kind"
ENTITY_NAME = "traceloop.entity.name"
ENTITY_INPUT = "traceloop.entity.input"
ENTITY_OUTPUT = "traceloop.entity.output"
WORKFLOW_NAME = "traceloop.workflow.name"
ENTITY_PATH = "traceloop.entity.path"
REQUEST_TYPE = "llm.request.type"
LS_MODEL_NAME = "traceloop.association.properties.ls_model_name"
TASK_STATUS = "gen_ai.task.status"
#: the crew of OpenLLMetry's CrewAI ``crewai.workflow`` span (an ``invoke_agent`` that runs no agent itself)
CREW_ID = "crewai.crew.id"

_MARKER_KEYS = (
    SPAN_KIND,
    ENTITY_NAME,
    WORKFLOW_NAME,
    ENTITY_PATH,
    REQUEST_TYPE,
    "gen_ai.is_streaming",
    "llm.is_streaming",
    "llm.usage.total_tokens",
    CREW_ID,
)
_PACKAGES = (
    "langchain",
    "openai_agents",
    "openai",
    "openai.v0",
    "openai.v1",
    "anthropic",
    "bedrock",
    "cohere",
    "crewai",
    "groq",
    "haystack",
    "llamaindex",
    "mistralai",
    "ollama",
    "together",
    "watsonx",
    "google_generativeai",
    "mcp",
)
_SCOPES = frozenset(f"opentelemetry.instrumentation.{name}" for name in _PACKAGES)
_REQUEST_TYPES = {
    "chat": "chat",
    "completion": "text_completion",
    "embedding": "embeddings",
    "rerank": "rerank",
}
_MODEL_OPS = k.MODEL_OPERATIONS | {"text_completion", "rerank"}
_CHUNK_EVENTS = frozenset({"gen_ai.content.completion.chunk", "llm.content.completion.chunk"})
_NAME_SUFFIXES = (".agent", ".workflow", ".tool", ".task")
_NAME_PREFIXES = ("invoke_agent ", "execute_tool ", "execute_task ", "vector_db_retrieve ")


def is_traceloop(span: Span) -> bool:
    """True when ``span`` was recorded by OpenLLMetry (see the module docstring)."""
    if span.scope_name in _SCOPES:
        return True
    attrs = span.attributes
    return any(key in attrs for key in _MARKER_KEYS)


def _span_name(span: Span) -> str:
    name = span.name
    for prefix in _NAME_PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix) :].strip() or name
    for suffix in _NAME_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def _name(span: Span, *keys: str) -> str:
    for key in keys:
        value = span.attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return _span_name(span)


def _failed(span: Span) -> bool | None:
    attrs = span.attributes
    if (
        span.status.code == "ERROR"
        or attrs.get(k.ERROR_TYPE) is not None
        or attrs.get(TASK_STATUS) == "failure"
    ):
        return True
    return None if span.end_ns is None else False


def _error(span: Span) -> ErrorInfo | None:
    """The span's error; a status description that is a repr'd dict (the OpenAI Agents SDK's span error,
    ``{'message': ..., 'data': {...}}``) gives its message and the data's ``error``."""
    description = span.status.description
    if span.status.code == "ERROR" and description and description.lstrip().startswith("{"):
        try:
            data = ast.literal_eval(description.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            data = maybe_json(description)
        if isinstance(data, Mapping) and isinstance(data.get("message"), str):
            detail = data.get("data")
            extra = detail.get("error") if isinstance(detail, Mapping) else None
            message = f"{data['message']}: {extra}" if isinstance(extra, str) and extra else data["message"]
            etype = as_str(span.attributes.get(k.ERROR_TYPE))
            return ErrorInfo(etype, message)
    return error_info(span)


def _model_operation(span: Span) -> str | None:
    op = span.attributes.get(k.OPERATION_NAME)
    if isinstance(op, str) and op in _MODEL_OPS:
        return op
    request_type = span.attributes.get(REQUEST_TYPE)
    if isinstance(request_type, str):
        return _REQUEST_TYPES.get(request_type)
    return None


def _model(span: Span, operation: str) -> Operation:
    attrs = span.attributes
    base = model_fields(span, operation, NAME)
    changes: dict[str, Any] = {}
    model = base.model
    if model is None or model == "unknown":
        hint = as_str(attrs.get(LS_MODEL_NAME))
        changes["model"] = hint if hint and hint != "unknown" else None
    if base.total_tokens is None or k.USAGE_TOTAL_TOKENS not in attrs:
        total = as_int(attrs.get("llm.usage.total_tokens"))
        if total is not None:
            changes["total_tokens"] = total
    if base.streamed is None:
        stream = attrs.get("llm.is_streaming")
        if isinstance(stream, bool):
            changes["streamed"] = stream
    if any(event.name in _CHUNK_EVENTS for event in span.events):
        changes["streamed"] = True
    completions = None
    if k.OUTPUT_MESSAGES not in attrs:
        completions = p.flat_messages(attrs, k.COMPLETION)
        if completions is not None:
            changes["output"] = final_text(completions)
            changes["requested_tools"] = requested_tool_calls(completions)
    if k.INPUT_MESSAGES not in attrs:
        prompts = p.flat_messages(attrs, k.PROMPT)
        if prompts is not None:
            changes["input"] = user_text(prompts)
    if not base.finish_reasons:
        reasons = as_str_tuple(
            attrs.get("gen_ai.response.finish_reason") or attrs.get("llm.response.finish_reason")
        )
        if not reasons and completions:
            reasons = tuple(str(m["finish_reason"]) for m in completions if m.get("finish_reason"))
        changes["finish_reasons"] = reasons
    if base.failed:
        changes["error"] = _error(span)
    hint = as_str(attrs.get(k.AGENT_NAME))
    if hint:
        changes["agent_hint"] = hint
    return dataclasses.replace(base, **changes) if changes else base


def _tool(span: Span, failed: bool | None) -> Operation:
    attrs = span.attributes
    raw = attrs.get(k.TOOL_CALL_ARGUMENTS)
    if raw is None:
        raw = attrs.get(ENTITY_INPUT)
    raw_result = attrs.get(k.TOOL_CALL_RESULT)
    if raw_result is None:
        raw_result = attrs.get(ENTITY_OUTPUT)
    arguments = p.call_arguments(raw)
    result = p.call_result(raw_result)
    return Operation(
        kind="tool",
        dialect=NAME,
        name=_name(span, k.TOOL_NAME, ENTITY_NAME),
        call_id=as_str(attrs.get(k.TOOL_CALL_ID)) or p.call_id(raw),
        arguments=arguments,
        result=result,
        input=arguments,
        output=result,
        failed=failed,
        error=_error(span) if failed else None,
        agent_hint=as_str(attrs.get(k.AGENT_NAME)),
    )


def _agent(span: Span, failed: bool | None, tl_kind: Any) -> Operation:
    attrs = span.attributes
    return Operation(
        kind="agent",
        dialect=NAME,
        name=_name(span, k.AGENT_NAME, ENTITY_NAME),
        input=p.entity_input(attrs.get(ENTITY_INPUT)),
        output=p.entity_output(attrs.get(ENTITY_OUTPUT)),
        conversation_id=as_str(attrs.get(k.CONVERSATION_ID)),
        failed=failed,
        error=_error(span) if failed else None,
        nest_by_time=tl_kind == "agent",
    )


def _retrieval(span: Span, failed: bool | None) -> Operation:
    attrs = span.attributes
    query = p.entity_input(attrs.get(ENTITY_INPUT))
    if isinstance(query, Mapping):
        query = query.get("query")
    output = maybe_json(attrs.get(ENTITY_OUTPUT))
    docs = output.get("documents") if isinstance(output, Mapping) else output
    texts: list[str] = []
    for doc in docs if isinstance(docs, list | tuple) else ():
        text = doc.get("page_content") if isinstance(doc, Mapping) else doc
        texts.append(str(text))
    return Operation(
        kind="retrieval",
        dialect=NAME,
        name=_name(span, ENTITY_NAME),
        query=as_str(query),
        documents=tuple(texts),
        input=query,
        output=docs,
        failed=failed,
        error=_error(span) if failed else None,
    )


def _is_graph_workflow(span: Span) -> bool:
    """A LangGraph graph's top-level chain span: a Traceloop workflow that invokes an agent."""
    attrs = span.attributes
    return attrs.get(k.OPERATION_NAME) == k.OP_INVOKE_AGENT and attrs.get(k.PROVIDER_NAME) == "langgraph"


def might_claim(scope: str | None, keys: frozenset[str]) -> bool:
    """Whether spans of this scope with these attribute keys can be this dialect's (a necessary
    condition, from names only: the dispatcher caches it per key signature). A span without a scope
    and with ``gen_ai.operation.name`` may be a model call that `scope_hint` knows by its name."""
    return (
        scope in _SCOPES or not keys.isdisjoint(_MARKER_KEYS) or (scope is None and k.OPERATION_NAME in keys)
    )


#: model-call span names only OpenLLMetry writes (its spans there carry only ``gen_ai.*`` keys) -> the
#: scope of the instrumentation that writes them
_HINTED_NAMES = {
    "anthropic.chat": "opentelemetry.instrumentation.anthropic",
    "anthropic.completion": "opentelemetry.instrumentation.anthropic",
}


def scope_hint(span: Span, trace_scopes: frozenset[str]) -> str | None:
    """The scope of an OpenLLMetry model-call span without one (an SDK dump), told by its name: the
    Anthropic instrumentation's ``anthropic.chat`` carries only ``gen_ai.*`` keys, as the Anthropic
    SDK's own ``anthropic.messages.create`` span beside it does, and the two are one call only when
    they are read as two layers."""
    scope = _HINTED_NAMES.get(span.name)
    if scope is None or span.attributes.get(k.OPERATION_NAME) not in _MODEL_OPS:
        return None
    return scope


def classify(span: Span) -> Operation | None:
    if not is_traceloop(span):
        return None
    attrs = span.attributes
    tl_kind = attrs.get(SPAN_KIND)
    op_name = attrs.get(k.OPERATION_NAME)
    failed = _failed(span)
    if tl_kind == "task" and (step := tli.tool(span, NAME)) is not None:  # LlamaIndex's call_tool step
        return step
    if tl_kind == "tool" or op_name == k.OP_EXECUTE_TOOL:
        return langgraph_handoff(_tool(span, failed))  # a handoff when it returns a parent Command
    if tl_kind == "handoff" or op_name in ("handoff", k.OP_AGENT_HANDOFF):  # OpenAI Agents SDK
        to = as_str(attrs.get("gen_ai.handoff.to_agent"))
        from_agent = as_str(attrs.get("gen_ai.handoff.from_agent"))
        error = _error(span) if failed else None
        return handoff_span(NAME, from_agent, None if to == "unknown" else to, failed, error)
    model_op = _model_operation(span)
    if model_op is not None:
        return _model(span, model_op)
    if op_name == "vector_db_retrieve" or span.name.startswith("vector_db_retrieve "):
        return _retrieval(span, failed)
    if tl_kind is None and CREW_ID in attrs:  # a CrewAI crew: its agents have spans of their own
        tl_kind = "workflow"
    if tl_kind == "agent" or (tl_kind is None and op_name == k.OP_INVOKE_AGENT):
        return _agent(span, failed, tl_kind)
    if tl_kind == "workflow" and _is_graph_workflow(span):
        return _agent(span, failed, tl_kind)
    if tl_kind in ("workflow", "task"):
        return Operation(
            kind="workflow",
            dialect=NAME,
            name=_name(span, ENTITY_NAME, WORKFLOW_NAME),
            input=p.entity_input(attrs.get(ENTITY_INPUT)),
            output=p.entity_output(attrs.get(ENTITY_OUTPUT)),
            failed=failed,
            error=_error(span) if failed else None,
        )
    return Operation(
        kind="other",
        dialect=NAME,
        name=_name(span, k.AGENT_NAME, ENTITY_NAME),
        agent_hint=as_str(attrs.get(k.AGENT_NAME)),
    )


def refine(trace: SpanTree, operation_of: Callable[[Span], Operation | None]) -> list[tuple[Span, Operation]]:
    """LlamaIndex agent workflow runs, named only in their steps' outputs, as agent invocations."""
    return tli.agent_runs(trace, operation_of, lambda span: _agent(span, _failed(span), None))
