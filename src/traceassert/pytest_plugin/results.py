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

from .keys import CAPTURE_KEY, DUMPED_KEY, redaction

_REPORT_ATTR = "traceassert"
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


def configure_results(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{_REPEAT_MARK}(n, min_pass_rate=1.0): run the test n times; it passes when at least "
        "min_pass_rate of the runs pass (for non-deterministic agents)",
    )
    config.pluginmanager.register(_ResultsPlugin(config), "traceassert-results")


class _ResultsPlugin:
    """Per-test results, the report file, the terminal summary and the repeat mark."""

    def __init__(self, config: pytest.Config) -> None:
        from .._evaluation.report import SessionResults

        path = config.getoption("--traceassert-report")
        self.report_path = os.path.join(config.invocation_params.dir, path) if path else None
        html = config.getoption("--traceassert-html")
        self.html_path = os.path.join(config.invocation_params.dir, html) if html else None
        self.messages: dict[str, str] = {}
        self.is_worker = hasattr(config, "workerinput")
        self.results = SessionResults()
        self.redact = redaction(config)

    # -- on the process that runs the test ------------------------------------------------------------

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        from .._evaluation import report as _report
        from .._evaluation import results as _results

        _results.begin_test(item.nodeid)
        result = yield
        marker = item.get_closest_marker(_REPEAT_MARK)
        if marker is not None:
            # a bad mark is this test's setup error (raised after every setup hook ran)
            _report.repeat_args(marker.args, marker.kwargs)
        return result

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if self.html_path and report.failed and item.nodeid not in self.messages:
            from .._report.results import failure_message

            self.messages[item.nodeid] = failure_message(call.excinfo, report.longrepr)
        if report.when == "teardown":
            report.__dict__[_REPORT_ATTR] = self._finish_run(item)
        return report

    def _finish_run(self, item: pytest.Item) -> dict[str, Any]:
        cap = item.stash.get(CAPTURE_KEY, None)
        trace = cap.trace if cap is not None else None
        wanted = bool(self.report_path or self.html_path or item.get_closest_marker(_REPEAT_MARK))
        if self.html_path is None:  # without the HTML report, the report package is not imported
            from .._evaluation.results import run_data

            return run_data(trace, tokens_wanted=wanted, trace_path=item.stash.get(DUMPED_KEY, None))
        from .._report.results import run_results

        return run_results(
            trace() if trace is not None else None,
            tokens_wanted=wanted,
            trace_path=item.stash.get(DUMPED_KEY, None),
            html=True,
            redact=self.redact,
            message=self.messages.pop(item.nodeid, ""),
        )

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        marker = item.get_closest_marker(_REPEAT_MARK)
        config = item.config
        if marker is None or config.getoption("setuponly", False) or config.getoption("setupplan", False):
            return None
        from _pytest.runner import runtestprotocol

        from .._evaluation import report as _report

        try:
            runs, min_rate = _report.repeat_args(marker.args, marker.kwargs)
        except (TypeError, ValueError):
            return None  # run once; the setup hook reports the bad mark
        ihook = item.ihook
        ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        sibling: Any = _report.Sibling(item.listchain()[:-1])
        all_runs: list[list[pytest.TestReport]] = []
        for i in range(runs):
            # each run captures its own spans (and may dump its own trace)
            if CAPTURE_KEY in item.stash:
                del item.stash[CAPTURE_KEY]
            if DUMPED_KEY in item.stash:
                del item.stash[DUMPED_KEY]
            all_runs.append(runtestprotocol(item, log=False, nextitem=nextitem if i == runs - 1 else sibling))
        for report in _combine_runs(item, all_runs, min_rate):
            ihook.pytest_runtest_logreport(report=report)
        ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True

    # -- on the controller (or the only process) --------------------------------------------------------

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.is_worker:
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


def _combine_runs(
    item: pytest.Item, runs: list[list[pytest.TestReport]], min_rate: float
) -> list[pytest.TestReport]:
    """The reports logged for a repeated test: a setup report, one call report whose outcome is the pass
    rate's verdict, and the last teardown report carrying every run's results."""
    from .._evaluation.report import combine_runs

    verdict, failures = combine_runs(runs, min_rate, _REPORT_ATTR)
    last_teardown = runs[-1][-1]
    setups = [r[0] for r in runs if r[0].passed]
    if not verdict.counted or not setups:
        # every run was skipped, or none got past setup: show the first run as it happened
        return [*runs[0][:-1], last_teardown]
    summary = verdict.text()
    longrepr: str | None = None
    sections = [("traceassert repeat", summary)]
    if not verdict.ok:
        run_no, last_bad = next(
            (i, bad) for i, bad in reversed(list(enumerate(failures, 1))) if bad is not None
        )
        longrepr = (
            f"{_REPEAT_MARK}: {summary}\n\n--- last failure (run {run_no}) ---\n{last_bad.longreprtext}"
        )
        sections = [*last_bad.sections, *sections]
    calls = [r for reports in runs for r in reports if r.when == "call"]
    call = pytest.TestReport(
        item.nodeid,
        item.location,
        dict.fromkeys(item.keywords, 1),
        "passed" if verdict.ok else "failed",
        longrepr,
        "call",
        sections,
        duration=sum(r.duration for r in calls),
        start=calls[0].start if calls else 0,
        stop=calls[-1].stop if calls else 0,
        user_properties=item.user_properties,
    )
    return [setups[0], call, last_teardown]
