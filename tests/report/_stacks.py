"""A failing session over three stacks, for the report's browser tests and the docs' screenshots: the
recorded real runs (tests/data) of Pydantic AI, LangGraph with OpenInference and smolagents with
OpenInference, each checked the way a test would, with its real failure, as the pytest plugin attaches
them to the report (`traceassert._report.results.run_results`); one test passes. No inner pytest run
(the plugin's path is covered by test_pytest_report.py): the page is made in a fraction of a second."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import traceassert as ta
from tests.report._big import DATA
from traceassert._report import session_page
from traceassert._report.results import run_results

Check = Callable[[ta.TraceAsserter], object]

#: (test id, recording, the check): what each test asserts on its stack's run
CASES: list[tuple[str, str, Check]] = [
    (
        "test_pydantic_ai.py::test_books_a_flight",
        "pydantic_ai_current.json",
        lambda t: t.called_agent("orchestrator").called_tool("book_flight"),
    ),
    (
        "test_langgraph.py::test_no_tool_fails",
        "openinference_langgraph.json",
        lambda t: t.called_agent("orchestrator").including_nested().has_no_failed_tool_executions(),
    ),
    (
        "test_smolagents.py::test_the_helper_stays_in_budget",
        "openinference_smolagents.json",
        lambda t: t.called_agent("helper").under_token_limit(40),
    ),
    (
        "test_pydantic_ai.py::test_asks_the_helper",
        "pydantic_ai_current.json",
        lambda t: t.called_agent("orchestrator").called_tool("ask_helper"),
    ),
]


def failing_session() -> tuple[dict[str, Any], dict[str, ta.TraceAssertionError]]:
    """The page data of the session (failed tests first, as the plugin orders them), and each failed
    test's error."""
    tests: list[dict[str, Any]] = []
    html: dict[str, dict[str, Any]] = {}
    errors: dict[str, ta.TraceAssertionError] = {}
    for nodeid, recording, check in CASES:
        trace = ta.load_trace(DATA / recording)
        message, about, outcome = "", None, "passed"
        try:
            check(ta.assert_trace(trace))
        except ta.TraceAssertionError as err:
            message, about, outcome = str(err), list(err.span_ids), "failed"
            errors[nodeid] = err
        data = run_results(
            trace, tokens_wanted=True, trace_path=None, html=True, message=message, about=about
        )
        seconds = (
            max(s.end_ns or s.start_ns for s in trace.spans) - min(s.start_ns for s in trace.spans)
        ) / 1e9
        tests.append(
            {"nodeid": nodeid, "outcome": outcome, "duration_s": seconds, "scores": data["scores"]}
            | {"tokens": data["tokens"], "trace_path": None, "repeat": None}
        )
        html[nodeid] = data["html"]
    return session_page(tests, html, title="traceassert report: three stacks"), errors
