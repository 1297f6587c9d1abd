"""What OpenLLMetry's LlamaIndex instrumentation (``opentelemetry-instrumentation-llamaindex``) records
in shapes of its own, read for the OpenLLMetry dialect.

Every LlamaIndex dispatcher span becomes a ``task`` span named ``<Class>.task`` (the root
``<Class>.workflow``), status UNSET whatever happened:

- an agent workflow run is the root ``FunctionAgent.workflow`` or, run inside a tool, ``run.task``; no
  span names the agent: its steps (``BaseWorkflowAgent.task``) carry the workflow events as
  ``traceloop.entity.output`` JSON, and those hold ``"current_agent_name": "<name>"``;
- a tool call is the ``call_tool`` step: ``tool.name``, ``tool.arguments`` (JSON) and, as its output,
  the ``ToolCallResult`` whose ``tool_output`` has ``raw_output`` and ``is_error`` (the only record of
  a failed tool: the tool's own ``FunctionTool.task`` span is lost when the tool raises). The step's
  output may be missing (set after the span ended), and with it the result.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from .._model.records import ErrorInfo
from .._model.span import Span
from ._base import Operation, as_str, maybe_json

if TYPE_CHECKING:
    from .._model.tree import SpanTree

__all__ = ["agent_runs", "tool"]

_ENTITY_NAME = "traceloop.entity.name"
_ENTITY_OUTPUT = "traceloop.entity.output"
_AGENT_NAME = re.compile(r'"current_agent_name": "((?:[^"\\]|\\.)+)"')


def _is_step(span: Span) -> bool:
    """A workflow step of an agent: ``BaseWorkflowAgent.task`` (the run itself is ``<Agent>.workflow``)."""
    owner, _, method = str(span.attributes.get(_ENTITY_NAME, span.name)).partition(".")
    return method == "task" and (owner.endswith("Agent") or owner == "AgentWorkflow")


def tool(span: Span, dialect: str) -> Operation | None:
    """A LlamaIndex ``call_tool`` step (a task span with ``tool.name``) as a tool execution, else None."""
    attrs = span.attributes
    name = as_str(attrs.get("tool.name"))
    if name is None or not _is_step(span):
        return None
    arguments = maybe_json(attrs.get("tool.arguments"))
    output = maybe_json(attrs.get(_ENTITY_OUTPUT))
    result = failed = None
    if isinstance(output, Mapping) and isinstance(output.get("tool_output"), Mapping):
        result = output["tool_output"].get("raw_output")
        failed = output["tool_output"].get("is_error") is True
    error = ErrorInfo(None, as_str(result)) if failed else None
    return Operation(
        kind="tool",
        dialect=dialect,
        name=name,
        call_id=as_str(output.get("tool_id")) if isinstance(output, Mapping) else None,
        arguments=arguments,
        input=arguments,
        result=result,
        output=result,
        failed=failed if failed is not None else (None if span.end_ns is None else False),
        error=error,
    )


def _agent_name(trace: SpanTree, span: Span) -> str | None:
    names: set[str] = set()
    for child in trace.children(span):
        value = child.attributes.get(_ENTITY_OUTPUT)
        if _is_step(child) and isinstance(value, str):
            names.update(_AGENT_NAME.findall(value))
    return names.pop() if len(names) == 1 else None


def agent_runs(
    trace: SpanTree,
    operation_of: Callable[[Span], Operation | None],
    make_agent: Callable[[Span], Operation],
) -> list[tuple[Span, Operation]]:
    """Every LlamaIndex agent workflow run (a workflow or task span whose steps name one agent) as an
    agent invocation of that name (``make_agent``), with no input or output (the run records neither)."""
    changed: list[tuple[Span, Operation]] = []
    for span in trace.spans:
        op = operation_of(span)
        if op is None or op.kind not in ("workflow", "other") or _is_step(span):
            continue
        name = _agent_name(trace, span)
        if name is not None:
            changed.append((span, dataclasses.replace(make_agent(span), name=name, input=None, output=None)))
    return changed
