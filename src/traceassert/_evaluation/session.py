"""The results of a pytest session, one entry per test, as its reports arrive.

Kept apart from the summary and the report file (``report``): the plugin makes one at the start of every
session, and the estimators of the repeat mark that ``report`` imports are for the sessions that use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .outcomes import PhaseReport

__all__ = ["SessionResults"]


class SessionResults:
    """One entry per test, built from its logged reports (in the order the tests finished)."""

    def __init__(self) -> None:
        self.entries: dict[str, dict[str, Any]] = {}
        #: what each test attached for the HTML report (``nodeid -> {"view", "message"}``)
        self.html: dict[str, dict[str, Any]] = {}

    def add(self, nodeid: str, report: PhaseReport, duration: float, xfail: bool, data: Any) -> None:
        entry = self.entries.get(nodeid)
        if entry is None:
            entry = {"nodeid": nodeid, "outcome": None, "duration_s": 0.0, "scores": []}
            entry.update(tokens=None, trace_path=None, repeat=None, call_s=None, models=None)
            self.entries[nodeid] = entry
        entry["duration_s"] += duration
        if report.when == "call" or (report.when == "setup" and not report.passed):
            if report.failed:
                entry["outcome"] = "failed" if report.when == "call" else "error"
            elif report.skipped:
                entry["outcome"] = "xfailed" if xfail else "skipped"
            else:
                entry["outcome"] = "xpassed" if xfail else "passed"
        elif report.when == "teardown":
            if report.failed and entry["outcome"] in (None, "passed"):
                entry["outcome"] = "error"
            elif entry["outcome"] is None:
                entry["outcome"] = "passed"
        if isinstance(data, Mapping):
            entry.update({k: data.get(k) for k in ("tokens", "trace_path", "repeat", "call_s", "models")})
            entry["scores"] = list(data.get("scores") or [])
            if data.get("gates"):  # a test with a traceassert_gate mark
                entry["gates"] = data["gates"]
            if isinstance(data.get("html"), Mapping):
                self.html[nodeid] = dict(data["html"])

    def tests(self) -> list[dict[str, Any]]:
        return list(self.entries.values())

    def worth_reporting(self) -> bool:
        """True when a test recorded a score or was repeated."""
        return any(t["scores"] or t["repeat"] or t.get("gates") for t in self.entries.values())
