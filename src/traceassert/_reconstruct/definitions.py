"""Positional tool arguments named after the tool's recorded definition.

A tool span that records its arguments positionally (a bare value, ``('SFO', 'BOM')``, ``[1, 2]``)
gives no parameter names: `parse_arguments` puts the value under ``input``. When a model call in the
trace recorded the tool's definition, its JSON schema names the parameters, in order:

- ``gen_ai.tool.definitions`` (GenAI conventions): a list of ``{"name", "parameters"}`` (or
  ``{"function": {"name", "parameters"}}``, Anthropic's ``input_schema``, MCP's ``inputSchema``);
- ``llm.tools.<i>.tool.json_schema`` (OpenInference): one such definition per tool;
- ``llm.request.functions.<i>.name`` / ``.parameters`` (OpenLLMetry).

A bare value then goes under the one parameter's name, and a list of values under the first
parameters' names in order; anything else (no definition, more values than parameters, a tool whose
parameter is itself called ``input``) stays as it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._common.jsonvalue import maybe_json
from .._model.records import ToolExecution
from .._model.span import Span
from .arguments import SCALAR_KEY, parse_arguments

__all__ = ["name_positional", "offered_tool_names", "tool_parameters"]

_DEFINITIONS = "gen_ai.tool.definitions"
_OI_PREFIX = "llm.tools."
_OI_SUFFIX = ".tool.json_schema"
_TL_PREFIX = "llm.request.functions."
_PROBE = "\x00positional"


def _parameters(schema: Any) -> tuple[str, ...] | None:
    schema = maybe_json(schema)
    if not isinstance(schema, Mapping):
        return None
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return None
    return tuple(str(key) for key in props)


def _definition(value: Any) -> tuple[str, tuple[str, ...]] | None:
    """``(tool name, parameter names)`` of one definition."""
    value = maybe_json(value)
    if not isinstance(value, Mapping):
        return None
    inner = value.get("function")
    if isinstance(inner, Mapping):
        value = inner
    name = value.get("name")
    if not isinstance(name, str) or not name:
        return None
    for key in ("parameters", "input_schema", "inputSchema"):
        params = _parameters(value.get(key))
        if params is not None:
            return name, params
    return None


def _from_span(attrs: Mapping[str, Any], out: dict[str, tuple[str, ...]]) -> None:
    listed = maybe_json(attrs.get(_DEFINITIONS))
    if isinstance(listed, list | tuple):
        for item in listed:
            found = _definition(item)
            if found is not None:
                out.setdefault(*found)
    for key, value in attrs.items():
        if key.startswith(_OI_PREFIX) and key.endswith(_OI_SUFFIX):
            found = _definition(value)
            if found is not None:
                out.setdefault(*found)
        elif key.startswith(_TL_PREFIX) and key.endswith(".name") and isinstance(value, str):
            params = _parameters(attrs.get(key[: -len("name")] + "parameters"))
            if params is not None:
                out.setdefault(value, params)


def tool_parameters(spans: Iterable[Span]) -> dict[str, tuple[str, ...]]:
    """Tool name -> its parameter names, from every definition the spans record (the first one wins)."""
    out: dict[str, tuple[str, ...]] = {}
    for span in spans:
        attrs = span.attributes
        if _DEFINITIONS in attrs or any(k.startswith((_OI_PREFIX, _TL_PREFIX)) for k in attrs):
            _from_span(attrs, out)
    return out


def _offered_name(value: Any) -> str | None:
    value = maybe_json(value)
    if not isinstance(value, Mapping):
        return None
    inner = value.get("function")
    name = (inner if isinstance(inner, Mapping) else value).get("name")
    return name if isinstance(name, str) and name else None


def offered_tool_names(spans: Iterable[Span]) -> frozenset[str]:
    """The names of every tool a model call was offered, as the spans' definitions record them (with
    or without a parameter schema); empty when no span records a definition."""
    out: set[str] = set()
    for span in spans:
        attrs = span.attributes
        listed = maybe_json(attrs.get(_DEFINITIONS)) if _DEFINITIONS in attrs else None
        if isinstance(listed, list | tuple):
            out.update(n for item in listed if (n := _offered_name(item)) is not None)
        if not any(k.startswith((_OI_PREFIX, _TL_PREFIX)) for k in attrs):
            continue
        for key, value in attrs.items():
            if key.startswith(_OI_PREFIX) and key.endswith(_OI_SUFFIX):
                name = _offered_name(value)
                if name is not None:
                    out.add(name)
            elif key.startswith(_TL_PREFIX) and key.endswith(".name") and isinstance(value, str) and value:
                out.add(value)
    return frozenset(out)


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
