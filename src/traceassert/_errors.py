"""Exception and warning types raised by traceassert."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

__all__ = [
    "BackendError",
    "TraceAssertWarning",
    "TraceAssertionError",
    "TraceCaptureError",
    "TraceLoadError",
    "TraceNotFoundError",
    "TraceWriteError",
]


#: set by the pytest plugin: show whole messages (``pytest -vv``)
FULL_MESSAGES = contextvars.ContextVar("traceassert_full_messages", default=False)
#: how the reader gets the whole message, named by the short one's footer (the command line sets its own)
FULL_HINT = contextvars.ContextVar("traceassert_full_hint", default="err.full_message(), or pytest -vv")
#: set by the pytest plugin when a dump folder is given: where the failing test's trace will be written
DUMP_HINT: contextvars.ContextVar[str | None] = contextvars.ContextVar("traceassert_dump_hint", default=None)


def dump_hint() -> str | None:
    """Where the current test's trace is dumped when it fails (None: not dumped)."""
    return DUMP_HINT.get()


class TraceAssertionError(AssertionError):
    """A check on a trace failed.

    The message names the check, what was expected and what was found (cause first), and ends with the
    part of the rendered invocation tree the check looked at. It is kept short (60 lines, 8 KB);
    ``full_message()`` has all of it, and ``pytest -vv`` shows that. The whole message is made when
    first asked for (``full`` may be a function that makes it): a failure on a large trace does not
    render the whole tree only to show 60 lines of it.

    The message is safe to print, however it was made: control characters (escape sequences, ``\\r``)
    and lone surrogates from the trace are shown escaped (``\\x1b``, ``\\ud800``; see
    ``_common.text``), newlines and tabs kept.
    """

    #: the span ids of the records the failed check is about, most telling first: the failed tool
    #: execution, the agent over its budget, the agent whose expected tool was not called (ids only, no
    #: values: the HTML report selects these records). Empty when the check named none.
    span_ids: tuple[str, ...] = ()

    def __init__(self, *args: object, full: str | Callable[[], str] | None = None) -> None:
        from ._common.text import safe_text  # here: the floor's package imports this module

        super().__init__(*(safe_text(a) if isinstance(a, str) else a for a in args))
        self._full = safe_text(full) if isinstance(full, str) else full

    def full_message(self) -> str:
        """The whole message: every tool execution and the whole invocation tree."""
        from ._common.text import safe_text

        full = self._full
        if full is None:
            return safe_text(super().__str__())
        if not isinstance(full, str):
            full = self._full = safe_text(full())
        return full

    def __str__(self) -> str:
        from ._common.text import safe_text

        if self._full is not None and FULL_MESSAGES.get():
            return self.full_message()
        return safe_text(super().__str__())

    def __reduce__(self) -> tuple[Any, ...]:
        # the whole message as text: a function that makes it, and the lines of the tree it kept (for
        # ``soft()``), cannot be pickled (pytest-xdist, ...)
        state = {k: v for k, v in self.__dict__.items() if k not in ("_full", "_tree")}
        return (_rebuild, (type(self), self.args, self.full_message()), state)


def _rebuild(cls: type[TraceAssertionError], args: tuple[object, ...], full: str) -> TraceAssertionError:
    return cls(*args, full=full)


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


class BackendError(TraceLoadError):
    """A trace could not be read from an observability back end (``load_trace("jaeger+http://...",
    trace_id=...)``): it could not be reached, refused the request, or answered with something that is
    not a trace. ``backend`` is its kind (``jaeger``, ``tempo``, ``phoenix``), ``url`` its address as
    given (never with credentials), ``status`` the HTTP status of the answer (None when none came)."""

    def __init__(self, message: str, *, backend: str, url: str, status: int | None = None) -> None:
        self.backend = backend
        self.url = url
        self.status = status
        super().__init__(message, path=url)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_backend, (type(self), self.args[0], self.backend, self.url, self.status))


class TraceNotFoundError(BackendError):
    """The back end answered and holds no span of the trace (yet: a back end stores what was exported
    a moment later; ``load_trace(..., wait=SECONDS)`` asks again until it has)."""


def _rebuild_backend(
    cls: type[BackendError], text: str, backend: str, url: str, status: int | None
) -> BackendError:
    error = cls.__new__(cls)
    ValueError.__init__(error, text)
    error.path, error.position, error.formats_tried = url, None, ()
    error.backend, error.url, error.status = backend, url, status
    return error


class TraceWriteError(OSError):
    """A trace could not be written where asked: traceassert writes only regular files (never over a
    symbolic link, a directory, a FIFO or a device node)."""


class TraceCaptureError(RuntimeError):
    """Spans cannot be captured as set up (for example, a tracer provider that is not the OpenTelemetry
    SDK's, or one the application replaced after the capture started)."""


class TraceAssertWarning(UserWarning):
    """A best-effort result: the trace was usable but something in it was repaired or left out."""


# shown under the package's public name (``traceassert.TraceAssertionError``), as they are imported: a
# traceback, pytest's short summary and a pickle (pytest-xdist) name the class users know
for _public in (
    BackendError,
    TraceAssertWarning,
    TraceAssertionError,
    TraceCaptureError,
    TraceLoadError,
    TraceNotFoundError,
    TraceWriteError,
):
    _public.__module__ = "traceassert"
del _public
