"""The public faces of the checks: ``TraceAsserter`` and the typed selections its selectors return.

Each asserter is a thin face over one frozen ``_checks.selection.Selection``; the check bodies are
plain functions of it in ``_checks.monocle`` and ``_checks.invocation``. The families here
(``spans``, ``io``, ``records``, ``invocation``, ``more``) hold the methods, and ``types`` composes them
into the types a user meets.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._capture import Capture
from .._receive import Receiver
from .._trace import Trace
from .soft import Soft, soft
from .types import AgentSelection, SelectionChecks, ToolSelection, TraceAsserter

__all__ = [
    "AgentSelection",
    "SelectionChecks",
    "Soft",
    "ToolSelection",
    "TraceAsserter",
    "assert_trace",
    "soft",
]


def assert_trace(source: Trace | Capture | Receiver | Iterable[Any]) -> TraceAsserter:
    """The same as ``TraceAsserter(source)``; a Receiver's trace is waited for at each check."""
    return TraceAsserter(source)
