"""What the invocation-check tests share: a failure matcher and an asserter over a scenario's trace."""

from __future__ import annotations

import re
from typing import Any

import pytest

import traceassert as ta
from tests.unit._scenarios import trace_of


def fails(*patterns: str) -> Any:
    """pytest.raises(TraceAssertionError) whose message contains every pattern (plain text)."""
    return pytest.raises(
        ta.TraceAssertionError, match="(?s)" + "".join(f"(?=.*{re.escape(p)})" for p in patterns)
    )


def on(name: str) -> ta.TraceAsserter:
    return ta.TraceAsserter(trace_of(name))
