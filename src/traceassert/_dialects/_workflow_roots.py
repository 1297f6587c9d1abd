"""The OpenAI Agents SDK's trace span, ``Agent workflow``, is the run's workflow, never an agent.

The SDK names the trace of a run ``Agent workflow`` (its default ``workflow_name``) and its
instrumentations record it as a span that names no agent: OpenInference as an ``AGENT`` span,
Traceloop/OpenLLMetry and the GenAI instrumentation tagged ``gen_ai.operation.name = invoke_agent``.
A dialect that reads it alone may take it for an agent; over the whole trace it is a workflow when the
span names no agent (no ``gen_ai.agent.name``, ``agent.name`` or ``graph.node.id``) and any of these
shows it is the trace span:

- it is tagged ``invoke_agent`` (a real agent span of these instrumentations names its agent);
- it has a parent (the trace span of a run started inside another one's work, or exported apart
  from its parent);
- it is the direct parent of an agent span (the agent the run started).

A lone root ``AGENT`` span named so, with no agent under it, stays what its dialect made of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .._model.span import Span
from ._base import Operation

__all__ = ["TRACE_SPAN_NAME", "workflow_roots"]

#: the OpenAI Agents SDK's default workflow (trace) name
TRACE_SPAN_NAME = "Agent workflow"
_AGENT_NAME_KEYS = ("gen_ai.agent.name", "agent.name", "graph.node.id")


def _names_no_agent(span: Span) -> bool:
    attrs = span.attributes
    return not any(attrs.get(key) for key in _AGENT_NAME_KEYS)


def workflow_roots(
    spans: Sequence[Span], ops: list[Operation | None], named: Sequence[int] | None = None
) -> None:
    """Turn (in place) the operations of the SDK's trace spans that a dialect read as agents into
    workflows (see the module docstring). ``named``: the positions of the spans named
    `TRACE_SPAN_NAME`, when the caller found them in its own walk."""
    if named is None:
        named = [i for i, span in enumerate(spans) if span.name == TRACE_SPAN_NAME]
    found = [i for i in named if (op := ops[i]) is not None and op.kind == "agent"]
    if not found:
        return
    agent_parents = {
        (span.trace_id, span.parent_id)
        for span, op in zip(spans, ops, strict=True)
        if op is not None and op.kind == "agent" and span.parent_id is not None
    }
    for i in found:
        span = spans[i]
        if not _names_no_agent(span):
            continue
        if (
            span.parent_id is not None
            or span.attributes.get("gen_ai.operation.name") == "invoke_agent"
            or (span.trace_id, span.span_id) in agent_parents
        ):
            op = ops[i]
            assert op is not None
            ops[i] = dataclasses.replace(
                op,
                kind="workflow",
                name=span.name,
                input_tokens=None,
                output_tokens=None,
                total_tokens=None,
                conversation_id=None,
            )
