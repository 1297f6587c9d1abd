"""The pytest plugin: ``trace_asserter`` and ``trace_capture`` fixtures, per-test span capture.

Registered through the ``pytest11`` entry point. Importing it is cheap: OpenTelemetry and traceassert's
own modules are imported only when a test asks for a fixture. Nothing is installed, replaced or written
for tests that do not use the fixtures (and nothing is written unless ``--traceassert-dump-dir`` or
``--traceassert-record`` is given).
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ._asserter import TraceAsserter
    from ._capture import Capture

__all__ = ["trace_asserter", "trace_capture"]

_FIXTURES = frozenset({"trace_asserter", "trace_capture"})
_CAPTURE_KEY = pytest.StashKey["Capture"]()
_DUMPED_KEY = pytest.StashKey[str]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("traceassert", "traceassert: assertions on OpenTelemetry traces")
    group.addoption(
        "--traceassert-dump-dir",
        action="store",
        default=None,
        metavar="DIR",
        help="write the captured trace of every failing test to DIR as OTLP JSON (one file per test; "
        "secrets redacted)",
    )
    group.addoption(
        "--traceassert-redact",
        action="append",
        default=None,
        metavar="PATTERN",
        help="also redact the values of keys matching PATTERN (a regex, searched in the key, any case; may "
        "be repeated) in dumps and the report; 'default' means the built-in rules only",
    )
    group.addoption(
        "--traceassert-no-redact",
        action="store_true",
        default=False,
        help="write dumps, the report and failure messages without redacting secrets",
    )
    group.addoption(
        "--traceassert-record",
        action="store",
        default=None,
        metavar="DIR",
        help="write the slim golden trace of every passing test that captured spans to "
        "DIR/<test module>/<test name>.json (see `traceassert slim`)",
    )
    _add_results_options(group)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "traceassert: the test's spans are captured (automatic for the trace_* fixtures)"
    )
    _configure_results(config)
    if config.getoption("verbose", 0) >= 2:
        # pytest -vv: failure messages in full (every tool execution, the whole tree)
        from ._errors import FULL_MESSAGES

        was_full = FULL_MESSAGES.get()
        FULL_MESSAGES.set(True)

        def restore_messages() -> None:
            FULL_MESSAGES.set(was_full)

        config.add_cleanup(restore_messages)
    if config.getoption("--traceassert-no-redact", False):
        if config.getoption("--traceassert-redact", None):
            raise pytest.UsageError("--traceassert-no-redact and --traceassert-redact contradict each other")
        from ._loaders.redact import set_redacting

        old = set_redacting(False)

        def restore() -> None:
            set_redacting(old)

        config.add_cleanup(restore)
    extra = _redaction(config)
    if isinstance(extra, list):
        # failure messages, trees and difference lines (matches_golden) redact the extra patterns too
        from ._loaders.redact import EXTRA_PATTERNS

        was_patterns = EXTRA_PATTERNS.get()
        EXTRA_PATTERNS.set(tuple(extra))

        def restore_patterns() -> None:
            EXTRA_PATTERNS.set(was_patterns)

        config.add_cleanup(restore_patterns)


def _redaction(config: pytest.Config) -> bool | list[str]:
    """What to redact in what the plugin writes: True (the built-in rules), extra patterns, or False."""
    if config.getoption("--traceassert-no-redact", False):
        return False
    extra = [p for p in config.getoption("--traceassert-redact", None) or () if p != "default"]
    return extra or True


def _start_capture(item: pytest.Item) -> Capture:
    cap = item.stash.get(_CAPTURE_KEY, None)
    if cap is None:
        from ._capture import Capture

        cap = Capture(name=item.nodeid)
        cap.start()
        item.stash[_CAPTURE_KEY] = cap
    return cap


def _wants_capture(item: pytest.Item) -> bool:
    names = getattr(item, "fixturenames", ())
    return bool(_FIXTURES.intersection(names)) or item.get_closest_marker("traceassert") is not None


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    # start before any fixture runs, so spans from the test's fixtures belong to the test too
    if _wants_capture(item):
        _start_capture(item)
        dump_dir = item.config.getoption("--traceassert-dump-dir")
        if dump_dir:
            from ._errors import DUMP_HINT

            # a failure message names the file the whole trace will be dumped to
            from ._golden.record import safe_test_name

            DUMP_HINT.set(os.path.join(dump_dir, f"{safe_test_name(item.nodeid)}.json"))
    return (yield)


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    try:
        return (yield)
    finally:
        cap = item.stash.get(_CAPTURE_KEY, None)
        if cap is not None:
            cap.stop()
            if item.config.getoption("--traceassert-dump-dir"):
                from ._errors import DUMP_HINT

                DUMP_HINT.set(None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    record_dir = item.config.getoption("--traceassert-record", None)
    if record_dir and report.passed and report.when == "call":
        _record(item, report, record_dir)
    if report.failed and report.when in ("call", "setup"):
        dump_dir = item.config.getoption("--traceassert-dump-dir")
        cap = item.stash.get(_CAPTURE_KEY, None)
        if dump_dir and cap is not None and _DUMPED_KEY not in item.stash:
            try:
                path = _dump(item, cap, dump_dir)
            except Exception as exc:  # a failed dump must not hide the test's own failure
                report.sections.append(("traceassert", f"could not write the trace: {exc!r}"))
            else:
                item.stash[_DUMPED_KEY] = path
                report.sections.append(("traceassert", f"trace written to {path}"))
    return report


def _record(item: pytest.Item, report: pytest.TestReport, record_dir: str) -> None:
    cap = item.stash.get(_CAPTURE_KEY, None)
    if cap is not None:
        from ._golden.record import record_test

        line = record_test(cap.trace(), record_dir, item.nodeid, _redaction(item.config))
        report.sections.append(("traceassert", line))


def _dump(item: pytest.Item, cap: Capture, dump_dir: str) -> str:
    from ._golden.record import dump_path
    from ._loaders import dump_trace

    path = dump_path(dump_dir, item.nodeid, os.environ.get("PYTEST_XDIST_WORKER"))
    dump_trace(cap.trace(), path, redact=_redaction(item.config))
    return path


@pytest.fixture
def trace_capture(request: pytest.FixtureRequest) -> Capture:
    """The spans this test produced (from its threads and asyncio tasks too), read live."""
    return _start_capture(request.node)


@pytest.fixture
def trace_asserter(trace_capture: Capture) -> TraceAsserter:
    """A TraceAsserter over the spans this test produced, read live at each check."""
    from ._asserter import TraceAsserter

    return TraceAsserter(trace_capture)


# -- results: scores, --traceassert-report, terminal summary, @pytest.mark.traceassert_repeat ----------
#
# Kept apart from the capture hooks above: a plugin object registered at configure time. Each test run
# records scores (traceassert._evaluation.results); the teardown report carries the run's results as the plain
# dict attribute ``traceassert`` (report attributes travel from pytest-xdist workers to the controller),
# and the controller collects, summarises and writes them (traceassert._evaluation.report).

_REPORT_ATTR = "traceassert"
_REPEAT_MARK = "traceassert_repeat"


def _add_results_options(group: pytest.OptionGroup) -> None:
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


def _configure_results(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{_REPEAT_MARK}(n, min_pass_rate=1.0): run the test n times; it passes when at least "
        "min_pass_rate of the runs pass (for non-deterministic agents)",
    )
    config.pluginmanager.register(_ResultsPlugin(config), "traceassert-results")


class _ResultsPlugin:
    """Per-test results, the report file, the terminal summary and the repeat mark."""

    def __init__(self, config: pytest.Config) -> None:
        from ._evaluation.report import SessionResults

        path = config.getoption("--traceassert-report")
        self.report_path = os.path.join(config.invocation_params.dir, path) if path else None
        html = config.getoption("--traceassert-html")
        self.html_path = os.path.join(config.invocation_params.dir, html) if html else None
        self.messages: dict[str, str] = {}
        self.is_worker = hasattr(config, "workerinput")
        self.results = SessionResults()
        self.redact = _redaction(config)

    # -- on the process that runs the test ------------------------------------------------------------

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        from ._evaluation import report as _report
        from ._evaluation import results as _results

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
            from ._report.results import failure_message

            self.messages[item.nodeid] = failure_message(call.excinfo, report.longrepr)
        if report.when == "teardown":
            report.__dict__[_REPORT_ATTR] = self._finish_run(item)
        return report

    def _finish_run(self, item: pytest.Item) -> dict[str, Any]:
        from ._report.results import run_results

        cap = item.stash.get(_CAPTURE_KEY, None)
        return run_results(
            cap.trace() if cap is not None else None,
            tokens_wanted=bool(self.report_path or self.html_path or item.get_closest_marker(_REPEAT_MARK)),
            trace_path=item.stash.get(_DUMPED_KEY, None),
            html=self.html_path is not None,
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

        from ._evaluation import report as _report

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
            if _CAPTURE_KEY in item.stash:
                del item.stash[_CAPTURE_KEY]
            if _DUMPED_KEY in item.stash:
                del item.stash[_DUMPED_KEY]
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
            from ._evaluation.report import write_report

            os.makedirs(os.path.dirname(self.report_path) or ".", exist_ok=True)
            write_report(self.report_path, self.results.tests(), redact=self.redact)
        if self.html_path:
            from ._report import session_page, write_page

            page = session_page(self.results.tests(), self.results.html, redact=self.redact)
            write_page(self.html_path, page)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        tests = self.results.tests()
        wanted = self.report_path or self.html_path or self.results.worth_reporting()
        if self.is_worker or not tests or not wanted:
            return
        from ._evaluation.report import format_summary

        terminalreporter.write_sep("-", "traceassert")
        for line in format_summary(tests, self.report_path, self.html_path):
            terminalreporter.write_line(line)


def _combine_runs(
    item: pytest.Item, runs: list[list[pytest.TestReport]], min_rate: float
) -> list[pytest.TestReport]:
    """The reports logged for a repeated test: a setup report, one call report whose outcome is the pass
    rate's verdict, and the last teardown report carrying every run's results."""
    from ._evaluation.report import combine_runs

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
