"""The public faces of the checks: ``TraceAsserter`` and the typed selections its selectors return.

Each asserter is a thin face over one frozen ``_checks.selection.Selection``; the check bodies are
plain functions of it in ``_checks.monocle`` and ``_checks.invocation``. The families here
(``spans``, ``io``, ``records``, ``invocation``, ``more``) hold the methods, and ``types`` composes them
into the types a user meets. A method imports its check module when it runs (``records``, the selectors
of most first checks, imports its own with the family): the first test of a session pays for every
module imported, and a session calls few of the families.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .._checks.selection import is_capture, selection_of
from .._trace import Trace
from .base import AsserterBase
from .soft import Soft, soft
from .types import AgentSelection, SelectionChecks, ToolSelection, TraceAsserter

if TYPE_CHECKING:
    from .._capture import Capture
    from .._checks.coverage import Coverage
    from .._receive import Receiver

__all__ = [
    "AgentSelection",
    "SelectionChecks",
    "Soft",
    "ToolSelection",
    "TraceAsserter",
    "assert_trace",
    "coverage",
    "soft",
]


def assert_trace(source: Trace | Capture | Receiver | Iterable[Any]) -> TraceAsserter:
    """The same as ``TraceAsserter(source)``; a Receiver's trace is waited for at each check."""
    return TraceAsserter(source)


def coverage(source: Trace | Capture | AsserterBase) -> Coverage:
    """What the checks made on ``source`` (a Trace, a Capture, or an asserter of either) examined, and
    what no check looked at (docs/coverage.md)."""
    if isinstance(source, AsserterBase):
        return source.coverage()
    if not isinstance(source, Trace) and not is_capture(source):
        raise TypeError(f"coverage takes a Trace, a Capture or an asserter, not {type(source).__name__}")
    from .._checks.coverage import coverage_of

    return coverage_of(selection_of(source).trace)
