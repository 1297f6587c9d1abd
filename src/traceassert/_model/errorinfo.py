"""Reading Python exception chains out of recorded stack traces."""

from __future__ import annotations

import re

from .records import ErrorInfo

__all__ = ["causes_from_stacktrace"]

_CHAIN_SPLIT = re.compile(
    r"\n+(?:The above exception was the direct cause of the following exception:"
    r"|During handling of the above exception, another exception occurred:)\n+"
)
_TYPE_NAME = re.compile(r"^[A-Za-z_][\w.]*$")


def causes_from_stacktrace(text: str) -> list[ErrorInfo]:
    """The chained exceptions a Python traceback text shows before its last one, nearest first.

    ``exception.stacktrace`` holds the whole chain (``raise ... from ...`` and exceptions raised while
    handling another); the ``exception.type`` / ``exception.message`` keys only the outermost.
    """
    blocks = _CHAIN_SPLIT.split(text.strip("\n"))
    causes = [info for info in (_last_exception(b) for b in blocks[:-1]) if info is not None]
    return list(reversed(causes))


def _last_exception(block: str) -> ErrorInfo | None:
    lines = block.strip("\n").splitlines()
    i = 1 if lines and lines[0].startswith("Traceback") else 0
    while i < len(lines) and (not lines[i] or lines[i][0] in " \t"):
        i += 1
    if i >= len(lines):
        return None
    head, sep, first = lines[i].partition(": ")
    etype = head.strip() if sep else lines[i].strip().rstrip(":")
    if not _TYPE_NAME.match(etype):
        return None
    message = "\n".join([first, *lines[i + 1 :]]).strip() if sep else "\n".join(lines[i + 1 :]).strip()
    return ErrorInfo(etype, message or None)
