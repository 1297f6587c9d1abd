"""Positional tool arguments named after the tool's recorded definition.

A tool span that records its arguments positionally (a bare value, ``('SFO', 'BOM')``, ``[1, 2]``)
gives no parameter names: `parse_arguments` puts the value under ``input``. When a model call in the
trace recorded the tool's definition (``gen_ai.tool.definitions``, OpenInference's ``llm.tools``,
OpenLLMetry's ``llm.request.functions``, ...: the shapes ``_model.offered`` reads), its JSON schema names
the parameters, in order.

A bare value then goes under the one parameter's name, and a list of values under the first
parameters' names in order; anything else (no definition, more values than parameters, a tool whose
parameter is itself called ``input``) stays as it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._model.offered import offered_tools
from .._model.records import ToolExecution
from .._model.span import Span
from .arguments import SCALAR_KEY, parse_arguments

__all__ = ["name_positional", "offered_tool_names", "tool_parameters"]

_PROBE = "\x00positional"


def tool_parameters(spans: Iterable[Span]) -> dict[str, tuple[str, ...]]:
    """Tool name -> its parameter names, from every definition the spans record (the first one wins;
    ``_model.offered`` reads them)."""
    out: dict[str, tuple[str, ...]] = {}
    for name, definition in offered_tools(spans).items():
        props = definition.parameters.get("properties") if definition.parameters is not None else None
        if isinstance(props, Mapping):
            out[name] = tuple(str(key) for key in props)
    return out


def offered_tool_names(spans: Iterable[Span]) -> frozenset[str]:
    """The names of every tool a model call was offered, as the spans' definitions record them (with
    or without a parameter schema); empty when no span records a definition."""
    return frozenset(offered_tools(spans))


def _named(value: Any, params: tuple[str, ...]) -> dict[str, Any] | None:
    if not params or SCALAR_KEY in params:
        return None
    if len(params) == 1:
        return {params[0]: value}
    if isinstance(value, list) and 0 < len(value) <= len(params):
        return dict(zip(params, value, strict=False))
    return None


def name_positional(tools: Sequence[ToolExecution], spans: Sequence[Span]) -> None:
    """Name (in place) the positional arguments of ``tools`` after their definitions in ``spans``."""
    pending = [
        tool
        for tool in tools
        if len(tool.arguments) == 1
        and SCALAR_KEY in tool.arguments
        and _PROBE in parse_arguments(tool.raw_arguments, (_PROBE,))
    ]
    if not pending:
        return
    params = tool_parameters(spans)
    if not params:
        return
    for tool in pending:
        named = _named(tool.arguments[SCALAR_KEY], params.get(tool.name, ()))
        if named is not None:
            tool.arguments = named
