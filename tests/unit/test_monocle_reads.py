"""Monocle's one-pass reads (``_dialects/_monocle_read.py``) find what the general reads find: the events
of a span grouped by name then looked up key by key (the first event with a value, or the last), and the
entities listed in number order then searched by prefix, as the classifier read them before. Compared on
every span of the recorded Monocle traces and on hand-built spans of odd values (empty text, numbers,
bools, NaN, tuples, unicode, a text subclass, gaps in the entity numbers, repeated events)."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from traceassert._dialects._monocle_read import data_of, entity, metadata_values, model_entities

DATA = Path(__file__).resolve().parents[1] / "data"
RECORDED = sorted(p.name for p in DATA.glob("*monocle*.json"))

# -- the general reads ------------------------------------------------------------------------------


def _events_by_name(span: ta.Span) -> dict[str, list[Mapping[str, Any]]]:
    out: dict[str, list[Mapping[str, Any]]] = {}
    for ev in span.events:
        out.setdefault(ev.name, []).append(ev.attributes)
    return out


def _event_value(
    events: dict[str, list[Mapping[str, Any]]], event: str, *keys: str, last: bool = False
) -> Any:
    """The first value of ``keys`` set and not empty in the first event called ``event`` that has one
    (the last such event with ``last``)."""
    found = events.get(event, [])
    for attrs in reversed(found) if last else found:
        for key in keys:
            value = attrs.get(key)
            if value is not None and value != "":
                return value
    return None


def _entities(attrs: Mapping[str, Any]) -> list[tuple[int, str, Any]]:
    """``(N, type, name)`` of each entity whose type is text, up to three numbers in a row without one."""
    out = []
    index, misses = 1, 0
    while misses < 3:
        etype, name = attrs.get(f"entity.{index}.type"), attrs.get(f"entity.{index}.name")
        if etype is None and name is None:
            misses += 1
        else:
            misses = 0
            if isinstance(etype, str):
                out.append((index, etype, name))
        index += 1
    return out


def _entity_in(attrs: Mapping[str, Any], prefixes: tuple[str, ...], key: str = "name") -> str | None:
    for index, etype, name in _entities(attrs):
        if etype.startswith(prefixes):
            value = name if key == "name" else etype if key == "type" else attrs.get(f"entity.{index}.{key}")
            if value is not None and value != "":
                return value if isinstance(value, str) else str(value)
    return None


def _same(a: Any, b: Any) -> bool:
    """Equal, a NaN equal to a NaN, and of the same type (True is not 1)."""
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def _check(span: ta.Span) -> None:
    events = _events_by_name(span)
    inp, out, response, code, metas = data_of(span.events)
    expected_metas = events.get("metadata")
    assert _same(inp, _event_value(events, "data.input", "input"))
    assert _same(out, _event_value(events, "data.output", "response", "output", last=True))
    assert _same(response, _event_value(events, "data.output", "response", last=True))
    assert _same(code, _event_value(events, "data.output", "error_code"))
    assert (metas is None and expected_metas is None) or (
        metas is not None
        and expected_metas is not None
        and list(map(id, metas)) == list(map(id, expected_metas))
    )
    if metas is not None:
        assert _same(
            metadata_values(metas),
            [
                _event_value(events, "metadata", "prompt_tokens", "input_tokens"),
                _event_value(events, "metadata", "completion_tokens", "output_tokens"),
                _event_value(events, "metadata", "total_tokens"),
                _event_value(events, "metadata", "finish_reason"),
            ],
        )
    attrs = span.attributes
    model, embedding, ptype, provider_name = model_entities(attrs)
    assert _same(model, _entity_in(attrs, ("model.llm.", "model.embedding.", "model.")))
    assert embedding is (_entity_in(attrs, ("model.embedding",)) is not None)
    assert _same(ptype, _entity_in(attrs, ("inference.",), "type"))
    assert _same(provider_name, _entity_in(attrs, ("inference.",), "provider_name"))
    for prefixes in (("tool.", "mcp."), ("workflow.", "agent."), ("agent.",), ("vectorstore.", "retriever.")):
        assert _same(entity(attrs, *prefixes), _entity_in(attrs, prefixes))
    assert _same(entity(attrs, "inference.", key="provider_name"), provider_name)


@pytest.mark.parametrize("name", RECORDED)
def test_the_reads_find_what_the_general_reads_find_on_recorded_traces(name: str) -> None:
    spans = ta.load_trace(DATA / name).spans
    for span in spans:
        _check(span)
    assert any(data_of(s.events)[3] is not None or data_of(s.events)[4] for s in spans) or "adk" in name


class _Text(str):
    """A text subclass: read as text, kept as it is."""


_VALUES: list[Any] = [
    "",
    "x",
    "ünï ✓",
    '{"ai": 1}',
    0,
    7,
    400,
    2.5,
    math.nan,
    True,
    False,
    ("a",),
    (),
    _Text("t"),
]
_EVENT_KEYS = ["input", "response", "output", "error_code", "prompt_tokens", "input_tokens", "completion_tokens",
               "output_tokens", "total_tokens", "finish_reason", "other"]  # fmt: skip
_TYPES: list[Any] = ["model.llm.gpt", "model.embedding.e", "model.", "inference.openai", "inference.generic",
                     "inference.", "tool.x", "agent.y", "workflow.z", "", 5, True, _Text("model.llm.t")]  # fmt: skip


def _hand_built(seed: int) -> ta.Span:
    rnd = random.Random(seed)
    attrs: dict[str, Any] = {}
    index = 0
    for _ in range(rnd.randint(0, 8)):
        index += rnd.choice((1, 1, 1, 2, 3, 4)) if index < 30 else rnd.randint(1, 3)
        if rnd.random() < 0.85:
            attrs[f"entity.{index}.type"] = rnd.choice(_TYPES)
        if rnd.random() < 0.8:
            attrs[f"entity.{index}.name"] = rnd.choice(_VALUES)
        if rnd.random() < 0.4:
            attrs[f"entity.{index}.provider_name"] = rnd.choice(_VALUES)
    events = [
        ta.SpanEvent(
            rnd.choice(("data.input", "data.output", "metadata", "exception")),
            None,
            {key: rnd.choice(_VALUES) for key in rnd.sample(_EVENT_KEYS, rnd.randint(0, 5))},
        )
        for _ in range(rnd.choice((0, 1, 2, 3, 3, 4, 6)))
    ]
    return ta.Span("0" * 31 + "1", f"{seed + 1:016x}", None, "s", start_ns=0, attributes=attrs, events=events)


def test_the_reads_find_what_the_general_reads_find_on_odd_values() -> None:
    spans = [_hand_built(seed) for seed in range(3000)]
    for span in spans:
        _check(span)
    # the odd cases are there: repeated events, late entities, a model found after a gap
    assert sum(len(_events_by_name(s).get("data.output", ())) > 1 for s in spans) > 300
    assert sum(any(k.startswith("entity.3") for k in s.attributes) for s in spans) > 50
    assert sum(model_entities(s.attributes)[0] is not None for s in spans) > 300


@pytest.mark.parametrize(
    ("recorded", "expected"),
    [
        (12, 12),
        (12.0, 12),
        ("12", 12),
        (" 7 ", 7),
        (True, None),
        (False, None),
        (math.nan, None),
        ("x", None),
    ],
)
def test_a_model_calls_counts_are_read_as_as_int_reads_them(recorded: Any, expected: int | None) -> None:
    """The counts of the usual single ``metadata`` event, an int taken as it is and anything else read by
    ``as_int``: a bool is no count, a NaN none either (and is noted for the trace's warning)."""
    from traceassert._common.jsonvalue import NON_FINITE, as_int
    from traceassert._dialects import monocle

    attrs = {"monocle_apptrace.version": "0.8", "span.type": "inference", "entity.1.type": "model.llm.m"}
    metadata = {"prompt_tokens": recorded, "completion_tokens": recorded, "total_tokens": recorded}
    event = ta.SpanEvent("metadata", None, {**metadata, "finish_reason": recorded})
    span = ta.Span(
        "0" * 31 + "1", "1" * 16, None, "s", start_ns=0, end_ns=1, attributes=attrs, events=[event]
    )
    notes: list[Any] = []
    token = NON_FINITE.set(notes)
    try:
        op = monocle.classify(span)
    finally:
        NON_FINITE.reset(token)
    assert op is not None and op.kind == "model"
    assert (op.input_tokens, op.output_tokens, op.total_tokens) == (expected, expected, expected)
    assert all(type(n) is int for n in (op.input_tokens, op.output_tokens) if n is not None)
    assert as_int(recorded) == expected
    assert len(notes) == (3 if recorded is math.nan else 0)
    assert op.finish_reasons == (recorded if isinstance(recorded, str) else str(recorded),)
