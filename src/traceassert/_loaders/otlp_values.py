"""OTLP/JSON values shared by both OTLP converters (dicts in ``otlp``, typed structs in ``otlp_typed``):
span kinds, status codes and AnyValue / KeyValue lists."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from .._model.span import EMPTY_MAPPING
from .common import MAX_VALUE_DEPTH, status_of

__all__ = ["KINDS", "STATUS", "UNSET", "any_value", "attributes", "enum_value", "new_key", "optional_str"]

KINDS: dict[Any, str] = {
    0: "INTERNAL",  # SPAN_KIND_UNSPECIFIED: the SDKs treat it as internal
    1: "INTERNAL",
    2: "SERVER",
    3: "CLIENT",
    4: "PRODUCER",
    5: "CONSUMER",
}
for _number, _kind in list(KINDS.items()):
    KINDS[str(_number)] = _kind
    KINDS["SPAN_KIND_" + _kind] = _kind
    KINDS[_kind] = _kind
KINDS["SPAN_KIND_UNSPECIFIED"] = "INTERNAL"

UNSET = status_of("UNSET", None)

STATUS: dict[Any, str] = {0: "UNSET", 1: "OK", 2: "ERROR"}
for _number, _code in list(STATUS.items()):
    STATUS[str(_number)] = _code
    STATUS["STATUS_CODE_" + _code] = _code
    STATUS[_code] = _code


def enum_value(table: dict[Any, str], value: Any, what: str) -> str:
    if value is None:
        return table[0]
    try:
        return table[value]
    except (KeyError, TypeError):
        raise ValueError(f"unknown {what} {value!r}") from None


def optional_str(value: Any) -> str | None:
    if value is None or value.__class__ is str:
        return value
    raise TypeError(f"expected a string, got {type(value).__name__}")


def attributes(items: Any, keys: dict[str, str], depth: int = 0) -> Mapping[str, Any]:
    """A list of OTLP KeyValue as a read-only mapping (a repeated key: the last one wins).

    Keys are shared through ``keys``; a key is checked (a string, not null) when it is first seen.
    """
    if not items:
        return EMPTY_MAPPING
    if items.__class__ is not list:
        raise TypeError(f"attributes must be an array, got {type(items).__name__}")
    out: dict[str, Any] = {}
    known = keys.get
    for kv in items:
        key = kv["key"]
        key = known(key) or new_key(key, keys)
        value = kv.get("value")
        if value.__class__ is dict:
            text = value.get("stringValue")
            if text.__class__ is str:
                out[key] = text
                continue
        out[key] = None if value is None else any_value(value, depth, keys)
    return MappingProxyType(out)


def new_key(key: Any, keys: dict[str, str]) -> str:
    """An attribute key seen for the first time in the file: checked, and remembered in ``keys``."""
    if key.__class__ is not str:
        if key is None:
            raise TypeError("attribute key must be a string, got null")
        raise TypeError(f"attribute key must be a string, got {type(key).__name__} {str(key)[:40]!r}")
    keys[key] = key
    return key


def any_value(value: Any, depth: int, keys: dict[str, str]) -> Any:
    """One OTLP AnyValue."""
    if value.__class__ is not dict:
        raise TypeError(f"attribute value must be an object, got {type(value).__name__}")
    for kind, item in value.items():
        if kind == "stringValue" or kind == "string_value":
            if item.__class__ is not str:
                raise TypeError("stringValue must be a string")
            return item
        if kind == "intValue" or kind == "int_value":
            if item.__class__ is bool or item.__class__ is float:
                raise TypeError("intValue must be an integer or a string")
            return int(item)
        if kind == "doubleValue" or kind == "double_value":
            if item.__class__ is bool:
                raise TypeError("doubleValue must be a number")
            return float(item)
        if kind == "boolValue" or kind == "bool_value":
            if item.__class__ is not bool:
                raise TypeError("boolValue must be true or false")
            return item
        if kind == "arrayValue" or kind == "array_value":
            if depth >= MAX_VALUE_DEPTH:
                raise ValueError(f"attribute value nested deeper than {MAX_VALUE_DEPTH} levels")
            values = item.get("values") if item else None
            if not values:
                return ()
            if values.__class__ is not list:
                raise TypeError("arrayValue.values must be an array")
            return tuple([any_value(v, depth + 1, keys) if v is not None else None for v in values])
        if kind == "kvlistValue" or kind == "kvlist_value":
            if depth >= MAX_VALUE_DEPTH:
                raise ValueError(f"attribute value nested deeper than {MAX_VALUE_DEPTH} levels")
            values = item.get("values") if item else None
            return attributes(values, keys, depth + 1)
        if kind == "bytesValue" or kind == "bytes_value":
            if item.__class__ is not str:
                raise TypeError("bytesValue must be a base64 string")
            return base64.b64decode(item, validate=True)
    return None
