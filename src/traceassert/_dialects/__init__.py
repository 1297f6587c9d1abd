"""Span dialects: each module turns the spans of one producer family into normalised operations.

``DIALECTS`` is asked in order and the first module that understands a span wins, so the specific
producers come before the generic GenAI conventions that several of them also emit.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from .._span import Span
from . import adk, genai, monocle, openinference, pydantic_ai, strands, traceloop
from ._base import Operation, ToolCallRequest

__all__ = ["DIALECTS", "Operation", "ToolCallRequest", "classify"]

Classifier = Callable[[Span], "Operation | None"]

#: order matters: producers whose spans also carry gen_ai.* keys come before the generic GenAI reader
DIALECTS: tuple[ModuleType, ...] = (
    monocle,
    openinference,
    traceloop,
    pydantic_ai,
    adk,
    strands,
    genai,
)

_CLASSIFIERS: tuple[Classifier, ...] = tuple(d.classify for d in DIALECTS)


def classify(span: Span) -> Operation | None:
    """The operation ``span`` records, from the first dialect that understands it; None if none does."""
    for fn in _CLASSIFIERS:
        op = fn(span)
        if op is not None:
            return op
    return None
