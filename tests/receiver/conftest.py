"""Shared by the receiver's tests: a receiver for the module, and the rule that a test whose parts (Node
and the JS exporters, grpcio) are missing skips on a developer's machine but fails in CI (``CI=true``)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

import traceassert as ta


def need(what: str, present: bool) -> None:
    """Skip without ``what``; in CI, fail."""
    if present:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"the receiver's tests must run in CI: {what} is missing")
    pytest.skip(f"{what} is missing")


@pytest.fixture(scope="module")
def shared() -> Iterator[ta.Receiver]:
    """One receiver for a module's tests (each takes its own trace id with ``new_trace()``)."""
    with ta.receiver() as rx:
        yield rx
