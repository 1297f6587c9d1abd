"""The OpenInference span dialect (Arize ``openinference-instrumentation-*`` packages).

Every OpenInference span says what it is in ``openinference.span.kind``:

============  ==================================================================================
kind          becomes
============  ==================================================================================
AGENT         an agent invocation named ``agent.name`` (else the span name). Two exceptions: the
              OpenAI Agents trace span (an AGENT span without ``agent.name``, named after the
              workflow) is a ``workflow``; a LangGraph *node* whose name contains "agent" (the
              LangChain instrumentation makes such runs AGENT spans) is ``other``.
TOOL          a tool execution: ``tool.name``, arguments from ``input.value`` (JSON, or the bare
              value of a single-argument LangChain tool), result from ``output.value`` (a
              serialised LangChain ``ToolMessage`` gives its content and ``tool_call_id``).
LLM           a model call (``chat``): ``llm.model_name``, ``llm.provider`` / ``llm.system``,
              ``llm.token_count.prompt/completion/total``, ``llm.finish_reason`` and the tool calls
              the model asked for, from the flattened ``llm.output_messages.N.message.tool_calls.M``
              keys.
EMBEDDING     a model call (``embeddings``).
RETRIEVER     a retrieval: the query from ``input.value``, documents from
              ``retrieval.documents.N.document.content``.
CHAIN         a LangGraph graph run is an agent invocation named after the graph (``name=`` of
              ``create_react_agent``, default "LangGraph"); a root chain is a ``workflow``; any
              other chain (graph nodes, runnables) is ``other``.
others        RERANKER, GUARDRAIL, EVALUATOR, PROMPT, UNKNOWN, ...: ``other``.
============  ==================================================================================

A span without ``openinference.span.kind`` is read only when it has keys no other producer uses
(``llm.token_count.*`` / ``llm.model_name`` make a model call; ``tool.name`` with ``input.value`` or
``tool.parameters`` a tool execution).

Errors: status ERROR (OpenInference records the exception as an ``exception`` event). The OpenAI
Agents instrumentation has no event; its status description ``"<message>: {<data>}"`` gives the error
message from the data's ``error`` entry.

A graph that LangGraph runs inside another graph's node (an agent called from a tool, a subgraph node)
cannot be told from the node's own runnables by its attributes alone: `refine`, which the
reconstruction calls once every span is classified, looks at the tree and turns every span whose
children are the nodes of a graph of their own into an agent invocation (see ``_langgraph``).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._model.span import Span
from . import _base as gaps
from . import _langgraph as lg
from . import _llamaindex as li
from . import _smolagents as sa
from ._base import Operation, as_int, as_str, as_str_tuple, error_info, maybe_json
from ._handoffs import handoff_span, langgraph_handoff
from ._indexed import has_key_under
from ._indexed import indexed as _indexed
from ._messages import final_text, requested_tool_calls, user_text
from ._span_names import agent_name as named_agent

if TYPE_CHECKING:
    from .._model.records import ErrorInfo
    from .._model.tree import SpanTree

__all__ = ["NAME", "classify", "flattened_messages", "refine"]

NAME = "openinference"

SPAN_KIND = "openinference.span.kind"
INPUT_VALUE = "input.value"
OUTPUT_VALUE = "output.value"
TOOL_NAME = "tool.name"
TOOL_PARAMETERS = "tool.parameters"
TOOL_CALL_ID = "tool_call.id"
AGENT_NAME = "agent.name"
GRAPH_NODE_ID = "graph.node.id"
SESSION_ID = "session.id"
METADATA = "metadata"
LLM_MODEL_NAME = "llm.model_name"
LLM_RESPONSE_MODEL_NAME = "llm.response.model_name"
LLM_REQUEST_MODEL_NAME = "llm.request.model_name"
EMBEDDING_MODEL_NAME = "embedding.model_name"
LLM_PROVIDER = "llm.provider"
LLM_SYSTEM = "llm.system"
LLM_PROMPTS = "llm.prompts"
TOKENS_PROMPT = "llm.token_count.prompt"
TOKENS_COMPLETION = "llm.token_count.completion"
TOKENS_TOTAL = "llm.token_count.total"
FINISH_REASON = "llm.finish_reason"
INPUT_MESSAGES = "llm.input_messages."
OUTPUT_MESSAGES = "llm.output_messages."
RETRIEVAL_DOCUMENTS = "retrieval.documents."

_OPENAI_AGENTS_SCOPE = _AGENTS_SCOPE = "openinference.instrumentation.openai_agents"

#: what these instrumentations never record (see ``_base.NotRecorded``)
NOT_RECORDED = (
    *gaps.agent_io_not_recorded("the OpenAI Agents SDK's instrumentation (OpenInference)", _AGENTS_SCOPE),
    gaps.failed_tool_result_not_recorded("(OpenInference)", scope="openinference.instrumentation.langchain"),
    *li.NOT_RECORDED,
)
_MAX_REPR_CHARS = 100_000
_MODEL_KEYS = (LLM_MODEL_NAME, TOKENS_PROMPT, TOKENS_COMPLETION, TOKENS_TOTAL)


# --------------------------------------------------------------------------------------------------
# Flattened lists: ``prefix.N.message.role``, ``...tool_calls.M.tool_call.function.name`` and so on
# --------------------------------------------------------------------------------------------------


_MESSAGE_FIELDS = tuple((key, f"message.{key}") for key in ("role", "content", "name", "tool_call_id"))


def _message(fields: Mapping[str, Any]) -> dict[str, Any]:
    """One message in the OpenAI chat shape, from its flattened ``message.*`` fields."""
    msg: dict[str, Any] = {}
    for key, field in _MESSAGE_FIELDS:
        if field in fields:
            msg[key] = fields[field]
    parts = _indexed(fields, "message.contents.")
    if parts and "content" not in msg:
        msg["content"] = [
            {"type": part.get("message_content.type", "text"), "text": part.get("message_content.text")}
            for part in parts.values()
        ]
    calls = _indexed(fields, "message.tool_calls.")
    if calls:
        msg["tool_calls"] = [
            {
                "id": call.get("tool_call.id"),
                "function": {
                    "name": call.get("tool_call.function.name"),
                    "arguments": call.get("tool_call.function.arguments"),
                },
            }
            for call in calls.values()
        ]
    return msg


def flattened_messages(attrs: Mapping[str, Any], prefix: str) -> list[dict[str, Any]]:
    """The messages recorded under ``prefix`` (``"llm.input_messages."`` or ``"llm.output_messages."``)."""
    return [_message(fields) for fields in _indexed(attrs, prefix).values()]


def _documents(attrs: Mapping[str, Any]) -> tuple[str, ...]:
    docs = _indexed(attrs, RETRIEVAL_DOCUMENTS)
    return tuple(as_str(doc.get("document.content")) or "" for doc in docs.values())


# --------------------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------------------


def _agent_input(attrs: Mapping[str, Any]) -> Any:
    messages = flattened_messages(attrs, INPUT_MESSAGES) or lg.state_messages(attrs.get(INPUT_VALUE))
    return user_text(messages) if messages else sa.agent_input(attrs)


def _agent_output(attrs: Mapping[str, Any]) -> Any:
    messages = flattened_messages(attrs, OUTPUT_MESSAGES) or lg.state_messages(attrs.get(OUTPUT_VALUE))
    return final_text(messages) if messages else maybe_json(attrs.get(OUTPUT_VALUE))


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


# --------------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------------


def _error(span: Span) -> ErrorInfo | None:
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


def _failed(span: Span) -> bool | None:
    if span.status.code == "ERROR":
        return True
    return None if span.end_ns is None else False


# --------------------------------------------------------------------------------------------------
# Classification
# --------------------------------------------------------------------------------------------------


def _tokens(attrs: Mapping[str, Any]) -> tuple[int | None, int | None, int | None]:
    inp = as_int(attrs.get(TOKENS_PROMPT))
    out = as_int(attrs.get(TOKENS_COMPLETION))
    total = as_int(attrs.get(TOKENS_TOTAL))
    if total is None and (inp is not None or out is not None):
        total = (inp or 0) + (out or 0)
    return inp, out, total


def _model(span: Span, operation: str, failed: bool | None, error: ErrorInfo | None) -> Operation:
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


def _tool(span: Span, failed: bool | None, error: ErrorInfo | None) -> Operation:
    attrs = span.attributes
    result, call_id = _tool_result(li.tool_result(attrs.get(OUTPUT_VALUE)))
    return Operation(
        kind="tool",
        dialect=NAME,
        name=as_str(attrs.get(TOOL_NAME)) or span.name,
        call_id=as_str(attrs.get(TOOL_CALL_ID)) or call_id,
        arguments=li.tool_arguments(sa.tool_arguments(attrs.get(INPUT_VALUE))),
        result=result,
        input=attrs.get(INPUT_VALUE),
        output=result,
        failed=failed,
        error=error,
    )


def agent_operation(span: Span, name: str | None = None) -> Operation:
    """``span`` as an agent invocation (named ``name``, else ``agent.name``, else the span name)."""
    attrs = span.attributes
    failed = _failed(span)
    return Operation(
        kind="agent",
        dialect=NAME,
        name=name or as_str(attrs.get(AGENT_NAME)) or named_agent(span) or span.name,
        input=_agent_input(attrs),
        output=_agent_output(attrs),
        conversation_id=as_str(attrs.get(SESSION_ID)),
        failed=failed,
        error=_error(span) if failed else None,
    )


def _kind(attrs: Mapping[str, Any]) -> str | None:
    kind = attrs.get(SPAN_KIND)
    if isinstance(kind, str) and kind:
        return kind.upper()
    if any(key in attrs for key in _MODEL_KEYS):
        return "LLM"
    if TOOL_NAME in attrs and (INPUT_VALUE in attrs or TOOL_PARAMETERS in attrs):
        return "TOOL"
    return None


def might_claim(scope: str | None, keys: frozenset[str]) -> bool:
    """Whether spans of this scope with these attribute keys can be this dialect's (a necessary
    condition, from names only: the dispatcher caches it per key signature)."""
    if SPAN_KIND in keys or not keys.isdisjoint(_MODEL_KEYS):
        return True
    return TOOL_NAME in keys and (INPUT_VALUE in keys or TOOL_PARAMETERS in keys)


#: what the OpenAI Agents instrumentation's trace span may carry (it names no agent and has no data)
_TRACE_SPAN_KEYS = frozenset({SPAN_KIND, SESSION_ID, METADATA, "user.id", "tag.tags"})


def scope_hint(span: Span, trace_scopes: frozenset[str]) -> str | None:
    """The OpenAI Agents instrumentation's scope for a span without one (an SDK dump): its agent spans
    carry ``graph.node.id``; its trace span (an AGENT span with nothing else) is known by its trace."""
    attrs = span.attributes
    if attrs.get(SPAN_KIND) != "AGENT":
        return None
    own = not trace_scopes and GRAPH_NODE_ID in attrs
    trace_span = _OPENAI_AGENTS_SCOPE in trace_scopes and _TRACE_SPAN_KEYS.issuperset(attrs)
    return _OPENAI_AGENTS_SCOPE if own or trace_span else None


def classify(span: Span) -> Operation | None:
    attrs = span.attributes
    kind = _kind(attrs)
    if kind is None:
        return None
    failed = _failed(span)
    error = _error(span) if failed else None
    if kind == "TOOL":
        if TOOL_NAME not in attrs and span.name.startswith("handoff to "):  # OpenAI Agents SDK handoff
            to = as_str(attrs.get(OUTPUT_VALUE)) or span.name[len("handoff to ") :].strip()
            return handoff_span(NAME, as_str(attrs.get(INPUT_VALUE)), to, failed, error)
        return langgraph_handoff(_tool(span, failed, error))  # a handoff when it returns a parent Command
    if kind == "LLM" and not li.llm_helper(span):  # LlamaIndex: an LLM method that calls no model
        return _model(span, "text_completion" if _has_prefix(attrs, LLM_PROMPTS) else "chat", failed, error)
    if kind == "EMBEDDING":
        return _model(span, "embeddings", failed, error)
    if kind == "RETRIEVER":
        query = maybe_json(attrs.get(INPUT_VALUE))
        docs = _documents(attrs)
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
    metadata = lg.metadata(attrs.get(METADATA))
    if kind == "AGENT":
        if AGENT_NAME not in attrs and GRAPH_NODE_ID not in attrs:
            if span.scope_name == _OPENAI_AGENTS_SCOPE:
                return _workflow(span, failed, error)
            if lg.is_node(span, metadata):
                return Operation(kind="other", dialect=NAME, name=span.name)
        return agent_operation(span)
    if kind == "CHAIN":
        if lg.is_graph_root(metadata):
            return agent_operation(span)
        if span.parent_id is None:
            return _workflow(span, failed, error)
    return Operation(kind="other", dialect=NAME, name=span.name, failed=failed, error=error)


def _workflow(span: Span, failed: bool | None, error: ErrorInfo | None) -> Operation:
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


def _has_prefix(attrs: Mapping[str, Any], prefix: str) -> bool:
    return prefix in attrs or has_key_under(attrs, prefix + ".")


# --------------------------------------------------------------------------------------------------
# Structure: LangGraph graphs run inside another graph
# --------------------------------------------------------------------------------------------------


def refine(trace: SpanTree, operation_of: Callable[[Span], Operation | None]) -> list[tuple[Span, Operation]]:
    """Operations that knowing the span tree changes: every OpenInference span that runs a LangGraph
    graph inside another graph's node becomes an agent invocation named after the graph."""
    changed = li.agent_runs(trace, operation_of, agent_operation)  # LlamaIndex agent workflow runs
    for span in trace.spans:
        op = operation_of(span)
        if op is None or op.dialect != NAME or op.kind not in ("other", "workflow"):
            continue
        if span.attributes.get(SPAN_KIND) not in ("CHAIN", "AGENT"):
            continue
        raw = span.attributes.get(METADATA)
        if not isinstance(raw, str) or lg.LANGGRAPH not in raw:
            continue
        children = ((child, lg.metadata(child.attributes.get(METADATA))) for child in trace.children(span))
        if lg.runs_graph(lg.metadata(raw), children):
            changed.append((span, agent_operation(span, span.name)))
    return changed
