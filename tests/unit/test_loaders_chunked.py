"""A big OTLP JSON document is decoded a span at a time: its typed structs never exist all at once, so
its peak memory is what JSON Lines of the same spans take. Same spans as the whole-element decode; an
element that is not plain OTLP/JSON still falls back to the general path whole."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from traceassert._loaders import load_spans, otlp_typed, read

pytest.importorskip("msgspec")


def _span(i: int, **extra: Any) -> dict[str, Any]:
    return {
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": f"{i + 1:016x}",
        "parentSpanId": "" if i == 0 else f"{1:016x}",
        "name": "invoke_agent a" if i == 0 else f"execute_tool t{i % 3}",
        "startTimeUnixNano": str(1_000 + i),
        "endTimeUnixNano": str(2_000 + i),
        "attributes": [
            {
                "key": "gen_ai.operation.name",
                "value": {"stringValue": "invoke_agent" if i == 0 else "execute_tool"},
            },
            {"key": "gen_ai.tool.name", "value": {"stringValue": f"t{i % 3}"}},
            {"key": "n", "value": {"intValue": str(i)}},
        ],
        **extra,
    }


def _document(spans: list[dict[str, Any]], scopes: int = 2) -> bytes:
    scope = {"scope": {"name": "tests"}, "spans": spans}
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "svc"}}]}
    return json.dumps({"resourceSpans": [{"resource": resource, "scopeSpans": [scope] * scopes}]}).encode()


def _plain(trace: ta.Trace) -> list[tuple[Any, ...]]:
    return [(s.span_id, s.name, s.scope_name, dict(s.attributes), dict(s.resource)) for s in trace.spans]


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every element counts as large; the spans decoded one at a time are counted."""
    decoded: list[int] = []
    real = otlp_typed._span_decoder

    class Counting:
        def decode(self, raw: Any) -> Any:
            decoded.append(1)
            return real.decode(raw)

    monkeypatch.setattr(otlp_typed, "CHUNK_BYTES", 100)
    monkeypatch.setattr(otlp_typed, "_BATCH", 7)
    monkeypatch.setattr(otlp_typed, "_span_decoder", Counting())
    return decoded


def test_a_large_element_gives_the_spans_of_a_whole_decode(tmp_path: Path, small_chunks: list[int]) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(_document([_span(i) for i in range(40)]))
    chunked = ta.load_trace(path)
    assert len(small_chunks) == 80  # two scopes of 40 spans, each decoded alone
    otlp_typed.CHUNK_BYTES = 1 << 30  # the whole-element decode (restored by the fixture)
    whole = ta.load_trace(path)
    assert len(small_chunks) == 80
    assert _plain(chunked) == _plain(whole)
    assert chunked.tool_executions and len(chunked.tool_executions) == len(whole.tool_executions)


def test_an_element_that_is_not_plain_falls_back_whole(tmp_path: Path, small_chunks: list[int]) -> None:
    spans = [_span(i) for i in range(40)]
    spans[30]["flags"] = {"not": "a number"}  # a shape the typed structs refuse, late in the element
    spans[31]["dropped"] = 1  # an unknown field: the general path reads it
    path = tmp_path / "doc.json"
    path.write_bytes(_document(spans, scopes=1))
    loaded = load_spans(path).spans
    assert len(small_chunks) == 32  # decoded up to the span the typed structs refuse
    assert len(loaded) == 40  # each span once: what the chunks had added was taken back
    assert [s.span_id for s in loaded] == [f"{i + 1:016x}" for i in range(40)]


def test_a_bad_span_is_named_where_it_is(tmp_path: Path, small_chunks: list[int]) -> None:
    spans = [_span(i) for i in range(40)]
    del spans[17]["name"]
    path = tmp_path / "doc.json"
    path.write_bytes(_document(spans))
    with pytest.raises(
        ta.TraceLoadError, match=r"resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[17\].*missing field 'name'"
    ):
        ta.load_trace(path)


def test_reading_a_file_allocates_its_size_not_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "small.json"
    path.write_bytes(b"{}" * 1000)
    tracemalloc.start()
    try:
        data = read.read_bytes(path, 1 << 30, [])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(data) == 2000
    assert peak < 1 << 20  # never the 1 GB the cap allows


def test_a_file_over_the_cap_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b" " * 5000)
    with pytest.raises(ta.TraceLoadError, match="larger than the limit of 100 bytes"):
        read.read_bytes(path, 100, [])
