"""Numbers as people read them in the report's labels: thousands separators and human durations (the
page's script formats its own numbers the same way)."""

from __future__ import annotations

import math

__all__ = ["count_text", "seconds_text"]


def count_text(n: int | float) -> str:
    """``5624743`` as ``5,624,743``."""
    return f"{n:,}"


def seconds_text(seconds: float | None) -> str:
    """A duration as people read it: ``0.412 ms``, ``12.3 ms``, ``1.25 s``, ``2m 05s``, ``1h 55m``;
    ``open`` for None (still running) and ``n/a`` for a value that is not a finite number."""
    if seconds is None:
        return "open"
    if not math.isfinite(seconds):
        return "n/a"
    ms = seconds * 1000
    if ms < 1:
        return f"{ms:.3f} ms"
    if ms < 1000:
        return f"{ms:.1f} ms"
    if seconds < 60:
        return f"{seconds:.2f} s"
    whole = round(seconds)
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole % 3600 // 60:02d}m"
