"""Monocle-style agent checks: ``called_agent`` (a selector), ``called_any_agent``,
``does_not_call_agent``, ``does_not_call_any_agent`` and the aggregate ``called_agents``.

They count the agent invocations inside the selection (see ``records_scope``): after
``called_agent(A)``, A itself and every invocation below it; nested invocations count unless
``top_level_only()`` was called, which keeps the selection's principal invocations only.
"""

from __future__ import annotations

from typing import Any

from ..._model.records import AgentInvocation
from ..count import AT_LEAST_ONE, Count
from ..describe import call_text, listed, names_arg, quoted
from ..fail import fail
from ..names import Names, NamesLike
from ..nesting import NOTE, nested_agents_text
from ..records_scope import Scoped, agent_scope
from ..selection import Selection

__all__ = [
    "called_agent",
    "called_agents",
    "called_any_agent",
    "does_not_call_agent",
    "does_not_call_any_agent",
]


def called_agent(
    sel: Selection,
    agent_name: NamesLike,
    *,
    count: Count = AT_LEAST_ONE,
    message: str | None = None,
) -> Selection:
    """The check of ``called_agent`` (its docstring on the asserter says what it does)."""
    __tracebackhide__ = True
    names = names_arg(agent_name, "agent", "called_agent")
    return _called_agents_named(sel, "called_agent", agent_name, names, count, message)


def called_any_agent(
    sel: Selection,
    agent_names: NamesLike,
    *,
    count: Count = AT_LEAST_ONE,
    message: str | None = None,
) -> Selection:
    """``called_agent`` with several names: the invocations of any of ``agent_names`` add up."""
    __tracebackhide__ = True
    names = names_arg(agent_names, "agent", "called_any_agent")
    return _called_agents_named(sel, "called_any_agent", agent_names, names, count, message)


def _called_agents_named(
    sel: Selection,
    check: str,
    given: Any,
    names: Names,
    count: Count,
    message: str | None,
) -> Selection:
    __tracebackhide__ = True
    scope = agent_scope(sel)
    wanted = names
    found = [a for a in scope.counted if wanted.matches(a.name)]
    if count.ok(len(found)):
        spans = tuple(s for a in found for s in a.spans)
        return sel.narrow("agents", None, agents=tuple(found), roots=spans)
    note = _agent_note(scope, found, wanted, count.over(len(found)))
    fail(
        sel,
        call_text(check, given, **count.keywords()),
        f"expected {count.text} invocation(s) of {quoted(names, 'agent')}, "
        f"found {len(found)}{names.matched_text(a.name for a in found)}" + (f"{NOTE}{note}" if note else ""),
        message=message,
        details=f"agents in the selection: {listed(a.name for a in scope.counted)}",
    )
    return sel


def does_not_call_agent(sel: Selection, agent_name: NamesLike, *, message: str | None = None) -> Selection:
    """Fail when ``agent_name`` (one name or several) was invoked inside the selection."""
    __tracebackhide__ = True
    names = names_arg(agent_name, "agent", "does_not_call_agent")
    return _no_agent_calls(sel, "does_not_call_agent", agent_name, names, message)


def does_not_call_any_agent(
    sel: Selection, agent_names: NamesLike, *, message: str | None = None
) -> Selection:
    """Fail when any of ``agent_names`` was invoked inside the selection."""
    __tracebackhide__ = True
    names = names_arg(agent_names, "agent", "does_not_call_any_agent")
    return _no_agent_calls(sel, "does_not_call_any_agent", agent_names, names, message)


def _no_agent_calls(sel: Selection, check: str, given: Any, names: Names, message: str | None) -> Selection:
    __tracebackhide__ = True
    scope = agent_scope(sel)
    found = [a for a in scope.counted if names.matches(a.name)]
    if not found:
        return sel
    nested_ids = {id(a) for a in scope.nested}
    nested = [a for a in found if id(a) in nested_ids]
    problem = f"expected no invocation of {quoted(names, 'agent')}, found {len(found)}"
    problem += names.matched_text(a.name for a in found)
    if nested and len(nested) == len(found):
        problem += (
            f": {nested_agents_text(nested, scope.principals)}; use top_level_only() to check only the "
            "selection's top-level invocations"
        )
    elif nested:
        problem += (
            f"{NOTE}of these, {nested_agents_text(nested, scope.principals)} (top_level_only() leaves "
            "nested invocations out)"
        )
    fail(sel, call_text(check, given), problem, message=message, about=found)
    return sel


def called_agents(
    sel: Selection,
    count: Count = AT_LEAST_ONE,
    *,
    message: str | None = None,
) -> Selection:
    """Count every agent invocation inside the selection (nested ones included unless
    ``top_level_only()``); with no bound, at least one. Does not narrow."""
    __tracebackhide__ = True
    scope = agent_scope(sel)
    n = len(scope.counted)
    if not count.ok(n):
        note = _agent_note(scope, scope.counted, None, count.over(n))
        fail(
            sel,
            call_text("called_agents", **count.keywords()),
            f"expected {count.text} agent invocation(s) in all, found {n}"
            + (f": {listed(a.name for a in scope.counted)}" if n else "")
            + (f"{NOTE}{note}" if note else ""),
            message=message,
        )
    return sel


def _agent_note(scope: Scoped, found: list[AgentInvocation], wanted: Names | None, over: bool) -> str:
    if scope.top:
        left = [a for a in scope.left_out if wanted is None or wanted.matches(a.name)]
        if left:
            return (
                f"top_level_only() left out: {nested_agents_text(left, scope.principals)} (without "
                "top_level_only(), nested invocations count)"
            )
        return ""
    if over:
        nested_ids = {id(a) for a in scope.nested}
        nested = [a for a in found if id(a) in nested_ids]
        if nested:
            return (
                f"of these, {nested_agents_text(nested, scope.principals)}; use top_level_only() to count "
                "only the selection's top-level invocations"
            )
    return ""
