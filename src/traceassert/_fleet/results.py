"""The records a fleet check gives back: one ``TraceResult`` per trace (or per file), with an ``Outcome``
per policy."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .stats import FleetStats

__all__ = ["ERROR", "FAILED", "PASSED", "Outcome", "TraceResult", "first_line"]

PASSED, FAILED, ERROR = "passed", "failed", "error"


def first_line(text: str) -> str:
    """The first non-blank line of a message, stripped."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


@dataclass(frozen=True)
class Outcome:
    """What one policy said about one trace (or file).

    ``status`` is ``"passed"``, ``"failed"`` (the policy raised an ``AssertionError``: ``message`` is its
    text) or ``"error"`` (the policy raised anything else: a bug in the policy, or a trace it could not
    handle; ``message`` names the exception).
    """

    policy: str
    status: str
    message: str = ""

    @property
    def passed(self) -> bool:
        return self.status == PASSED


@dataclass
class TraceResult:
    """The policies' outcomes on one trace of one file (``trace_id``), or on a whole file
    (``trace_id`` None: a ``per="file"`` policy, or a file that could not be read: ``error``).

    ``facts`` holds the trace's share of the aggregate (tools, agents, models); the client merges it into
    ``FleetResult.stats``. ``spans`` is the number of spans the result is about.
    """

    path: str
    trace_id: str | None
    outcomes: tuple[Outcome, ...] = ()
    spans: int = 0
    error: str | None = None
    facts: FleetStats | None = field(default=None, repr=False)

    @property
    def status(self) -> str:
        """``"unreadable"``, ``"error"`` (a policy raised something else than an assertion),
        ``"failed"`` or ``"passed"``: the worst of the outcomes."""
        if self.error is not None:
            return "unreadable"
        statuses = {o.status for o in self.outcomes}
        for worst in (ERROR, FAILED):
            if worst in statuses:
                return worst
        return PASSED

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    @property
    def failures(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if not o.passed)

    @property
    def label(self) -> str:
        """Where the result is from: the file, and the trace id when the result is about one trace."""
        return self.path if self.trace_id is None else f"{self.path} trace {self.trace_id}"
