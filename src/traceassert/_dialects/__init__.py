"""Span dialects: each module turns the spans of one producer family into normalised operations.

A dialect module may also define ``might_claim(scope_name, attribute_keys) -> bool``: a test on names
alone that is False only when no span with that scope and those keys can be the dialect's.

``DIALECTS`` is asked in order and the first module that understands a span wins, so the specific
producers come before the generic GenAI conventions that several of them also emit.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from .._model.span import Span
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

Signature = tuple[str | None, tuple[str, ...]]

#: which dialects may claim spans of a (scope, attribute keys) signature: spans of one producer share
#: a few signatures, so each dialect's name-based test runs once per signature, not once per span
_CANDIDATES: dict[Signature, tuple[Classifier, ...]] = {}
_CACHE_LIMIT = 20_000


def _candidates(signature: Signature) -> tuple[Classifier, ...]:
    scope, keys = signature
    key_set = frozenset(keys)
    out: list[Classifier] = []
    for dialect in DIALECTS:
        might = getattr(dialect, "might_claim", None)
        if might is None or might(scope, key_set):
            out.append(dialect.classify)
    return tuple(out)


def classify(span: Span) -> Operation | None:
    """The operation ``span`` records, from the first dialect that understands it; None if none does."""
    signature = (span.scope_name, tuple(span.attributes))
    fns = _CANDIDATES.get(signature)
    if fns is None:
        fns = _candidates(signature)
        if len(_CANDIDATES) >= _CACHE_LIMIT:
            _CANDIDATES.clear()
        _CANDIDATES[signature] = fns
    for fn in fns:
        op = fn(span)
        if op is not None:
            return op
    return None
