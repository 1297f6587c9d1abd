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

from .coverage import CoveragePlugin, add_coverage_options
from .keys import CAPTURE_KEY, DUMPED_KEY, OUTPUT_OPTIONS, redaction
from .receiver import add_receiver_option, receiver_for
from .results import add_results_options, configure_results
from .terminal import FailureStyle

if TYPE_CHECKING:
    from .._asserter import TraceAsserter
    from .._capture import Capture
    from .._receive import Receiver

__all__ = ["otlp_receiver", "trace_asserter", "trace_capture"]

_FIXTURES = frozenset({"trace_asserter", "trace_capture"})


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
    add_results_options(group)
    add_receiver_option(group)
    add_coverage_options(group, parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "traceassert: the test's spans are captured (automatic for the trace_* fixtures)"
    )
    if any(config.getoption(option, None) for option in OUTPUT_OPTIONS):
        from .._golden.record import output_problem  # imported only when an output is asked for

        if problem := output_problem(config):  # a bad output is refused before the run starts
            raise pytest.UsageError(problem)
    configure_results(config)
    config.pluginmanager.register(FailureStyle(config), "traceassert-terminal")
    config.pluginmanager.register(CoveragePlugin(config), "traceassert-coverage")
    if config.getoption("verbose", 0) >= 2:
        # pytest -vv: failure messages in full (every tool execution, the whole tree)
        from .._errors import FULL_MESSAGES

        was_full = FULL_MESSAGES.get()
        FULL_MESSAGES.set(True)

        def restore_messages() -> None:
            FULL_MESSAGES.set(was_full)

        config.add_cleanup(restore_messages)
    if config.getoption("--traceassert-no-redact", False):
        if config.getoption("--traceassert-redact", None):
            raise pytest.UsageError("--traceassert-no-redact and --traceassert-redact contradict each other")
        from .._common.redact import set_redacting

        old = set_redacting(False)

        def restore() -> None:
            set_redacting(old)

        config.add_cleanup(restore)
    extra = redaction(config)
    if isinstance(extra, list):
        # failure messages, trees and difference lines (matches_golden) redact the extra patterns too
        from .._common.redact import EXTRA_PATTERNS

        was_patterns = EXTRA_PATTERNS.get()
        EXTRA_PATTERNS.set(tuple(extra))

        def restore_patterns() -> None:
            EXTRA_PATTERNS.set(was_patterns)

        config.add_cleanup(restore_patterns)


def _start_capture(item: pytest.Item) -> Capture:
    cap = item.stash.get(CAPTURE_KEY, None)
    if cap is None:
        from .._capture import Capture

        cap = Capture(name=item.nodeid)
        cap.start()
        item.stash[CAPTURE_KEY] = cap
    return cap


def _wants_capture(item: pytest.Item) -> bool:
    names = getattr(item, "fixturenames", ())
    if _FIXTURES.intersection(names) or item.get_closest_marker("traceassert") is not None:
        return True
    return item.get_closest_marker("traceassert_gate") is not None  # a gate reads the test's tokens


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    # start before any fixture runs, so spans from the test's fixtures belong to the test too
    if _wants_capture(item):
        _start_capture(item)
        dump_dir = item.config.getoption("--traceassert-dump-dir")
        if dump_dir:
            from .._errors import DUMP_HINT

            # a failure message names the file the whole trace will be dumped to
            from .._golden.record import safe_test_name

            DUMP_HINT.set(os.path.join(dump_dir, f"{safe_test_name(item.nodeid)}.json"))
    return (yield)


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    try:
        return (yield)
    finally:
        cap = item.stash.get(CAPTURE_KEY, None)
        if cap is not None:
            cap.stop()
            if item.config.getoption("--traceassert-dump-dir"):
                from .._errors import DUMP_HINT

                DUMP_HINT.set(None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    if report.failed and call.excinfo is not None:
        from .._errors import TraceAssertionError

        if isinstance(call.excinfo.value, TraceAssertionError):
            from .terminal import shorten_crash

            shorten_crash(report, call.excinfo.value)
    record_dir = item.config.getoption("--traceassert-record", None)
    if record_dir and report.passed and report.when == "call":
        _record(item, report, record_dir)
    if report.failed and report.when in ("call", "setup"):
        dump_dir = item.config.getoption("--traceassert-dump-dir")
        cap = item.stash.get(CAPTURE_KEY, None)
        if dump_dir and cap is not None and DUMPED_KEY not in item.stash:
            from .._golden.record import dump_failed

            worker = os.environ.get("PYTEST_XDIST_WORKER")
            path, line = dump_failed(cap.trace, dump_dir, item.nodeid, worker, redaction(item.config))
            if path is not None:
                item.stash[DUMPED_KEY] = path
            report.sections.append(("traceassert", line))
    return report


def _record(item: pytest.Item, report: pytest.TestReport, record_dir: str) -> None:
    cap = item.stash.get(CAPTURE_KEY, None)
    if cap is not None:
        from .._golden.record import record_test

        line = record_test(cap.trace(), record_dir, item.nodeid, redaction(item.config))
        report.sections.append(("traceassert", line))


@pytest.fixture
def trace_capture(request: pytest.FixtureRequest) -> Capture:
    """The spans this test produced (from its threads and asyncio tasks too), read live."""
    return _start_capture(request.node)


@pytest.fixture
def trace_asserter(trace_capture: Capture) -> TraceAsserter:
    """A TraceAsserter over the spans this test produced, read live at each check."""
    from .._asserter import TraceAsserter

    return TraceAsserter(trace_capture)


@pytest.fixture
def otlp_receiver(request: pytest.FixtureRequest) -> Receiver:
    """An OTLP receiver (one for the session) and a trace id of this test's own: hand ``env()`` to a
    child process or ``headers()`` to a request, then check ``ta.assert_trace(otlp_receiver)``."""
    return receiver_for(request)
