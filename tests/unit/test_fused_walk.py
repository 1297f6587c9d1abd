"""One walk: the reconstruction classifies each span once, and the same walk gives the span tree its
attribute index (the positions of the spans of each set of attribute keys); nothing of it is done again
per span by a later pass or a first ``where``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
import traceassert._dialects as dialects

DATA = Path(__file__).resolve().parents[1] / "data"
RECORDED = (
    "agent_framework.json",
    "openinference_langgraph.json",
    "monocle_langgraph.json",
    "adk_schema2.json",
)


@pytest.mark.parametrize("name", RECORDED)
def test_each_span_is_classified_once(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    spans = ta.load_trace(DATA / name).spans
    calls: list[int] = []
    real = dialects.classify

    def counting(span: ta.Span, keys: Any = None) -> Any:
        calls.append(1)
        return real(span, keys)

    monkeypatch.setattr(dialects, "classify", counting)
    trace = ta.Trace(spans)
    assert trace.tool_executions or trace.model_calls
    assert len(calls) == len(spans)


@pytest.mark.parametrize("name", RECORDED)
def test_the_attribute_index_comes_from_the_walk(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    trace = ta.Trace(ta.load_trace(DATA / name).spans)
    _ = trace.tool_executions
    walked = trace._signatures
    assert walked is not None  # adopted from the reconstruction's walk

    def no_second_walk(self: Any) -> None:
        raise AssertionError("the spans were walked again for the attribute index")

    monkeypatch.setattr(ta.Trace, "__iter__", no_second_walk)
    index = trace._attribute_positions()
    naive: dict[str, list[int]] = {}
    for i, span in enumerate(trace.spans):
        for key in span.attributes:
            naive.setdefault(key, []).append(i)
    assert {k: list(v) for k, v in index.items()} == naive
    assert trace._signature_positions() is walked
    # the index answers a first where without a scan of every span's attributes
    key = next(iter(naive))
    value = trace.spans[naive[key][0]].attributes[key]
    ta.assert_trace(trace).where(attribute={key: value})


def _reference(spans: list[ta.Span], key: str, value: Any) -> list[int]:
    """The spans whose ``key`` equals ``value`` of the same type (an int also matches a float)."""
    value = tuple(value) if isinstance(value, list) else value
    allowed = (int, float) if type(value) is int else (type(value),)
    return [
        i
        for i, s in enumerate(spans)
        if key in s.attributes and type(s.attributes[key]) in allowed and s.attributes[key] == value
    ]


def test_a_first_lookup_by_scan_finds_what_the_value_table_finds() -> None:
    """The first lookup of a key is a scan (no table made); the second builds the table: both find the
    spans whose value is equal and of the same type (3 finds 3 and 3.0, never True), or say they
    cannot (None: the caller compares span by span)."""
    values = [3, 3.0, True, 1, "3", "a", "b" * 600, ("x", "y"), 2.5, False, 0]
    keys = {"n": [*values[:4], 0, 1], "s": ["a", "3", "a"], "mixed": values, "long": ["a", "b" * 600]}
    spans = [
        ta.Span("0" * 31 + "1", f"{i + 1:016x}", None, f"s{i}", start_ns=i, attributes=attrs)
        for i, attrs in enumerate(
            {key: vals[i % len(vals)] for key, vals in keys.items() if i % (len(key) + 1)} for i in range(40)
        )
    ]
    queries = [3, 1, 0, "a", "3", "b" * 600, ("x", "y"), ["x", "y"], 7]
    answered = 0
    for key in keys:
        tabled = ta.Trace(spans)
        tabled._value_positions(key, "warm the table")  # a scan: the table answers from the next lookup
        for value in queries:
            expected = _reference(list(tabled.spans), key, value)
            for found in (ta.Trace(spans)._value_positions(key, value), tabled._value_positions(key, value)):
                if found is not None:
                    answered += 1
                    assert found == expected, (key, value)
    assert answered > 40  # most lookups are answered by the index, not left to the caller
