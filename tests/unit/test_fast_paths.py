"""The fast paths taken for speed give exactly what the general code gives."""

from __future__ import annotations

import json
from typing import Any

import pytest

import traceassert as ta
from traceassert._common import jsonvalue as _base
from traceassert._loaders.common import make_span

_JSON_TEXTS = [
    '{"a": 1, "a": 2}',
    "123456789012345678901234567890",
    "-0",
    "-0.0",
    "0.1",
    "1e400",
    "-Infinity",
    "NaN",
    "[NaN, 1]",
    '"\\ud800"',
    '"\\u00e9t\\u00e9"',
    "5e-324",
    " [1, 2.50, true, null] ",
    '{"a": [1, {"b": "c"}]}',
    '"\udcff"',  # a lone surrogate in the text itself (undecodable bytes read with surrogateescape)
    "{'a': 1}",
    "[1,]",
    "",
    "[" * 101 + "]" * 101,
]


@pytest.mark.parametrize("text", _JSON_TEXTS)
def test_loads_json_reads_what_json_loads_reads(text: str) -> None:
    fast = _base.loads_json(text)
    try:
        expected: tuple[bool, Any] = (True, json.loads(text))
    except ValueError:
        expected = (False, None)
    if text.startswith("[" * 101):
        expected = (False, None)  # deeper than MAX_JSON_DEPTH: refused, not parsed
    assert repr(fast) == repr(expected)


def test_loads_json_without_the_accelerator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_base, "_fast_decode", None)
    assert _base.loads_json('{"a": [1, 2]}') == (True, {"a": [1, 2]})
    assert repr(_base.loads_json("NaN")) == "(True, nan)"


def test_make_span_builds_a_real_frozen_span() -> None:
    status = ta.Status("ERROR", "boom")
    args = ("ab" * 16, "cd" * 8, "ef" * 8, "n", "CLIENT", 1, 2, status, {"k": 1}, (), {}, "s", "v", ())
    span = make_span(*args)  # type: ignore[arg-type]
    assert type(span) is ta.Span
    assert span == span and span != make_span(*args)  # type: ignore[arg-type]  # spans compare by identity
    built = ta.Span(*args)  # type: ignore[arg-type]
    for name in ta.Span.__slots__:
        assert getattr(span, name) == getattr(built, name), name
    with pytest.raises(AttributeError):
        span.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError, match="span name must be a string"):
        make_span(*args[:3], 3, *args[4:])  # type: ignore[arg-type]


def test_value_index_finds_what_a_scan_finds() -> None:
    """``where(attribute=...)`` answers from value tables built per key on first use."""
    from tests.unit.spanbuilder import SpanBuilder

    b = SpanBuilder()
    values: list[Any] = [3, 3.0, True, 1, "a", ("x", "y"), "x" * 600, None, 2]
    for i, v in enumerate(values * 3):
        attrs: dict[str, Any] = {"mixed": v, "n": i % 4, "long": "x" * 600 if i == 5 else "short"}
        if v is not None:
            attrs["plain"] = v
        b.span(f"s{i}", attrs)
    trace = b.trace()
    a = ta.TraceAsserter(trace)
    for key in ["mixed", "n", "long", "plain"]:
        for value in [3, 3.0, True, 1, "a", ("x", "y"), ["x", "y"], "x" * 600, 2, "short", 0]:
            expected = [
                s.name for s in trace.spans if key in s.attributes and _same(s.attributes[key], value)
            ]
            if expected:
                assert [s.name for s in a.where(attribute={key: value}).spans] == expected, (key, value)
            else:
                with pytest.raises(ta.TraceAssertionError, match="no span matches"):
                    a.where(attribute={key: value})


def _same(actual: Any, expected: Any) -> bool:
    from traceassert._checks.matching import values_equal

    return bool(values_equal(expected, actual))


_TIMESTAMPS = [
    "2024-10-14T18:54:37.137734Z",
    "2024-10-14T18:54:37.1Z",
    "2024-10-14T18:54:37.123456789Z",
    "2024-10-14T18:54:37.1234567891Z",
    "2024-10-14 18:54:37.137734Z",
    " 2024-10-14T18:54:37.137734Z",
    "2024-10-14T18:54:37.137734 Z",
    "2024-10-14T18:54:37.137734+02:00",
    "2024-10-14T18:54:37.137734z",
    "2024-10-14T18:54:37,5Z",
    "2024-10-14T18:54:37Z",
    "2024-10-14T18:54:37.Z",
    "2024-10-14T18:54:37.١٢Z",  # Arabic-Indic digits: what the regex's \\d reads
    "2024-02-30T18:54:37.1Z",
    "2024-10-14T18:54:37.12aZ",
]


def test_iso_timestamps_read_the_same_the_first_time_and_from_the_cache() -> None:
    from traceassert._loaders import common, ids

    def read(text: str) -> Any:
        try:
            return common.iso_to_ns(text)
        except ValueError as exc:
            return str(exc)

    ids._SECONDS.clear()
    first = [read(t) for t in _TIMESTAMPS]
    assert ids._SECONDS, "nothing was cached"
    again = [read(t) for t in _TIMESTAMPS]
    assert again == first
    assert first[0] == 1728932077_137734000
    assert first[2] == 1728932077_123456789 and first[3] == first[2]
    assert first[7] == first[0] - 2 * 3600 * 1_000_000_000
    assert all(isinstance(v, str) for v in (first[11], first[13], first[14]))


def _indexed_by_scan(attrs: dict[str, Any], prefix: str) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if key.startswith(prefix):
            index, _, rest = key[len(prefix) :].partition(".")
            if index.isdigit() and rest:
                out.setdefault(int(index), {})[rest] = value
    return dict(sorted(out.items()))


def test_flattened_lists_group_as_a_scan_groups() -> None:
    from traceassert._dialects._indexed import has_key_under, indexed

    attrs = {
        "p.10.message.role": "user",
        "p.2.message.content": "b",
        "p.01.message.role": "system",
        "p.2.message.role": "assistant",
        "p.1.message.content": "a",
        "p.x.message.role": "no index",
        "p.3": "no rest",
        "other.0.message.role": "other prefix",
    }
    for _ in range(2):  # the second time from the cached plan
        for prefix in ["p.", "other.", "nope."]:
            got = indexed(attrs, prefix)
            assert got == _indexed_by_scan(attrs, prefix)
            assert [list(v) for v in got.values()] == [
                list(v) for v in _indexed_by_scan(attrs, prefix).values()
            ]
        assert has_key_under(attrs, "p.") and has_key_under(attrs, "other.0")
        assert not has_key_under(attrs, "nope")
    changed = {**attrs, "p.1.message.content": "changed"}  # same keys, new values: the values are read
    assert indexed(changed, "p.")[1] == {"message.role": "system", "message.content": "changed"}


_REPRS = [
    {"city": "Paris", "days": 1, "request": "get_weather #0"},
    {"a": None, "b": True, "c": False, "d": 1.5, "e": [1, "x", {"f": None}]},
    {"q": "it's"},
    {"q": 'say "hi"'},
    {"q": "None", "r": "True"},
    {"q": "line\nbreak\ttab\\slash"},
    {"q": "é\u200b"},
    {1: "int key"},
    {"t": (1, 2)},
    {"n": float("nan")},
    [1, 2.0, -3e-05, "x"],
    (1, "tuple"),
]


@pytest.mark.parametrize("value", _REPRS, ids=[repr(v)[:30] for v in _REPRS])
def test_python_reprs_parse_as_literal_eval_parses_them(value: Any) -> None:
    import ast

    from traceassert._reconstruct.arguments import _parse_text

    text = repr(value)
    try:
        expected: Any = (True, ast.literal_eval(text))
    except ValueError:
        expected = (False, text)
    got = _parse_text(text)
    assert repr(got) == repr(expected)
    assert [type(v) for v in got] == [type(v) for v in expected]


def test_plain_reprs_take_the_json_path() -> None:
    from traceassert._reconstruct.arguments import _repr_as_json

    fast = [v for v in _REPRS if _repr_as_json(repr(v)) is not None]
    assert fast == [_REPRS[i] for i in (0, 1, 5, 6, 10)]  # "None" in a string: literal_eval reads it
