"""Waiting for a whole trace. Apps export in batches, so a trace is complete when its root has come (a
span under the receiver's traceparent, a span with no parent, or one whose parent is in another process)
and no new span of it has come for a quiet period; the wait ends there, at the timeout, or a quiet period
after the process given has exited (nothing more can come from it)."""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from typing import Any, Protocol

from .store import State, TraceView

__all__ = ["Outcome", "Source", "exit_state", "wait_for"]

#: how often a process given to ``wait`` is looked at
_POLL = 0.05


class Source(Protocol):
    """Where a receiver's spans are read: its store in this process, or a receiver in another."""

    @property
    def http_endpoint(self) -> str: ...
    @property
    def grpc_endpoint(self) -> str: ...
    @property
    def grpc_started(self) -> bool: ...
    def close(self) -> None: ...

    def state(self, trace_id: str) -> State: ...
    def wait_change(self, trace_id: str, seen: State, timeout: float) -> State: ...
    def view(self, trace_id: str) -> TraceView: ...
    def status(self, trace_id: str) -> dict[str, Any]: ...
    def trace_ids(self) -> list[str]: ...


@dataclass(frozen=True, slots=True)
class Outcome:
    view: TraceView
    complete: bool
    waited: float
    #: the process given: (its exit code, None while it runs; whether it still runs), or None
    process: tuple[int | None, bool] | None


def exit_state(process: Any) -> tuple[int | None, bool] | None:
    """(exit code, still running) of a ``subprocess.Popen`` or ``CompletedProcess``; None for None."""
    if process is None:
        return None
    if isinstance(process, subprocess.CompletedProcess):
        return process.returncode, False
    poll = getattr(process, "poll", None)
    if poll is None:
        raise TypeError(
            f"process= takes a subprocess.Popen or CompletedProcess, not {type(process).__name__}"
        )
    code = poll()
    return code, code is None


def wait_for(source: Source, trace_id: str, *, timeout: float, quiet: float, process: Any = None) -> Outcome:
    """Wait until the trace is complete (see the module docstring), the timeout, or the process's end."""
    if timeout < 0 or quiet < 0:
        raise ValueError("timeout and quiet must not be negative")
    start = time.monotonic()
    deadline = start + timeout
    exited_at: float | None = None
    state = source.state(trace_id)
    while True:
        now = time.monotonic()
        proc = exit_state(process)
        if proc is not None and not proc[1] and exited_at is None:
            exited_at = now
        since = None if state.last_at is None else now - state.last_at
        if state.count and state.rooted and since is not None and since >= quiet:
            break
        if exited_at is not None and now - exited_at >= quiet:
            break
        if now >= deadline:
            break
        nap = deadline - now
        if state.rooted and since is not None:
            nap = min(nap, quiet - since)
        if proc is not None:
            nap = min(nap, _POLL if exited_at is None else quiet - (now - exited_at))
        state = source.wait_change(trace_id, state, max(nap, 0.001))
    view = source.view(trace_id)
    complete = bool(view.state.count and view.state.rooted)
    return Outcome(view, complete, time.monotonic() - start, exit_state(process))
