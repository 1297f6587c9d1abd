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

    ``missing_parents``: how many of those spans name a parent span that is not in the file. Such a
    trace is ``incomplete`` there: the rest of it is in another file (the Collector rotated in the
    middle of the run) or was lost, and the policies saw only this part of it.

    ``losses``: what was lost reading the file (a record cut off or corrupted, a gzip stream that ends
    early, invalid bytes replaced), the same on every result of the file. A result with losses is
    ``partial``: its trace may miss spans, so a pass there proves less (``check`` fails the run on a
    partial file unless partial files are accepted).
    """

    path: str
    trace_id: str | None
    outcomes: tuple[Outcome, ...] = ()
    spans: int = 0
    error: str | None = None
    facts: FleetStats | None = field(default=None, repr=False)
    missing_parents: int = 0
    losses: tuple[str, ...] = ()

    @property
    def partial(self) -> bool:
        """The file was read only in part (``losses`` says what was lost)."""
        return bool(self.losses)

    @property
    def incomplete(self) -> bool:
        """Some spans name a parent that is not in the file: the policies saw part of the trace."""
        return self.missing_parents > 0

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

    @property
    def incomplete_note(self) -> str:
        """`` (incomplete: ...)`` for an incomplete result, else empty: for the lines that print it."""
        if not self.incomplete:
            return ""
        n = self.missing_parents
        spans = "1 span names" if n == 1 else f"{n} spans name"
        return f" (incomplete: {spans} a parent that is not in this file)"
