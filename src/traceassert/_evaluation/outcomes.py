"""A run's outcome from its pytest reports, the first line of a failure, and a pass rate as text.

Plain values only (this stage does not import pytest): a report is anything with ``when`` and the
``passed``/``failed``/``skipped`` flags.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

__all__ = ["PhaseReport", "crash_line", "rate_text", "run_outcome"]


class PhaseReport(Protocol):
    """What this stage reads of a pytest TestReport."""

    @property
    def when(self) -> str | None: ...
    @property
    def passed(self) -> bool: ...
    @property
    def failed(self) -> bool: ...
    @property
    def skipped(self) -> bool: ...


def crash_line(longrepr: Any) -> str:
    """The first line of a failure (pytest's crash message, else the report's text), cut to 200."""
    crash = getattr(longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    text = (message if isinstance(message, str) else str(longrepr or "")).strip()
    return text.splitlines()[0][:200] if text else ""


def run_outcome(reports: Iterable[PhaseReport]) -> str:
    """``passed``, ``failed`` (the test body), ``error`` (setup or teardown) or ``skipped`` for one run."""
    by_when = {r.when: r for r in reports}
    setup, call, teardown = by_when.get("setup"), by_when.get("call"), by_when.get("teardown")
    if (setup is not None and setup.failed) or (teardown is not None and teardown.failed):
        return "error"
    if call is not None and call.failed:
        return "failed"
    if (setup is not None and setup.skipped) or (call is not None and call.skipped):
        return "skipped"
    return "passed"


def rate_text(passed: int, counted: int, decimals: int = 1) -> str:
    """``passed`` of ``counted`` as a percentage with ``decimals`` decimals, or more where fewer would
    round a failure or a pass away: 100% only when every one passed, 0% only when none did (2,083 of 2,084
    is 99.95%, not 100.0%)."""
    if passed >= counted or passed <= 0:
        return f"{100 if passed >= counted else 0:.{decimals}f}%"
    rate = passed / counted
    for places in range(decimals, decimals + 13):
        text = f"{rate * 100:.{places}f}"
        if 0 < float(text) < 100:
            return f"{text}%"
    return ">0%" if rate < 0.5 else "<100%"  # pragma: no cover - more than 10**13 runs
