"""What any OpenInference TOOL or AGENT span says about itself, whichever framework wrote it (no
producer's shape here):

- a tool's name: ``tool.name``, else the span name without the ``.__call__`` that instrumentations of
  Python callables add (``get_weather.__call__`` is the tool ``get_weather``);
- a tool's arguments wrapped in an envelope of the instrumentation (``{"input": {...}, "options": null}``):
  the tool records its parameter schema (``tool.json_schema`` / ``tool.parameters``), and exactly one
  entry of ``input.value`` fits it where the envelope does not;
- a span that names nothing, directly inside a span of the same kind that does (an AGENT span without an
  agent name in a named agent's span, a TOOL span without ``tool.name`` in a named tool's span), is a step
  of that agent or execution (an event the producer made a span of), never a second agent or execution.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._model.span import Span
from ._base import Operation, as_str, maybe_json
from ._openinference_attrs import AGENT_NAME, GRAPH_NODE_ID, TOOL_NAME, TOOL_PARAMETERS
from ._span_names import agent_name as named_agent

if TYPE_CHECKING:
    from .._model.tree import SpanTree

__all__ = ["TOOL_SCHEMA", "nameless_steps", "schema_arguments", "tool_name"]

TOOL_SCHEMA = "tool.json_schema"
_CALL = ".__call__"


def tool_name(span: Span) -> str:
    """The tool a TOOL span executes: ``tool.name``, else its span name (less a trailing ``.__call__``)."""
    named = as_str(span.attributes.get(TOOL_NAME))
    if named:
        return named
    if span.name.endswith(_CALL) and len(span.name) > len(_CALL):
        return span.name[: -len(_CALL)]
    return span.name


def _parameters(attrs: Mapping[str, Any]) -> frozenset[str] | None:
    """The parameter names of the tool's recorded schema; None where it records none."""
    for key in (TOOL_SCHEMA, TOOL_PARAMETERS):
        schema = attrs.get(key)
        if schema is None:
            continue
        schema = maybe_json(schema)
        if isinstance(schema, Mapping) and isinstance(schema.get("function"), Mapping):
            schema = schema["function"].get("parameters")
        if isinstance(schema, Mapping) and isinstance(schema.get("properties"), Mapping):
            return frozenset(str(name) for name in schema["properties"])
    return None


def schema_arguments(arguments: Any, attrs: Mapping[str, Any]) -> Any:
    """``arguments`` out of an envelope that the tool's schema does not fit; any other value as it is."""
    params = _parameters(attrs)
    if params is None:  # no schema recorded: nothing to fit, and nothing parsed
        return arguments
    parsed = maybe_json(arguments) if isinstance(arguments, str) else arguments
    if not isinstance(parsed, Mapping) or set(parsed) <= params:
        return arguments
    fitting = [v for v in parsed.values() if isinstance(v, Mapping) and set(v) <= params]
    rest = [v for v in parsed.values() if not (isinstance(v, Mapping) and set(v) <= params)]
    if len(fitting) != 1 or any(v not in (None, {}, [], "") for v in rest):
        return arguments
    return dict(fitting[0])


def _own_name(span: Span, kind: str) -> bool:
    attrs = span.attributes
    if kind == "tool":
        return bool(as_str(attrs.get(TOOL_NAME)))
    return bool(as_str(attrs.get(AGENT_NAME)) or as_str(attrs.get(GRAPH_NODE_ID)) or named_agent(span))


def nameless_steps(
    trace: SpanTree, operation_of: Callable[[Span], Operation | None], dialect: str
) -> list[tuple[Span, Operation]]:
    """The agent and tool spans of ``dialect`` that name nothing, directly inside a span of the same kind
    that names itself: each becomes ``other`` (a step of its parent)."""
    changed: list[tuple[Span, Operation]] = []
    for span in trace.spans:
        op = operation_of(span)
        if (
            op is None
            or op.dialect != dialect
            or op.kind not in ("agent", "tool")
            or _own_name(span, op.kind)
        ):
            continue
        parent = trace.parent(span)
        above = operation_of(parent) if parent is not None else None
        if parent is None or above is None or above.kind != op.kind or not _own_name(parent, op.kind):
            continue
        changed.append((span, Operation(kind="other", dialect=dialect, name=span.name)))
    return changed
