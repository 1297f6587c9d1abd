"""Monocle-style agent checks: ``called_agent`` (a selector), ``called_any_agent``,
``does_not_call_agent``, ``does_not_call_any_agent`` and the aggregate ``called_agents``.

They count the agent invocations inside the selection (see ``records_scope``): after
``called_agent(A)``, A itself and every invocation below it; nested invocations count unless
``top_level_only()`` was called, which keeps the selection's principal invocations only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._model.records import AgentInvocation
from .nesting import NOTE, nested_agents_text
from .records_scope import RecordScope, Scoped, check_call, names_arg, over_bound, quoted
from .selection import check_counts, count_ok, count_text
from .tools import listed

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["AgentCallChecks"]


class AgentCallChecks(RecordScope):
    __slots__ = ()

    def called_agent(
        self,
        agent_name: str | Sequence[str],
        *,
        count: int | None = None,
        min_count: int | None = None,
        max_count: int | None = None,
        message: str | None = None,
    ) -> Self:
        """Narrow to the invocations of ``agent_name`` (one name, or a list: any of them) inside the
        selection, with everything below them; fail when their number is not as asked (default: at
        least one). Nested invocations count unless ``top_level_only()`` was called."""
        __tracebackhide__ = True
        names = names_arg(agent_name, "agent", "called_agent")
        check_counts(count, min_count, max_count)
        return self._called_agents_named(
            "called_agent", agent_name, names, count, min_count, max_count, message
        )

    def called_any_agent(
        self,
        agent_names: Sequence[str],
        *,
        count: int | None = None,
        min_count: int | None = None,
        max_count: int | None = None,
        message: str | None = None,
    ) -> Self:
        """``called_agent`` with several names: the invocations of any of ``agent_names`` add up."""
        __tracebackhide__ = True
        names = names_arg(agent_names, "agent", "called_any_agent")
        check_counts(count, min_count, max_count)
        return self._called_agents_named(
            "called_any_agent", agent_names, names, count, min_count, max_count, message
        )

    def _called_agents_named(
        self,
        check: str,
        given: Any,
        names: tuple[str, ...],
        count: int | None,
        min_count: int | None,
        max_count: int | None,
        message: str | None,
    ) -> Self:
        __tracebackhide__ = True
        scope = self._agent_scope()
        wanted = set(names)
        found = [a for a in scope.counted if a.name in wanted]
        if count_ok(len(found), count, min_count, max_count):
            spans = tuple(s for a in found for s in a.spans)
            return self._derive("agents", None, agents=tuple(found), roots=spans)
        note = _agent_note(scope, found, wanted, over_bound(len(found), count, max_count))
        self._fail(
            check_call(check, given, count=count, min_count=min_count, max_count=max_count),
            f"expected {count_text(count, min_count, max_count)} invocation(s) of {quoted(names, 'agent')}, "
            f"found {len(found)}" + (f"{NOTE}{note}" if note else ""),
            message=message,
            details=f"agents in the selection: {listed(a.name for a in scope.counted)}",
        )
        return self._copy()

    def does_not_call_agent(self, agent_name: str | Sequence[str], *, message: str | None = None) -> Self:
        """Fail when ``agent_name`` (one name or several) was invoked inside the selection."""
        __tracebackhide__ = True
        names = names_arg(agent_name, "agent", "does_not_call_agent")
        return self._no_agent_calls("does_not_call_agent", agent_name, names, message)

    def does_not_call_any_agent(self, agent_names: Sequence[str], *, message: str | None = None) -> Self:
        """Fail when any of ``agent_names`` was invoked inside the selection."""
        __tracebackhide__ = True
        names = names_arg(agent_names, "agent", "does_not_call_any_agent")
        return self._no_agent_calls("does_not_call_any_agent", agent_names, names, message)

    def _no_agent_calls(self, check: str, given: Any, names: tuple[str, ...], message: str | None) -> Self:
        __tracebackhide__ = True
        scope = self._agent_scope()
        wanted = set(names)
        found = [a for a in scope.counted if a.name in wanted]
        if not found:
            return self
        nested_ids = {id(a) for a in scope.nested}
        nested = [a for a in found if id(a) in nested_ids]
        problem = f"expected no invocation of {quoted(names, 'agent')}, found {len(found)}"
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
        self._fail(check_call(check, given), problem, message=message)
        return self

    def called_agents(
        self,
        count: int | None = None,
        min_count: int | None = None,
        max_count: int | None = None,
        *,
        message: str | None = None,
    ) -> Self:
        """Count every agent invocation inside the selection (nested ones included unless
        ``top_level_only()``); with no bound, at least one. Does not narrow."""
        __tracebackhide__ = True
        check_counts(count, min_count, max_count)
        scope = self._agent_scope()
        n = len(scope.counted)
        if not count_ok(n, count, min_count, max_count):
            note = _agent_note(scope, scope.counted, None, over_bound(n, count, max_count))
            self._fail(
                check_call("called_agents", count=count, min_count=min_count, max_count=max_count),
                f"expected {count_text(count, min_count, max_count)} agent invocation(s) in all, found {n}"
                + (f": {listed(a.name for a in scope.counted)}" if n else "")
                + (f"{NOTE}{note}" if note else ""),
                message=message,
            )
        return self


def _agent_note(scope: Scoped, found: list[AgentInvocation], wanted: set[str] | None, over: bool) -> str:
    if scope.top:
        left = [a for a in scope.left_out if wanted is None or a.name in wanted]
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
