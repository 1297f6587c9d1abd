"""How a check fails: one builder of the failure (the check as written, the problem, what was looked
at, the tool listing and the tree), raised at once or, inside ``soft()``, collected."""

from __future__ import annotations

import contextvars
from collections.abc import Iterable
from typing import Any

from .._common.gcpause import gc_paused
from .._common.redact import redact_text, redacting, shown
from .._errors import TraceAssertionError
from .._model.span import Span
from .._render import describe_tool, render_lines
from .._trace import Trace
from .messages import KEEP_LISTED, compose, shows_whole_tree
from .selection import Selection

__all__ = ["SOFT_COLLECTOR", "about_ids", "fail", "fail_now"]

#: at most this many span ids name what a failure is about (a check over 1,000 runs names the first)
ABOUT_LIMIT = 20

#: the failures collected by an active ``soft()`` block, or None outside one
SOFT_COLLECTOR: contextvars.ContextVar[list[TraceAssertionError] | None] = contextvars.ContextVar(
    "traceassert_soft", default=None
)


def fail(
    sel: Selection,
    check: str,
    problem: str,
    *,
    message: str | None = None,
    details: str = "",
    about: Iterable[Any] | None = None,
) -> None:
    """Raise (or, inside ``soft()``, record) a TraceAssertionError with the full story: the user's
    ``message``, ``check: problem``, what was checked, ``details``, a hint when nothing was captured,
    spans not ended, the tool listing and the invocation tree.

    ``about``: the records (or spans) the failure is about, most telling first (the failed tool
    executions, say); by default the selection's (`about_ids`). Their span ids are the error's
    ``span_ids``."""
    __tracebackhide__ = True
    trace = sel.trace

    parts: list[str] = []
    if message:
        parts.append(message)
    if redacting():
        # what the checks list of the trace (values, inputs, attributes) is shown like the tree:
        # secrets redacted; the user's own ``message`` is theirs
        problem, details = redact_text(problem), redact_text(details)
    parts.append(f"{check}: {problem}")
    parts.append(f"checked: {sel.describe()}")
    if details:
        parts.append(details.rstrip())

    hint = sel.capture.diagnosis() if sel.capture is not None and not trace.spans else None
    if hint:
        parts.append(f"hint: {hint}")

    open_spans = trace.unfinished
    note = ""
    if open_spans:
        names = ", ".join(repr(shown(s.name)) for s in open_spans[:10])
        note = f"note: {len(open_spans)} span(s) had not ended when checked: {names}"

    notes = [note] if note else []

    def head(limit: int | None) -> list[str]:
        return [*parts, _tool_listing(trace, limit), *notes]

    # each tool execution is listed once: the tree shows them all when it is shown whole (always in the
    # whole text); a short text that shows part of the tree lists the first executions above it
    with gc_paused():  # one small object a record: the collector would walk the heap again and again
        tree = render_lines(trace)
        whole = [*parts, *notes] if trace.tool_executions else head(None)  # "none recorded" is no repeat
        short = whole if shows_whole_tree(whole, tree) else head(KEEP_LISTED)
        err = compose(short, tree, full_head=whole)
    err.span_ids = about_ids(sel, about)

    collector = SOFT_COLLECTOR.get()
    if collector is not None:
        collector.append(err)
        return
    raise err


def fail_now(sel: Selection, check: str, problem: str, details: str = "") -> None:
    """Fail even inside ``soft()``: for accessors, which have no value to return on failure."""
    __tracebackhide__ = True
    token = SOFT_COLLECTOR.set(None)
    try:
        fail(sel, check, problem, details=details)
    finally:
        SOFT_COLLECTOR.reset(token)
    raise TraceAssertionError(f"{check}: {problem}")  # pragma: no cover - fail raised


def about_ids(sel: Selection, about: Iterable[Any] | None = None) -> tuple[str, ...]:
    """The span ids of ``about`` (records or spans; the first `ABOUT_LIMIT`), by default of what the
    selection chose: the tool executions ``called_tool`` chose, else the agent invocations whose work
    was checked (`Selection.principals`: those ``called_agent`` chose, the agents that own the selected
    spans, the top-level agents of the whole trace)."""
    if about is None:
        about = sel.tools if sel.tools is not None else sel.principals()
    ids: list[str] = []
    for item in about:
        span = item if isinstance(item, Span) else getattr(item, "span", None)
        if isinstance(span, Span) and span.span_id not in ids:
            ids.append(span.span_id)
            if len(ids) == ABOUT_LIMIT:
                break
    return tuple(ids)


def _tool_listing(trace: Trace, limit: int | None = None) -> str:
    """Every tool execution, one a line; after ``limit`` of them, the rest as a count."""
    tools = trace.tool_executions
    if not tools:
        return "tool executions: none recorded"

    lines = [f"tool executions ({len(tools)}):"]
    for i, tool in enumerate(tools[:limit], 1):
        agent = f" [agent {tool.agent.name}]" if tool.agent is not None and not tool.agent.implicit else ""
        lines.append(f"  {i}. {describe_tool(tool)}{agent}")
    if limit is not None and len(tools) > limit:
        lines.append(f"  ... {len(tools) - limit} more")
    return "\n".join(lines)
