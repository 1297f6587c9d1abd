"""Exception and warning types raised by traceassert."""

from __future__ import annotations

__all__ = [
    "TraceAssertWarning",
    "TraceAssertionError",
    "TraceCaptureError",
    "TraceLoadError",
]


class TraceAssertionError(AssertionError):
    """A check on a trace failed.

    The message names the check, what was expected, what was found, and ends with the
    rendered invocation tree of the trace that was checked.
    """


class TraceLoadError(ValueError):
    """A trace file could not be read.

    ``path`` is the file, ``position`` a human-readable location inside it (line, byte offset or
    JSON path) when known, and ``formats_tried`` the formats that were attempted.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        position: str | None = None,
        formats_tried: tuple[str, ...] = (),
    ) -> None:
        self.path = path
        self.position = position
        self.formats_tried = formats_tried
        parts = []
        if path is not None:
            parts.append(str(path))
        if position is not None:
            parts.append(position)
        prefix = ": ".join(parts)
        text = f"{prefix}: {message}" if prefix else message
        if formats_tried:
            text += f" (formats tried: {', '.join(formats_tried)})"
        super().__init__(text)


class TraceCaptureError(RuntimeError):
    """Spans cannot be captured as set up (for example, a tracer provider that is not the OpenTelemetry
    SDK's, or one the application replaced after the capture started)."""


class TraceAssertWarning(UserWarning):
    """A best-effort result: the trace was usable but something in it was repaired or left out."""
