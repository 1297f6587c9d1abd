"""The arguments of the tool checks: tool names, ``(name, arguments)`` items, argument requirements
(mapping, matcher object or callable), and the small texts the messages are made of."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..._model.records import ToolExecution
from ..describe import as_python
from ..matching import argument_mismatches, has_own_eq
from ..names import NamePattern, pattern_of

__all__ = [
    "argument_mismatches",
    "arguments_kind",
    "error_text",
    "expectations",
    "fits",
    "label",
    "none_successful",
    "run_requirements",
    "success",
]

#: a mapping of expected arguments, a matcher object, or a callable that raises AssertionError
ArgumentsCheck = Any
Expectation = Any  # a name (or pattern), or a (name, arguments) pair


def _is_name(value: Any) -> bool:
    return (isinstance(value, str) and bool(value)) or isinstance(value, NamePattern | re.Pattern)


def expectations(items: Sequence[Any], check: str) -> list[tuple[NamePattern, ArgumentsCheck | None]]:
    """Tool names (or patterns, see ``names``) and ``(name, arguments)`` pairs; TypeError otherwise."""
    out: list[tuple[NamePattern, ArgumentsCheck | None]] = []
    for item in items:
        if _is_name(item):
            out.append((pattern_of(item, "tool", check), None))
        elif isinstance(item, tuple) and len(item) == 2 and _is_name(item[0]):
            arguments_kind(item[1])
            out.append((pattern_of(item[0], "tool", check), item[1]))
        else:
            raise TypeError(f"{check} takes tool names, or (tool name, arguments) pairs, got {item!r}")
    return out


def arguments_kind(expected: Any) -> str:
    if isinstance(expected, Mapping):
        return "mapping"
    if has_own_eq(expected):
        return "matcher"
    if callable(expected):
        return "callable"
    raise TypeError(
        "arguments must be a mapping of expected arguments, a matcher object, or a callable that "
        f"raises AssertionError when the arguments are wrong; got {expected!r}"
    )


def run_requirements(fn: Callable[[dict[str, Any]], Any], tool: ToolExecution) -> str | None:
    """None when ``fn`` accepts the arguments of ``tool``; else why not. Other exceptions propagate."""
    __tracebackhide__ = True
    try:
        result = fn(copy.deepcopy(tool.arguments))
    except AssertionError as err:
        text = str(err).strip().splitlines()
        return f"{type(err).__name__}: {text[0] if text else '(no message)'}"
    if result is False:
        return "returned False"
    return None


def fits(expected: ArgumentsCheck | None, tool: ToolExecution) -> bool:
    __tracebackhide__ = True
    if expected is None:
        return True
    if arguments_kind(expected) == "callable":
        return run_requirements(expected, tool) is None
    return not argument_mismatches(expected, tool.arguments)


def label(name: NamePattern | str, expected: ArgumentsCheck | None) -> str:
    if expected is None:
        return repr(name)
    return f"({name!r}, {as_python(expected)})"


def error_text(tool: ToolExecution) -> str:
    """``type: message`` of a failed execution's error (what the producer recorded of it)."""
    err = tool.error
    if err is None:
        return ""
    return ": ".join(part for part in (err.type, err.message) if part)


def none_successful(tools: Iterable[ToolExecution], requested: int = 0, unknown: int = 0) -> str:
    """What was found instead of a successful execution (``requested``: calls of the tool the model
    asked for that never ran; ``unknown``: those whose execution and result the trace does not record)."""
    items = list(tools)
    if not items:
        if unknown:
            never = f"; {requested} more never executed" if requested else ""
            return (
                f"it was requested by the model ({unknown} request(s)) with no execution recorded: this "
                f"trace records neither its execution nor its result{never}"
            )
        if requested:
            return f"it was requested by the model but never executed ({requested} request(s))"
        return "it was not executed"
    failed = sum(1 for t in items if t.failed is True)
    unknown = len(items) - failed
    parts = []
    if failed:
        parts.append(f"{failed} failed (checked with has_tool_execution_failed)")
    if unknown:
        parts.append(f"{unknown} whose outcome the producer did not record")
    return f"{len(items)} execution(s), none successful: " + ", ".join(parts)


def success(tool: ToolExecution) -> str:
    return {True: "failed", False: "succeeded", None: "outcome not recorded"}[tool.failed]
