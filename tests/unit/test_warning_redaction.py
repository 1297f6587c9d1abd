"""A trace's warnings quote what its producer wrote (span names in a repaired cycle, a value a loader
could not read): where they are shown (a failure's tree, a loader's error) a secret in them is
redacted like every other value, unless redaction is off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder

SECRET = "sk-abcdefghijklmnopqrstuvwx0123456789"


def _cycle_through_a_secret_name() -> ta.Trace:
    b = SpanBuilder()
    b.agent("a")
    b.span(f"call {SECRET}", {}, span_id="1" * 16, parent_id="2" * 16)
    b.span("b", {}, span_id="2" * 16, parent_id="1" * 16)
    return b.trace()


def test_a_repaired_cycle_s_warning_shows_no_secret_in_a_failure() -> None:
    trace = _cycle_through_a_secret_name()
    assert any(SECRET in w for w in trace.warnings)  # kept whole on the trace, as recorded
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.assert_trace(trace).called_tool("zzz")
    text = str(info.value)
    assert SECRET not in text
    assert "warning: cycle in parent ids ('call [REDACTED]' -> 'b') broken" in text


def test_an_unreadable_record_s_error_shows_no_secret(tmp_path: Path) -> None:
    """The loader's error quotes the value it could not read (here a secret where a timestamp belongs):
    redacted, and still naming the line and what was wrong."""
    good = {
        "name": "ok",
        "context": {"trace_id": "0x" + "a" * 32, "span_id": "0x" + "1" * 16},
        "start_time": "2024-01-01T00:00:00.000000Z",
        "end_time": "2024-01-01T00:00:01.000000Z",
    }
    bad = {**good, "name": "bad", "start_time": SECRET}
    path = tmp_path / "spans.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(ta.TraceLoadError) as info:
        ta.load_trace(path)
    text = str(info.value)
    assert SECRET not in text
    assert "line 2: invalid record: not an ISO 8601 timestamp: '[REDACTED]'" in text
