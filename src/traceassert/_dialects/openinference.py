"""The OpenInference span dialect (Arize ``openinference-instrumentation-*`` packages).

Every OpenInference span says what it is in ``openinference.span.kind``:

============  ==================================================================================
kind          becomes
============  ==================================================================================
AGENT         an agent invocation named ``agent.name`` (else the span name). Two exceptions: the
              OpenAI Agents trace span (an AGENT span without ``agent.name``, named after the
              workflow) is a ``workflow``; a LangGraph *node* whose name contains "agent" (the
              LangChain instrumentation makes such runs AGENT spans) is ``other``.
TOOL          a tool execution: ``tool.name`` (else the span name less ``.__call__``), arguments
              from ``input.value`` (JSON, or the bare value of a single-argument LangChain tool; out
              of an envelope the recorded ``tool.json_schema`` does not fit), result from
              ``output.value`` (a
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

An AGENT or TOOL span that names nothing, directly inside a span of its kind that does, is a step of
that agent or execution, not another one (`refine`; see ``_openinference_tools``).

A graph that LangGraph runs inside another graph's node (an agent called from a tool, a subgraph node)
cannot be told from the node's own runnables by its attributes alone: `refine`, which the
reconstruction calls once every span is classified, looks at the tree and turns every span whose
children are the nodes of a graph of their own into an agent invocation (see ``_langgraph``).

This module tells the kinds apart; ``_openinference_attrs`` holds the attribute keys and reads the
flattened lists, ``_openinference_operations`` fills in each operation's fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._model.span import Span
from . import _base as gaps
from . import _langgraph as lg
from . import _llamaindex as li
from ._base import Operation, as_str
from ._handoffs import handoff_span, langgraph_handoff
from ._indexed import has_key_under
from ._openinference_attrs import (
    AGENT_NAME,
    GRAPH_NODE_ID,
    INPUT_VALUE,
    LLM_MODEL_NAME,
    LLM_PROMPTS,
    METADATA,
    NAME,
    OUTPUT_VALUE,
    SESSION_ID,
    SPAN_KIND,
    TOKENS_COMPLETION,
    TOKENS_PROMPT,
    TOKENS_TOTAL,
    TOOL_NAME,
    TOOL_PARAMETERS,
    flattened_messages,
)
from ._openinference_operations import (
    agent_operation,
    model_operation,
    retrieval_operation,
    span_error,
    tool_operation,
    workflow_operation,
)
from ._openinference_tools import nameless_steps

if TYPE_CHECKING:
    from .._model.tree import SpanTree

__all__ = ["NAME", "RECORDS_TOOL_EXECUTIONS", "classify", "flattened_messages", "refine"]

_OPENAI_AGENTS_SCOPE = _AGENTS_SCOPE = "openinference.instrumentation.openai_agents"

#: whether its producers record every tool execution as a span of its own (``records_tool_executions``):
#: True for all of them, else the scopes (prefixes) of those known to
RECORDS_TOOL_EXECUTIONS: bool | tuple[str, ...] = (
    "openinference.instrumentation.langchain",
    _OPENAI_AGENTS_SCOPE,
    "openinference.instrumentation.smolagents",
    "openinference.instrumentation.llama_index",
    "openinference.instrumentation.agno",
    "openinference.instrumentation.autogen",
    "openinference.instrumentation.crewai",
)

#: what these instrumentations never record (see ``_base.NotRecorded``)
NOT_RECORDED = (
    *gaps.agent_io_not_recorded("the OpenAI Agents SDK's instrumentation (OpenInference)", _AGENTS_SCOPE),
    gaps.failed_tool_result_not_recorded("(OpenInference)", scope="openinference.instrumentation.langchain"),
    *li.NOT_RECORDED,
)
_MODEL_KEYS = (LLM_MODEL_NAME, TOKENS_PROMPT, TOKENS_COMPLETION, TOKENS_TOTAL)

#: what the OpenAI Agents instrumentation's trace span may carry (it names no agent and has no data)
_TRACE_SPAN_KEYS = frozenset({SPAN_KIND, SESSION_ID, METADATA, "user.id", "tag.tags"})


# --------------------------------------------------------------------------------------------------
# Which spans are this dialect's
# --------------------------------------------------------------------------------------------------


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


def scope_hint(span: Span, trace_scopes: frozenset[str]) -> str | None:
    """The OpenAI Agents instrumentation's scope for a span without one (an SDK dump): its agent spans
    carry ``graph.node.id``; its trace span (an AGENT span with nothing else) is known by its trace."""
    attrs = span.attributes
    if attrs.get(SPAN_KIND) != "AGENT":
        return None

    own = not trace_scopes and GRAPH_NODE_ID in attrs
    trace_span = _OPENAI_AGENTS_SCOPE in trace_scopes and _TRACE_SPAN_KEYS.issuperset(attrs)
    return _OPENAI_AGENTS_SCOPE if own or trace_span else None


# --------------------------------------------------------------------------------------------------
# Classification
# --------------------------------------------------------------------------------------------------


def classify(span: Span) -> Operation | None:
    attrs = span.attributes
    kind = attrs.get(SPAN_KIND)
    if kind.__class__ is str and kind:  # `_kind`, the common case inlined
        kind = kind.upper()
    else:
        kind = _kind(attrs)
        if kind is None:
            return None

    # `span_failed`, inlined
    failed = True if span.status.code == "ERROR" else None if span.end_ns is None else False
    error = span_error(span) if failed else None

    if kind == "TOOL":
        if TOOL_NAME not in attrs and span.name.startswith("handoff to "):  # OpenAI Agents SDK handoff
            to = as_str(attrs.get(OUTPUT_VALUE)) or span.name[len("handoff to ") :].strip()
            return handoff_span(NAME, as_str(attrs.get(INPUT_VALUE)), to, failed, error)
        # a handoff when it returns a parent Command
        return langgraph_handoff(tool_operation(span, failed, error))

    if kind == "LLM" and not li.llm_helper(span):  # LlamaIndex: an LLM method that calls no model
        operation = "text_completion" if _has_prefix(attrs, LLM_PROMPTS) else "chat"
        return model_operation(span, operation, failed, error)
    if kind == "EMBEDDING":
        return model_operation(span, "embeddings", failed, error)
    if kind == "RETRIEVER":
        return retrieval_operation(span, failed, error)

    metadata = lg.metadata(attrs.get(METADATA))
    if kind == "AGENT":
        if AGENT_NAME not in attrs and GRAPH_NODE_ID not in attrs:
            if span.scope_name == _OPENAI_AGENTS_SCOPE:
                return workflow_operation(span, failed, error)
            if lg.is_node(span, metadata):
                return Operation(kind="other", dialect=NAME, name=span.name)
        return agent_operation(span)
    if kind == "CHAIN":
        if lg.is_graph_root(metadata):
            return agent_operation(span)
        if span.parent_id is None:
            return workflow_operation(span, failed, error)

    return Operation(kind="other", dialect=NAME, name=span.name, failed=failed, error=error)


def _has_prefix(attrs: Mapping[str, Any], prefix: str) -> bool:
    return prefix in attrs or has_key_under(attrs, prefix + ".")


# --------------------------------------------------------------------------------------------------
# Structure: LangGraph graphs run inside another graph
# --------------------------------------------------------------------------------------------------


def refine(trace: SpanTree, operation_of: Callable[[Span], Operation | None]) -> list[tuple[Span, Operation]]:
    """Operations that knowing the span tree changes: every OpenInference span that runs a LangGraph
    graph inside another graph's node becomes an agent invocation named after the graph."""
    changed = li.agent_runs(trace, operation_of, agent_operation)  # LlamaIndex agent workflow runs
    changed += nameless_steps(trace, operation_of, NAME)  # a nameless span in a named one of its kind

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
