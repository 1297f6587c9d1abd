"""Scores recorded while a test runs, and the per-test results the pytest plugin reports.

``expect``, ``check_eval`` and judges record a :class:`Score` for every value they compute or check. A
score goes to every active recorder: the pytest plugin opens one per test run, and
``recorded_scores()`` opens one for a block of code (in or outside pytest). With no recorder active a
score is simply returned and forgotten. Recorders are process-wide, so scores recorded from threads the
test started count for the test.

``token_totals`` gives the token usage of a test's captured trace for its results (see ``_report``).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._trace import Trace

__all__ = [
    "Recorder",
    "Score",
    "add_tokens",
    "begin_test",
    "current_scores",
    "end_test",
    "jsonable",
    "record_score",
    "recorded_scores",
    "run_data",
    "token_totals",
]

ScoreValue = float | int | bool | str | None


@dataclass(frozen=True)
class Score:
    """One recorded score: a ``name`` (``edit_distance``, ``expectation``, ``eval:sentiment``...), a
    ``value`` (a number, or a label for evaluations), whether a check on it ``passed`` (None when it was
    only measured) and JSON-friendly ``details``."""

    name: str
    value: ScoreValue
    passed: bool | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "value": jsonable(self.value), "passed": self.passed}
        if self.details:
            out["details"] = jsonable(dict(self.details))
        return out


class Recorder:
    """Collects the scores recorded while it is active (``scores``, in order)."""

    def __init__(self, name: str | None = None) -> None:
        self.name = name
        self.scores: list[Score] = []

    def __repr__(self) -> str:
        return f"Recorder({self.name!r}, {len(self.scores)} score(s))"


_LOCK = threading.Lock()
_ACTIVE: list[Recorder] = []


def record_score(name: str, value: ScoreValue, *, passed: bool | None = None, **details: Any) -> Score:
    """Record a score on the running test (and on every ``recorded_scores()`` block); return it.

    Use it for metrics of your own, e.g. ``ta.record_score("answer_length", len(answer))``.
    """
    if not isinstance(name, str) or not name:
        raise TypeError("a score needs a non-empty str name")
    if isinstance(value, float) and not math.isfinite(value):
        value = str(value)
    elif value is not None and not isinstance(value, int | float | str):
        raise TypeError(f"a score value is a number, bool, str or None, got {type(value).__name__}")
    score = Score(name, value, passed, details)
    with _LOCK:
        for rec in _ACTIVE:
            rec.scores.append(score)
    return score


@contextmanager
def recorded_scores(name: str | None = None) -> Iterator[list[Score]]:
    """Collect the scores recorded inside the block: ``with ta.recorded_scores() as scores: ...``."""
    rec = Recorder(name)
    with _LOCK:
        _ACTIVE.append(rec)
    try:
        yield rec.scores
    finally:
        _remove(rec)


def begin_test(nodeid: str) -> Recorder:
    """Start recording for one run of a test (called by the pytest plugin).

    Test recorders nest: a pytest session run inside a test (pytester) records into its own tests and,
    like any ``recorded_scores()`` block, into the outer test too.
    """
    rec = _TestRecorder(nodeid)
    with _LOCK:
        _ACTIVE.append(rec)
    return rec


def current_scores() -> list[Score]:
    """What the running test recorded so far (the most recent test recording; empty when none)."""
    with _LOCK:
        for rec in reversed(_ACTIVE):
            if isinstance(rec, _TestRecorder):
                return list(rec.scores)
    return []


def end_test() -> list[Score]:
    """Stop the most recent test recording; return what it recorded (empty when none was active)."""
    with _LOCK:
        for i in range(len(_ACTIVE) - 1, -1, -1):
            if isinstance(_ACTIVE[i], _TestRecorder):
                return _ACTIVE.pop(i).scores
    return []


class _TestRecorder(Recorder):
    """The recorder of a running pytest test run."""


def _remove(rec: Recorder) -> None:
    with _LOCK:
        for i, r in enumerate(_ACTIVE):
            if r is rec:
                del _ACTIVE[i]
                break


def jsonable(value: Any) -> Any:
    """``value`` made of JSON types only (str() for anything else; non-finite floats as strings)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v) for v in value]
    return str(value)


# -- tokens --------------------------------------------------------------------------------------------


def run_data(
    trace: Callable[[], Trace] | None, *, tokens_wanted: bool, trace_path: str | None
) -> dict[str, Any]:
    """The results dict of one run of a test: the scores it recorded (`end_test`), its token totals
    when wanted or when a score was recorded (``trace`` makes the test's trace then: None when it
    captured no spans), and where its trace was dumped. A token total that cannot be made is None: it
    is informative, and the test does not fail over it."""
    scores = [s.to_dict() for s in end_test()]
    tokens = None
    if trace is not None and (tokens_wanted or scores):
        try:
            tokens = token_totals(trace())
        except Exception:
            tokens = None
    return {"scores": scores, "tokens": tokens, "trace_path": trace_path}


def token_totals(trace: Trace) -> dict[str, int] | None:
    """Input, output and total tokens of the trace's model calls (each logical call once); None when no
    call records usage."""
    calls = [c for c in trace.model_calls if c.total_tokens is not None or c.input_tokens is not None]
    if not calls:
        return None
    return {
        "input": sum(c.input_tokens or 0 for c in calls),
        "output": sum(c.output_tokens or 0 for c in calls),
        "total": sum(c.total_tokens if c.total_tokens is not None else (c.input_tokens or 0) for c in calls),
        "model_calls": len(trace.model_calls),
    }


def add_tokens(a: Mapping[str, int] | None, b: Mapping[str, int] | None) -> dict[str, int] | None:
    if a is None:
        return None if b is None else dict(b)
    if b is None:
        return dict(a)
    return {k: a.get(k, 0) + b.get(k, 0) for k in ("input", "output", "total", "model_calls")}
