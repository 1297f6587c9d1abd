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
from .._model.lazy import later, peek, resolve
from .._model.records import ToolExecution
from .._model.span import Span
from .arguments import SCALAR_KEY, parse_arguments

__all__ = ["DEFINITION_KEYS", "any_key", "name_positional", "tool_parameters"]

_DEFINITIONS = "gen_ai.tool.definitions"
_OI_PREFIX = "llm.tools."
_OI_SUFFIX = ".tool.json_schema"
_TL_PREFIX = "llm.request.functions."
_PROBE = "\x00positional"

#: the keys (or key prefixes) a tool definition is recorded under
DEFINITION_KEYS = (_DEFINITIONS, _OI_PREFIX, _TL_PREFIX)


def any_key(signatures: Iterable[tuple[str, ...]], prefixes: tuple[str, ...]) -> bool:
    """Whether a span of these attribute key sets has a key starting with one of ``prefixes`` (one test
    per key set, not per span)."""
    return any(key.startswith(prefixes) for keys in signatures for key in keys)


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


def _named(value: Any, params: tuple[str, ...]) -> dict[str, Any] | None:
    if not params or SCALAR_KEY in params:
        return None
    if len(params) == 1:
        return {params[0]: value}
    if isinstance(value, list) and 0 < len(value) <= len(params):
        return dict(zip(params, value, strict=False))
    return None


class _Definitions:
    """`tool_parameters` of a trace's spans, read once, when a positional argument first needs them."""

    __slots__ = ("_params", "spans")

    def __init__(self, spans: Sequence[Span]) -> None:
        self.spans = spans
        self._params: dict[str, tuple[str, ...]] | None = None

    def params(self) -> dict[str, tuple[str, ...]]:
        if self._params is None:
            self._params = tool_parameters(self.spans)
        return self._params


def _positional(recorded: tuple[Any, Any, str], definitions: _Definitions) -> Any:
    arguments, raw, name = recorded
    arguments = resolve(arguments)
    if not (len(arguments) == 1 and SCALAR_KEY in arguments):
        return arguments
    if _PROBE not in parse_arguments(raw, (_PROBE,)):
        return arguments
    params = definitions.params()
    named = _named(arguments[SCALAR_KEY], params.get(name, ())) if params else None
    return arguments if named is None else named


def name_positional(tools: Sequence[ToolExecution], spans: Sequence[Span]) -> None:
    """Name (in place) the positional arguments of ``tools`` after their definitions in ``spans``, when
    the arguments are first read (see ``_model.lazy``): a tool recorded with a mapping is left as it is."""
    definitions = _Definitions(spans)
    for tool in tools:
        raw = tool.raw_arguments
        if raw is None or isinstance(raw, Mapping):
            continue  # no argument, or named ones: nothing positional
        tool.arguments = later(_positional, (peek(tool, "arguments"), raw, tool.name), definitions)
