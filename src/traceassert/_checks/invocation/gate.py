"""The gate every invocation check passes first, and the records in its scope.

Which invocations: after ``called_agent``, the selected invocations; after a span selector
(``where``, ``has_scope``, ...), the outermost invocations with a span in the selection; else the
top-level invocations of the trace (``Trace.agents``, which may hold an implicit invocation for work done
outside any agent span). Tool, model-call and source checks add up over them.

``gate`` fails when there is nothing to check (no invocation), on a cancelled invocation, on a failure no
``has_failed*`` check acknowledged, and, for checks of records in scope, on nested invocations without a
nesting choice. Inside ``soft()`` it ends the check by raising ``Closed``, which ``invocation_check``
turns into the check's return value: no check repeats the gate's bookkeeping.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..._model.records import AgentInvocation, ModelCall, Retrieval, ToolExecution
from ..describe import first_of
from ..examined import note_candidates, note_excluded
from ..fail import fail
from ..selection import Selection
from .records import WHO_LISTED, execution_key, has_ancestor_in, is_chat, merge_records, tool_lines, who

if TYPE_CHECKING:
    from ..._trace import Trace

__all__ = [
    "Closed",
    "acknowledge",
    "all_execution_keys",
    "fail_on",
    "gate",
    "invocation_check",
    "is_marked",
    "listing",
    "mark",
    "model_calls_of",
    "own_chat_calls",
    "principal",
    "retrievals_of",
    "scope_text",
    "targets_of",
    "tools_of",
    "walk",
    "whole_trace",
]

C = TypeVar("C", bound=Callable[..., Selection])


class Closed(Exception):
    """The gate failed inside ``soft()``: the check ends here (``invocation_check`` catches it)."""


def invocation_check(check: C) -> C:
    """Run an invocation check; when its gate failed inside ``soft()``, return the selection it was
    given (the failure is recorded)."""

    @functools.wraps(check)
    def run(sel: Selection, *args: object, **kwargs: object) -> Selection:
        __tracebackhide__ = True
        try:
            return check(sel, *args, **kwargs)
        except Closed:
            return sel

    return run  # type: ignore[return-value]


def targets_of(sel: Selection) -> list[AgentInvocation]:
    if sel.kind == "tools":
        raise TypeError(
            "invocation checks work on agent invocations, not on the tool executions selected by "
            "called_tool(...): call them on the asserter itself or after called_agent(...)"
        )
    targets = _targets(sel)
    note_candidates(targets)  # the invocations the check examines
    return targets


def _targets(sel: Selection) -> list[AgentInvocation]:
    if sel.agents is not None:
        return list(sel.agents)
    trace = sel.trace
    positions = sel.selected_positions()
    if positions is None:
        return list(trace.agents)
    pos = frozenset(positions)
    chosen = [
        inv
        for inv in trace.all_agents()
        if any(trace.contains(s) and trace._position_of(s) in pos for s in inv.spans)
    ]
    ids = {id(inv) for inv in chosen}
    return [inv for inv in chosen if not has_ancestor_in(inv, ids)]


def principal(targets: Sequence[AgentInvocation]) -> list[AgentInvocation]:
    """The targets whose outcome counts: the real agents, or the implicit one when there is none."""
    real = [t for t in targets if not t.implicit]
    return real or list(targets)


def scope_text(sel: Selection, targets: Sequence[AgentInvocation]) -> str:
    parts = []
    for inv in targets:
        label = "work outside any agent" if inv.implicit else f"agent {inv.name!r}"
        text = f"{label} [{inv.status}]"
        nested = [n.name for n in inv.walk() if n is not inv]
        if nested:
            more = f", ... ({len(nested) - 10} more)" if len(nested) > 10 else ""
            text += f", nested: {', '.join(repr(n) for n in nested[:10])}{more}"
        parts.append(text)
    choice = {None: "", "nested": " (including nested)", "top": " (top level only)"}[sel.nested]
    if len(parts) > WHO_LISTED:  # many invocations: each description once, with its count
        counts: dict[str, int] = {}
        for part in parts:
            counts[part] = counts.get(part, 0) + 1
        parts = [part if n == 1 else f"{n} x {part}" for part, n in counts.items()]
        if len(parts) > WHO_LISTED:
            parts = [*parts[:WHO_LISTED], f"... {len(parts) - WHO_LISTED} more"]
    return f"invocation(s) checked{choice}: " + "; ".join(parts)


def gate(
    sel: Selection,
    check: str,
    message: str | None,
    *,
    scoped: bool,
    gated: bool = True,
) -> list[AgentInvocation]:
    """The target invocations. Fails when there is none, on a cancelled invocation, on an
    unacknowledged failure (``gated``) or, for ``scoped`` checks, on nested invocations without a
    choice; inside ``soft()`` the failure is recorded and ``Closed`` ends the check."""
    __tracebackhide__ = True
    targets = targets_of(sel)
    if not targets:
        trace = sel.trace
        fail(
            sel,
            check,
            f"expected an agent invocation to check, found none in {sel.describe()} "
            f"({len(trace.spans)} span(s); is the instrumentation on?)",
            message=message,
        )
        raise Closed
    head = f"{check} on {who(targets)}"
    counted = principal(targets)
    cancelled = [t for t in counted if t.status == "cancelled"]
    if cancelled:
        fail(
            sel,
            head,
            f"{who(cancelled)} was cancelled: every invocation check fails on a cancelled invocation",
            message=message,
            details=scope_text(sel, targets),
            about=cancelled,
        )
        raise Closed
    if gated:
        acknowledged = sel.trace.ledger.acknowledged
        failed = [t for t in counted if t.status == "failed" and t.span.key not in acknowledged]
        if failed:
            errors = "; ".join(f"{t.name}: {_error_text(t)}" for t in failed)
            fail(
                sel,
                head,
                f"{who(failed)} failed ({errors}). Check the failure first with has_failed_with(...), "
                "has_failed_with_message_containing(...) or has_failed(); after that, the checks look at "
                "what happened before the failure",
                message=message,
                details=scope_text(sel, targets),
                about=failed,
            )
            raise Closed
    if scoped and sel.nested is None:
        parents = [t for t in targets if t.nested]
        if parents:
            nested = first_of(repr(n.name) for t in parents for n in t.walk() if n is not t)
            fail(
                sel,
                head,
                f"{who(parents)} started nested agent invocation(s) ({nested}): say what to check "
                "first, including_nested() for the whole tree (their tool executions, model calls and "
                "sources add up) or top_level_only() for what the invocation did itself",
                message=message,
                details=scope_text(sel, targets),
            )
            raise Closed
    return targets


def _error_text(inv: AgentInvocation) -> str:
    return str(inv.error) if inv.error is not None else "no error details recorded"


def fail_on(
    sel: Selection,
    check: str,
    targets: Sequence[AgentInvocation],
    problem: str,
    *,
    message: str | None,
    more: str = "",
    about: Sequence[Any] | None = None,
) -> None:
    """The failure of an invocation check: ``check on <the invocations>``, the problem, the invocations
    checked and ``more`` (the records the check looked at); it is about ``about`` (the records at
    fault), else the invocations checked."""
    __tracebackhide__ = True
    details = scope_text(sel, targets) + more
    fail(sel, f"{check} on {who(targets)}", problem, message=message, details=details, about=about or targets)


def listing(sel: Selection, title: str, tools: Sequence[ToolExecution]) -> str:
    """``title`` and the executions, unless they are every execution of the trace (which every
    failure message lists anyway)."""
    if list(tools) == list(sel.trace.tool_executions):
        return ""
    return f"\n{title} ({len(tools)}):\n{tool_lines(tools)}"


def walk(sel: Selection, targets: Sequence[AgentInvocation]) -> list[list[AgentInvocation]]:
    if sel.nested == "nested":
        return [list(t.walk()) for t in targets]
    return [[t] for t in targets]


def tools_of(sel: Selection, targets: Sequence[AgentInvocation]) -> list[ToolExecution]:
    """Tool executions in scope (failed ones too), each invocation's in its own order; handed to the
    running check (``examined``), with those ``top_level_only()`` left out."""
    tools = merge_records(inv.tool_executions for group in walk(sel, targets) for inv in group)
    note_candidates(tools)
    if sel.nested == "top":
        nested = (sub for inv in targets for sub in inv.walk() if sub is not inv)
        note_excluded(t for sub in nested for t in sub.tool_executions)
    return tools


def model_calls_of(sel: Selection, targets: Sequence[AgentInvocation]) -> list[ModelCall]:
    """Model calls in scope; handed to the running check (``examined``)."""
    calls = merge_records(inv.model_calls for group in walk(sel, targets) for inv in group)
    note_candidates(calls)
    return calls


def retrievals_of(sel: Selection, targets: Sequence[AgentInvocation]) -> list[Retrieval]:
    return merge_records(inv.retrievals for group in walk(sel, targets) for inv in group)


def own_chat_calls(sel: Selection, targets: Sequence[AgentInvocation]) -> list[ModelCall]:
    """The chat calls each invocation in scope made itself (failed ones too)."""
    return [c for c in model_calls_of(sel, targets) if is_chat(c)]


def mark(sel: Selection, tools: Iterable[ToolExecution]) -> None:
    trace = sel.trace
    trace.ledger.unmarked(all_execution_keys(trace))  # from now on the ledger counts this trace's marks
    trace.ledger.mark(execution_key(t) for t in tools)


def all_execution_keys(trace: Trace) -> frozenset[tuple[str, ...]]:
    """The keys of every tool execution of ``trace`` (made once per trace)."""
    keys: frozenset[tuple[str, ...]] | None = trace.memo.get("execution_keys")
    if keys is None:
        keys = trace.memo["execution_keys"] = frozenset(execution_key(t) for t in trace.tool_executions)
    return keys


def whole_trace(sel: Selection, targets: Sequence[AgentInvocation]) -> bool:
    """Whether the scope of ``targets`` (as `tools_of` walks it) is every record of the trace: the
    top-level invocations themselves, with their nested ones (or none nested)."""
    agents = sel.trace.agents
    if len(targets) != len(agents) or any(a is not b for a, b in zip(targets, agents, strict=True)):
        return False
    return sel.nested == "nested" or not any(t.nested for t in targets)


def is_marked(sel: Selection, tool: ToolExecution) -> bool:
    return execution_key(tool) in sel.trace.ledger.marked


def acknowledge(sel: Selection, targets: Iterable[AgentInvocation]) -> None:
    sel.trace.ledger.acknowledged.update(t.span.key for t in targets)
