"""What every invocation check shares: which invocations it looks at, the nested-invocation choice,
failure gating, the records in scope, the marks of ``has_no_more_tool_executions``, and messages.

Which invocations: after ``called_agent``, the selected invocations; after a span selector
(``where``, ``has_scope``, ...), the outermost invocations with a span in the selection; else the
top-level invocations of the trace (``Trace.agents``, which may hold an implicit invocation for work done
outside any agent span). Tool, model-call and source checks add up over them.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from .._common.redact import shown
from .._errors import TraceAssertionError
from .._model.records import AgentInvocation, Handoff, ModelCall, Retrieval, ToolExecution
from .._render import describe_tool
from .selection import SOFT_COLLECTOR, SelectionBase

__all__ = ["InvocationBase", "execution_key", "first_of", "merge_records", "tool_lines"]

R = TypeVar("R", ToolExecution, ModelCall, Retrieval, Handoff)


def execution_key(tool: ToolExecution) -> tuple[str, ...]:
    """A key for ``tool`` that is the same in every Trace built from the same spans."""
    span = tool.span
    trace_id, span_id = (span.trace_id, span.span_id) if span is not None else ("", "")
    if tool.failed is None or span is None:
        # known from the model's request only: several may share the model call's span
        order = "" if tool.request_order is None else f"{tool.request_order[0]}.{tool.request_order[1]}"
        return (trace_id, span_id, tool.name, tool.call_id or "", order)
    return (trace_id, span_id, tool.name)


def tool_lines(
    tools: Sequence[ToolExecution], *, limit: int = 30, numbers: Sequence[int] | None = None
) -> str:
    """One line per execution: number, call, result or error, agent, succeeded/failed."""
    if not tools:
        return "  (none)"
    lines = []
    for i, tool in enumerate(tools[:limit]):
        n = numbers[i] if numbers is not None else i + 1
        agent = tool.agent.name if tool.agent is not None and not tool.agent.implicit else "-"
        lines.append(f"  {n}. {describe_tool(tool, 80)} [agent {agent}]")
    if len(tools) > limit:
        lines.append(f"  ... and {len(tools) - limit} more")
    return "\n".join(lines)


def first_of(items: Iterable[str], limit: int = 10) -> str:
    """The first ``limit`` items, comma-separated, and how many more there are (a message names a few,
    not 100,000: the items after them are only counted, never described)."""
    shown: list[str] = []
    more = 0
    for item in items:
        if len(shown) < limit:
            shown.append(item)
        else:
            more += 1
    return ", ".join(shown) + (f", ... ({more} more)" if more else "")


def who(targets: Sequence[AgentInvocation]) -> str:
    """``agent 'x'`` / ``agents 'x', 'y'`` / ``the work outside any agent``."""
    if len(targets) == 1:
        inv = targets[0]
        return "the work outside any agent" if inv.implicit else f"agent {inv.name!r}"
    names = ", ".join("(outside any agent)" if t.implicit else repr(t.name) for t in targets)
    return f"{len(targets)} invocations: {names}"


def _error_text(inv: AgentInvocation) -> str:
    return str(inv.error) if inv.error is not None else "no error details recorded"


def merge_records(lists: Iterable[Sequence[R]]) -> list[R]:
    """Each list keeps its own order (the order parallel calls were listed in); lists merge by start.

    Linear when every list is in start order (the usual case): a stable sort of the lists one after
    the other gives the same order as the merge, faster."""
    groups = [g for g in lists if g]
    merged: Iterable[R]
    if len(groups) == 1:
        merged = groups[0]
    elif all(_in_start_order(g) for g in groups):
        merged = sorted((r for g in groups for r in g), key=_start)
    else:
        merged = heapq.merge(*groups, key=_start)
    seen: set[int] = set()
    out: list[R] = []
    for rec in merged:
        if id(rec) not in seen:
            seen.add(id(rec))
            out.append(rec)
    return out


def _start(rec: ToolExecution | ModelCall | Retrieval | Handoff) -> int:
    return rec.start_ns


def _in_start_order(records: Sequence[R]) -> bool:
    starts = [r.start_ns for r in records]
    return all(a <= b for a, b in itertools.pairwise(starts))


class InvocationBase(SelectionBase):
    """Helpers of the invocation checks (names start with ``_inv`` to stay clear of other mixins)."""

    __slots__ = ()

    # -- which invocations ---------------------------------------------------------------------------

    def _inv_targets(self) -> list[AgentInvocation]:
        if self._kind == "tools":
            raise TypeError(
                "invocation checks work on agent invocations, not on the tool executions selected by "
                "called_tool(...): call them on the asserter itself or after called_agent(...)"
            )
        if self._agents is not None:
            return list(self._agents)
        trace = self.trace
        positions = self._selected_positions()
        if positions is None:
            return list(trace.agents)
        pos = frozenset(positions)
        chosen = [
            inv
            for inv in trace.all_agents()
            if any(trace.contains(s) and trace._position_of(s) in pos for s in inv.spans)
        ]
        ids = {id(inv) for inv in chosen}
        return [inv for inv in chosen if not _has_ancestor_in(inv, ids)]

    @staticmethod
    def _inv_principal(targets: Sequence[AgentInvocation]) -> list[AgentInvocation]:
        """The targets whose outcome counts: the real agents, or the implicit one when there is none."""
        real = [t for t in targets if not t.implicit]
        return real or list(targets)

    def _inv_scope_text(self, targets: Sequence[AgentInvocation]) -> str:
        parts = []
        for inv in targets:
            label = "work outside any agent" if inv.implicit else f"agent {inv.name!r}"
            text = f"{label} [{inv.status}]"
            nested = [n.name for n in inv.walk() if n is not inv]
            if nested:
                more = f", ... ({len(nested) - 10} more)" if len(nested) > 10 else ""
                text += f", nested: {', '.join(repr(n) for n in nested[:10])}{more}"
            parts.append(text)
        choice = {None: "", "nested": " (including nested)", "top": " (top level only)"}[self._nested]
        return f"invocation(s) checked{choice}: " + "; ".join(parts)

    # -- the start of every check ----------------------------------------------------------------------

    def _inv_begin(
        self,
        check: str,
        message: str | None,
        *,
        scoped: bool,
        gated: bool = True,
    ) -> list[AgentInvocation] | None:
        """The target invocations, or None after failing (no invocation, cancelled, unacknowledged
        failure, or, for ``scoped`` checks, nested invocations without a choice)."""
        __tracebackhide__ = True
        targets = self._inv_targets()
        if not targets:
            trace = self.trace
            self._fail(
                check,
                f"expected an agent invocation to check, found none in {self._describe_selection()} "
                f"({len(trace.spans)} span(s); is the instrumentation on?)",
                message=message,
            )
            return None
        head = f"{check} on {who(targets)}"
        principal = self._inv_principal(targets)
        cancelled = [t for t in principal if t.status == "cancelled"]
        if cancelled:
            self._fail(
                head,
                f"{who(cancelled)} was cancelled: every invocation check fails on a cancelled invocation",
                message=message,
                details=self._inv_scope_text(targets),
            )
            return None
        if gated:
            acknowledged = self.trace.ledger.acknowledged
            failed = [t for t in principal if t.status == "failed" and t.span.key not in acknowledged]
            if failed:
                errors = "; ".join(f"{t.name}: {_error_text(t)}" for t in failed)
                self._fail(
                    head,
                    f"{who(failed)} failed ({errors}). Check the failure first with has_failed_with(...), "
                    "has_failed_with_message_containing(...) or has_failed(); after that, the checks look at "
                    "what happened before the failure",
                    message=message,
                    details=self._inv_scope_text(targets),
                )
                return None
        if scoped and self._nested is None:
            parents = [t for t in targets if t.nested]
            if parents:
                nested = first_of(repr(n.name) for t in parents for n in t.walk() if n is not t)
                self._fail(
                    head,
                    f"{who(parents)} started nested agent invocation(s) ({nested}): say what to check "
                    "first, including_nested() for the whole tree (their tool executions, model calls and "
                    "sources add up) or top_level_only() for what the invocation did itself",
                    message=message,
                    details=self._inv_scope_text(targets),
                )
                return None
        return targets

    def _inv_raise(self, check: str, problem: str, details: str = "") -> None:
        """Fail even inside ``soft()``: for accessors, which have no value to return on failure."""
        __tracebackhide__ = True
        token = SOFT_COLLECTOR.set(None)
        try:
            self._fail(check, problem, details=details)
        finally:
            SOFT_COLLECTOR.reset(token)
        raise TraceAssertionError(f"{check}: {problem}")  # pragma: no cover - _fail raised

    def _inv_listing(self, title: str, tools: Sequence[ToolExecution]) -> str:
        """``title`` and the executions, unless they are every execution of the trace (which every
        failure message lists anyway)."""
        if list(tools) == list(self.trace.tool_executions):
            return ""
        return f"\n{title} ({len(tools)}):\n{tool_lines(tools)}"

    # -- records in scope ------------------------------------------------------------------------------

    def _inv_walk(self, targets: Sequence[AgentInvocation]) -> list[list[AgentInvocation]]:
        if self._nested == "nested":
            return [list(t.walk()) for t in targets]
        return [[t] for t in targets]

    def _inv_tools(self, targets: Sequence[AgentInvocation]) -> list[ToolExecution]:
        """Tool executions in scope (failed ones too), each invocation's in its own order."""
        return merge_records(inv.tool_executions for group in self._inv_walk(targets) for inv in group)

    def _inv_model_calls(self, targets: Sequence[AgentInvocation]) -> list[ModelCall]:
        return merge_records(inv.model_calls for group in self._inv_walk(targets) for inv in group)

    def _inv_retrievals(self, targets: Sequence[AgentInvocation]) -> list[Retrieval]:
        return merge_records(inv.retrievals for group in self._inv_walk(targets) for inv in group)

    def _inv_own_chat_calls(self, targets: Sequence[AgentInvocation]) -> list[ModelCall]:
        """The chat calls each invocation in scope made itself (failed ones too)."""
        return [c for c in self._inv_model_calls(targets) if is_chat(c)]

    # -- marks (has_no_more_tool_executions) and acknowledgements --------------------------------------

    def _inv_mark(self, tools: Iterable[ToolExecution]) -> None:
        self.trace.ledger.marked.update(execution_key(t) for t in tools)

    def _inv_is_marked(self, tool: ToolExecution) -> bool:
        return execution_key(tool) in self.trace.ledger.marked

    def _inv_acknowledge(self, targets: Iterable[AgentInvocation]) -> None:
        self.trace.ledger.acknowledged.update(t.span.key for t in targets)


#: model-call operations that are the agent's own chat model (None: not recorded, most likely chat)
CHAT_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "completion", "generate"})


def is_chat(call: ModelCall) -> bool:
    return call.operation is None or call.operation in CHAT_OPERATIONS


def _has_ancestor_in(inv: AgentInvocation, ids: set[int]) -> bool:
    p = inv.parent
    while p is not None:
        if id(p) in ids:
            return True
        p = p.parent
    return False


def describe_value(value: Any) -> str:
    """A value the check was given, for its first line: values under secret-looking keys and
    secret-looking text redacted as the trace's values are (the line is read next to them)."""
    text = repr(shown(value))
    return text if len(text) <= 100 else text[:99] + "…"
