"""``matches_golden``: the check that a run behaves like its golden trace."""

from __future__ import annotations

import os
from collections.abc import Iterable

from .._checks.examined import note_candidates
from .._checks.fail import fail
from .._checks.selection import Selection
from .._errors import TraceLoadError
from .diff import behaviour_diff

__all__ = ["matches_golden"]


def matches_golden(
    sel: Selection,
    path: str | os.PathLike[str],
    *,
    ignore: Iterable[str] = ("durations",),
    token_tolerance: float | None = 0.2,
    messages: bool = False,
    message: str | None = None,
) -> Selection:
    """Fail when the whole trace behaves differently from the golden trace at ``path``."""
    __tracebackhide__ = True
    from .._trace import load_trace

    check = f"matches_golden({os.fspath(path)!r})"
    ignored = tuple(ignore)
    path = _golden_file(sel, path)
    try:
        golden = load_trace(path)
    except TraceLoadError as exc:
        fail(
            sel,
            check,
            f"cannot read the golden trace: {exc}",
            message=message,
            details="write one with `traceassert slim RUN.json GOLDEN.json`, or run pytest with "
            "--traceassert-record DIR to record the goldens of the passing tests",
        )
        return sel
    trace = sel.trace
    diff = behaviour_diff(golden, trace, ignore=ignored, token_tolerance=token_tolerance, messages=messages)
    # the whole behaviour was compared: every agent, tool execution, model call and handoff
    for records in (trace.all_agents(), trace.tool_executions, trace.model_calls, trace.handoffs):
        note_candidates(records)
    if not diff.same:
        fail(
            sel,
            check,
            f"the behaviour differs from the golden trace in {len(diff.changes)} way(s)",
            message=message,
            details="differences (golden -> this run):\n" + "\n".join(f"  {c}" for c in diff.changes),
        )
    return sel


def _golden_file(sel: Selection, path: str | os.PathLike[str]) -> str | os.PathLike[str]:
    """``path``, or the golden of this test when ``path`` is the folder of ``--traceassert-record``."""
    test = sel.capture.name if sel.capture is not None else None
    if test and "::" in test and os.path.isdir(path):
        from .record import golden_for

        return golden_for(os.fspath(path), test)
    return path
