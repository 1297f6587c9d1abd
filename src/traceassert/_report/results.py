"""What the pytest plugin attaches to a test's teardown report: the run's results dict.

Made on the process that ran the test (a pytest-xdist worker, say) from plain values, so that the dict
crosses to the controller as it is: ``scores``, ``tokens``, ``trace_path`` and, with
``--traceassert-html``, ``html``: the test's view-model (already redacted) and its short failure message.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._trace import Trace

__all__ = ["failure_message", "failure_spans", "run_results"]


def failure_message(excinfo: Any, longrepr: Any) -> str:
    """The short failure message: ``str()`` of a `TraceAssertionError` (its short form), else the
    crash line pytest shows (from the report's ``longrepr``; ``excinfo`` is pytest's ExceptionInfo)."""
    from .._errors import TraceAssertionError
    from .._evaluation.report import crash_line

    exc = getattr(excinfo, "value", None)
    if isinstance(exc, TraceAssertionError):
        return str(exc)
    return crash_line(longrepr)


def failure_spans(excinfo: Any) -> list[str]:
    """The span ids of the records a failed check is about (`TraceAssertionError.span_ids`; none for
    any other exception): the report selects them."""
    from .._errors import TraceAssertionError

    exc = getattr(excinfo, "value", None)
    return [str(i) for i in exc.span_ids] if isinstance(exc, TraceAssertionError) else []


def run_results(
    trace: Trace | None,
    *,
    tokens_wanted: bool,
    trace_path: str | None,
    html: bool = False,
    redact: bool | Iterable[str] = True,
    message: str = "",
    about: list[str] | None = None,
) -> dict[str, Any]:
    """The results dict of one run of a test (``trace`` None when the test captured no spans), with
    the scores it recorded (`results.end_test`). Token totals are made when wanted or when a score was
    recorded.

    ``about``: the span ids of the records the failure is about (`failure_spans`), for the report.

    Token totals and the view are informative: when they cannot be made the test does not fail over
    it (tokens are None; the view says it could not be drawn).
    """
    from .._evaluation.results import run_data

    data = run_data(
        (lambda: trace) if trace is not None else None, tokens_wanted=tokens_wanted, trace_path=trace_path
    )
    if html:
        view = None
        if trace is not None:
            try:
                from .view import trace_view

                view = trace_view(trace, redact=redact)
            except Exception as exc:
                message += f"\n(traceassert could not draw the trace: {type(exc).__name__}: {exc})"
        data["html"] = {"view": view, "message": message, "about": list(about or ())}
    return data
