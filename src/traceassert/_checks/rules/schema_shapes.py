"""The keywords of the schema subset that apply to one JSON type: objects (``properties``, ``required``,
``additionalProperties``, ``patternProperties``, counts), arrays (``items``, ``prefixItems``,
``contains``, counts, ``uniqueItems``), strings (lengths, ``pattern``) and numbers (limits,
``multipleOf``). ``check`` is the validator's own entry, for the values inside."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .schema_values import (
    Finding,
    Verdict,
    bound,
    compile_pattern,
    instance,
    is_number,
    json_equal,
    limit,
    show,
)

__all__ = ["Check", "array_keywords", "number_keywords", "object_keywords", "string_keywords", "sub"]

#: ``check(value, schema, path, out, depth)``: the validator, for a value inside
Check = Callable[[Any, Any, str, Verdict, int], None]


def sub(check: Check, value: Any, schema: Any, path: str, depth: int) -> Verdict:
    """The verdict on ``value`` alone."""
    result = Verdict()
    check(value, schema, path, result, depth + 1)
    return result


def object_keywords(
    check: Check, value: Mapping[str, Any], schema: Mapping[str, Any], path: str, out: Verdict, depth: int
) -> None:
    required = schema.get("required")
    if isinstance(required, list):
        for name in required:
            if name not in value:
                out.errors.append(Finding(path, "required", f"{show(name)} is missing"))
    elif required is not None and not isinstance(required, bool):  # draft 3's boolean: not checked
        out.unknown.append(Finding(path, "required", f"{show(required)} is not a list of names"))
    props = schema.get("properties") or {}
    patterns = schema.get("patternProperties") or {}
    if not isinstance(props, Mapping) or not isinstance(patterns, Mapping):
        out.unknown.append(Finding(path, "properties", "properties are not a mapping"))
        return
    compiled = {p: compile_pattern(p) for p in patterns}
    for p, regex in compiled.items():
        if regex is None:
            out.unknown.append(Finding(path, "patternProperties", f"{show(p)} is not a pattern Python reads"))
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        where = f"{path}[{key!r}]"
        known = key in props
        if known:
            check(item, props[key], where, out, depth + 1)
        for p, regex in compiled.items():
            if regex is not None and regex.search(str(key)):
                known = True
                check(item, patterns[p], where, out, depth + 1)
        if not known and extra is not True:
            if extra is False:
                allowed = ", ".join(show(k) for k in list(props)[:10]) or "none"
                out.errors.append(
                    Finding(
                        path,
                        "additionalProperties",
                        f"{show(key)} is not a parameter (parameters: {allowed})",
                    )
                )
            else:
                check(item, extra, where, out, depth + 1)
    count = len(value)
    bound(out, path, "minProperties", schema, lambda n: count >= n, f"{count} properties")
    bound(out, path, "maxProperties", schema, lambda n: count <= n, f"{count} properties")


def array_keywords(
    check: Check, value: Sequence[Any], schema: Mapping[str, Any], path: str, out: Verdict, depth: int
) -> None:
    items = schema.get("items")
    prefix = schema.get("prefixItems")
    if isinstance(items, list):  # the tuple form of drafts 4 to 7
        prefix, items = items, schema.get("additionalItems", True)
    start = 0
    if isinstance(prefix, list):
        for i, (item, part) in enumerate(zip(value, prefix, strict=False)):
            check(item, part, f"{path}[{i}]", out, depth + 1)
        start = len(prefix)
    if items is not None and items is not True:
        for i in range(start, len(value)):
            if items is False:
                out.errors.append(
                    Finding(path, "items", f"expected at most {start} item(s), found {len(value)}")
                )
                break
            check(value[i], items, f"{path}[{i}]", out, depth + 1)
    if "contains" in schema:
        results = [
            sub(check, item, schema["contains"], f"{path}[{i}]", depth) for i, item in enumerate(value)
        ]
        if not any(r.valid for r in results):
            if any(not r.errors for r in results):
                out.unknown.append(Finding(path, "contains", "cannot tell whether an item fits"))
            else:
                out.errors.append(Finding(path, "contains", "no item fits the schema"))
    n = len(value)
    bound(out, path, "minItems", schema, lambda m: n >= m, f"{n} item(s)")
    bound(out, path, "maxItems", schema, lambda m: n <= m, f"{n} item(s)")
    if schema.get("uniqueItems") is True:
        for i in range(n):
            if any(json_equal(value[i], value[j]) for j in range(i)):
                out.errors.append(
                    Finding(
                        f"{path}[{i}]", "uniqueItems", f"{instance(value[i], path)} repeats an earlier item"
                    )
                )
                break


_NUMBER_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")


def string_keywords(value: str, schema: Mapping[str, Any], path: str, out: Verdict) -> None:
    n = len(value)
    bound(out, path, "minLength", schema, lambda m: n >= m, f"{n} character(s)")
    bound(out, path, "maxLength", schema, lambda m: n <= m, f"{n} character(s)")
    pattern = schema.get("pattern")
    if pattern is not None:
        regex = compile_pattern(pattern)
        if regex is None:
            out.unknown.append(Finding(path, "pattern", f"{show(pattern)} is not a pattern Python reads"))
        elif not regex.search(value):
            out.errors.append(
                Finding(path, "pattern", f"{instance(value, path)} does not match {show(pattern)}")
            )


def number_keywords(value: float, schema: Mapping[str, Any], path: str, out: Verdict) -> None:
    if not any(k in schema for k in _NUMBER_KEYWORDS):
        return

    def found() -> str:  # made only for a message
        return instance(value, path)

    below, above = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if below is True:  # draft 4: a flag on minimum
        limit(out, path, "minimum", schema.get("minimum"), lambda n: value > n, "above", found)
    else:
        limit(out, path, "minimum", schema.get("minimum"), lambda n: value >= n, "at least", found)
    if above is True:
        limit(out, path, "maximum", schema.get("maximum"), lambda n: value < n, "below", found)
    else:
        limit(out, path, "maximum", schema.get("maximum"), lambda n: value <= n, "at most", found)
    if not isinstance(below, bool):
        limit(out, path, "exclusiveMinimum", below, lambda n: value > n, "above", found)
    if not isinstance(above, bool):
        limit(out, path, "exclusiveMaximum", above, lambda n: value < n, "below", found)
    step = schema.get("multipleOf")
    if step is not None:
        if not is_number(step) or step <= 0:
            out.unknown.append(Finding(path, "multipleOf", f"{show(step)} is not a positive number"))
        else:
            quotient = value / step
            if not math.isfinite(quotient) or abs(quotient - round(quotient)) > 1e-9 * max(
                1.0, abs(quotient)
            ):
                out.errors.append(Finding(path, "multipleOf", f"{found()} is not a multiple of {show(step)}"))
