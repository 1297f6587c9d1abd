"""Turn and conversation checks: ``turn(n)`` and ``conversation(id)`` (selectors), ``has_turn_count``.

A turn is a top-level agent run (``Trace.turns``); a conversation, the turns that share a conversation
id (``Trace.conversations``). The turns in a selection are the trace's turns it holds: after
``conversation(id)``, that conversation's; after a span selector, the turns with a selected span; else
all of them. ``turn(n)`` narrows to one (1-based; ``-1`` is the last), and every check after it sees
that turn's invocation and everything below it, invocation checks included.
"""

from __future__ import annotations

from ..._model.records import AgentInvocation
from ..count import AT_LEAST_ONE, Count
from ..describe import call_text
from ..fail import fail
from ..selection import Selection

__all__ = ["conversation", "describe_turns", "has_turn_count", "has_turns", "turn", "turns_in"]


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


def turns_in(sel: Selection) -> list[AgentInvocation]:
    all_turns = sel.trace.turns
    if sel.kind == "agents" and sel.agents is not None:
        chosen = {id(a) for a in sel.agents}
        return [t for t in all_turns if id(t) in chosen]
    return sel.in_selection(all_turns)


def _conversation_ids(sel: Selection) -> dict[int, str | None]:
    return {id(t): c.id for c in sel.trace.conversations for t in c.turns}


def _select_turns(sel: Selection, turns: list[AgentInvocation]) -> Selection:
    spans = tuple(s for t in turns for s in t.spans)
    return sel.narrow("agents", None, agents=tuple(turns), roots=spans)


def turn(sel: Selection, n: int, *, message: str | None = None) -> Selection:
    """Narrow to the ``n``-th turn of the selection (1-based; negative counts from the end); fail
    when there is no such turn."""
    __tracebackhide__ = True
    if isinstance(n, bool) or not isinstance(n, int) or n == 0:
        raise ValueError(f"turn numbers start at 1 (or count back from -1), got {n!r}")
    turns = turns_in(sel)
    index = n - 1 if n > 0 else len(turns) + n
    if 0 <= index < len(turns):
        return _select_turns(sel, [turns[index]])
    fail(
        sel,
        f"turn({n})",
        f"expected a turn {n}, found {len(turns)} turn(s)",
        message=message,
        details=f"turns in the selection: {describe_turns(turns, _conversation_ids(sel))}",
    )
    return sel


def conversation(sel: Selection, conversation_id: str | None, *, message: str | None = None) -> Selection:
    """Narrow to the turns of the conversation ``conversation_id`` (None: the turns that record no
    conversation id); fail when the selection has none."""
    __tracebackhide__ = True
    if conversation_id is not None and not isinstance(conversation_id, str):
        raise TypeError(f"conversation_id must be a str or None, got {conversation_id!r}")
    ids = _conversation_ids(sel)
    turns = turns_in(sel)
    found = [t for t in turns if ids.get(id(t)) == conversation_id]
    if found:
        return _select_turns(sel, found)
    known = sorted({repr(ids.get(id(t))) for t in turns})
    fail(
        sel,
        f"conversation({conversation_id!r})",
        f"expected turns of conversation {conversation_id!r}, found none",
        message=message,
        details=f"conversations in the selection: {', '.join(known) or 'none'}; "
        f"turns: {describe_turns(turns, ids)}",
    )
    return sel


def has_turn_count(sel: Selection, n: int, *, message: str | None = None) -> Selection:
    """Exactly ``n`` turns (top-level agent runs) in the selection."""
    __tracebackhide__ = True
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be an int >= 0, got {n!r}")
    return _turn_count(sel, f"has_turn_count({n})", Count(exact=n), str(n), message)


def has_turns(sel: Selection, *, count: Count = AT_LEAST_ONE, message: str | None = None) -> Selection:
    """As many turns (top-level agent runs) in the selection as ``count`` says (at least one)."""
    __tracebackhide__ = True
    return _turn_count(sel, call_text("has_turns", **count.keywords()), count, count.text, message)


def _turn_count(sel: Selection, check: str, count: Count, wanted: str, message: str | None) -> Selection:
    __tracebackhide__ = True
    turns = turns_in(sel)
    if not count.ok(len(turns)):
        fail(
            sel,
            check,
            f"expected {wanted} turn(s), found {len(turns)}",
            message=message,
            details=f"turns in the selection: {describe_turns(turns, _conversation_ids(sel))}",
        )
    return sel
