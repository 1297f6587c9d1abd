"""The progress line of ``traceassert check`` on a terminal: files done, elapsed time and an estimate
of the time left, cleared before each result line is printed (so the two never run together) and at
the end."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["Progress", "clock"]

_CLEAR = "\r\x1b[K"  # to the start of the line, then erase it
_WIDTH = 24


def clock(seconds: float) -> str:
    """A duration as a clock: ``0:07``, ``12:40``, ``1:02:03``."""
    whole = max(0, int(seconds + 0.5))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """One line on ``stream`` (a terminal): ``[#####.......] 12/40 files  0:05 elapsed, about 0:12
    left``. ``clear()`` takes it away before other output; the next ``update`` draws it again."""

    def __init__(self, stream: TextIO, now: Callable[[], float] = time.monotonic) -> None:
        self._stream = stream
        self._now = now
        self._start = now()
        self._shown = False
        self._last: tuple[int, int] | None = None

    def update(self, done: int, total: int) -> None:
        """Draw the line for ``done`` of ``total`` files."""
        self._last = (done, total)
        self._draw()

    def clear(self) -> None:
        """Take the line away (before a result is printed, and at the end)."""
        if self._shown:
            self._stream.write(_CLEAR)
            self._stream.flush()
            self._shown = False

    def redraw(self) -> None:
        """Draw the last line again (after a result was printed)."""
        if self._last is not None and not self._shown:
            self._draw()

    def line(self, done: int, total: int) -> str:
        """The text of the line."""
        elapsed = self._now() - self._start
        filled = int(_WIDTH * done / total) if total else _WIDTH
        text = f"[{'#' * filled}{'.' * (_WIDTH - filled)}] {done}/{total} files  {clock(elapsed)} elapsed"
        if 0 < done < total:
            text += f", about {clock(elapsed / done * (total - done))} left"
        return text

    def _draw(self) -> None:
        assert self._last is not None
        self._stream.write(_CLEAR + self.line(*self._last))
        self._stream.flush()
        self._shown = True
