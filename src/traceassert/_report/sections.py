"""The report's sections: one per test of a pytest session (failed first), or one per trace of a file.

The page data is ``{"title", "kind", "summary", "sections"}``; a section is ``{"title", "outcome",
"duration_s", "message", "scores", "repeat", "tokens", "history", "gates", "view", "coverage",
"focus"}`` where ``view`` is a `view.trace_view` (None for a test that captured no spans), ``repeat`` the
repeated test's verdict with its interval and estimators (``text`` states it), ``history`` its latest
verdicts (``outcome``, ``pass_rate``), ``gates`` the regression gates' results (``text``), ``coverage``
what no check examined (``Coverage.to_dict``, already redacted; None when not measured) and ``focus`` the
waterfall rows of the records a failed check is about (`TraceAssertionError.span_ids`), which the page
selects.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._common.gcpause import gc_paused
from .._evaluation.results import add_tokens, jsonable
from .view import trace_view

if TYPE_CHECKING:
    from .._trace import Trace

__all__ = ["FAILED", "file_page", "file_traces", "focus_rows", "order_failed_first", "session_page"]

#: outcomes shown as failures (first in the report)
FAILED = ("failed", "error")


def order_failed_first(sections: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """``sections`` with the failed (and errored) ones first, each group in its original order."""
    return sorted(sections, key=lambda s: s.get("outcome") not in FAILED)


def _redacted(value: Any, redact: bool | Iterable[str]) -> Any:
    if redact is False:
        return value
    from .._common.redact import redact_value

    patterns = () if redact is True else list(redact)
    return redact_value(value, patterns)


def focus_rows(view: Mapping[str, Any] | None, span_ids: Iterable[str]) -> list[int]:
    """The rows of ``view``'s waterfall whose span ids are among ``span_ids``, in their order (ids not
    in the view are left out)."""
    if not view:
        return []
    at = view["fields"].index("id")
    rows: dict[str, int] = {}
    for i, row in enumerate(view["spans"]):
        rows.setdefault(str(row[at]), i)
    return [rows[i] for i in dict.fromkeys(map(str, span_ids)) if i in rows]


def session_page(
    tests: Sequence[Mapping[str, Any]],
    html: Mapping[str, Mapping[str, Any]],
    *,
    redact: bool | Iterable[str] = True,
    title: str = "traceassert report",
) -> dict[str, Any]:
    """The page of a pytest session from each test's results entry (`SessionResults.tests`) and what
    the plugin attached for the report (``nodeid -> {"view", "message"}``; views are already redacted)."""
    sections = []
    for t in tests:
        extra = html.get(str(t.get("nodeid")), {})
        fields = {
            "title": t.get("nodeid"),
            "outcome": t.get("outcome"),
            "duration_s": t.get("duration_s"),
            "message": extra.get("message") or "",
            "scores": t.get("scores") or [],
            "repeat": t.get("repeat"),
            "tokens": t.get("tokens"),
            # with --traceassert-history: the test's latest verdicts (oldest first) and its gates' results
            "history": t.get("history"),
            "gates": t.get("gates"),
        }
        section = _redacted(jsonable(fields), redact)
        view = extra.get("view")
        sections.append(
            {
                **section,
                "view": view,
                "coverage": extra.get("coverage"),
                "focus": focus_rows(view, extra.get("about") or ()),
            }
        )
    return {
        "title": title,
        "kind": "tests",
        "summary": session_summary(tests),
        "sections": order_failed_first(sections),
    }


def session_summary(tests: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Passed, failed and repeated tests, the pass rate, tokens in all and the slowest test."""
    outcomes: dict[str, int] = {}
    tokens: dict[str, int] | None = None
    slowest: tuple[float, str] | None = None
    for t in tests:
        outcome = str(t.get("outcome"))
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        tokens = add_tokens(tokens, t.get("tokens"))
        raw = t.get("duration_s")
        seconds = float(raw) if isinstance(raw, int | float) else math.nan
        if math.isfinite(seconds) and (slowest is None or seconds > slowest[0]):
            slowest = (seconds, str(t.get("nodeid")))
    passed = outcomes.get("passed", 0)
    failed = sum(outcomes.get(k, 0) for k in FAILED)
    return {
        "tests": len(tests),
        "passed": passed,
        "failed": failed,
        "repeated": sum(1 for t in tests if t.get("repeat")),
        "outcomes": outcomes,
        "pass_rate": passed / (passed + failed) if passed + failed else None,
        "tokens": tokens,
        "slowest": None if slowest is None else {"nodeid": slowest[1], "seconds": round(slowest[0], 3)},
    }


def file_traces(paths: Sequence[str], load: Callable[[str], Trace]) -> list[tuple[str, Trace]]:
    """``(title, trace)`` for each trace file under ``paths`` (files or folders), read with ``load``;
    a file that holds several trace ids gives one entry per trace id (each rebuilt from its own spans:
    the notes of the whole file's reading are in ``traceassert show FILE``)."""
    from .._loaders.read import expand_paths
    from .._trace import Trace

    out: list[tuple[str, Trace]] = []
    for path in [str(p) for given in paths for p in expand_paths(given)]:
        trace = load(path)
        ids = trace.trace_ids
        if len(ids) < 2:
            out.append((path, trace))
            continue
        for tid in ids:
            spans = [s for s in trace.spans if s.trace_id == tid]
            out.append((f"{path} (trace {tid})", Trace(spans, source=path)))
    return out


def file_page(
    traces: Sequence[tuple[str, Trace]],
    *,
    redact: bool | Iterable[str] = True,
    title: str = "traceassert show",
    limit: int = 120,
) -> dict[str, Any]:
    """The page of ``traceassert show --html``: one section per ``(title, trace)``, in the given order."""
    with gc_paused():  # many small objects while the traces are built: see ``gcpause``
        return _file_page(traces, redact, title, limit)


def _file_page(
    traces: Sequence[tuple[str, Trace]], redact: bool | Iterable[str], title: str, limit: int
) -> dict[str, Any]:
    sections = []
    spans = 0
    tokens = 0
    failed_tools = 0
    for name, trace in traces:
        view = trace_view(trace, redact=redact, limit=limit)
        counts = view["counts"]
        spans += counts["spans"]
        tokens += counts["tokens"] or 0
        failed_tools += counts["failed_tool_executions"]
        outcome = None
        if any(a.failed for a in trace.all_agents()):
            outcome = "failed"
        elif counts["failed_tool_executions"]:
            outcome = "tool_failed"
        sections.append(
            {
                "title": name,
                "outcome": outcome,
                "duration_s": view["axis_ms"] / 1000,
                "message": "",
                "scores": [],
                "repeat": None,
                "tokens": None,
                "view": view,
                "focus": [],
            }
        )
    summary = {"traces": len(sections), "spans": spans, "tokens": tokens, "failed_tools": failed_tools}
    return {"title": title, "kind": "traces", "summary": summary, "sections": sections}
