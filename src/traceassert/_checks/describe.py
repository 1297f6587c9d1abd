"""The words of every check, written once: the call as written, the names a check takes (validated
here and nowhere else), and name lists."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .._common.redact import shown
from .._common.text import short
from .names import NamePattern, Names, pattern_of

__all__ = [
    "agent_arg",
    "as_python",
    "as_written",
    "call_text",
    "first_of",
    "listed",
    "name_counts",
    "names_arg",
    "one_name",
    "python_call",
    "quoted",
]


def as_written(value: Any) -> str:
    """An argument as the Monocle-style checks show it: a list of names as a list, a name pattern as
    written (``re.compile('a.*')``), else short JSON."""
    if isinstance(value, NamePattern | re.Pattern):
        return pattern_of(value, "", "").shown()
    if isinstance(value, list | tuple) and all(isinstance(x, str) for x in value):
        return repr(list(value))
    if isinstance(value, list | tuple) and all(isinstance(x, str | NamePattern | re.Pattern) for x in value):
        return "[" + ", ".join(as_written(x) for x in value) + "]"
    return short(value, 60)


def as_python(value: Any) -> str:
    """An argument as the invocation checks show it: its repr, with values under secret-looking keys
    and secret-looking text redacted as the trace's values are (the line is read next to them)."""
    text = repr(shown(value))
    return text if len(text) <= 100 else text[:99] + "…"


def call_text(name: str, *args: Any, **kwargs: Any) -> str:
    """``called_tool('x', count=2)``: the call as written, the Monocle-style way (``as_written``).
    Trailing None arguments and None keywords are left out."""
    return _written(name, args, kwargs, as_written, keep_none=False)


def _written(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any], show: Callable[[Any], str], *, keep_none: bool
) -> str:
    items = list(args)
    while items and items[-1] is None and not keep_none:
        items.pop()
    parts = [show(a) for a in items]
    parts.extend(f"{k}={show(v)}" for k, v in kwargs.items() if v is not None)
    return f"{name}({', '.join(parts)})"


def python_call(name: str, *args: Any) -> str:
    """The call as the invocation checks write it: every positional argument, each as ``as_python``."""
    return _written(name, args, {}, as_python, keep_none=True)


def names_arg(value: Any, what: str, check: str) -> Names:
    """One name or several (any of them), each a name, a glob or a compiled regex (see ``names``), without
    repeats; TypeError for a wrong type, ValueError for no name at all."""
    return Names.of(value, what, check)


def one_name(name: Any, what: str = "tool_name") -> NamePattern:
    """A single name or pattern (the invocation checks take one); TypeError otherwise."""
    if isinstance(name, NamePattern | re.Pattern) or (isinstance(name, str) and name):
        return pattern_of(name, what, what)
    raise TypeError(f"{what} must be a non-empty str, got {name!r}")


def agent_arg(value: Any, check: str) -> NamePattern | None:
    """``agent_name=``: an agent name or pattern, or None (TypeError otherwise)."""
    if value is None:
        return None
    if isinstance(value, NamePattern | re.Pattern) or (isinstance(value, str) and value):
        return pattern_of(value, "agent", check)
    raise TypeError(f"{check}: agent_name must be a non-empty str or None, got {value!r}")


def quoted(names: Sequence[str] | Names, what: str) -> str:
    """``tool 'a'`` or ``any of the tools 'a', 'b'`` (``a tool matching 'search_*'`` for a pattern)."""
    if isinstance(names, Names):
        return names.quoted(what)
    if len(names) == 1:
        return f"{what} {names[0]!r}"
    return f"any of the {what}s " + ", ".join(repr(n) for n in names)


def listed(names: Iterable[str] | Names) -> str:
    """``'a', 'b'``, or ``none`` (patterns as written)."""
    if isinstance(names, Names):
        return names.listed()
    items = list(names)
    return ", ".join(repr(n) for n in items) if items else "none"


def first_of(items: Iterable[str], limit: int = 10) -> str:
    """The first ``limit`` items, comma-separated, and how many more there are (a message names a few,
    not 100,000: the items after them are only counted, never described)."""
    kept: list[str] = []
    more = 0
    for item in items:
        if len(kept) < limit:
            kept.append(item)
        else:
            more += 1
    return ", ".join(kept) + (f", ... ({more} more)" if more else "")


def name_counts(counter: Counter[str]) -> str:
    """``'a' ×2, 'b'``, or ``no tool``."""
    if not counter:
        return "no tool"
    return ", ".join(f"{n!r} ×{c}" if c > 1 else repr(n) for n, c in sorted(counter.items()))
