"""The plugin's results: scores, ``--traceassert-report``, ``--traceassert-html``, the terminal summary and
``@pytest.mark.traceassert_repeat``.

Kept apart from the capture hooks: a plugin object registered at configure time. Each test run records
scores (traceassert._evaluation.results); the teardown report carries the run's results as the plain dict
attribute ``traceassert`` (report attributes travel from pytest-xdist workers to the controller), and the
controller collects, summarises and writes them (traceassert._evaluation.report).
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

import pytest

from .keys import CALL_KEY, CAPTURE_KEY, DUMPED_KEY, GATES_KEY, RUN_ATTR, redaction
from .keys import RESULTS_ATTR as _REPORT_ATTR
from .repeats import RepeatPlugin

_REPEAT_MARK = "traceassert_repeat"


def add_results_options(group: pytest.OptionGroup) -> None:
    group.addoption(
        "--traceassert-report",
        action="store",
        default=None,
        metavar="FILE",
        help="write each test's outcome, recorded scores, token totals and dumped trace path to FILE as "
        "JSON Lines (one line per test, then a summary line)",
    )
    group.addoption(
        "--traceassert-html",
        action="store",
        default=None,
        metavar="FILE",
        help="write one self-contained HTML page to FILE: each test's invocation tree and span waterfall, "
        "failed tests first (secrets redacted)",
    )
    from .history import add_history_options

    add_history_options(group)


def configure_results(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{_REPEAT_MARK}(n, min_pass_rate=1.0, stop=None, verdict='rate', interval='clopper-pearson', "
        "k=None, parallel=False): run the test n times; it passes when at least min_pass_rate of the runs "
        "pass (for non-deterministic agents)",
    )
    config.pluginmanager.register(_ResultsPlugin(config), "traceassert-results")
    config.pluginmanager.register(RepeatPlugin(config), "traceassert-repeat")
    from .gates import GatePlugin
    from .history import HistoryPlugin

    config.pluginmanager.register(HistoryPlugin(config), "traceassert-history")
    config.pluginmanager.register(GatePlugin(config), "traceassert-gates")


class _ResultsPlugin:
    """Per-test results, the report file, the terminal summary and the repeat mark."""

    def __init__(self, config: pytest.Config) -> None:
        from .._evaluation.session import SessionResults

        path = config.getoption("--traceassert-report")
        self.report_path = os.path.join(config.invocation_params.dir, path) if path else None
        html = config.getoption("--traceassert-html")
        self.html_path = os.path.join(config.invocation_params.dir, html) if html else None
        self.messages: dict[str, str] = {}
        self.about: dict[str, list[str]] = {}  # the span ids a failed check is about, for the report
        self.is_worker = hasattr(config, "workerinput")
        self.results = SessionResults()
        self.redact = redaction(config)
        self.history = bool(config.getoption("--traceassert-history", None))

    # -- on the process that runs the test ------------------------------------------------------------

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        from .._evaluation import results as _results

        _results.begin_test(item.nodeid)
        # what an earlier run of the item left
        if CALL_KEY in item.stash:
            del item.stash[CALL_KEY]
        if GATES_KEY in item.stash:
            del item.stash[GATES_KEY]
        result = yield
        marker = item.get_closest_marker(_REPEAT_MARK)
        if marker is not None:
            from .._evaluation.repeat import repeat_args  # the repeat mark's options: for its tests only

            # a bad mark is this test's setup error (raised after every setup hook ran)
            repeat_args(marker.args, marker.kwargs)
        return result

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if self.html_path and report.failed and item.nodeid not in self.messages:
            from .._report.results import failure_message, failure_spans

            self.messages[item.nodeid] = failure_message(call.excinfo, report.longrepr)
            self.about[item.nodeid] = failure_spans(call.excinfo)
        if report.when == "call":
            item.stash[CALL_KEY] = report.duration
        if report.when == "teardown":
            report.__dict__[_REPORT_ATTR] = self._finish_run(item)
        return report

    def _finish_run(self, item: pytest.Item) -> dict[str, Any]:
        from .history import add_run_facts

        cap = item.stash.get(CAPTURE_KEY, None)
        trace = cap.trace if cap is not None else None
        wanted = bool(
            self.report_path or self.html_path or self.history or item.get_closest_marker(_REPEAT_MARK)
        )
        dumped = item.stash.get(DUMPED_KEY, None)
        if self.html_path is None:  # without the HTML report, the report package is not imported
            from .._evaluation.results import run_data

            data = run_data(trace, tokens_wanted=wanted, trace_path=dumped)
        else:
            from .._report.results import run_results

            data = run_results(
                trace() if trace is not None else None,
                tokens_wanted=wanted,
                trace_path=dumped,
                html=True,
                redact=self.redact,
                message=self.messages.pop(item.nodeid, ""),
                about=self.about.pop(item.nodeid, None),
            )
        return add_run_facts(item, data, trace)

    # -- on the controller (or the only process) --------------------------------------------------------

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.is_worker and RUN_ATTR not in report.__dict__:  # one run of many is no test
            data = report.__dict__.get(_REPORT_ATTR)
            self.results.add(report.nodeid, report, report.duration, hasattr(report, "wasxfail"), data)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.is_worker:
            return
        if self.report_path:
            from .._evaluation.report import write_report

            os.makedirs(os.path.dirname(self.report_path) or ".", exist_ok=True)
            write_report(self.report_path, self.results.tests(), redact=self.redact)
        if self.html_path:
            from .._report import session_page, write_page

            page = session_page(self.results.tests(), self.results.html, redact=self.redact)
            write_page(self.html_path, page)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        tests = self.results.tests()
        wanted = self.report_path or self.html_path or self.results.worth_reporting()
        if self.is_worker or not tests or not wanted:
            return
        from .._common.text import safe_text
        from .._evaluation.report import format_summary

        terminalreporter.write_sep("-", "traceassert")
        for line in format_summary(tests, self.report_path, self.html_path):
            terminalreporter.write_line(safe_text(line))
