"""Helpers shared by the benchmark scripts: timing, a time guard for cases that may run away, and the
summary block of targets and ratios that every script prints at its end.

Not a benchmark itself (the leading underscore keeps it apart from the ``bench_*.py`` scripts).
"""

from __future__ import annotations

import os
import signal
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Summary", "TimeCut", "ms", "time_guard", "timed"]


class TimeCut(BaseException):
    """Raised inside a guarded block when its time is up (a BaseException: ``except Exception`` in the
    code under test does not swallow it)."""


@contextmanager
def time_guard(seconds: float | None) -> Iterator[None]:
    """Raise ``TimeCut`` in the block after ``seconds`` (wall clock; None or <= 0: no guard).

    Uses SIGALRM, so it works in the main thread of a POSIX process; elsewhere the block runs unguarded.
    A call into C code is interrupted only when it returns to Python.
    """
    if not seconds or seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def _cut(signum: int, frame: Any) -> None:
        raise TimeCut(f"cut by the time guard after {seconds:g} s")

    try:
        previous = signal.signal(signal.SIGALRM, _cut)
    except ValueError:  # not the main thread
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def timed(fn: Callable[[], Any], repeat: int = 5) -> float:
    """Median seconds of ``repeat`` calls."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _load_average() -> str:
    try:
        return ", ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not available on this platform
        return "unknown"


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


@dataclass
class Summary:
    """Targets (met / NOT met) and ratios, printed together at the end of a script."""

    title: str
    lines: list[str] = field(default_factory=list)
    missed: int = 0
    #: the load average when the script started: timings on a busy machine are longer
    load_at_start: str = field(default_factory=lambda: _load_average())

    def target(self, what: str, measured: str, met: bool, note: str = "") -> None:
        """``what`` says the target (``"build <= 1 s per 100k spans"``), ``measured`` what was found."""
        if not met:
            self.missed += 1
        verdict = "met" if met else "NOT met"
        self.lines.append(f"target {what}: {measured}{f' ({note})' if note else ''} -> {verdict}")

    def ratio(self, what: str, value: float, note: str = "") -> None:
        self.lines.append(f"ratio {what}: {value:.2f}x{f' ({note})' if note else ''}")

    def info(self, what: str, measured: str) -> None:
        self.lines.append(f"{what}: {measured}")

    def print(self) -> None:
        targets = sum(1 for line in self.lines if line.startswith("target "))
        print()
        print(f"==== summary: {self.title} ====")
        print(
            f"machine: {os.cpu_count()} CPUs, load average (1, 5, 15 min) {self.load_at_start} at the start, "
            f"{_load_average()} at the end"
        )
        for line in self.lines:
            print(line)
        print(f"==== {targets - self.missed} of {targets} targets met ====")
