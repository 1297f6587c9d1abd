"""The tool definitions a model call offered the model, and the schema a tool span records of its own tool.

Read on demand (``ModelCall.tool_definitions``), never while classifying spans. A model call's spans
record the tools the model was given in one of these shapes (every one is read; the first definition
of a name wins, innermost span first):

- ``gen_ai.tool.definitions`` (GenAI conventions; Pydantic AI, OpenLLMetry, Microsoft Agent Framework,
  ADK, LiteLLM): a list of ``{"name", "parameters"}``, ``{"type": "function", "function": {...}}``,
  Anthropic's ``input_schema`` or MCP's ``inputSchema``;
- ``llm.tools.<i>.tool.json_schema`` (OpenInference), one definition each, or ``llm.tools`` as one list;
- ``llm.request.functions.<i>.name`` / ``.description`` / ``.parameters`` (OpenLLMetry, older);
- ``model_request_parameters`` (Pydantic AI): ``function_tools`` and ``output_tools``, each with
  ``parameters_json_schema``;
- ``ai.prompt.tools`` (Vercel AI SDK): a list of JSON texts with ``inputSchema`` (``parameters`` before
  AI SDK 5).

A tool span may record its own tool's schema: ``tool.parameters`` (OpenInference) or
``gen_ai.tool.json_schema`` (Strands). Some producers write the call's arguments or a bare property map
under ``tool.parameters``: only a mapping that reads as a JSON schema (every key a schema keyword) is
taken (`own_schema`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .._common.jsonvalue import maybe_json
from .span import Span

__all__ = [
    "DEFINITION_KEYS",
    "SCHEMA_KEYWORDS",
    "ToolDefinition",
    "looks_like_schema",
    "offered_tools",
    "own_schema",
]

_DEFINITIONS = "gen_ai.tool.definitions"
_OI_LIST = "llm.tools"
_OI_PREFIX = "llm.tools."
_OI_SUFFIX = ".tool.json_schema"
_TL_PREFIX = "llm.request.functions."
_PYDANTIC_AI = "model_request_parameters"
_VERCEL = "ai.prompt.tools"
_PREFIXES = (_OI_PREFIX, _TL_PREFIX)
_LISTS = (_DEFINITIONS, _OI_LIST, _PYDANTIC_AI, _VERCEL)
#: the keys (or key prefixes) a tool definition is recorded under: a span with none offers no tool
DEFINITION_KEYS = (*_LISTS, *_PREFIXES)
#: where a definition keeps its parameter schema, by producer
_SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema", "parameters_json_schema", "parametersJsonSchema")
#: where a tool span keeps its own tool's schema
_OWN_KEYS = ("tool.parameters", "gen_ai.tool.json_schema")

#: the keywords of JSON Schema (every draft) and OpenAPI's ``nullable``: a mapping whose keys are all
#: among them reads as a schema
SCHEMA_KEYWORDS = frozenset(
    {
        "$schema", "$id", "id", "$ref", "$defs", "definitions", "$comment", "$anchor", "$dynamicRef",
        "$dynamicAnchor", "$vocabulary", "$recursiveRef", "$recursiveAnchor", "title", "description",
        "default", "examples", "example", "deprecated", "readOnly", "writeOnly", "type", "enum", "const",
        "properties", "required", "additionalProperties", "patternProperties", "propertyNames",
        "minProperties", "maxProperties", "dependencies", "dependentRequired", "dependentSchemas",
        "unevaluatedProperties", "items", "prefixItems", "additionalItems", "contains", "minContains",
        "maxContains", "minItems", "maxItems", "uniqueItems", "unevaluatedItems", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern",
        "format", "contentEncoding", "contentMediaType", "contentSchema", "anyOf", "oneOf", "allOf",
        "not", "if", "then", "else", "nullable", "strict",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """One tool a model call offered the model: its ``name``, ``description`` and ``parameters`` (the
    JSON schema of its arguments; None when the producer recorded none), and the attribute it was
    read from (``source``). Read-only: model calls that recorded the same text share one."""

    name: str
    description: str | None
    parameters: Mapping[str, Any] | None
    source: str


def looks_like_schema(value: Any) -> bool:
    """A mapping whose keys are all schema keywords, among them ``type`` or ``properties``."""
    return (
        isinstance(value, Mapping)
        and ("type" in value or "properties" in value)
        and all(isinstance(k, str) and k in SCHEMA_KEYWORDS for k in value)
    )


def _definition(value: Any, source: str) -> ToolDefinition | None:
    value = maybe_json(value)
    if not isinstance(value, Mapping):
        return None
    inner = value.get("function")
    if isinstance(inner, Mapping):
        value = inner
    name = value.get("name")
    if not isinstance(name, str) or not name:
        return None
    schema: Mapping[str, Any] | None = None
    for key in _SCHEMA_KEYS:
        found = maybe_json(value.get(key))
        if isinstance(found, Mapping):
            schema = found
            break
    description = value.get("description")
    return ToolDefinition(name, description if isinstance(description, str) else None, schema, source)


def _listed(value: Any, key: str) -> Iterable[Any]:
    value = maybe_json(value)
    if key == _PYDANTIC_AI:
        if not isinstance(value, Mapping):
            return ()
        items: list[Any] = []
        for group in ("function_tools", "output_tools"):
            listed = maybe_json(value.get(group))
            if isinstance(listed, list | tuple):
                items.extend(listed)
        return items
    return value if isinstance(value, list | tuple) else ()


def _read_list(value: Any, key: str) -> tuple[ToolDefinition, ...]:
    return tuple(d for d in (_definition(item, key) for item in _listed(value, key)) if d is not None)


@functools.lru_cache(maxsize=64)
def _read_list_text(value: str, key: str) -> tuple[ToolDefinition, ...]:
    """The definitions of a list recorded as text: every model call of a run records the same text, so
    it is parsed once."""
    return _read_list(value, key)


@functools.lru_cache(maxsize=256)
def _read_one_text(value: str, key: str) -> ToolDefinition | None:
    return _definition(value, key)


def _from_span(attrs: Mapping[str, Any], out: dict[str, ToolDefinition]) -> None:
    for key in _LISTS:
        if key in attrs:
            value = attrs[key]
            for found in _read_list_text(value, key) if isinstance(value, str) else _read_list(value, key):
                out.setdefault(found.name, found)
    for key, value in attrs.items():
        if key.startswith(_OI_PREFIX) and key.endswith(_OI_SUFFIX):
            one = _read_one_text(value, key) if isinstance(value, str) else _definition(value, key)
            if one is not None:
                out.setdefault(one.name, one)
        elif key.startswith(_TL_PREFIX) and key.endswith(".name") and isinstance(value, str) and value:
            base = key[: -len("name")]
            schema = maybe_json(attrs.get(base + "parameters"))
            description = attrs.get(base + "description")
            out.setdefault(
                value,
                ToolDefinition(
                    value,
                    description if isinstance(description, str) else None,
                    schema if isinstance(schema, Mapping) else None,
                    key,
                ),
            )


def offered_tools(spans: Iterable[Span]) -> dict[str, ToolDefinition]:
    """Tool name -> its definition, from every definition ``spans`` record (give the innermost span first:
    the first definition of a name wins)."""
    out: dict[str, ToolDefinition] = {}
    for span in spans:
        attrs = span.attributes
        if any(key in attrs for key in _LISTS) or any(k.startswith(_PREFIXES) for k in attrs):
            _from_span(attrs, out)
    return out


def own_schema(span: Span | None) -> tuple[Mapping[str, Any], str] | None:
    """The schema a tool span records of its own tool, and its attribute; None when it records none."""
    if span is None:
        return None
    for key in _OWN_KEYS:
        value = maybe_json(span.attributes.get(key))
        if looks_like_schema(value):
            return value, key
    return None
