"""The text of a streamed response, from the chunk events a producer recorded on the model call."""

from __future__ import annotations

from collections.abc import Iterable

from .._model.span import Span

__all__ = ["CHUNK_EVENTS", "streamed_text"]

#: event names producers use for one streamed chunk
CHUNK_EVENTS = frozenset(
    {"gen_ai.content.completion.chunk", "llm.content.completion.chunk", "gen_ai.choice.chunk", "chunk"}
)
#: attribute keys that hold a chunk's text
_TEXT_KEYS = ("gen_ai.completion.chunk", "gen_ai.content", "content", "delta", "text", "chunk")


def streamed_text(spans: Iterable[Span]) -> str | None:
    """The chunks' text in order, joined; None when no chunk carries text (the producer recorded only
    that chunks arrived, or nothing)."""
    parts: list[str] = []
    for span in spans:
        for event in span.events:
            if event.name not in CHUNK_EVENTS:
                continue
            for key in _TEXT_KEYS:
                value = event.attributes.get(key)
                if isinstance(value, str):
                    parts.append(value)
                    break
    return "".join(parts) if parts else None
