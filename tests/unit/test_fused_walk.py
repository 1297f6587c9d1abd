"""One walk: the reconstruction classifies each span once, and the same walk gives the span tree its
attribute index (the positions of the spans of each set of attribute keys); nothing of it is done again
per span by a later pass or a first ``where``; and the work of the build per span, counted in Python
calls, stays small."""

from __future__ import annotations

import cProfile
import dataclasses
import pstats
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


#: Python calls (cProfile's count, C functions included) the build makes per span, at most: measured
#: 110 / 110 / 126 / 190 (before the walk was trimmed: 130 / 118 / 146 / 206), then 102 / 98 / 127 / 184
#: (request matching by call ids, the dispatcher's value conditions), then 96 / 91 / 98 / 178 (the span
#: tree's shortcuts, Monocle's one-pass reads); the limits leave ~10% room for another Python version,
#: not for a second pass over the spans
CALLS_PER_SPAN = {
    "agent_framework.json": 106,
    "openinference_langgraph.json": 101,
    "monocle_langgraph.json": 108,
    "adk_schema2.json": 196,
}


def _copies(spans: tuple[ta.Span, ...], n: int) -> list[ta.Span]:
    """``n`` copies of a recorded trace, each under a trace id of its own."""
    return [dataclasses.replace(s, trace_id=f"{i:032x}") for i in range(1, n + 1) for s in spans]


def _build_calls(spans: list[ta.Span]) -> int:
    profile = cProfile.Profile()
    profile.enable()
    try:
        _ = ta.Trace(spans).tool_executions
    finally:
        profile.disable()
    return int(pstats.Stats(profile).total_calls)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", list(CALLS_PER_SPAN))
def test_the_fused_walk_makes_few_python_calls_per_span(name: str) -> None:
    """The work the build adds per span (the calls of 12 copies of a recorded trace less those of 2,
    per added span: the fixed cost of a build is not counted), counted, not timed."""
    spans = ta.load_trace(DATA / name).spans
    _ = ta.Trace(spans).tool_executions  # imports and the dialects' caches made once
    small, large = _copies(spans, 2), _copies(spans, 12)
    per_span = (_build_calls(large) - _build_calls(small)) / (len(large) - len(small))
    assert per_span <= CALLS_PER_SPAN[name], f"{name}: {per_span:.1f} Python calls per span"


def test_the_records_made_positionally_keep_their_field_order() -> None:
    """The walk makes its records and the dialects their operations with positional arguments (a call
    with keywords costs twice as much): the fields must stay in the order those calls assume."""
    from traceassert._dialects._base import Operation, model_op, tool_op
    from traceassert._model.records import ModelCall, ToolExecution, ToolRequest

    def names(cls: Any, n: int) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)][:n]

    assert names(ToolExecution, 10) == [
        "name", "arguments", "raw_arguments", "result", "call_id", "failed", "error", "agent", "span", "dialect",
    ]  # fmt: skip
    assert names(ModelCall, 15) == [
        "operation", "model", "provider", "input_tokens", "output_tokens", "total_tokens", "finish_reasons",
        "streamed", "failed", "error", "agent", "span", "dialect", "output", "spans",
    ]  # fmt: skip
    assert names(ToolRequest, 5) == ["name", "arguments", "call_id", "raw_arguments", "model_call"]
    model: dict[str, Any] = {
        "dialect": "d",
        "operation": "chat",
        "model": "m",
        "provider": "p",
        "input_tokens": 1,
        "output_tokens": 2,
        "total_tokens": 3,
        "finish_reasons": ("stop",),
        "input": "in",
        "output": "out",
        "requested_tools": (),
        "failed": True,
        "error": None,
        "streamed": False,
        "name": "n",
    }
    assert model_op(**model) == Operation(kind="model", **model)
    tool: dict[str, Any] = {
        "dialect": "d",
        "name": "t",
        "call_id": "c",
        "arguments": {"a": 1},
        "result": "r",
        "input": "i",
        "output": "o",
        "failed": False,
        "error": None,
    }
    assert tool_op(**tool) == Operation(kind="tool", **tool)
