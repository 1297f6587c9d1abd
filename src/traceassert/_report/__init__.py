"""The HTML report: one self-contained page showing runs (tree, waterfall, totals).

Takes a `Trace` (live capture or file) and each test's results of a pytest session; gives a view-model
(plain JSON-able data, redacted as dumps are, values cut as messages cut them with the full value kept)
and the page that draws it: inline CSS and vanilla script from ``assets/``, no network, works from
``file://``. Used by ``pytest --traceassert-html`` and ``traceassert show --html``.
"""

from __future__ import annotations

from .page import page_html, script_json, write_page
from .sections import file_page, file_traces, order_failed_first, session_page, session_summary
from .view import trace_view

__all__ = [
    "file_page",
    "file_traces",
    "order_failed_first",
    "page_html",
    "script_json",
    "session_page",
    "session_summary",
    "trace_view",
    "write_page",
]
