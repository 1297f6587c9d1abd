"""The record selectors and checks (Monocle style): tools, agents, handoffs and turns."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._checks.count import Count
from .._checks.monocle import agents as _agents
from .._checks.monocle import handoffs as _handoffs
from .._checks.monocle import tools as _tools
from .._checks.monocle import turns as _turns
from .._checks.names import NameLike, NamesLike
from .base import AsserterBase

if TYPE_CHECKING:
    from typing_extensions import Self

    from .types import AgentSelection, ToolSelection

__all__ = ["AgentFamily", "HandoffFamily", "ToolFamily", "TurnFamily"]


class ToolFamily(AsserterBase):
    """Select and count the tool calls inside the selection (failed calls count: the tool was called)."""

    __slots__ = ()

    def called_tool(
        self,
        tool_name: NamesLike,
        agent_name: NameLike | None = None,
        *,
        count: int | None = None,
        min_count: int | None = None,
        max_count: int | None = None,
        message: str | None = None,
    ) -> ToolSelection:
        """Narrow to the executions of ``tool_name`` (one name, or a list: any of them) inside the
        selection, by ``agent_name`` when given; fail when their number is not as asked (default: at
        least one). Failed executions count: the tool was called. Nested agents' calls count unless
        ``top_level_only()`` was called."""
        __tracebackhide__ = True
        return self._narrowed(
            "tools",
            _tools.called_tool(
                self._state,
                tool_name,
                agent_name,
                count=Count.of(count, min_count, max_count),
                message=message,
            ),
        )

    def called_any_tool(
        self,
        tool_names: NamesLike,
        agent_name: NameLike | None = None,
        *,
        count: int | None = None,
        min_count: int | None = None,
        max_count: int | None = None,
        message: str | None = None,
    ) -> ToolSelection:
        """``called_tool`` with several names: the calls of any of ``tool_names`` add up."""
        __tracebackhide__ = True
        return self._narrowed(
            "tools",
            _tools.called_any_tool(
                self._state,
                tool_names,
                agent_name,
                count=Count.of(count, min_count, max_count),
                message=message,
            ),
        )

    def does_not_call_tool(
        self, tool_names: NamesLike, agent_name: NameLike | None = None, *, message: str | None = None
    ) -> Self:
        """Fail when any of ``tool_names`` (one name or several) was called inside the selection (by
        ``agent_name`` when given). Nested agents' calls count unless ``top_level_only()`` was called."""
        __tracebackhide__ = True
        return self._keep(_tools.does_not_call_tool(self._state, tool_names, agent_name, message=message))

    def does_not_call_any_tool(
        self, tool_names: NamesLike, agent_name: NameLike | None = None, *, message: str | None = None
    ) -> Self:
        """Fail when any of ``tool_names`` was called inside the selection (by ``agent_name``)."""
        __tracebackhide__ = True
        return self._keep(_tools.does_not_call_any_tool(self._state, tool_names, agent_name, message=message))

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
        return self._keep(
            _tools.called_tools(self._state, Count.of(count, min_count, max_count), message=message)
        )


class AgentFamily(AsserterBase):
    """Select and count the agent invocations inside the selection."""

    __slots__ = ()

    def called_agent(
        self,
        agent_name: NamesLike,
        *,
        count: int | None = None,
        min_count: int | None = None,
        max_count: int | None = None,
        message: str | None = None,
    ) -> AgentSelection:
        """Narrow to the invocations of ``agent_name`` (one name, or a list: any of them) inside the
        selection, with everything below them; fail when their number is not as asked (default: at
        least one). Nested invocations count unless ``top_level_only()`` was called."""
        __tracebackhide__ = True
        return self._narrowed(
            "agents",
            _agents.called_agent(
                self._state, agent_name, count=Count.of(count, min_count, max_count), message=message
            ),
        )

    def called_any_agent(
        self,
        agent_names: NamesLike,
        *,
        count: int | None = None,
        min_count: int | None = None,
        max_count: int | None = None,
        message: str | None = None,
    ) -> AgentSelection:
        """``called_agent`` with several names: the invocations of any of ``agent_names`` add up."""
        __tracebackhide__ = True
        return self._narrowed(
            "agents",
            _agents.called_any_agent(
                self._state, agent_names, count=Count.of(count, min_count, max_count), message=message
            ),
        )

    def does_not_call_agent(self, agent_name: NamesLike, *, message: str | None = None) -> Self:
        """Fail when ``agent_name`` (one name or several) was invoked inside the selection."""
        __tracebackhide__ = True
        return self._keep(_agents.does_not_call_agent(self._state, agent_name, message=message))

    def does_not_call_any_agent(self, agent_names: NamesLike, *, message: str | None = None) -> Self:
        """Fail when any of ``agent_names`` was invoked inside the selection."""
        __tracebackhide__ = True
        return self._keep(_agents.does_not_call_any_agent(self._state, agent_names, message=message))

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
        return self._keep(
            _agents.called_agents(self._state, Count.of(count, min_count, max_count), message=message)
        )


class HandoffFamily(AsserterBase):
    """Select the agents handed off to inside the selection, and check there was no handoff."""

    __slots__ = ()

    def handed_off_to(self, agent_name: NamesLike, *, message: str | None = None) -> AgentSelection:
        """Narrow to the invocation(s) of ``agent_name`` (one name, or a list: any of them) that took
        over through a handoff made inside the selection; fail when there is no such handoff, or when
        the trace does not record the run of the agent handed to."""
        __tracebackhide__ = True
        return self._narrowed("agents", _handoffs.handed_off_to(self._state, agent_name, message=message))

    def does_not_hand_off(self, to: NamesLike | None = None, *, message: str | None = None) -> Self:
        """Fail when a handoff was made inside the selection (to ``to``, one agent name or several,
        when given)."""
        __tracebackhide__ = True
        return self._keep(_handoffs.does_not_hand_off(self._state, to, message=message))


class TurnFamily(AsserterBase):
    """Select turns (top-level agent runs) and conversations, and count turns."""

    __slots__ = ()

    def turn(self, n: int, *, message: str | None = None) -> AgentSelection:
        """Narrow to the ``n``-th turn of the selection (1-based; negative counts from the end); fail
        when there is no such turn."""
        __tracebackhide__ = True
        return self._narrowed("agents", _turns.turn(self._state, n, message=message))

    def conversation(self, conversation_id: str | None, *, message: str | None = None) -> AgentSelection:
        """Narrow to the turns of the conversation ``conversation_id`` (None: the turns that record no
        conversation id); fail when the selection has none."""
        __tracebackhide__ = True
        return self._narrowed("agents", _turns.conversation(self._state, conversation_id, message=message))

    def has_turn_count(self, n: int, *, message: str | None = None) -> Self:
        """Exactly ``n`` turns (top-level agent runs) in the selection; the same as
        ``has_turns(count=n)``."""
        __tracebackhide__ = True
        return self._keep(_turns.has_turn_count(self._state, n, message=message))

    def has_turns(
        self,
        *,
        count: int | None = None,
        min_count: int | None = None,
        max_count: int | None = None,
        message: str | None = None,
    ) -> Self:
        """As many turns (top-level agent runs) in the selection as the count says (at least one
        without one)."""
        __tracebackhide__ = True
        wanted = Count.of(count, min_count, max_count)
        return self._keep(_turns.has_turns(self._state, count=wanted, message=message))
