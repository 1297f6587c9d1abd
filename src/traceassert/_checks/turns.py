"""Turn and conversation checks: ``turn(n)`` and ``conversation(id)`` (selectors), ``has_turn_count``.

A turn is a top-level agent run (``Trace.turns``); a conversation, the turns that share a conversation
id (``Trace.conversations``). The turns in a selection are the trace's turns it holds: after
``conversation(id)``, that conversation's; after a span selector, the turns with a selected span; else
all of them. ``turn(n)`` narrows to one (1-based; ``-1`` is the last), and every check after it sees
that turn's invocation and everything below it, invocation checks included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._model.records import AgentInvocation
from .selection import SelectionBase

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["TurnChecks", "describe_turns"]


def describe_turns(turns: list[AgentInvocation], ids: dict[int, str | None], limit: int = 10) -> str:
    """``1. orchestrator (conversation 'c1'), 2. ...``, or ``none``."""
    if not turns:
        return "none"
    parts = []
    for i, turn in enumerate(turns[:limit], 1):
        cid = ids.get(id(turn))
        parts.append(f"{i}. {turn.name}" + (f" (conversation {cid!r})" if cid is not None else ""))
    more = f", ... ({len(turns) - limit} more)" if len(turns) > limit else ""
    return ", ".join(parts) + more


class TurnChecks(SelectionBase):
    __slots__ = ()

    def _turns(self) -> list[AgentInvocation]:
        all_turns = self.trace.turns
        if self._kind == "agents" and self._agents is not None:
            chosen = {id(a) for a in self._agents}
            return [t for t in all_turns if id(t) in chosen]
        return self._in_selection(all_turns)

    def _conversation_ids(self) -> dict[int, str | None]:
        return {id(t): c.id for c in self.trace.conversations for t in c.turns}

    def _select_turns(self, turns: list[AgentInvocation]) -> Self:
        spans = tuple(s for t in turns for s in t.spans)
        return self._derive("agents", None, agents=tuple(turns), roots=spans)

    def turn(self, n: int, *, message: str | None = None) -> Self:
        """Narrow to the ``n``-th turn of the selection (1-based; negative counts from the end); fail
        when there is no such turn."""
        __tracebackhide__ = True
        if isinstance(n, bool) or not isinstance(n, int) or n == 0:
            raise ValueError(f"turn numbers start at 1 (or count back from -1), got {n!r}")
        turns = self._turns()
        index = n - 1 if n > 0 else len(turns) + n
        if 0 <= index < len(turns):
            return self._select_turns([turns[index]])
        self._fail(
            f"turn({n})",
            f"expected a turn {n}, found {len(turns)} turn(s)",
            message=message,
            details=f"turns in the selection: {describe_turns(turns, self._conversation_ids())}",
        )
        return self._copy()

    def conversation(self, conversation_id: str | None, *, message: str | None = None) -> Self:
        """Narrow to the turns of the conversation ``conversation_id`` (None: the turns that record no
        conversation id); fail when the selection has none."""
        __tracebackhide__ = True
        if conversation_id is not None and not isinstance(conversation_id, str):
            raise TypeError(f"conversation_id must be a str or None, got {conversation_id!r}")
        ids = self._conversation_ids()
        turns = self._turns()
        found = [t for t in turns if ids.get(id(t)) == conversation_id]
        if found:
            return self._select_turns(found)
        known = sorted({repr(ids.get(id(t))) for t in turns})
        self._fail(
            f"conversation({conversation_id!r})",
            f"expected turns of conversation {conversation_id!r}, found none",
            message=message,
            details=f"conversations in the selection: {', '.join(known) or 'none'}; "
            f"turns: {describe_turns(turns, ids)}",
        )
        return self._copy()

    def has_turn_count(self, n: int, *, message: str | None = None) -> Self:
        """Exactly ``n`` turns (top-level agent runs) in the selection."""
        __tracebackhide__ = True
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"n must be an int >= 0, got {n!r}")
        turns = self._turns()
        if len(turns) != n:
            self._fail(
                f"has_turn_count({n})",
                f"expected {n} turn(s), found {len(turns)}",
                message=message,
                details=f"turns in the selection: {describe_turns(turns, self._conversation_ids())}",
            )
        return self
