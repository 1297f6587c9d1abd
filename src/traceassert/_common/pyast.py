"""Python source parsed with :mod:`ast`, safe beside other threads on every supported Python.

CPython 3.11 up to 3.11.7 (and 3.12.0) keeps the counter that guards the depth of a tree being built in
state the whole interpreter shares (python/cpython#106905). When another thread builds a tree at the
same moment (Python 3.11 parses a source line each time it formats a traceback, so any thread that
logs an exception does), ``ast.parse`` raises ``SystemError: AST constructor recursion depth
mismatch`` for a source it would parse. Nothing is wrong with the source, so the parse is tried again.
"""

from __future__ import annotations

import ast
from typing import Any, Literal

__all__ = ["literal_eval", "parse"]

#: tries before the interpreter's error is let through (each clash needs another thread's parse to
#: overlap this one, so a second try almost always succeeds)
_TRIES = 5
_CLASH = "recursion depth mismatch"


def parse(source: str, filename: str = "<unknown>", mode: Literal["exec", "eval"] = "exec") -> ast.AST:
    """``ast.parse(source, filename, mode)``, tried again when another thread's parse clashed with it."""
    for attempt in range(1, _TRIES + 1):
        try:
            return ast.parse(source, filename, mode)
        except SystemError as exc:
            if _CLASH not in str(exc) or attempt == _TRIES:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def literal_eval(text: str) -> Any:
    """``ast.literal_eval(text)`` with the parse above (same errors for text that is no literal)."""
    return ast.literal_eval(parse(text.lstrip(" \t"), mode="eval"))
