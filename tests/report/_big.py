"""Big traces made of a real recorded run: its spans repeated with new ids, one run after another."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import traceassert as ta

DATA = Path(__file__).resolve().parents[1] / "data"


def repeated_run(copies: int, recording: str = "pydantic_ai_current.json") -> ta.Trace:
    """``copies`` runs of the recorded trace ``recording`` in one trace id, each with new span ids,
    starting after the one before it ends, and asking about another city ("Paris" in every text value
    becomes "Paris-<n>": messages, arguments and results differ from run to run, as in real runs)."""
    base = ta.load_trace(DATA / recording).spans
    t0 = min(s.start_ns for s in base)
    length = max((s.end_ns or s.start_ns) for s in base) - t0 + 1_000_000
    trace_id = "ab" * 16
    spans = []
    for n in range(copies):
        ids = {s.span_id: f"{n:08x}{i:08x}" for i, s in enumerate(base)}
        shift = n * length
        for s in base:
            spans.append(
                dataclasses.replace(
                    s,
                    trace_id=trace_id,
                    span_id=ids[s.span_id],
                    parent_id=ids.get(s.parent_id) if s.parent_id else None,
                    start_ns=s.start_ns + shift,
                    end_ns=None if s.end_ns is None else s.end_ns + shift,
                    attributes={k: _city(v, n) for k, v in s.attributes.items()},
                )
            )
    return ta.Trace(spans)


def _city(value: object, n: int) -> object:
    return value.replace("Paris", f"Paris-{n}") if isinstance(value, str) else value
