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


#: the shape of the run the issue was tried on: 1,000 runs of the recorded weather assistant (10,000
#: spans, 2,000 agent runs, 3,000 tool executions) over 1 h 55 min, 195 of them with the failed tool
LONG_RUNS = 1000
LONG_FAILURES = 195
LONG_SECONDS = 115 * 60


def long_run(
    copies: int = LONG_RUNS, failing: int = LONG_FAILURES, seconds: float = LONG_SECONDS
) -> ta.Trace:
    """A long session: ``copies`` runs of the recorded Pydantic AI trace, spread evenly over
    ``seconds``, of which ``failing`` (spread evenly too) keep the failed ``explode`` tool; in the others
    that tool succeeded (its error status, exception event and retry attributes taken off)."""
    trace = repeated_run(copies)
    per_run = len(trace.spans) // copies
    gap_ns = int(seconds * 1e9 / copies)
    keep = {round(k * copies / failing) for k in range(failing)} if failing else set()
    assert len(keep) == failing
    spans = []
    for i, s in enumerate(trace.spans):
        n = i // per_run
        base = min(x.start_ns for x in trace.spans[n * per_run : (n + 1) * per_run])
        shift = n * gap_ns - (base - trace.spans[0].start_ns)
        changes: dict[str, object] = {
            "start_ns": s.start_ns + shift,
            "end_ns": None if s.end_ns is None else s.end_ns + shift,
        }
        if s.name == "execute_tool explode" and n not in keep:
            changes["status"] = ta.Status("UNSET")
            changes["events"] = ()
            changes["attributes"] = {
                k: ("the detonator held" if k == "gen_ai.tool.call.result" else v)
                for k, v in s.attributes.items()
                if not k.startswith("pydantic_ai.tool.retry")
            }
        spans.append(dataclasses.replace(s, **changes))  # type: ignore[arg-type]
    return ta.Trace(spans)
