"""A documented subset of JSON Schema, checked with three outcomes: valid, invalid (with each violation:
where, which keyword, why) and "cannot tell" (a keyword outside the subset, a ``$ref`` that does not
resolve inside the schema, a pattern Python cannot read, a schema that is not one).

Checked: ``type`` (a name or a list; ``integer`` accepts ``3.0`` and never a bool), OpenAPI's
``nullable``, ``enum``, ``const``, ``properties``, ``required``, ``additionalProperties`` (a bool or a
schema), ``patternProperties``, ``minProperties`` / ``maxProperties``, ``items`` (a schema, or a list:
the older tuple form, with ``additionalItems``), ``prefixItems``, ``contains``, ``minItems`` /
``maxItems``, ``uniqueItems``, ``minimum`` / ``maximum``, ``exclusiveMinimum`` / ``exclusiveMaximum``
(numbers, or draft 4's booleans), ``multipleOf``, ``minLength`` / ``maxLength`` (in code points),
``pattern`` (``re.search``), ``anyOf``, ``oneOf``, ``allOf``, ``not``, ``$ref`` to ``#`` or a JSON
pointer inside the schema (``#/$defs/...``, ``#/definitions/...``; its sibling keywords apply too), and
the boolean schemas ``true`` / ``false``. Annotations are read and ignored: ``title``, ``description``,
``default``, ``examples``, ``$schema``, ``$id``, ``$comment``, ``$defs``, ``definitions``, ``deprecated``,
``readOnly``, ``writeOnly``, ``format`` (an annotation by default since draft 2019-09), OpenAI's
``strict``, and any key that is not a JSON Schema keyword (``x-...`` extensions). Every other keyword
(``if``/``then``/``else``, ``dependentRequired``, ``propertyNames``, ``unevaluatedProperties``, ...)
gives "cannot tell" where it is met.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._model.offered import SCHEMA_KEYWORDS
from .schema_shapes import array_keywords, number_keywords, object_keywords, string_keywords, sub
from .schema_values import Finding, Verdict, instance, is_number, is_type, json_equal, show, type_name

__all__ = ["UNSUPPORTED", "Finding", "Verdict", "malformed", "validate"]

_ANNOTATIONS = frozenset(
    {
        "$schema", "$id", "id", "$comment", "$anchor", "$dynamicAnchor", "$vocabulary", "$defs",
        "definitions", "title", "description", "default", "examples", "example", "deprecated", "readOnly",
        "writeOnly", "format", "strict", "contentEncoding", "contentMediaType", "$recursiveAnchor",
    }
)  # fmt: skip
_CHECKED = frozenset(
    {
        "type", "nullable", "enum", "const", "properties", "required", "additionalProperties",
        "patternProperties", "minProperties", "maxProperties", "items", "prefixItems", "additionalItems",
        "contains", "minItems", "maxItems", "uniqueItems", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "anyOf", "oneOf", "allOf",
        "not", "$ref",
    }
)  # fmt: skip
#: the keywords outside the subset: met, they give "cannot tell"
UNSUPPORTED = SCHEMA_KEYWORDS - _ANNOTATIONS - _CHECKED
_MAX_DEPTH = 64
_TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")


def validate(value: Any, schema: Any, path: str = "args") -> Verdict:
    """Check ``value`` against ``schema`` (see the module docstring)."""
    out = Verdict()
    _Validator(schema).check(value, schema, path, out, 0)
    return out


class _Validator:
    __slots__ = ("root",)

    def __init__(self, root: Any) -> None:
        self.root = root

    def check(self, value: Any, schema: Any, path: str, out: Verdict, depth: int) -> None:
        if schema is True or (isinstance(schema, Mapping) and not schema):
            return
        if schema is False:
            out.errors.append(
                Finding(path, "false", f"the schema allows no value, found {instance(value, path)}")
            )
            return
        if not isinstance(schema, Mapping):
            out.unknown.append(Finding(path, "schema", f"the schema is not a JSON schema: {show(schema)}"))
            return
        if depth > _MAX_DEPTH:
            out.unknown.append(Finding(path, "$ref", f"the schema nests deeper than {_MAX_DEPTH} levels"))
            return
        for keyword in schema:
            if keyword in UNSUPPORTED:
                out.unknown.append(
                    Finding(path, keyword, "this keyword is not in the subset traceassert checks")
                )
        if "$ref" in schema:
            self._ref(value, schema["$ref"], path, out, depth)
        if not self._type(value, schema, path, out):
            return  # the other keywords would only repeat the type's complaint
        self._values(value, schema, path, out)
        if isinstance(value, Mapping):
            object_keywords(self.check, value, schema, path, out, depth)
        elif isinstance(value, list | tuple):
            array_keywords(self.check, value, schema, path, out, depth)
        elif isinstance(value, str):
            string_keywords(value, schema, path, out)
        elif is_number(value):
            number_keywords(value, schema, path, out)
        self._combined(value, schema, path, out, depth)

    # -- keywords ------------------------------------------------------------------------------------

    def _ref(self, value: Any, ref: Any, path: str, out: Verdict, depth: int) -> None:
        target = self._resolve(ref)
        if target is None:
            out.unknown.append(Finding(path, "$ref", f"{show(ref)} does not resolve inside the schema"))
            return
        self.check(value, target[0], path, out, depth + 1)

    def _resolve(self, ref: Any) -> tuple[Any] | None:
        if not isinstance(ref, str) or not ref.startswith("#"):
            return None
        node = self.root
        pointer = ref[1:]
        if pointer and not pointer.startswith("/"):
            return None
        for raw in pointer.split("/")[1:] if pointer else ():
            part = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None
        return (node,)

    def _type(self, value: Any, schema: Mapping[str, Any], path: str, out: Verdict) -> bool:
        wanted = schema.get("type")
        if wanted is None:
            return True
        kinds = [wanted] if isinstance(wanted, str) else list(wanted) if isinstance(wanted, list) else None
        if kinds is None or not all(isinstance(k, str) and k in _TYPES for k in kinds):
            out.unknown.append(Finding(path, "type", f"{show(wanted)} is not a JSON Schema type"))
            return False
        if schema.get("nullable") is True:
            kinds.append("null")
        if any(is_type(value, k) for k in kinds):
            return True
        expected = " or ".join(kinds)
        out.errors.append(
            Finding(path, "type", f"expected {expected}, found {instance(value, path)} ({type_name(value)})")
        )
        return False

    def _values(self, value: Any, schema: Mapping[str, Any], path: str, out: Verdict) -> None:
        if "const" in schema and not json_equal(schema["const"], value):
            out.errors.append(
                Finding(path, "const", f"expected {show(schema['const'])}, found {instance(value, path)}")
            )
        options = schema.get("enum")
        if options is not None:
            if not isinstance(options, list):
                out.unknown.append(Finding(path, "enum", f"{show(options)} is not a list"))
            elif not any(json_equal(o, value) for o in options):
                listed = ", ".join(show(o) for o in options[:10]) + (", ..." if len(options) > 10 else "")
                out.errors.append(Finding(path, "enum", f"{instance(value, path)} is not one of {listed}"))

    def _combined(self, value: Any, schema: Mapping[str, Any], path: str, out: Verdict, depth: int) -> None:
        for keyword in ("allOf", "anyOf", "oneOf"):
            options = schema.get(keyword)
            if options is None:
                continue
            if not isinstance(options, list) or not options:
                out.unknown.append(Finding(path, keyword, f"{show(options)} is not a list of schemas"))
                continue
            results = [sub(self.check, value, option, path, depth) for option in options]
            if keyword == "allOf":
                for r in results:
                    out.add(r)
                continue
            fitting = sum(r.valid for r in results)
            undecided = sum(1 for r in results if not r.errors and r.unknown)
            why = "; ".join(str(r.errors[0]).split(": ", 1)[1] for r in results if r.errors)
            if keyword == "anyOf":
                if fitting:
                    continue
                if undecided:
                    out.unknown.append(Finding(path, keyword, "cannot tell whether it fits an alternative"))
                else:
                    out.errors.append(
                        Finding(path, keyword, f"fits none of {len(options)} alternatives ({why})")
                    )
            elif fitting > 1:
                out.errors.append(
                    Finding(path, keyword, f"fits {fitting} of the alternatives, expected exactly one")
                )
            elif undecided:
                out.unknown.append(
                    Finding(path, keyword, "cannot tell whether it fits exactly one alternative")
                )
            elif not fitting:
                out.errors.append(Finding(path, keyword, f"fits none of {len(options)} alternatives ({why})"))
        if "not" in schema:
            result = sub(self.check, value, schema["not"], path, depth)
            if result.valid:
                out.errors.append(Finding(path, "not", "fits the schema it must not fit"))
            elif not result.errors:
                out.unknown.append(Finding(path, "not", "cannot tell whether it fits the schema it must not"))


_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")
_SCHEMA_ONE = ("additionalProperties", "additionalItems", "contains", "not", "items")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")


def malformed(schema: Any, where: str = "the schema", depth: int = 0) -> str | None:
    """Why ``schema`` is not a well-formed schema (a subschema that is neither an object nor a bool, a
    ``required`` that is not a list of names, a required property its own ``additionalProperties:
    false`` forbids); None when it is one. A producer that mangles a schema gives such a one."""
    if isinstance(schema, bool):
        return None
    if not isinstance(schema, Mapping):
        return f"{where} is {show(schema)}, not a schema"
    if depth > _MAX_DEPTH:
        return None
    required = schema.get("required")
    if required is not None and not isinstance(required, bool):
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            return f"{where} has required {show(required)}, not a list of names"
        props = schema.get("properties")
        if schema.get("additionalProperties") is False and "patternProperties" not in schema:
            names = props if isinstance(props, Mapping) else {}
            missing = [r for r in required if r not in names]
            if missing:
                return f"{where} requires {show(missing[0])}, which its additionalProperties: false forbids"
    for key in _SCHEMA_MAPS:
        group = schema.get(key)
        if isinstance(group, Mapping):
            for name, sub_schema in group.items():
                why = malformed(sub_schema, f"{key}[{name!r}]", depth + 1)
                if why:
                    return why
        elif group is not None:
            return f"{where} has {key} {show(group)}, not a mapping"
    for key in _SCHEMA_ONE:
        if key in schema and not isinstance(schema[key], list):
            why = malformed(schema[key], key, depth + 1)
            if why:
                return why
    for key in _SCHEMA_LISTS:
        if isinstance(schema.get(key), list):
            for i, sub_schema in enumerate(schema[key]):
                why = malformed(sub_schema, f"{key}[{i}]", depth + 1)
                if why:
                    return why
    return None
