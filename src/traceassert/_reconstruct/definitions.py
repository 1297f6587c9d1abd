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

from .._model.lazy import later, peek, resolve
from .._model.offered import DEFINITION_KEYS, offered_tools
from .._model.records import ToolExecution
from .._model.span import Span
from .arguments import SCALAR_KEY, parse_arguments

__all__ = ["DEFINITION_KEYS", "any_key", "name_positional", "offered_tool_names", "tool_parameters"]

_PROBE = "\x00positional"


def any_key(signatures: Iterable[tuple[str, ...]], prefixes: tuple[str, ...]) -> bool:
    """Whether a span of these attribute key sets has a key starting with one of ``prefixes`` (one test
    per key set, not per span)."""
    return any(key.startswith(prefixes) for keys in signatures for key in keys)


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
