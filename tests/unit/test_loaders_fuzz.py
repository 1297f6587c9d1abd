"""Fuzzing the loaders: whatever the input, the only exception that escapes is TraceLoadError."""

from __future__ import annotations

import contextlib
import gzip
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from traceassert import TraceLoadError
from traceassert._loaders import FORMATS, load_spans, parse_spans, split

DATA = Path(__file__).resolve().parent.parent / "data" / "formats"
SAMPLES = [p.read_bytes() for p in sorted(DATA.iterdir())]
GZ_DIR = Path(tempfile.mkdtemp(prefix="traceassert-fuzz-"))
FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# JSON built from the words the formats use, so that fuzzing reaches the converters, not only the parser
KEYS = st.sampled_from(
    [
        "resourceSpans",
        "resource_spans",
        "batches",
        "scopeSpans",
        "spans",
        "traceId",
        "spanId",
        "trace_id",
        "span_id",
        "parentSpanId",
        "parent_id",
        "name",
        "span_name",
        "kind",
        "status",
        "code",
        "message",
        "attributes",
        "key",
        "value",
        "stringValue",
        "intValue",
        "doubleValue",
        "boolValue",
        "arrayValue",
        "kvlistValue",
        "bytesValue",
        "values",
        "events",
        "links",
        "context",
        "start_time",
        "end_time",
        "startTimeUnixNano",
        "data",
        "traceID",
        "spanID",
        "operationName",
        "references",
        "tags",
        "processes",
        "resource",
        "scope",
        "entity",
        "batch",
        "timestamp",
        "logs",
        "fields",
        "type",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=40),
    st.sampled_from(
        [
            "ab" * 16,
            "cd" * 8,
            "0x" + "ef" * 8,
            "AAAAAAAAAAAAAAAAAAAAAA==",
            "SPAN_KIND_CLIENT",
            "2024-01-01T00:00:00Z",
        ]
    ),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(KEYS | st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=30,
)


def _only_load_errors(data: bytes | str, fmt: str | None = None) -> None:
    with contextlib.suppress(TraceLoadError):
        parse_spans(data, format=fmt)


@pytest.fixture(params=["accelerated", "stdlib"], autouse=True)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "stdlib":
        monkeypatch.setattr(split, "_msgspec", None)
    elif split._msgspec is None:
        pytest.skip("msgspec is not installed")
    return str(request.param)


@FAST
@given(st.binary(max_size=300))
def test_arbitrary_bytes(data: bytes) -> None:
    _only_load_errors(data)


@FAST
@given(JSON, st.sampled_from((None, *FORMATS)))
def test_arbitrary_json(value: Any, fmt: str | None) -> None:
    _only_load_errors(json.dumps(value), fmt)
    _only_load_errors(json.dumps(value) + "\n" + json.dumps(value) + "\n")


@FAST
@given(st.sampled_from(SAMPLES), st.data())
def test_mutated_real_files(sample: bytes, data: st.DataObject) -> None:
    """Real files cut, with bytes flipped, inserted or removed."""
    blob = bytearray(sample)
    for _ in range(data.draw(st.integers(0, 4))):
        op = data.draw(st.sampled_from(["cut", "flip", "insert", "delete"]))
        pos = data.draw(st.integers(0, max(0, len(blob) - 1)))
        if op == "cut":
            del blob[pos:]
        elif op == "flip" and blob:
            blob[pos] = data.draw(st.integers(0, 255))
        elif op == "insert":
            blob[pos:pos] = data.draw(st.binary(min_size=1, max_size=8))
        elif blob:
            del blob[pos : pos + data.draw(st.integers(1, 20))]
    _only_load_errors(bytes(blob))


@FAST
@given(sample=st.sampled_from(SAMPLES), cut=st.integers(0, 10_000))
def test_cut_gzip_files(sample: bytes, cut: int) -> None:
    path = GZ_DIR / "t.json.gz"
    packed = gzip.compress(sample)
    path.write_bytes(packed[: cut % (len(packed) + 1)])
    with contextlib.suppress(TraceLoadError):
        load_spans(path)
