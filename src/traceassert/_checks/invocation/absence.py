"""Invocation checks that something was not executed: no failed tool execution, no tool execution at
all, and no tool execution left unchecked by the earlier tool checks (``has_no_more_tool_executions``,
like Mockito's ``verifyNoMoreInteractions``: it reads the marks of the Trace's or Capture's ledger).

On a scope that is the whole trace, ``has_no_more_tool_executions`` passes from the ledger's count of
unmarked executions, without walking the executions: only a failing check lists them.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..._model.records import AgentInvocation
from ..._render import describe_tool
from ..describe import first_of
from ..selection import Selection
from ..unknown import cannot_tell, has_unknown_outcomes, unknowns_of
from .gate import (
    all_execution_keys,
    fail_on,
    gate,
    invocation_check,
    listing,
    model_calls_of,
    tools_of,
    whole_trace,
)
from .records import execution_key, tool_lines

__all__ = ["has_no_failed_tool_executions", "has_no_more_tool_executions", "has_no_tool_executions"]


def _cannot_tell(
    sel: Selection,
    check: str,
    targets: Sequence[AgentInvocation],
    found: str,
    could: str,
    message: str | None,
) -> None:
    """Fail with "cannot tell" when a model call in scope asked for a tool whose outcome the trace
    does not record (``found``: what the check found; ``could``: see ``cannot_tell``)."""
    __tracebackhide__ = True
    unknown = unknowns_of(sel, model_calls_of(sel, targets))
    if not unknown:
        return
    fail_on(
        sel,
        check,
        targets,
        f"{found}, but {cannot_tell(sel, unknown, could)}",
        message=message,
    )


@invocation_check
def has_no_failed_tool_executions(
    sel: Selection, *, message: str | None = None, as_called: str = "has_no_failed_tool_executions"
) -> Selection:
    """No tool execution failed. Fails when the producer did not record whether executions failed."""
    __tracebackhide__ = True
    check = f"{as_called}()"
    targets = gate(sel, check, message, scoped=True)
    tools = tools_of(sel, targets)
    failed = [t for t in tools if t.failed is True]
    # an execution the producer did not say the outcome of (a tool message from the conversation, say):
    # cannot tell, unless unknown outcomes are accepted on purpose
    unknown = [] if sel.unknown_outcomes == "accept" else [t for t in tools if t.failed is None]
    if failed or unknown:
        parts = []
        if failed:
            described = first_of(describe_tool(t, 60) for t in failed[:10])
            more = f", ... ({len(failed) - 10} more)" if len(failed) > 10 else ""
            parts.append(f"{len(failed)} failed: {described}{more}")
        if unknown:
            parts.append(
                f"the producer did not record whether {len(unknown)} execution(s) failed: "
                + first_of(repr(t.name) for t in unknown)
                + " (accepting_unknown_outcomes() accepts them on purpose)"
            )
        fail_on(
            sel,
            check,
            targets,
            "expected no failed tool execution, found " + "; ".join(parts),
            message=message,
            more=listing(sel, "executions in scope", tools),
            about=[*failed, *unknown],
        )
    else:
        _cannot_tell(sel, check, targets, "found no failed tool execution", ", and failed", message)
    return sel


@invocation_check
def has_no_tool_executions(
    sel: Selection, *, message: str | None = None, as_called: str = "has_no_tool_executions"
) -> Selection:
    """No tool was executed, not even in an execution that failed."""
    __tracebackhide__ = True
    check = f"{as_called}()"
    targets = gate(sel, check, message, scoped=True)
    tools = tools_of(sel, targets)
    if tools:
        fail_on(
            sel,
            check,
            targets,
            f"expected no tool execution, found {len(tools)}: " + ", ".join(repr(t.name) for t in tools),
            message=message,
            more=listing(sel, "executions in scope", tools),
        )
    else:
        _cannot_tell(sel, check, targets, "found no tool execution", "", message)
    return sel


@invocation_check
def has_no_more_tool_executions(
    sel: Selection, *, message: str | None = None, as_called: str = "has_no_more_tool_executions"
) -> Selection:
    """Every tool execution in scope was matched by an earlier tool check on the same Trace or
    Capture (also through another asserter), like Mockito's ``verifyNoMoreInteractions``."""
    __tracebackhide__ = True
    check = f"{as_called}()"
    targets = gate(sel, check, message, scoped=True)
    trace = sel.trace
    if (
        whole_trace(sel, targets)
        and trace.ledger.unmarked(all_execution_keys(trace)) == 0
        and (sel.unknown_outcomes == "accept" or not has_unknown_outcomes(trace))
    ):
        # every execution of the trace is in scope, the ledger counts none unchecked and no outcome is
        # unknown (else the whole check below says so): passed, whatever the size of the trace
        return sel
    tools = tools_of(sel, targets)
    marked = trace.ledger.marked
    numbered = [(i, t) for i, t in enumerate(tools, 1) if execution_key(t) not in marked]
    if numbered:
        unchecked = [t for _, t in numbered]
        numbers = [i for i, _ in numbered]
        fail_on(
            sel,
            check,
            targets,
            f"expected every tool execution to have been checked before, found {len(unchecked)} of "
            f"{len(tools)} unchecked",
            message=message,
            more="\nunchecked executions:\n"
            + tool_lines(unchecked, numbers=numbers)
            + "\n(executions are checked by has_tool_executed, has_tool_executed_times, "
            "has_tool_executed_with, has_tools_executed_in_order, "
            "has_tools_executed_exactly_in_any_order and, when failed, has_tool_execution_failed)",
        )
    else:
        _cannot_tell(
            sel,
            check,
            targets,
            f"found all {len(tools)} tool execution(s) checked",
            ", unchecked",
            message,
        )
    return sel
