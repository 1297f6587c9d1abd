"""Tool checks on agent invocations (LangChain4j's ``AiServiceInvocationAssert`` semantics).

``has_tool_*`` and ``has_tools_*`` count successful executions only (``failed is False``); failed ones
are checked with ``has_tool_execution_failed`` / ``has_no_failed_tool_executions``. A check that passes
marks the executions it matched, for ``has_no_more_tool_executions``; marks are kept in the Trace's (or
Capture's) ledger, so they add up across asserters.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..._model.records import AgentInvocation, ToolExecution
from ..._render import describe_tool
from ..count import AT_LEAST_ONE, Count
from ..describe import one_name, python_call
from ..fail import fail
from ..names import NameLike, NamePattern, Names
from ..selection import Selection
from ..unknown import ABOVE_BOUND, bound_unknowns, cannot_tell, unknowns_of
from .absence import has_no_failed_tool_executions, has_no_more_tool_executions, has_no_tool_executions
from .args import (
    ArgumentsCheck,
    argument_mismatches,
    arguments_kind,
    error_text,
    none_successful,
    run_requirements,
)
from .gate import (
    fail_on,
    gate,
    invocation_check,
    mark,
    model_calls_of,
    scope_text,
    tools_of,
)
from .records import tool_lines, who

__all__ = [
    "has_no_failed_tool_executions",
    "has_no_more_tool_executions",
    "has_no_tool_executions",
    "has_tool_executed",
    "has_tool_executed_times",
    "has_tool_executed_with",
    "has_tool_execution_failed",
    "tool_context",
]


def tool_context(sel: Selection, name: NamePattern, tools: Sequence[ToolExecution]) -> str:
    mine = [t for t in tools if name.matches(t.name)]
    lines = [f"executions of {name!r} in scope ({len(mine)}):", tool_lines(mine)]
    names = sorted({t.name for t in tools})
    if not mine:
        import difflib  # for a failure message only

        close = difflib.get_close_matches(name.text, names, n=3)
        if close:
            lines.append(f"did you mean: {', '.join(repr(c) for c in close)}?")
    lines.append(f"tools executed in scope: {', '.join(repr(n) for n in names) or 'none'}")
    return "\n".join(lines)


def _inv_unexecuted(sel: Selection, name: NamePattern, targets: Sequence[AgentInvocation]) -> tuple[int, int]:
    """How many calls of ``name`` the models in scope asked for that no execution answers: those
    known not to have run, and those of unknown outcome."""
    calls = model_calls_of(sel, targets)
    asked = [r for c in calls for r in c.requested_tools if name.matches(r.name) and not r.executed]
    unknown = sum(1 for r in asked if r.outcome_unknown)
    return len(asked) - unknown, unknown


@invocation_check
def has_tool_executed(
    sel: Selection, tool_name: NameLike, *, count: Count = AT_LEAST_ONE, message: str | None = None
) -> Selection:
    """The tool was executed successfully as many times as ``count`` says (at least once by default;
    failed executions do not count). Marks its successful executions."""
    __tracebackhide__ = True
    name = one_name(tool_name)
    if count == AT_LEAST_ONE:
        check = python_call("has_tool_executed", tool_name)
    else:
        check = (
            python_call("has_tool_executed", tool_name)[:-1]
            + "".join(f", {k}={v}" for k, v in count.keywords().items() if v is not None)
            + ")"
        )
    return _successful(sel, check, name, count, message)


@invocation_check
def has_tool_executed_times(
    sel: Selection, tool_name: NameLike, times: int, *, message: str | None = None
) -> Selection:
    """The tool was executed successfully exactly ``times`` times (0: never successfully); the same as
    ``has_tool_executed(tool_name, count=times)``. Marks its successful executions."""
    __tracebackhide__ = True
    name = one_name(tool_name)
    if isinstance(times, bool) or not isinstance(times, int):
        raise TypeError(f"times must be an int, got {times!r}")
    if times < 0:
        raise ValueError(f"times must be >= 0, got {times}")
    return _successful(
        sel, python_call("has_tool_executed_times", tool_name, times), name, Count(exact=times), message
    )


def _successful(
    sel: Selection, check: str, name: NamePattern, count: Count, message: str | None
) -> Selection:
    """As many successful executions of ``name`` as ``count`` says; marks them."""
    __tracebackhide__ = True
    targets = gate(sel, check, message, scoped=True)
    tools = tools_of(sel, targets)
    ok = [t for t in tools if name.matches(t.name) and t.failed is False]

    if count == AT_LEAST_ONE and not ok:
        found = none_successful(
            (t for t in tools if name.matches(t.name)), *_inv_unexecuted(sel, name, targets)
        )
        problem = f"expected a successful execution of {name!r}, found {found}"
    elif not count.ok(len(ok)):
        not_ok = sum(1 for t in tools if name.matches(t.name) and t.failed is not False)
        extra = f" (and {not_ok} failed or of unknown outcome, which do not count)" if not_ok else ""
        asked = _inv_unexecuted(sel, name, targets)[1]
        if asked:
            extra += f" ({asked} more requested by the model with no execution recorded)"
        wanted = str(count.exact) if count.exact is not None else count.text
        problem = f"expected {wanted} successful execution(s) of {name!r}, found {len(ok)}{extra}"
    else:
        if count.bounded:
            wanted = str(count.exact) if count.exact is not None else count.text
            # executions that record no outcome may have succeeded: past the bound, cannot tell
            undecided = [t for t in tools if name.matches(t.name) and t.failed is None]
            if undecided and sel.unknown_outcomes != "accept" and count.over(len(ok) + len(undecided)):
                fail_on(
                    sel,
                    check,
                    targets,
                    f"expected {wanted} successful execution(s) of {name!r}, found {len(ok)}, but cannot "
                    f"tell: {len(undecided)} more execution(s) of it record no outcome, and any may have "
                    "succeeded (accepting_unknown_outcomes() accepts them on purpose)",
                    message=message,
                    more="\n" + tool_context(sel, name, tools),
                )
                return sel
            unknown = unknowns_of(sel, model_calls_of(sel, targets), Names([name]))
            if bound_unknowns(count, len(ok), unknown):
                fail_on(
                    sel,
                    check,
                    targets,
                    f"expected {wanted} successful execution(s) of {name!r}, found {len(ok)}, but "
                    + cannot_tell(sel, unknown, ABOVE_BOUND),
                    message=message,
                    more="\n" + tool_context(sel, name, tools),
                )
                return sel
        mark(sel, ok)
        return sel

    fail_on(
        sel,
        check,
        targets,
        problem,
        message=message,
        more="\n" + tool_context(sel, name, tools),
    )
    return sel


@invocation_check
def has_tool_executed_with(
    sel: Selection, tool_name: NameLike, arguments: ArgumentsCheck, *, message: str | None = None
) -> Selection:
    """The tool was executed successfully at least once with matching arguments."""
    __tracebackhide__ = True
    name = one_name(tool_name)
    kind = arguments_kind(arguments)
    check = python_call("has_tool_executed_with", tool_name, arguments)
    targets = gate(sel, check, message, scoped=True)
    tools = tools_of(sel, targets)
    ok = [t for t in tools if name.matches(t.name) and t.failed is False]
    head = f"{check} on {who(targets)}"
    context = scope_text(sel, targets) + "\n" + tool_context(sel, name, tools)
    if not ok:
        found = none_successful(
            (t for t in tools if name.matches(t.name)), *_inv_unexecuted(sel, name, targets)
        )
        fail(
            sel,
            head,
            f"expected a successful execution of {name!r} with matching arguments, found {found}",
            message=message,
            details=context,
        )
        return sel
    reasons: list[list[str]] = []
    for tool in ok:
        if kind == "callable":
            why = run_requirements(arguments, tool)
            reasons.append([] if why is None else [why])
        else:
            reasons.append(argument_mismatches(arguments, tool.arguments))
    passed = [t for t, r in zip(ok, reasons, strict=True) if not r]
    if passed:
        mark(sel, passed)
        return sel
    order = sorted(range(len(ok)), key=lambda i: len(reasons[i]))
    lines = [
        scope_text(sel, targets),
        "closest candidate: " + describe_tool(ok[order[0]], 80),
        *(f"  {r}" for r in reasons[order[0]]),
    ]
    for i in order[1:5]:
        lines.append(f"other candidate: {describe_tool(ok[i], 80)}: " + "; ".join(reasons[i]))
    if len(order) > 5:
        lines.append(f"... and {len(order) - 5} more candidate(s)")
    what = "arguments passing the requirements" if kind == "callable" else "matching arguments"
    fail(
        sel,
        head,
        f"expected a successful execution of {name!r} with {what}, found {len(ok)} successful "
        f"execution(s), none matching",
        message=message,
        details="\n".join(lines) + "\n" + tool_context(sel, name, tools),
    )
    return sel


@invocation_check
def has_tool_execution_failed(
    sel: Selection, tool_name: NameLike, *, error_containing: str | None = None, message: str | None = None
) -> Selection:
    """The check of ``has_tool_execution_failed`` (its docstring on the asserter says what it does)."""
    __tracebackhide__ = True
    name = one_name(tool_name)
    if error_containing is not None and (not isinstance(error_containing, str) or not error_containing):
        raise TypeError(f"error_containing must be a non-empty str, got {error_containing!r}")
    given = () if error_containing is None else (f"error_containing={error_containing!r}",)
    check = f"has_tool_execution_failed({', '.join((name.shown(), *given))})"
    targets = gate(sel, check, message, scoped=True)
    tools = tools_of(sel, targets)
    mine = [t for t in tools if name.matches(t.name)]
    failed = [t for t in mine if t.failed is True]
    hits = [t for t in failed if error_containing is None or error_containing in error_text(t)]
    if hits:
        mark(sel, hits)
        return sel
    unknown = sum(1 for t in mine if t.failed is None)
    if failed:
        errors = "; ".join(repr(error_text(t)) for t in failed[:5])
        found = f"{len(failed)} failed execution(s), none with that text in its error: {errors}"
    elif not mine:
        found = "it was not executed"
    else:
        found = f"{len(mine) - unknown} successful execution(s)"
        if unknown:
            found += f" and {unknown} whose outcome the producer did not record"
    fail_on(
        sel,
        check,
        targets,
        f"expected a failed execution of {name!r}, found {found}",
        message=message,
        more="\n" + tool_context(sel, name, tools),
    )
    return sel
