"""Monocle-style tool checks: ``called_tool`` (a selector), ``called_any_tool``, ``does_not_call_tool``,
``does_not_call_any_tool`` and the aggregate ``called_tools``.

They count the tool executions inside the selection (see ``records_scope``), nested agents' included
unless ``top_level_only()`` was called. When nested agents' calls decide the answer, the failure says so
and names the fix.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .._model.records import ToolExecution
from .nesting import NOTE, nested_records_text, own_hint
from .records_scope import RecordScope, Scoped, agent_arg, check_call, names_arg, over_bound, quoted
from .selection import check_counts, count_ok, count_text

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["ToolCallChecks", "listed"]


def listed(names: Iterable[str]) -> str:
    items = list(names)
    return ", ".join(repr(n) for n in items) if items else "none"


def _by(agent_name: str | None) -> str:
    return f" by agent {agent_name!r}" if agent_name else ""


def _made_by(tool: ToolExecution, agent_name: str | None) -> bool:
    return agent_name is None or (tool.agent is not None and tool.agent.name == agent_name)


class ToolCallChecks(RecordScope):
    __slots__ = ()

    def called_tool(
        self,
        tool_name: str | Sequence[str],
        agent_name: str | None = None,
        *,
        count: int | None = None,
        min_count: int | None = None,
        max_count: int | None = None,
        message: str | None = None,
    ) -> Self:
        """Narrow to the executions of ``tool_name`` (one name, or a list: any of them) inside the
        selection, by ``agent_name`` when given; fail when their number is not as asked (default: at
        least one). Failed executions count: the tool was called. Nested agents' calls count unless
        ``top_level_only()`` was called."""
        __tracebackhide__ = True
        names = names_arg(tool_name, "tool", "called_tool")
        agent_arg(agent_name, "called_tool")
        check_counts(count, min_count, max_count)
        return self._called_tools_named(
            "called_tool", tool_name, names, agent_name, count, min_count, max_count, message
        )

    def called_any_tool(
        self,
        tool_names: Sequence[str],
        agent_name: str | None = None,
        *,
        count: int | None = None,
        min_count: int | None = None,
        max_count: int | None = None,
        message: str | None = None,
    ) -> Self:
        """``called_tool`` with several names: the calls of any of ``tool_names`` add up."""
        __tracebackhide__ = True
        names = names_arg(tool_names, "tool", "called_any_tool")
        agent_arg(agent_name, "called_any_tool")
        check_counts(count, min_count, max_count)
        return self._called_tools_named(
            "called_any_tool", tool_names, names, agent_name, count, min_count, max_count, message
        )

    def _called_tools_named(
        self,
        check: str,
        given: Any,
        names: tuple[str, ...],
        agent_name: str | None,
        count: int | None,
        min_count: int | None,
        max_count: int | None,
        message: str | None,
    ) -> Self:
        __tracebackhide__ = True
        scope = self._tool_scope(names)
        found = (
            [t for t in scope.counted if _made_by(t, agent_name)]
            if agent_name is not None
            else list(scope.counted)
        )
        if count_ok(len(found), count, min_count, max_count):
            spans = tuple([t.span for t in found if t.span is not None])
            return self._derive("tools", None, tools=tuple(found), roots=spans)
        asked = sum(self._unexecuted_requests(n, agent_name) for n in names)
        also = f" ({asked} more requested by the model but never executed)" if asked else ""
        problem = (
            f"expected {count_text(count, min_count, max_count)} call(s) of {quoted(names, 'tool')}"
            f"{_by(agent_name)}, found {len(found)}{also}"
        )
        note = _nesting_note(scope, found, agent_name, over_bound(len(found), count, max_count))
        called = listed(dict.fromkeys(t.name for t in self._tool_scope().counted))
        self._fail(
            check_call(check, given, agent_name, count=count, min_count=min_count, max_count=max_count),
            problem + (f"{NOTE}{note}" if note else ""),
            message=message,
            details=f"tools called in the selection: {called}",
        )
        return self._copy()

    def _unexecuted_requests(self, tool_name: str, agent_name: str | None) -> int:
        """Calls of ``tool_name`` the models in the selection asked for that never ran (not calls)."""
        calls = {id(c) for c in self.selected_model_calls()} if self.narrowed else None
        return sum(
            1
            for r in self.trace.unexecuted_tool_requests
            if r.name == tool_name
            and r.model_call is not None
            and (calls is None or id(r.model_call) in calls)
            and (
                agent_name is None
                or (r.model_call.agent is not None and r.model_call.agent.name == agent_name)
            )
        )

    def does_not_call_tool(
        self, tool_names: str | Sequence[str], agent_name: str | None = None, *, message: str | None = None
    ) -> Self:
        """Fail when any of ``tool_names`` (one name or several) was called inside the selection (by
        ``agent_name`` when given). Nested agents' calls count unless ``top_level_only()`` was called."""
        __tracebackhide__ = True
        names = names_arg(tool_names, "tool", "does_not_call_tool")
        agent_arg(agent_name, "does_not_call_tool")
        return self._no_tool_calls("does_not_call_tool", tool_names, names, agent_name, message)

    def does_not_call_any_tool(
        self, tool_names: Sequence[str], agent_name: str | None = None, *, message: str | None = None
    ) -> Self:
        """Fail when any of ``tool_names`` was called inside the selection (by ``agent_name``)."""
        __tracebackhide__ = True
        names = names_arg(tool_names, "tool", "does_not_call_any_tool")
        agent_arg(agent_name, "does_not_call_any_tool")
        return self._no_tool_calls("does_not_call_any_tool", tool_names, names, agent_name, message)

    def _no_tool_calls(
        self, check: str, given: Any, names: tuple[str, ...], agent_name: str | None, message: str | None
    ) -> Self:
        __tracebackhide__ = True
        scope = self._tool_scope(names)
        found = [t for t in scope.counted if _made_by(t, agent_name)]
        if not found:
            return self
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
            if nested:
                problem += (
                    f"{NOTE}of these, {nested_records_text(nested, scope.principals, 'called')} "
                    f"(top_level_only() leaves nested agents out)"
                )
        self._fail(check_call(check, given, agent_name), problem, message=message)
        return self

    def called_tools(
        self,
        count: int | None = None,
        min_count: int | None = None,
        max_count: int | None = None,
        *,
        message: str | None = None,
    ) -> Self:
        """Count every tool execution inside the selection (any tool, failed ones too); with no bound,
        at least one. Does not narrow."""
        __tracebackhide__ = True
        check_counts(count, min_count, max_count)
        scope = self._tool_scope()
        n = len(scope.counted)
        if not count_ok(n, count, min_count, max_count):
            note = _nesting_note(scope, scope.counted, None, over_bound(n, count, max_count))
            names = listed(dict.fromkeys(t.name for t in scope.counted))
            self._fail(
                check_call("called_tools", count=count, min_count=min_count, max_count=max_count),
                f"expected {count_text(count, min_count, max_count)} tool execution(s) in all, found {n}"
                + (f": {names}" if n else "")
                + (f"{NOTE}{note}" if note else ""),
                message=message,
            )
        return self


def _nesting_note(scope: Scoped, found: list[ToolExecution], agent_name: str | None, too_many: bool) -> str:
    """Why nesting changes the answer, and the fix; empty when it does not."""
    if scope.top and scope.left_out:
        left = [t for t in scope.left_out if _made_by(t, agent_name)] if agent_name else scope.left_out
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
    if agent_name and not found:
        below = [
            t
            for t in scope.counted
            if t.agent is not None and any(a.name == agent_name for a in _ancestors(t.agent))
        ]
        if below:
            return (
                f"{nested_records_text(below, [], 'called')} inside {agent_name!r}; agent_name= counts "
                f"the calls {agent_name!r} made itself: called_agent({agent_name!r}).called_tool(...) finds "
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
