"""Monocle-style tool checks: ``called_tool`` (a selector), ``called_any_tool``, ``does_not_call_tool``,
``does_not_call_any_tool`` and the aggregate ``called_tools``.

They count the tool executions inside the selection (see ``records_scope``), nested agents' included
unless ``top_level_only()`` was called. When nested agents' calls decide the answer, the failure says so
and names the fix.
"""

from __future__ import annotations

from typing import Any

from ..._model.records import ToolExecution, ToolRequest
from ..count import AT_LEAST_ONE, Count
from ..describe import agent_arg, call_text, listed, names_arg, quoted
from ..fail import fail
from ..names import NameLike, NamePattern, Names, NamesLike
from ..nesting import NOTE, nested_records_text, own_hint
from ..records_scope import Scoped, tool_scope
from ..selection import Selection
from ..unknown import ABOVE_BOUND, bound_unknowns, cannot_tell, requested_text, selection_unknowns

__all__ = ["called_any_tool", "called_tool", "called_tools", "does_not_call_any_tool", "does_not_call_tool"]


def _by(agent: NamePattern | None) -> str:
    if agent is None:
        return ""
    return f" by agent {agent.shown()}" if agent.is_name else f" by an agent matching {agent.shown()}"


def _made_by(tool: ToolExecution, agent: NamePattern | None) -> bool:
    return agent is None or (tool.agent is not None and agent.matches(tool.agent.name))


def called_tool(
    sel: Selection,
    tool_name: NamesLike,
    agent_name: NameLike | None = None,
    *,
    count: Count = AT_LEAST_ONE,
    message: str | None = None,
) -> Selection:
    """The check of ``called_tool`` (its docstring on the asserter says what it does)."""
    __tracebackhide__ = True
    names = names_arg(tool_name, "tool", "called_tool")
    agent = agent_arg(agent_name, "called_tool")
    check = call_text("called_tool", tool_name, agent_name, **count.keywords())
    return _called_tools_named(sel, check, names, agent, count, message)


def called_any_tool(
    sel: Selection,
    tool_names: NamesLike,
    agent_name: NameLike | None = None,
    *,
    count: Count = AT_LEAST_ONE,
    message: str | None = None,
) -> Selection:
    """``called_tool`` with several names: the calls of any of ``tool_names`` add up."""
    __tracebackhide__ = True
    names = names_arg(tool_names, "tool", "called_any_tool")
    agent = agent_arg(agent_name, "called_any_tool")
    check = call_text("called_any_tool", tool_names, agent_name, **count.keywords())
    return _called_tools_named(sel, check, names, agent, count, message)


def _called_tools_named(
    sel: Selection,
    check: str,
    names: Names,
    agent: NamePattern | None,
    count: Count,
    message: str | None,
) -> Selection:
    __tracebackhide__ = True
    scope = tool_scope(sel, names)
    found = [t for t in scope.counted if _made_by(t, agent)] if agent is not None else list(scope.counted)
    if count.ok(len(found)):
        unknown = selection_unknowns(sel, names, agent) if count.bounded else []
        if bound_unknowns(count, len(found), unknown):
            fail(
                sel,
                check,
                f"expected {count.text} call(s) of {quoted(names, 'tool')}{_by(agent)}, found "
                f"{len(found)}{names.matched_text(t.name for t in found)}, but "
                + cannot_tell(sel, unknown, ABOVE_BOUND),
                message=message,
            )
            return sel
        spans = tuple([t.span for t in found if t.span is not None])
        return sel.narrow("tools", None, tools=tuple(found), roots=spans)
    also = requested_text(*_unexecuted_requests(sel, names, agent))
    problem = (
        f"expected {count.text} call(s) of {quoted(names, 'tool')}{_by(agent)}, found {len(found)}{also}"
        + names.matched_text(t.name for t in found)
    )
    note = _nesting_note(scope, found, agent, count.over(len(found)))
    called = listed(dict.fromkeys(t.name for t in tool_scope(sel).counted))
    fail(
        sel,
        check,
        problem + (f"{NOTE}{note}" if note else ""),
        message=message,
        details=f"tools called in the selection: {called}",
    )
    return sel


def _made_by_agent(req: ToolRequest, agent_name: NamePattern | None) -> bool:
    agent = req.model_call.agent if req.model_call is not None else None
    return agent_name is None or (agent is not None and agent_name.matches(agent.name))


def _unexecuted_requests(
    sel: Selection, tool_names: Names, agent_name: NamePattern | None
) -> tuple[int, int]:
    """Calls of ``tool_names`` the models in the selection asked for that no execution answers (not
    calls): those known not to have run, and those of unknown outcome."""
    calls = {id(c) for c in sel.selected_model_calls()} if sel.narrowed else None
    never = unknown = 0
    for r in sel.trace.unexecuted_tool_requests:
        if (
            tool_names.matches(r.name)
            and r.model_call is not None
            and (calls is None or id(r.model_call) in calls)
            and _made_by_agent(r, agent_name)
        ):
            if r.outcome_unknown:
                unknown += 1
            else:
                never += 1
    return never, unknown


def does_not_call_tool(
    sel: Selection,
    tool_names: NamesLike,
    agent_name: NameLike | None = None,
    *,
    message: str | None = None,
) -> Selection:
    """Fail when any of ``tool_names`` (one name or several) was called inside the selection (by
    ``agent_name`` when given). Nested agents' calls count unless ``top_level_only()`` was called."""
    __tracebackhide__ = True
    names = names_arg(tool_names, "tool", "does_not_call_tool")
    agent = agent_arg(agent_name, "does_not_call_tool")
    check = call_text("does_not_call_tool", tool_names, agent_name)
    return _no_tool_calls(sel, check, names, agent, message)


def does_not_call_any_tool(
    sel: Selection, tool_names: NamesLike, agent_name: NameLike | None = None, *, message: str | None = None
) -> Selection:
    """Fail when any of ``tool_names`` was called inside the selection (by ``agent_name``)."""
    __tracebackhide__ = True
    names = names_arg(tool_names, "tool", "does_not_call_any_tool")
    agent = agent_arg(agent_name, "does_not_call_any_tool")
    check = call_text("does_not_call_any_tool", tool_names, agent_name)
    return _no_tool_calls(sel, check, names, agent, message)


def _no_tool_calls(
    sel: Selection,
    check: str,
    names: Names,
    agent_name: NamePattern | None,
    message: str | None,
) -> Selection:
    __tracebackhide__ = True
    scope = tool_scope(sel, names)
    found = [t for t in scope.counted if _made_by(t, agent_name)]
    if not found:
        unknown = selection_unknowns(sel, names, agent_name)
        if unknown:
            fail(
                sel,
                check,
                f"expected no call of {listed(names)}{_by(agent_name)}, found none, but "
                + cannot_tell(sel, unknown, ""),
                message=message,
            )
        return sel
    nested_ids = {id(t) for t in scope.nested}
    nested = [t for t in found if id(t) in nested_ids]
    expected = f"expected no call of {listed(names)}{_by(agent_name)}, found {len(found)}: "
    if nested and len(nested) == len(found):
        what = nested_records_text(nested, scope.principals, "called")
        problem = (
            f"{expected}{what}; use top_level_only() or agent_name= to check "
            f"{own_hint(nested, scope.principals)} calls"
        )
    else:
        problem = expected + listed(t.name for t in found)
        if names.has_patterns:
            problem += f" (matching {listed(names)})"
        if nested:
            problem += (
                f"{NOTE}of these, {nested_records_text(nested, scope.principals, 'called')} "
                f"(top_level_only() leaves nested agents out)"
            )
    fail(sel, check, problem, message=message, about=found)
    return sel


def called_tools(sel: Selection, count: Count = AT_LEAST_ONE, *, message: str | None = None) -> Selection:
    """Count every tool execution inside the selection (any tool, failed ones too); with no bound,
    at least one. Does not narrow."""
    __tracebackhide__ = True
    scope = tool_scope(sel)
    n = len(scope.counted)
    if count.ok(n):
        unknown = selection_unknowns(sel) if count.bounded else []
        if bound_unknowns(count, n, unknown):
            fail(
                sel,
                call_text("called_tools", **count.keywords()),
                f"expected {count.text} tool execution(s) in all, found {n}, but "
                + cannot_tell(sel, unknown, ABOVE_BOUND),
                message=message,
            )
    else:
        note = _nesting_note(scope, scope.counted, None, count.over(n))
        names = listed(dict.fromkeys(t.name for t in scope.counted))
        fail(
            sel,
            call_text("called_tools", **count.keywords()),
            f"expected {count.text} tool execution(s) in all, found {n}"
            + (f": {names}" if n else "")
            + (f"{NOTE}{note}" if note else ""),
            message=message,
        )
    return sel


def _nesting_note(
    scope: Scoped, found: list[ToolExecution], agent: NamePattern | None, too_many: bool
) -> str:
    """Why nesting changes the answer, and the fix; empty when it does not."""
    if scope.top and scope.left_out:
        left = [t for t in scope.left_out if _made_by(t, agent)] if agent else scope.left_out
        if left:
            return (
                f"top_level_only() left out: {nested_records_text(left, scope.principals, 'called')} "
                "(without top_level_only(), nested agents' calls count)"
            )
    if too_many and not scope.top:
        nested_ids = {id(t) for t in scope.nested}
        nested = [t for t in found if id(t) in nested_ids]
        if nested:
            return (
                f"of these, {nested_records_text(nested, scope.principals, 'called')}; use top_level_only() "
                f"or agent_name= to count {own_hint(nested, scope.principals)} calls"
            )
    if agent and not found:
        below = [
            t
            for t in scope.counted
            if t.agent is not None and any(agent.matches(a.name) for a in _ancestors(t.agent))
        ]
        if below:
            name = agent.shown()
            return (
                f"{nested_records_text(below, [], 'called')} inside {name}; agent_name= counts "
                f"the calls {name} made itself: called_agent({name}).called_tool(...) finds "
                "calls anywhere inside it"
            )
    return ""


def _ancestors(inv: Any) -> list[Any]:
    out = []
    parent = inv.parent
    while parent is not None:
        out.append(parent)
        parent = parent.parent
    return out
