"""What no check looked at, per test: ``--traceassert-coverage`` (ini ``traceassert_coverage``, marker
``traceassert_coverage(mode)``).

At the end of a test that captured spans (``trace_asserter``, ``trace_capture``), the checks made on
its capture say what they examined (``traceassert._checks.coverage``). The mode decides what follows:

- ``off``: nothing;
- ``warn`` (the default): the checks that passed vacuously are listed in the terminal summary;
- ``report``: every test's coverage is listed too: the agents, tool executions, model calls and
  handoffs no check examined;
- ``strict``: as ``report``, and a test whose trace has an unexamined agent, an unexamined failed tool
  execution or a vacuous check fails.

The coverage travels on the call report (attribute ``traceassert_coverage``, plain values, already
redacted) to the controller of a pytest-xdist run, and joins the HTML report's per-test data.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from .keys import CAPTURE_KEY

__all__ = ["CoveragePlugin", "add_coverage_options"]

MODES = ("off", "warn", "report", "strict")
_MARK = "traceassert_coverage"
_ATTR = "traceassert_coverage"
_KEY: pytest.StashKey[dict[str, Any]] = pytest.StashKey()
#: the most records (and vacuous checks) the summary lists per test
_LISTED = 20


def add_coverage_options(group: pytest.OptionGroup, parser: pytest.Parser) -> None:
    group.addoption(
        "--traceassert-coverage",
        action="store",
        default=None,
        choices=MODES,
        help="what to say about the records no check examined: off, warn (the default: list vacuous "
        "checks), report (list every test's unexamined agents, tools, model calls, handoffs) or strict "
        "(fail a test with an unexamined agent or failed tool execution, or a vacuous check)",
    )
    parser.addini("traceassert_coverage", "the default of --traceassert-coverage", default="warn")


def _mode(config: pytest.Config, item: pytest.Item | None = None) -> str:
    marker = item.get_closest_marker(_MARK) if item is not None else None
    if marker is not None:
        value = marker.args[0] if marker.args else marker.kwargs.get("mode", "strict")
        if value not in MODES:
            raise pytest.UsageError(f"{_MARK}: mode must be one of {', '.join(MODES)}, got {value!r}")
        return str(value)
    value = config.getoption("--traceassert-coverage", None) or config.getini("traceassert_coverage")
    if value not in MODES:
        raise pytest.UsageError(f"traceassert_coverage must be one of {', '.join(MODES)}, got {value!r}")
    return str(value)


class CoveragePlugin:
    """Computes each test's coverage where the test ran, fails it under strict coverage, and lists the
    coverage in the terminal summary where the reports arrive."""

    def __init__(self, config: pytest.Config) -> None:
        config.addinivalue_line(
            "markers",
            f"{_MARK}(mode): this test's coverage mode (off, warn, report, strict): what to say, or fail "
            "on, about the records no check examined",
        )
        self.mode = _mode(config)
        self.is_worker = hasattr(config, "workerinput")
        self.tests: dict[str, dict[str, Any]] = {}

    # -- where the test runs ------------------------------------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        __tracebackhide__ = True
        try:
            result = yield
        except BaseException:
            self._measure(item, passed=False)
            raise
        self._measure(item, passed=True)
        return result

    def _measure(self, item: pytest.Item, *, passed: bool) -> None:
        __tracebackhide__ = True
        mode = _mode(item.config, item)
        cap = item.stash.get(CAPTURE_KEY, None)
        if mode == "off" or cap is None:
            return
        if not cap.ledger.examined and mode != "strict":
            return  # no check ran: nothing to say
        from .._checks.coverage import coverage_of

        try:
            trace = cap.trace()
            if not trace.spans and not cap.ledger.examined:
                return
            coverage = coverage_of(trace)
            data = {**coverage.to_dict(), "mode": mode}
        except Exception:  # informative: a test never fails over its coverage report
            return
        item.stash[_KEY] = data
        problems = data["strict_problems"]
        if mode == "strict" and passed and problems:
            from .._checks.fail import fail
            from .._checks.selection import selection_of

            fail(
                selection_of(trace),
                f"{_MARK}('strict')",
                "expected every agent and every failed tool execution to be examined by a check, and no "
                f"vacuous check; found {len(problems)} problem(s)",
                details="\n".join(problems) + "\ncoverage: " + coverage.summary(),
            )

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        data = item.stash.get(_KEY, None)
        if data is None:
            return report
        if report.when == "call":
            report.__dict__[_ATTR] = data
        elif report.when == "teardown":
            results = report.__dict__.get("traceassert")
            if isinstance(results, dict) and isinstance(results.get("html"), dict):
                results["html"]["coverage"] = data  # the HTML report's per-test data
            del item.stash[_KEY]
        return report

    # -- where the reports arrive -------------------------------------------------------------------

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = report.__dict__.get(_ATTR)
        if not self.is_worker and report.when == "call" and isinstance(data, dict):
            self.tests[report.nodeid] = data

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker or not self.tests:
            return
        from .._common.text import safe_text

        lines = summary_lines(self.tests)
        if not lines:
            return
        terminalreporter.write_sep("-", "traceassert coverage")
        for line in lines:
            terminalreporter.write_line(safe_text(line))


def summary_lines(tests: dict[str, dict[str, Any]]) -> list[str]:
    """The terminal summary's lines: each test's vacuous checks, and under ``report`` / ``strict`` its
    coverage and what no check examined."""
    lines: list[str] = []
    for nodeid, data in tests.items():
        full = data.get("mode") in ("report", "strict")
        vacuous = data.get("vacuous") or []
        if not full and not vacuous:
            continue
        totals = data.get("totals") or {}
        seen = sum(int(e) for e, _ in totals.values())
        total = sum(int(t) for _, t in totals.values())
        head = f"{nodeid}: {seen} of {total} records examined by {data.get('checks', 0)} check(s)"
        lines.append(head)
        if full:
            missed = data.get("not_examined") or []
            lines.extend(f"  not examined: {r['kind']} {r['text']}" for r in missed[:_LISTED])
            more = len(missed) - _LISTED + int(data.get("more_not_examined") or 0)
            if more > 0:
                lines.append(f"  ... {more} more not examined (the HTML report lists the first 200)")
        lines.extend(f"  vacuous: {v['where']} {v['check']}: {v['why']}" for v in vacuous[:_LISTED])
        if len(vacuous) > _LISTED:
            lines.append(f"  ... {len(vacuous) - _LISTED} more vacuous check(s)")
    return lines
