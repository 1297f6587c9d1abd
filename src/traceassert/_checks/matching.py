"""Value matching: attribute values, inputs/outputs and tool arguments compared with JSON semantics.

Tool arguments (``arguments_match`` / ``argument_mismatches``): the given keys must be present (others
are ignored); below the top level, objects and arrays must match exactly; numbers compare by value
(``3 == 3.0``); a number or bool matches its string form (``"3"``, ``"true"``); text that holds JSON is
parsed where an object or array is expected; values with their own ``__eq__`` (dirty-equals matchers,
``unittest.mock.ANY``) are asked. ``match_one_to_one`` pairs expectations with candidates so that no
candidate satisfies two expectations.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._common.redact import redact_text, secret_key, shown
from .._model.values import has_own_eq
from .._reconstruct.arguments import parse_arguments
from .examined import note_vacuous
from .redacted import Redacted

__all__ = [
    "argument_mismatches",
    "arguments_match",
    "as_text",
    "contains_text",
    "has_own_eq",
    "json_equal",
    "match_one_to_one",
    "values_equal",
]


def json_equal(expected: Any, actual: Any) -> bool:
    """``expected`` matches ``actual`` as JSON values.

    Numbers compare by value (``3 == 3.0``); a number or bool given as expected also matches its string
    form (``"3"``, ``"true"``) and the other way round; mappings and sequences must match exactly (same
    keys, same length), recursively; objects with their own ``__eq__`` are asked.
    """
    if has_own_eq(expected):
        return bool(expected == actual)
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping) or set(expected) != set(actual):
            return False
        return all(json_equal(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list | tuple):
        if not isinstance(actual, list | tuple) or len(expected) != len(actual):
            return False
        return all(json_equal(e, a) for e, a in zip(expected, actual, strict=True))
    if isinstance(expected, bool) or isinstance(actual, bool):
        if isinstance(expected, bool) and isinstance(actual, bool):
            return expected is actual
        if isinstance(expected, bool) and isinstance(actual, str):
            return actual.strip().lower() == ("true" if expected else "false")
        if isinstance(actual, bool) and isinstance(expected, str):
            return expected.strip().lower() == ("true" if actual else "false")
        return False
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return bool(expected == actual)
    if isinstance(expected, int | float) and isinstance(actual, str):
        return _num_str(actual) == expected
    if isinstance(expected, str) and isinstance(actual, int | float):
        return _num_str(expected) == actual
    return bool(expected == actual)


def _num_str(text: str) -> float | None:
    try:
        return float(text.strip())
    except ValueError:
        return None


def values_equal(expected: Any, actual: Any) -> bool:
    """Attribute-style equality: ``==``, with tuples and lists alike and matchers honoured."""
    if has_own_eq(expected):
        return bool(expected == actual)
    if isinstance(expected, list | tuple) and isinstance(actual, list | tuple):
        return len(expected) == len(actual) and all(
            values_equal(e, a) for e, a in zip(expected, actual, strict=True)
        )
    if isinstance(expected, bool) != isinstance(actual, bool):
        return False
    return bool(expected == actual)


def as_text(value: Any) -> str:
    """Text for substring checks: strings as they are, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    try:
        return json.dumps(_plain(value), ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [_plain(v) for v in value]
    return value


def contains_text(actual: Any, needle: str) -> bool:
    """Case-insensitive substring test on the text form of ``actual`` (the empty text is in every text:
    the running check is told, ``examined.note_vacuous``)."""
    if not needle:
        note_vacuous("the expected text '' is contained in every text")
    return needle.casefold() in as_text(actual).casefold()


# -- tool arguments -------------------------------------------------------------------------------------


def _show(value: Any, limit: int = 80, secret: bool = False) -> str:
    """``value`` as a difference line shows it: redacted as messages are (whole under a secret key:
    ``secret`` says a key on its path looks secret), then cut to ``limit`` characters. A ``Redacted``
    matcher is shown as written, its text redacted again: it stands for a secret and names none."""
    if isinstance(value, Redacted):
        text = repr(value if value.text is None else Redacted(redact_text(value.text)))
    else:
        text = repr(shown(value, secret=secret))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def _parsed(value: Any) -> Any:
    """``value``, or what it holds when it is text in JSON (or Python literal) form."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        parsed = parse_arguments(value)  # an object as a dict; anything else under "input"
        inner = parsed.get("input") if set(parsed) == {"input"} else parsed
        if not isinstance(inner, str):
            return inner
    return value


def _diff(expected: Any, actual: Any, path: str, out: list[str], secret: bool = False) -> None:
    """Append to ``out`` why ``actual`` does not match ``expected`` (nothing when it does). ``secret``:
    a key on ``path`` looks secret, so both sides are shown redacted whole."""
    if has_own_eq(expected):
        if not bool(expected == actual):
            out.append(
                f"{path}: {_show(actual, secret=secret)} does not match {_show(expected, secret=secret)}"
            )
        return
    if isinstance(expected, Mapping | list | tuple):
        actual = _parsed(actual)
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            out.append(
                f"{path}: {_show(actual, secret=secret)} is not an object "
                f"(expected {_show(dict(expected), secret=secret)})"
            )
            return
        for key, value in expected.items():
            under = secret or _secret_key(key)
            if key in actual:
                _diff(value, actual[key], f"{path}[{key!r}]", out, under)
            else:
                out.append(f"{path}[{key!r}]: missing (expected {_show(value, secret=under)})")
        for key, value in actual.items():
            if key not in expected:
                out.append(
                    f"{path}[{key!r}]: {_show(value, secret=secret or _secret_key(key))} is not expected "
                    "(objects must match exactly)"
                )
        return
    if isinstance(expected, list | tuple):
        if not isinstance(actual, list | tuple):
            out.append(
                f"{path}: {_show(actual, secret=secret)} is not an array "
                f"(expected {_show(list(expected), secret=secret)})"
            )
            return
        if len(expected) != len(actual):
            out.append(
                f"{path}: {len(actual)} item(s) != {len(expected)} item(s) "
                f"({_show(list(actual), secret=secret)} != {_show(list(expected), secret=secret)})"
            )
            return
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            _diff(e, a, f"{path}[{i}]", out, secret)
        return
    if isinstance(actual, Mapping | list | tuple) or not json_equal(expected, actual):
        out.append(f"{path}: {_show(actual, secret=secret)} != {_show(expected, secret=secret)}")


def _secret_key(key: Any) -> bool:
    return isinstance(key, str) and secret_key(key)


def argument_mismatches(expected: Any, actual: Any, *, path: str = "args") -> list[str]:
    """Why the arguments ``actual`` do not contain ``expected`` (empty: they do).

    ``expected`` is a mapping (its keys must be present in ``actual``, other keys are ignored; values
    match as JSON, nested objects and arrays exactly) or a matcher object with its own ``__eq__``, which
    is asked about the whole arguments dict. ``actual`` may be the arguments as JSON text.
    """
    if isinstance(actual, str | bytes):
        actual = parse_arguments(actual)
    out: list[str] = []
    if has_own_eq(expected):
        if not bool(expected == actual):
            out.append(f"{path}: {_show(actual)} does not match {_show(expected)}")
        return out
    if not isinstance(expected, Mapping):
        raise TypeError(f"expected arguments must be a mapping or a matcher object, got {expected!r}")
    if not expected:
        note_vacuous("the expected arguments {} match the arguments of any call")
    if not isinstance(actual, Mapping):
        out.append(f"{path}: {_show(actual)} is not an object")
        return out
    for key, value in expected.items():
        under = _secret_key(key)
        if key in actual:
            _diff(value, actual[key], f"{path}[{key!r}]", out, under)
        else:
            out.append(f"{path}[{key!r}]: missing (expected {_show(value, secret=under)})")
    return out


def arguments_match(expected: Any, actual: Any) -> bool:
    """True when the arguments ``actual`` contain ``expected`` (see ``argument_mismatches``)."""
    return not argument_mismatches(expected, actual)


def match_one_to_one(
    n_expected: int, n_candidates: int, fits: Callable[[int, int], bool]
) -> list[int | None]:
    """A largest pairing of expectations with candidates, each candidate used at most once.

    ``fits(i, j)`` says whether candidate ``j`` satisfies expectation ``i``. Returns, for each
    expectation, the index of its candidate or None. Expectations are served in order, each taking the
    first free candidate unless another expectation needs it more (augmenting paths).
    """
    table = [[j for j in range(n_candidates) if fits(i, j)] for i in range(n_expected)]
    owner: list[int | None] = [None] * n_candidates

    def place(i: int, seen: set[int]) -> bool:
        for j in table[i]:
            if owner[j] is None:
                owner[j] = i
                return True
        for j in table[i]:
            current = owner[j]
            if j in seen or current is None:
                continue
            seen.add(j)
            if place(current, seen):
                owner[j] = i
                return True
        return False

    for i in range(n_expected):
        place(i, set())
    result: list[int | None] = [None] * n_expected
    for j, holder in enumerate(owner):
        if holder is not None:
            result[holder] = j
    return result
