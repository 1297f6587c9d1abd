"""Turns and conversations: the top-level agent runs in start order, grouped by conversation id.

A turn is one top-level agent invocation (one user turn). The stand-in invocation that holds work
recorded outside any agent span is a turn only when the trace has no agent span at all. A turn's
conversation id is its invocation's, else the first one any span of the turn records under a key
producers use for it (`CONVERSATION_KEYS`); turns that record none form one conversation with id None.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._model.records import AgentInvocation, Conversation

if TYPE_CHECKING:
    from .._model.tree import SpanTree

__all__ = ["CONVERSATION_KEYS", "conversation_id", "conversations", "turn_headers", "turns"]

#: attribute keys that hold a conversation (session) id, in the order they are looked for
CONVERSATION_KEYS = (
    "gen_ai.conversation.id",
    "session.id",
    "scope.agentic.session",
    "scope.session_id",
    "traceloop.association.properties.session_id",
    "ai.telemetry.metadata.sessionId",
)


def turns(agents: Sequence[AgentInvocation]) -> tuple[AgentInvocation, ...]:
    """The turns among the top-level ``agents`` (see the module docstring), in start order."""
    real = [a for a in agents if not a.implicit]
    chosen = real if real else list(agents)
    return tuple(sorted(chosen, key=lambda a: a.start_ns))


def conversation_id(turn: AgentInvocation, tree: SpanTree) -> str | None:
    """The conversation id of ``turn``: its own, else the first one a span of the turn records."""
    if turn.conversation_id:
        return turn.conversation_id
    for span in (turn.span, *tree.descendants(turn.span)):
        attrs = span.attributes
        for key in CONVERSATION_KEYS:
            value = attrs.get(key)
            if isinstance(value, str) and value:
                return value
            if isinstance(value, int) and not isinstance(value, bool):
                return str(value)
    return None


def conversations(all_turns: Sequence[AgentInvocation], tree: SpanTree) -> tuple[Conversation, ...]:
    """``all_turns`` grouped by conversation id, in the order each conversation first appears."""
    groups: dict[str | None, list[AgentInvocation]] = {}
    for turn in all_turns:
        groups.setdefault(conversation_id(turn, tree), []).append(turn)
    return tuple(Conversation(key, tuple(items)) for key, items in groups.items())


def turn_headers(all_turns: Sequence[AgentInvocation], convs: Sequence[Conversation]) -> dict[int, str]:
    """``id(turn) -> "turn N of M"`` (with the conversation id when there are several conversations),
    for the rendered tree; empty for a single turn."""
    if len(all_turns) < 2:
        return {}
    ids = {id(t): c.id for c in convs for t in c.turns}
    out = {}
    for n, turn in enumerate(all_turns, 1):
        cid = ids.get(id(turn)) if len(convs) > 1 else None
        out[id(turn)] = f"turn {n} of {len(all_turns)}" + (f" (conversation {cid!r})" if cid else "")
    return out
